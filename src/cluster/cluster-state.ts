import { javaStringHashCode, kafkaAbs } from '../util/java-hash.js';
import { GROUP_METADATA_TOPIC_NAME } from '../topics/topic-name.js';
import { MAX_TIMER_MS, wallNow } from '../util/time.js';

/** Where clients reach one broker (what Metadata and FindCoordinator answer). */
export interface BrokerEndpoint {
  host: string;
  port: number;
}

/** One simulated broker as the control surfaces report it. */
export interface ClusterBrokerInfo {
  id: number;
  host: string;
  port: number;
  /** false after `stopBroker` (its listener is closed). */
  up: boolean;
}

/** Kafka's `__transaction_state` (FindCoordinator key type 1 is routed like a group over it). */
export const TRANSACTION_STATE_TOPIC_NAME = '__transaction_state';
/** Kafka's default `transaction.state.log.num.partitions`. */
const TRANSACTION_STATE_PARTITIONS = 50;

/** A refused cluster action (unknown broker, unknown topic, ...). HTTP answers 400 (404 for an unknown broker). */
export class ClusterError extends Error {
  override readonly name = 'ClusterError';
  constructor(message: string, readonly statusCode: 400 | 404 | 409 = 400) {
    super(message);
  }
}

export interface ClusterStateOptions {
  /** The first broker id (`node.id`); the others follow: firstId+1, firstId+2, ... */
  firstId: number;
  /** How many brokers (default 1). */
  count: number;
  /** `offsets.topic.num.partitions`. */
  offsetsPartitions: number;
  /** `transaction.state.log.num.partitions` (default 50). */
  transactionPartitions?: number;
  /** Partition count of a user topic, or undefined when it does not exist. */
  partitionCount: (topic: string) => number | undefined;
}

/**
 * The simulated cluster: N brokers (ids `node.id` .. `node.id + N - 1`) that share one Broker
 * state and differ only in which partitions they lead and which groups they coordinate.
 *
 * - Every partition is replicated on every broker (replication factor N). Its replica list starts
 *   at its preferred leader `brokers[(partition + abs(javaHash(topic))) % N]` and goes on in broker
 *   order, wrapping around; the leader is the first replica that is up. So one topic's partitions
 *   are spread round-robin and different topics start on different brokers.
 *   `moveLeader(topic, p, b)` puts `b` at the head of that partition's replica list.
 * - The coordinator of a group is the leader of its `__consumer_offsets` partition
 *   (`abs(javaHash(groupId)) % offsets.topic.num.partitions`), by the same rule, unless
 *   `moveCoordinator(group, b)` pinned it to `b` (while `b` is up). A transactional id's
 *   coordinator is the leader of its `__transaction_state` partition, or where
 *   `moveTransactionCoordinator(id, b)` pinned it.
 * - A stopped broker leads nothing: its partitions and groups fail over to the next live replica
 *   and come back when it starts again (as preferred leader election would).
 * - Leader epochs live with the partitions (src/topics/leader-epochs.ts); control.ts bumps them on every leader change.
 */
export class ClusterState {
  readonly brokerIds: readonly number[];
  /** Where clients of the first listener reach each broker (what the control surfaces report). */
  private readonly endpoints = new Map<number, BrokerEndpoint>();
  /** Per listener name: where clients who connected through that listener reach each broker. */
  private readonly listenerEndpoints = new Map<string, Map<number, BrokerEndpoint>>();
  private readonly down = new Set<number>();
  private readonly leaderOverrides = new Map<string, number>();
  private readonly coordinatorOverrides = new Map<string, number>();
  private readonly transactionCoordinatorOverrides = new Map<string, number>();
  /** Real-time deadline (Date.now()) of COORDINATOR_LOAD_IN_PROGRESS, per group; `allLoadingUntil` for every group. */
  private readonly loadingUntil = new Map<string, number>();
  private allLoadingUntil = 0;

  constructor(private readonly options: ClusterStateOptions) {
    if (!Number.isInteger(options.count) || options.count < 1) throw new ClusterError(`brokers must be an integer >= 1, got ${options.count}`);
    this.brokerIds = Array.from({ length: options.count }, (_, i) => options.firstId + i);
    for (const id of this.brokerIds) this.endpoints.set(id, { host: 'localhost', port: 9092 + id - options.firstId });
  }

  get size(): number {
    return this.brokerIds.length;
  }

  isBroker(id: number): boolean {
    return this.endpoints.has(id);
  }

  /** Throws ClusterError (404) for an id that is not one of ours. */
  checkBroker(id: number): void {
    if (!Number.isInteger(id) || !this.isBroker(id)) throw new ClusterError(`unknown broker ${id} (brokers: ${this.brokerIds.join(', ')})`, 404);
  }

