/**
 * The broker's share partitions and share sessions (Kafka 4.3.1's `SharePartitionManager`): one
 * `SharePartition` per (share group, topic partition), created at the first ShareFetch naming it
 * and loaded from the share coordinator; acknowledgements go to the partition holding the
 * records; a share session that ends (final epoch -1, or its connection closing:
 * `ShareSessionCache.ClientConnectionDisconnectListener`) releases what its member still holds.
 * A share partition whose state the group coordinator deletes, or whose topic is deleted, is
 * dropped (its lock timers stop).
 * Group configs are read at each use through the broker's configs (`share.record.lock.duration.ms`,
 * `share.delivery.count.limit`, `share.partition.max.record.locks`, `share.renew.acknowledge.enable`,
 * `share.auto.offset.reset`), falling back to the `group.share.*` broker configs as Kafka's
 * `ShareGroupConfigProvider`.
 */
import type { Logger } from 'pino';
import type { ClusterConfigs } from '../configs/cluster-configs.js';
import type { TopicStore } from '../topics/topic-store.js';
import type { Time } from '../util/time.js';
import { ErrorCode } from '../protocol/errors.js';
import { SharePartition, SharePartitionError, type AcknowledgementBatch, type SharePartitionConfig } from './share-partition.js';
import { SHARE_BUDGET_EVERY, SHARE_SLICE_PARTITIONS } from './share-request-checks.js';
import { nextTurn, Slicer } from '../util/slices.js';
import { ShareSessionCache } from './share-sessions.js';
import type { ShareCoordinator } from './state/share-coordinator.js';

export interface SharePartitionManagerOptions {
  topics: TopicStore;
  configs: ClusterConfigs;
  coordinator: ShareCoordinator;
  time: Time;
  log: Logger;
  nodeId: number;
  /** `group.share.max.share.sessions` (Kafka default 2000). */
  maxSessions: number;
}

/** A per-partition answer: Kafka error code and message (null for NONE). */
export interface PartitionOutcome {
  errorCode: number;
  errorMessage: string | null;
}

const OK: PartitionOutcome = { errorCode: ErrorCode.NONE, errorMessage: null };

function outcomeOf(err: unknown): PartitionOutcome {
  if (err instanceof SharePartitionError) return { errorCode: err.errorCode, errorMessage: err.message };
  return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: err instanceof Error ? err.message : String(err) };
}

export class SharePartitionManager {
  readonly sessions: ShareSessionCache;
  private readonly partitions = new Map<string, SharePartition>();
  /** Group configs resolved since the config store's generation `resolvedGeneration` (`groupValue`). */
  private readonly resolved = new Map<string, string | null>();
  private resolvedGeneration = -1;
  /**
   * Share partitions of groups left without sessions: replaced by a fresh load at their next fetch
   * (Kafka removes them from its cache); kept until then so views still show their last state.
   */
  private readonly retired = new Set<string>();

  constructor(private readonly options: SharePartitionManagerOptions) {
    this.sessions = new ShareSessionCache(options.maxSessions);
    options.coordinator.onStateDeleted((groupId, topicId, partition) => this.drop(SharePartitionManager.key(groupId, topicId, partition)));
    options.topics.onTopicDeleted((topic) => {
      for (const [key, sp] of this.partitions) if (sp.topicId === topic.id) this.drop(key);
      void options.coordinator.deleteTopic(topic.id).catch((err: unknown) => options.log.error({ err, topic: topic.name }, 'could not delete the share state of a deleted topic'));
    });
  }

  private static key(groupId: string, topicId: string, partition: number): string {
    return `${groupId}\u0000${topicId}:${partition}`;
  }

