import type { Broker } from '../broker.js';
import type { ApiDefinition } from '../apis/types.js';
import type { FaultRegistry } from '../faults/registry.js';
import { KafkaListener, type ConnectionStats } from './server.js';
import type { ListenerContext } from './listener-context.js';
import { ConnectionQuotas, type ConnectionLimits } from './connection-quotas.js';

const ANY_HOST = new Set(['', '0.0.0.0', '::']);

/** Tries at choosing consecutive free ports for a port-0 listener of several brokers. */
const FREE_PORT_ATTEMPTS = 20;

/** A port after the first broker's free one was taken (or past 65535): choose again. */
class PortAfterFreeTaken extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

/** One listener of the first broker, as `server.listeners` reports it. */
export interface ListenerInfo {
  readonly name: string;
  readonly securityProtocol: string;
  /** The bound port. */
  readonly port: number;
  /** The advertised `host:port` (what clients of this listener use as `bootstrap.servers`). */
  readonly bootstrap: string;
}

/**
 * Every listener of every simulated broker (`--brokers N`): broker `i` (0-based) listens on each
 * configured port plus `i` (a port 0: a free one for the first broker, plus `i`), and advertises each listener's
 * advertised port plus `i`, or its bound address (`localhost` for every interface). Metadata and
 * FindCoordinator answer a client with the addresses of the listener it connected through.
 */
