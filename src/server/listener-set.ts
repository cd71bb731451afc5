import type { Broker } from '../broker.js';
import type { ApiDefinition } from '../apis/types.js';
import type { FaultRegistry } from '../faults/registry.js';
import { KafkaListener, type ConnectionStats } from './server.js';
import type { ListenerContext } from './listener-context.js';
import { ConnectionQuotas, type ConnectionLimits } from './connection-quotas.js';

const ANY_HOST = new Set(['', '0.0.0.0', '::']);

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
 * configured port plus `i` (a port 0 picks a free one per broker), and advertises each listener's
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

  /** Opens every listener of every broker; closes what it opened on failure. */
  async openAll(): Promise<void> {
    try {
      for (const [i, id] of this.broker.cluster.brokerIds.entries()) {
        const ports: number[] = [];
        for (const ctx of this.contexts) {
          const { spec } = ctx;
          if (spec.port !== 0 && spec.port + i > 65535) throw new Error(`no port for broker ${id} on listener ${spec.name}: ${spec.port + i} is out of range`);
          const address = await this.listen(id, ctx, spec.port === 0 ? 0 : spec.port + i);
          ports.push(address);
          const endpoint = spec.advertised
            ? { host: spec.advertised.host, port: spec.advertised.port + i }
            : { host: ANY_HOST.has(spec.host) ? 'localhost' : spec.host, port: address };
          this.broker.cluster.setEndpoint(id, endpoint, spec.name, ctx === this.contexts[0]);
        }
        this.bound.set(id, ports);
      }
    } catch (err) {
      await this.closeAll();
      throw err;
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