  /**
   * The group config `name` (its group override, else the `group.share.*` broker config), resolved
   * again only once a config changed (the store's generation): share partitions read their group's
   * configs at each use, so that an altered config applies at once, and a fetch over 9,000 share
   * partitions spent a third of its time resolving them (adversarial trial, session 23).
   */
  private groupValue(groupId: string, name: string): string | null {
    const { configs, nodeId } = this.options;
    if (this.resolvedGeneration !== configs.store.generation) {
      this.resolved.clear();
      this.resolvedGeneration = configs.store.generation;
    }
    const key = `${groupId}\u0000${name}`;
    let value = this.resolved.get(key);
    if (value === undefined) this.resolved.set(key, (value = configs.groupConfig(groupId, name, nodeId).value));
    return value;
  }

  /** The group config `name` as a number. */
  private groupInt(groupId: string, name: string): number {
    return Number(this.groupValue(groupId, name));
  }

  /** `share.record.lock.duration.ms` of a group: what responses carry as `AcquisitionLockTimeoutMs`. */
  recordLockDurationMs(groupId: string): number {
    return this.groupInt(groupId, 'share.record.lock.duration.ms');
  }

  private configFor(groupId: string): SharePartitionConfig {
    return {
      recordLockDurationMs: () => this.groupInt(groupId, 'share.record.lock.duration.ms'),
      deliveryCountLimit: () => this.groupInt(groupId, 'share.delivery.count.limit'),
      maxInFlightRecords: () => this.groupInt(groupId, 'share.partition.max.record.locks'),
      renewAcknowledgeEnabled: () => this.groupValue(groupId, 'share.renew.acknowledge.enable') === 'true',
      autoOffsetReset: () => this.groupValue(groupId, 'share.auto.offset.reset') ?? 'latest',
      isolationLevel: () => this.groupValue(groupId, 'share.isolation.level') ?? 'read_uncommitted',
    };
  }

  /** The share partition, if one is loaded (acknowledgements only go to loaded ones). */
  get(groupId: string, topicId: string, partition: number): SharePartition | undefined {
    return this.partitions.get(SharePartitionManager.key(groupId, topicId, partition));
  }

  /** Whether the share partition is retired: its group was left without sessions, its next fetch reloads it. */
  isRetired(groupId: string, topicId: string, partition: number): boolean {
    return this.retired.has(SharePartitionManager.key(groupId, topicId, partition));
  }

  /** Every loaded share partition of a group (views). */
  ofGroup(groupId: string): SharePartition[] {
    return [...this.partitions.values()].filter((sp) => sp.groupId === groupId);
  }

  /**
   * The share partition of a fetch, created and loaded when needed (`getOrCreateSharePartition`,
   * `maybeInitialize`). Rejects with SharePartitionError; a share partition that failed to load is
   * dropped, so the next fetch tries again.
   */
  async forFetch(groupId: string, topicId: string, partitionIndex: number): Promise<SharePartition> {
    const key = SharePartitionManager.key(groupId, topicId, partitionIndex);
    let sp = this.partitions.get(key);
    if (sp !== undefined && this.retired.has(key)) {
      this.drop(key);
      sp = undefined;
    }
    if (sp === undefined) {
      const topic = this.options.topics.getById(topicId);
      const partition = topic?.partition(partitionIndex);
      if (!partition) throw new SharePartitionError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.');
      sp = new SharePartition(groupId, topicId, partitionIndex, partition, this.options.time, this.options.coordinator, this.configFor(groupId));
      sp.onAvailable = () => this.options.topics.wakeFetches(partition);
      this.partitions.set(key, sp);
    }
    try {
      await sp.maybeInitialize();
    } catch (err) {
      if (this.partitions.get(key) === sp && sp.failed) this.drop(key);
      this.logUnexpected(err, 'Failed to initialize the share partition', groupId, topicId, partitionIndex);
      throw err;
    }
    return sp;
  }

  /**
   * Logs, at error as Kafka's `SharePartition` logs a failed state read or write, a failure a client
   * gets as UNKNOWN_SERVER_ERROR: one the server did not expect (the others, such as
   * COORDINATOR_NOT_AVAILABLE while the state loads, are the client's to retry).
   */
  private logUnexpected(err: unknown, message: string, groupId: string, topicId: string, partition: number): void {
    if (outcomeOf(err).errorCode !== ErrorCode.UNKNOWN_SERVER_ERROR) return;
    this.options.log.error({ err, groupId, topicId, partition }, `${message}: answering UNKNOWN_SERVER_ERROR`);
  }