export class BrokerListeners {
  private readonly open = new Map<number, KafkaListener[]>();
  /** Bound port per broker id, per listener (in `contexts` order). */
  private readonly bound = new Map<number, number[]>();
  /** `max.connections` and `max.connections.per.ip` per broker id (Kafka's `ConnectionQuotas` spans a broker's listeners). */
  private readonly quotas = new Map<number, ConnectionQuotas>();
  /** Removes the quotas' config listeners (closeAll). */
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    private readonly broker: Broker,
    private readonly handlers: ReadonlyMap<number, ApiDefinition>,
    private readonly faults: FaultRegistry,
    private readonly contexts: readonly ListenerContext[],
    /** Connection totals across every listener (the admin API's /metrics). */
    private readonly stats: ConnectionStats = { accepted: 0, open: 0 },
  ) {}

  /**
   * Opens every listener of every broker; closes what it opened on failure. A listener on port 0
   * gives the first broker a free port and the others the ports after it, as a given port does,
   * so that a restart with `--port <first>` finds every broker where it was (the recipes'
   * `restart()`); a port after it that is taken starts the whole choice again on another free one.
   */
  async openAll(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.openEach();
        return;
      } catch (err) {
        if (!(err instanceof PortAfterFreeTaken) || attempt === FREE_PORT_ATTEMPTS) {
          await this.closeAll();
          throw err instanceof PortAfterFreeTaken ? err.cause : err;
        }
        // The listeners only: the brokers' connection quotas stay for the next try.
        const opened = [...this.open.values()].flat();
        this.open.clear();
        await Promise.all(opened.map((l) => l.close()));
      }
    }
  }

  private async openEach(): Promise<void> {
    /** The free port the first broker got, per listener given port 0. */
    const firstFree = new Map<ListenerContext, number>();
    for (const [i, id] of this.broker.cluster.brokerIds.entries()) {
      const ports: number[] = [];
      for (const ctx of this.contexts) {
        const { spec } = ctx;
        if (spec.port !== 0 && spec.port + i > 65535) throw new Error(`no port for broker ${id} on listener ${spec.name}: ${spec.port + i} is out of range`);
        const free = firstFree.get(ctx);
        let address: number;
        if (free === undefined) {
          address = await this.listen(id, ctx, spec.port === 0 ? 0 : spec.port + i);
          if (spec.port === 0) firstFree.set(ctx, address);
        } else {
          if (free + i > 65535) throw new PortAfterFreeTaken(new Error(`no port for broker ${id} on listener ${spec.name}: ${free + i} is out of range`));
          address = await this.listen(id, ctx, free + i).catch((err: NodeJS.ErrnoException) => {
            throw err.code === 'EADDRINUSE' ? new PortAfterFreeTaken(err) : err;
          });
        }
        ports.push(address);
        const endpoint = spec.advertised
          ? { host: spec.advertised.host, port: spec.advertised.port + i }
          : { host: ANY_HOST.has(spec.host) ? 'localhost' : spec.host, port: address };
        this.broker.cluster.setEndpoint(id, endpoint, spec.name, ctx === this.contexts[0]);
      }
      this.bound.set(id, ports);
    }
  }

  private async listen(id: number, ctx: ListenerContext, port: number): Promise<number> {
    const listener = new KafkaListener(this.broker, this.handlers, this.faults, id, this.stats, ctx, await this.quotasOf(id));
    let list = this.open.get(id);
    if (!list) this.open.set(id, (list = []));
    const address = await listener.listen(ctx.spec.host, port);
    list.push(listener);
    return address.port;
  }

  /** The connection quotas of broker `id`, read from its (dynamic) config at each new connection. */
  private async quotasOf(id: number): Promise<ConnectionQuotas> {
    let quotas = this.quotas.get(id);
    if (!quotas) {
      const value = (key: string) => this.broker.configs.brokerValue(key, id) ?? '';
      // Resolved once per config change, not per connection (resolving a broker config walks its
      // synonyms: ~0.1 ms, a tenth of a second when a thousand clients connect at once).
      let limits: ConnectionLimits | undefined;
      this.unsubscribe.push(this.broker.configs.store.onBrokerConfigsChanged(() => (limits = undefined)));
      quotas = new ConnectionQuotas(
        () => (limits ??= { maxConnections: Number(value('max.connections')), maxConnectionsPerIp: Number(value('max.connections.per.ip')), overrides: value('max.connections.per.ip.overrides'), listenBacklog: this.broker.config.int('socket.listen.backlog.size') }),
        this.broker.log,
        (delta) => (this.stats.waitingForSlot = (this.stats.waitingForSlot ?? 0) + delta),
      );
      this.quotas.set(id, quotas);
      // A raised max.connections admits the connections waiting for a slot at once.
      const admit = quotas;
      this.unsubscribe.push(this.broker.configs.store.onBrokerConfigsChanged(() => admit.limitsChanged()));
      await quotas.resolveHosts();
    }
    return quotas;
  }

  /** Bound port of the first listener, per broker id. */
  firstPorts(): Map<number, number> {
    return new Map([...this.bound].map(([id, ports]) => [id, ports[0]!]));
  }

  /** The first broker's listeners. */
  describe(): ListenerInfo[] {
    const ports = this.bound.get(this.broker.nodeId) ?? [];
    return this.contexts.map((ctx, i) => {
      const endpoint = this.broker.cluster.endpoint(this.broker.nodeId, ctx.spec.name);
      return { name: ctx.spec.name, securityProtocol: ctx.spec.securityProtocol, port: ports[i]!, bootstrap: `${endpoint.host}:${endpoint.port}` };
    });
  }

  /** Closes a broker's listeners (`stopBroker`). */
  async stop(id: number): Promise<void> {
    const list = this.open.get(id) ?? [];
    this.open.delete(id);
    await Promise.all(list.map((l) => l.close()));
  }

  /**
   * Opens a stopped broker's listeners again on their ports (`startBroker`). One that cannot
   * listen (another process took its port meanwhile: EADDRINUSE) closes those it opened and throws
   * the error with the port in `port`: the broker stays stopped.
   */
  async start(id: number): Promise<void> {
    const ports = this.bound.get(id)!;
    for (const [i, ctx] of this.contexts.entries()) {
      try {
        await this.listen(id, ctx, ports[i]!);
      } catch (err) {
        await this.stop(id);
        throw Object.assign(err as Error, { port: ports[i]! });
      }
    }
  }

  async closeAll(): Promise<void> {
    const all = [...this.open.values()].flat();
    this.open.clear();
    for (const stop of this.unsubscribe.splice(0)) stop();
    await Promise.all(all.map((l) => l.close()));
  }
}
