/**
 * `max.connections` and `max.connections.per.ip` (with `max.connections.per.ip.overrides`), as
 * Kafka's `ConnectionQuotas` applies them to one broker's listeners:
 * - over `max.connections` a new connection waits, unread, until another one closes (Kafka's
 *   acceptor blocks in `waitForConnectionSlot`, leaving it in the listen backlog); a client sees a
 *   connection that does not answer yet. At most `socket.listen.backlog.size` (50) wait, as in
 *   Kafka's backlog, whose overflow the kernel drops: more are closed at once (each waiting one
 *   holds a file descriptor here, and 3,000 of them left none for the log's files: EMFILE,
 *   adversarial trial, session 22);
 * - then, if its address already has its maximum (an override for that address, else
 *   `max.connections.per.ip`), it is closed at once (Kafka's TooManyConnectionsException: "Rejected
 *   connection from ..., address already has the configured maximum of N connections.").
 * Limits are read at each new connection, so a dynamic change (IncrementalAlterConfigs on the
 * broker) applies to the next one, and a raised `max.connections` admits the waiting connections at
 * once (`limitsChanged`); connections already open stay open. Host names in the overrides are
 * resolved at start and at each change, connections arriving meanwhile waiting for the answer.
 */
import { isIP } from 'node:net';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { parseConnectionOverrides } from '../config.js';
import { lazyModule } from '../util/lazy-module.js';

/** Node's dns, loaded when an override names a host (util/lazy-module.ts): most starts have none. */
const nodeDns = lazyModule<typeof import('node:dns')>('node:dns', 'the host names of max.connections.per.ip.overrides');

/** The limits in force (broker config values). */
export interface ConnectionLimits {
  /** `max.connections` */
  maxConnections: number;
  /** `max.connections.per.ip` */
  maxConnectionsPerIp: number;
  /** `max.connections.per.ip.overrides`: "host:count,..." */
  overrides: string;
  /** `socket.listen.backlog.size`: how many may wait for a slot under `max.connections`. */
  listenBacklog: number;
}

/** The address Kafka counts a connection under (an IPv4 peer of a dual-stack listener as plain IPv4). */
export function peerAddress(socket: Socket): string {
  return (socket.remoteAddress ?? 'unknown').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
}

export class ConnectionQuotas {
  private total = 0;
  private readonly perAddress = new Map<string, number>();
  /** Connections waiting for a slot under `max.connections`, oldest first. */
  private readonly waiting: Array<{ socket: Socket; admit: () => void }> = [];
  /** Overrides named by host name, as resolved (`InetAddress.getByName`); resolved in the background when first seen. */
  private readonly resolved = new Map<string, string | null>();
  /** The host names of overrides changed at run time being resolved (`limitsChanged`); null when none are. */
  private resolving: Promise<void> | null = null;

  constructor(
    private readonly limits: () => ConnectionLimits,
    private readonly log: Logger,
    /** Told of each change of the number of connections waiting for a slot (+1, -1). */
    private readonly onWaiting: (delta: number) => void = () => {},
  ) {}

  /** Open connections counted (admitted, not yet closed). */
  get open(): number {
    return this.total;
  }

  /** Connections waiting for a slot under `max.connections`. */
  get waitingForSlot(): number {
    return this.waiting.length;
  }

  /**
   * A new connection: `admit` runs now, or once a slot frees (the socket is paused meanwhile), or
   * never when its address is over its limit (the socket is destroyed). An admitted connection's
   * close must be reported with `closed(socket)`.
   */
  accept(socket: Socket, admit: () => void): void {
    const limits = this.limits();
    if (this.total >= limits.maxConnections) {
      if (this.waiting.length >= limits.listenBacklog) {
        this.log.info({ remote: peerAddress(socket), waiting: this.waiting.length }, `Closed connection from /${peerAddress(socket)}: max.connections (${limits.maxConnections}) reached and socket.listen.backlog.size (${limits.listenBacklog}) connections already waiting`);
        socket.destroy();
        return;
      }
      socket.pause();
      const entry = { socket, admit };
      this.waiting.push(entry);
      this.onWaiting(1);
      socket.once('close', () => {
        const i = this.waiting.indexOf(entry);
        if (i < 0) return;
        this.waiting.splice(i, 1);
        this.onWaiting(-1);
      });
      return;
    }
    this.admitOrReject(socket, admit);
  }

