import { createServer, type Server, type AddressInfo, type Socket } from 'node:net';
import type { Broker } from '../broker.js';
import type { ApiDefinition } from '../apis/types.js';
import { Connection } from './connection.js';
import type { FaultRegistry } from '../faults/registry.js';
import type { ListenerContext } from './listener-context.js';
import { IdleConnections } from './idle-connections.js';
import { RequestMemoryPool } from './request-memory.js';
import { ManualTime } from '../util/manual-time.js';
import { monotonicTime } from '../util/time.js';
import type { ConnectionQuotas } from './connection-quotas.js';
import { nodeTls } from '../security/tls.js';
import { acceptedWithin, noteAccepted, runBehindWaiting } from './turn-budget.js';
import { setConnectionsArriving, setReceivedRequestsQueue } from '../util/received-requests.js';

/**
 * The listen backlog, in place of Kafka's `socket.listen.backlog.size` (50): Kafka accepts on a
 * thread of its own (its `Acceptor`), so its queue rarely fills; Node accepts one connection per
 * event-loop turn (libuv 1.45+), so a thousand clients connecting at once wait in the queue while
 * the turns answer the first ones, and they overflowed Node's default of 511 (the kernel drops
 * their handshakes, which the clients retry after 1, 2, 4 s). The kernel caps it at
 * `net.core.somaxconn`, as Go's listeners ask for.
 */
const LISTEN_BACKLOG = 4096;
/** Node's own default `handshakeTimeout` (ms), kept where connections.max.idle.ms is longer or off. */
const TLS_HANDSHAKE_TIMEOUT_MS = 120_000;

/** Connection totals shared by a server's listeners (read by the admin API's /metrics at scrape time). */
export interface ConnectionStats {
  /** Connections accepted since start. */
  accepted: number;
  /** Connections open now. */
  open: number;
  /** Connections not read because `queued.max.request.bytes` is used up (0 without that cap). */
  waitingForMemory?: number;
  /** Connections waiting, unread, for a slot under `max.connections` (Kafka's acceptor blocks meanwhile). */
  waitingForSlot?: number;
  /** Requests being worked on in slices now (frames of `DECODE_IN_SLICES_BYTES` or more, from their decoding to their answer). */
  inSlices?: number;
  /** Connections whose socket is not read while their request is in flight (muted, as Kafka's `Processor` mutes a channel). */
  mutedUnread?: number;
  /** Connections served no further request until their client reads what was written to it (Kafka: until the response is sent). */
  waitingForDrain?: number;
  /** Socket reads handed to the connections' frame readers since start. */
  frameReads?: number;
  /** The most socket reads one connection's frame reader has held at once since start (`MAX_HELD_CHUNKS`, frame-reader.ts, bounds it). */
  frameChunksPeak?: number;
}

/**
 * The Kafka listener: accepts connections (over TLS on SSL and SASL_SSL listeners, once the
 * handshake completed) and hands each to a Connection. `close()` stops accepting, drops open
 * connections and handshakes in progress, and resolves once the listener and every socket are closed.
 */
export class KafkaListener {
  private readonly server: Server;
  private readonly connections = new Set<Connection>();
  /** Every TCP socket, handshakes in progress included (a TLS server's close waits for them). */
  private readonly sockets = new Set<Socket>();
  /** `connections.max.idle.ms` on the server clock. */
  private readonly idle: IdleConnections;
  /** `queued.max.request.bytes` (this listener's connections; Kafka's pool spans a broker's listeners). */
  private readonly memory: RequestMemoryPool | undefined;

  constructor(
    private readonly broker: Broker,
    private readonly handlers: ReadonlyMap<number, ApiDefinition>,
    private readonly faults?: FaultRegistry,
    /** The simulated broker this listener belongs to (`--brokers N`); default `broker.nodeId`. */
    readonly brokerId: number = broker.nodeId,
    private readonly stats: ConnectionStats = { accepted: 0, open: 0 },
    private readonly context?: ListenerContext,
    /** `max.connections`, `max.connections.per.ip` of this listener's broker (absent: no limits). */
    private readonly quotas?: ConnectionQuotas,
  ) {
    // Real time on a monotonic clock, as Kafka's Selector (`System.nanoTime`), except on the manual
    // clock (`--clock manual`), whose advances then close idle connections; a `time` injected
    // in-process drives the coordinators only.
    const idleTime = broker.time instanceof ManualTime ? broker.time : monotonicTime;
    this.idle = new IdleConnections(idleTime, Number(broker.config.long('connections.max.idle.ms')));
    const queuedMaxBytes = Number(broker.config.long('queued.max.request.bytes'));
    let waiting = 0;
    this.memory = queuedMaxBytes > 0
      ? new RequestMemoryPool(queuedMaxBytes, (count) => {
          this.stats.waitingForMemory = (this.stats.waitingForMemory ?? 0) + count - waiting;
          waiting = count;
        })
      : undefined;
    const open = (socket: Socket) => {
      const connection = new Connection(socket, this.broker, this.handlers, (c) => {
        if (this.connections.delete(c)) this.stats.open--;
        this.quotas?.closed(socket);
      }, this.faults, this.brokerId, this.context, this.idle, this.memory, this.stats);
      this.connections.add(connection);
      this.stats.accepted++;
      this.stats.open++;
    };
    const accept = (socket: Socket) => {
      noteAccepted();
      if (this.quotas) this.quotas.accept(socket, () => open(socket));
      else open(socket);
    };
    const tls = context?.tls;
    // A connection still in its TLS handshake is not yet ours to track as idle: Node closes it after
    // `handshakeTimeout`, which is here connections.max.idle.ms (real time; at most Node's 120 s), as
    // Kafka's Selector expires an idle channel whatever its handshake state.
    const idleMs = Number(broker.config.long('connections.max.idle.ms'));
    this.server = tls
      ? nodeTls().createServer({ ...tls.options, handshakeTimeout: idleMs > 0 ? Math.min(idleMs, TLS_HANDSHAKE_TIMEOUT_MS) : TLS_HANDSHAKE_TIMEOUT_MS }, accept)
      : createServer(accept);
    if (tls) {
      // A client that does not trust our certificate, or one we do not trust: the handshake fails, nothing else happens.
      // The socket is closed here: Node leaves one whose handshake timed out open.
      this.server.on('tlsClientError', (err: Error, socket: Socket) => {
        broker.log.info({ listener: context.spec.name, remote: `${socket.remoteAddress}:${socket.remotePort}`, err: err.message }, 'TLS handshake failed');
        socket.destroy();
      });
    }
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  listen(host: string, port: number): Promise<AddressInfo> {
    // Coordinator timers' operations wait behind the requests read and not yet handled (util/received-requests.ts).
    setReceivedRequestsQueue(runBehindWaiting);
    setConnectionsArriving(acceptedWithin);
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ host: host === '' ? undefined : host, port, backlog: LISTEN_BACKLOG }, () => {
        this.server.off('error', reject);
        resolve(this.server.address() as AddressInfo);
      });
    });
  }

  close(): Promise<void> {
    this.idle.close();
    // Resolved once every socket has closed too (its connection counted out of `connections.open`
    // first), not only the listening one: a test asserting no open connections after close sees none
    // (new-user trial 29).
    const socketsClosed = [...this.sockets].map((s) => new Promise<void>((resolve) => s.once('close', () => resolve())));
    const listenerClosed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const c of this.connections) c.destroy();
    for (const s of this.sockets) s.destroy();
    return Promise.all([listenerClosed, ...socketsClosed]).then(() => undefined);
  }
}