  /**
   * Where a client reaches broker `id`: through `listener` (its advertised address on that
   * listener, as Kafka's `MetadataCache.getAliveBrokerNode(id, listenerName)`), else the first listener.
   */
  endpoint(id: number, listener?: string): BrokerEndpoint {
    this.checkBroker(id);
    return (listener !== undefined ? this.listenerEndpoints.get(listener)?.get(id) : undefined) ?? this.endpoints.get(id)!;
  }

  /** Sets where clients of `listener` reach broker `id`; without a listener (or for the first one), the default. */
  setEndpoint(id: number, endpoint: BrokerEndpoint, listener?: string, first = listener === undefined): void {
    this.checkBroker(id);
    const copy = { host: endpoint.host, port: endpoint.port };
    if (first) this.endpoints.set(id, copy);
    if (listener !== undefined) {
      let byId = this.listenerEndpoints.get(listener);
      if (!byId) this.listenerEndpoints.set(listener, (byId = new Map()));
      byId.set(id, copy);
    }
  }

  isUp(id: number): boolean {
    return this.isBroker(id) && !this.down.has(id);
  }

  /** Marks a broker down or up (the server closes or reopens its listener). */
  setUp(id: number, up: boolean): void {
    this.checkBroker(id);
    if (up) this.down.delete(id);
    else this.down.add(id);
  }

  brokers(): ClusterBrokerInfo[] {
    return this.brokerIds.map((id) => ({ id, ...this.endpoints.get(id)!, up: this.isUp(id) }));
  }

  /** The live brokers, with their addresses on `listener` (default: the first listener). */
  liveBrokers(listener?: string): ClusterBrokerInfo[] {
    return this.brokerIds.filter((id) => this.isUp(id)).map((id) => ({ id, ...this.endpoint(id, listener), up: true }));
  }

  /** The controller id reported by Metadata and DescribeCluster: the lowest live broker (-1 if none). */
  controllerId(): number {
    return this.brokerIds.find((id) => this.isUp(id)) ?? -1;
  }

  /** Replica list of a partition: its preferred leader first (or the moved-to broker), then the others in broker order. */
  replicas(topic: string, partition: number): number[] {
    const n = this.brokerIds.length;
    const start = (partition + kafkaAbs(javaStringHashCode(topic))) % n;
    const out = Array.from({ length: n }, (_, i) => this.brokerIds[(start + i) % n]!);
    const moved = this.leaderOverrides.get(partitionKey(topic, partition));
    if (moved !== undefined) {
      out.splice(out.indexOf(moved), 1);
      out.unshift(moved);
    }
    return out;
  }

  /** The live broker leading a partition, or -1 when every broker is down. */
  leaderOf(topic: string, partition: number): number {
    if (this.brokerIds.length === 1 && this.down.size === 0) return this.brokerIds[0]!;
    return this.replicas(topic, partition).find((id) => !this.down.has(id)) ?? -1;
  }

  /** The group's `__consumer_offsets` partition. */
  offsetsPartitionOf(groupId: string): number {
    return kafkaAbs(javaStringHashCode(groupId)) % this.options.offsetsPartitions;
  }

  /** The broker coordinating a group (FindCoordinator's answer), or -1 when every broker is down. */
  coordinatorOf(groupId: string): number {
    const pinned = this.coordinatorOverrides.get(groupId);
    if (pinned !== undefined && this.isUp(pinned)) return pinned;
    return this.leaderOf(GROUP_METADATA_TOPIC_NAME, this.offsetsPartitionOf(groupId));
  }

  /** The broker coordinating a transactional id (leader of its `__transaction_state` partition, unless pinned), or -1 when every broker is down. */
  transactionCoordinatorOf(transactionalId: string): number {
    const pinned = this.transactionCoordinatorOverrides.get(transactionalId);
    if (pinned !== undefined && this.isUp(pinned)) return pinned;
    return this.leaderOf(TRANSACTION_STATE_TOPIC_NAME, kafkaAbs(javaStringHashCode(transactionalId)) % (this.options.transactionPartitions ?? TRANSACTION_STATE_PARTITIONS));
  }

  /** Pins a group's coordinator to `brokerId` (the previous coordinator then answers NOT_COORDINATOR). */
  moveCoordinator(groupId: string, brokerId: number): void {
    if (typeof groupId !== 'string' || groupId === '') throw new ClusterError('groupId must be a non-empty string');
    this.checkBroker(brokerId);
    this.coordinatorOverrides.set(groupId, brokerId);
  }

  /** Pins a transactional id's coordinator to `brokerId` (the previous coordinator then answers NOT_COORDINATOR). */
  moveTransactionCoordinator(transactionalId: string, brokerId: number): void {
    if (typeof transactionalId !== 'string' || transactionalId === '') throw new ClusterError('transactionalId must be a non-empty string');
    this.checkBroker(brokerId);
    this.transactionCoordinatorOverrides.set(transactionalId, brokerId);
  }