  /** An admitted connection closed: its slot goes to the oldest waiting connection. */
  closed(socket: Socket): void {
    const address = peerAddress(socket);
    const n = (this.perAddress.get(address) ?? 1) - 1;
    if (n > 0) this.perAddress.set(address, n);
    else this.perAddress.delete(address);
    this.total--;
    this.admitWaiting();
  }

  /**
   * The limits may have changed (a dynamic broker config): a raised `max.connections` admits the
   * connections waiting for a slot now, as Kafka's `updateBrokerMaxConnections` wakes its acceptor.
   */
  limitsChanged(): void {
    // Host names an override names now are resolved at the change, as Kafka's
    // `updateMaxConnectionsPerIpOverride` does (`InetAddress.getByName`); connections that come
    // meanwhile wait for the answer (else the first ones after the change escaped the override).
    if (this.unresolvedHosts().length > 0) {
      const resolving = this.resolveHosts()
        .catch(() => {})
        .finally(() => {
          if (this.resolving === resolving) this.resolving = null;
        });
      this.resolving = resolving;
    }
    this.admitWaiting();
  }

  /** Admits waiting connections, oldest first, while there are slots under `max.connections`. */
  private admitWaiting(): void {
    const max = this.limits().maxConnections;
    while (this.total < max && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      this.onWaiting(-1);
      if (next.socket.destroyed) continue;
      // Read again once the connection listens for data (bytes read before would be lost).
      this.admitOrReject(next.socket, () => {
        next.admit();
        next.socket.resume();
      });
    }
  }

  /** Resolves the host names the overrides name now (at start: the first connections find them resolved). */
  async resolveHosts(): Promise<void> {
    await Promise.all(this.unresolvedHosts().map(async (h) => this.resolved.set(h, await nodeDns().promises.lookup(h).then((r) => r.address, () => null))));
  }

  /** The host names (not addresses) the overrides name now that have no address yet. */
  private unresolvedHosts(): string[] {
    return [...parseConnectionOverrides(this.limits().overrides).keys()].filter((h) => isIP(h) === 0 && !this.resolved.get(h));
  }

  private admitOrReject(socket: Socket, admit: () => void): void {
    if (this.resolving) {
      socket.pause();
      void this.resolving.then(() => {
        if (socket.destroyed) return;
        this.admitOrReject(socket, () => {
          admit();
          socket.resume();
        });
      });
      return;
    }
    const address = peerAddress(socket);
    const count = this.perAddress.get(address) ?? 0;
    const max = this.maxFor(address);
    if (count >= max) {
      this.log.info({ remote: address }, `Rejected connection from /${address}, address already has the configured maximum of ${max} connections.`);
      socket.destroy();
      return;
    }
    this.perAddress.set(address, count + 1);
    this.total++;
    admit();
  }

  /** The limit of `address`: its override (by IP, or by a host name resolving to it), else `max.connections.per.ip`. */
  private maxFor(address: string): number {
    const { maxConnectionsPerIp, overrides } = this.limits();
    if (overrides === '') return maxConnectionsPerIp;
    for (const [host, count] of parseConnectionOverrides(overrides)) {
      if (host === address) return count;
      if (isIP(host) !== 0) continue;
      if (!this.resolved.has(host)) {
        this.resolved.set(host, null);
        nodeDns().lookup(host, (err, ip) => this.resolved.set(host, err ? null : ip));
      }
      if (this.resolved.get(host) === address) return count;
    }
    return maxConnectionsPerIp;
  }
}