  /** Acknowledges on one partition (`SharePartitionManager.acknowledge`): UNKNOWN_TOPIC_OR_PARTITION when it is not loaded. */
  async acknowledge(groupId: string, memberId: string, topicId: string, partition: number, batches: readonly AcknowledgementBatch[]): Promise<PartitionOutcome> {
    const sp = this.get(groupId, topicId, partition);
    if (sp === undefined) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'This server does not host this topic-partition.' };
    try {
      await sp.acknowledge(memberId, batches);
      return OK;
    } catch (err) {
      const outcome = outcomeOf(err);
      this.logUnexpected(err, 'Failed to acknowledge records in the share partition', groupId, topicId, partition);
      if (outcome.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER || outcome.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || outcome.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) {
        this.drop(SharePartitionManager.key(groupId, topicId, partition));
      }
      return outcome;
    }
  }

  /**
   * Ends a member's share session and releases the records it holds on the session's partitions
   * (`releaseSession`); SHARE_SESSION_NOT_FOUND without a session.
   */
  async releaseSession(groupId: string, memberId: string): Promise<void> {
    const session = this.sessions.remove(groupId, memberId);
    if (session === undefined) throw new SharePartitionError(ErrorCode.SHARE_SESSION_NOT_FOUND, 'The share session was not found.');
    await this.releaseHeld(groupId, memberId, [...session.partitions.values()]);
  }

  /**
   * A connection closed: the sessions it opened end and their members' records are released; a
   * group left without sessions then has its share partitions retired, so the next fetch loads
   * them from the share coordinator again (Kafka's `ShareGroupListener.onGroupEmpty`: an altered
   * or deleted share state is seen once the group's consumers have disconnected).
   */
  onDisconnect(connectionId: string): void {
    const releases = this.sessions.removeForConnection(connectionId).map((session) =>
      this.releaseHeld(session.groupId, session.memberId, [...session.partitions.values()]).catch((err: unknown) =>
        this.options.log.warn({ err, groupId: session.groupId }, 'could not release the records of a closed share session'),
      ),
    );
    const groups = this.sessions.groupsOfClosedConnection(connectionId);
    if (groups.length === 0) return;
    void Promise.all(releases).then(() => {
      for (const groupId of groups) {
        if (this.sessions.hasGroup(groupId)) continue;
        for (const [key, sp] of this.partitions) if (sp.groupId === groupId) this.retired.add(key);
      }
    });
  }

  /**
   * Releases `memberId`'s records on `partitions`, SHARE_SLICE_PARTITIONS (or the turn's budget)
   * per turn of the event loop, the writes together: a session over 9,000 partitions closing held
   * the broker 0.1-1 s (adversarial trial 23b).
   */
  private async releaseHeld(groupId: string, memberId: string, partitions: ReadonlyArray<{ topicId: string; partition: number }>): Promise<void> {
    const slicer = new Slicer(SHARE_SLICE_PARTITIONS, SHARE_BUDGET_EVERY);
    const releases: Array<Promise<void>> = [];
    for (const p of partitions) {
      if (slicer.due()) await nextTurn();
      const sp = this.get(groupId, p.topicId, p.partition);
      if (sp) releases.push(sp.releaseAcquiredRecords(memberId).catch((err: unknown) => this.options.log.warn({ err, groupId }, 'could not release acquired records')));
    }
    await Promise.all(releases);
  }

  private drop(key: string): void {
    this.retired.delete(key);
    const sp = this.partitions.get(key);
    if (sp === undefined) return;
    this.partitions.delete(key);
    sp.close();
  }

  /** Stops every lock timer (broker shutdown). */
  shutdown(): void {
    for (const key of [...this.partitions.keys()]) this.drop(key);
  }
}