  /** Makes `brokerId` lead `topic`-`partition` (the previous leader then answers NOT_LEADER_OR_FOLLOWER). */
  moveLeader(topic: string, partition: number, brokerId: number): void {
    if (typeof topic !== 'string' || topic === '') throw new ClusterError('topic must be a non-empty string');
    this.checkBroker(brokerId);
    const count = topic === GROUP_METADATA_TOPIC_NAME ? this.options.offsetsPartitions : this.options.partitionCount(topic);
    if (count === undefined) throw new ClusterError(`unknown topic "${topic}"`, 404);
    if (!Number.isInteger(partition) || partition < 0 || partition >= count) throw new ClusterError(`topic "${topic}" has no partition ${partition} (partitions 0-${count - 1})`, 404);
    this.leaderOverrides.set(partitionKey(topic, partition), brokerId);
  }

  /**
   * COORDINATOR_LOAD_IN_PROGRESS for `durationMs` (real time) on the coordinator of `groupId`,
   * or of every group when `groupId` is null. 0 ends it now.
   */
  setLoadInProgress(groupId: string | null, durationMs: number, now = Date.now()): { until: number } {
    if (!Number.isInteger(durationMs) || durationMs < 0 || durationMs > MAX_TIMER_MS) {
      throw new ClusterError(`durationMs must be an integer from 0 to ${MAX_TIMER_MS}, got ${durationMs}`);
    }
    const until = durationMs === 0 ? 0 : now + durationMs;
    if (groupId === null) {
      this.allLoadingUntil = until;
      if (until === 0) this.loadingUntil.clear();
    } else if (until === 0) {
      this.loadingUntil.delete(groupId);
    } else {
      this.loadingUntil.set(groupId, until);
    }
    return { until };
  }

  /** Whether the group's coordinator is loading now. */
  isLoading(groupId: string, now?: number): boolean {
    // Every request to a group asks: no clock read while nothing loads (the usual case).
    if (this.allLoadingUntil === 0 && this.loadingUntil.size === 0) return false;
    now ??= wallNow();
    if (this.allLoadingUntil > now) return true;
    this.allLoadingUntil = 0;
    const until = this.loadingUntil.get(groupId);
    if (until === undefined) return false;
    if (until > now) return true;
    this.loadingUntil.delete(groupId);
    return false;
  }

  /** How long (ms of real time) the group's coordinator is still loading, under every load window; 0 when loaded. */
  loadRemainingMs(groupId: string, now = Date.now()): number {
    return Math.max(0, this.allLoadingUntil - now, (this.loadingUntil.get(groupId) ?? 0) - now);
  }

  /** Whether any group (or all) is loading: ListGroups answers COORDINATOR_LOAD_IN_PROGRESS then. */
  anyLoading(now = Date.now()): { all: boolean; groups: string[] } {
    const groups = [...this.loadingUntil.keys()].filter((g) => this.isLoading(g, now));
    return { all: this.allLoadingUntil > now, groups };
  }

  /** A JSON view for the control surfaces. */
  describe(now = Date.now()): ClusterView {
    const loading = this.anyLoading(now);
    return {
      brokers: this.brokers(),
      controllerId: this.controllerId(),
      coordinatorOverrides: Object.fromEntries(this.coordinatorOverrides),
      transactionCoordinatorOverrides: Object.fromEntries(this.transactionCoordinatorOverrides),
      leaderOverrides: [...this.leaderOverrides].map(([key, brokerId]) => {
        const cut = key.lastIndexOf('\u0000');
        return { topic: key.slice(0, cut), partition: Number(key.slice(cut + 1)), brokerId };
      }),
      loadInProgress: {
        all: loading.all ? new Date(this.allLoadingUntil).toISOString() : null,
        groups: Object.fromEntries(loading.groups.map((g) => [g, new Date(this.loadingUntil.get(g)!).toISOString()])),
      },
    };
  }
}

/** What `GET /cluster` and `server.cluster.describe()` report. */
export interface ClusterView {
  brokers: ClusterBrokerInfo[];
  controllerId: number;
  /** Groups pinned by moveCoordinator -> broker id. */
  coordinatorOverrides: Record<string, number>;
  /** Transactional ids pinned by moveTransactionCoordinator -> broker id. */
  transactionCoordinatorOverrides: Record<string, number>;
  /** Partitions moved by moveLeader. */
  leaderOverrides: Array<{ topic: string; partition: number; brokerId: number }>;
  /** When COORDINATOR_LOAD_IN_PROGRESS ends (ISO time): for all groups, and per group. */
  loadInProgress: { all: string | null; groups: Record<string, string> };
}

function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}
