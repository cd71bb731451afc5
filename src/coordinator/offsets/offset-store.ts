import type { BrokerConfig } from '../../config.js';
import type { Time } from '../../util/time.js';
import type { GroupLog } from '../group-log.js';
import type { OffsetCommitRecord, OffsetCommitValueData } from '../records.js';

/** A committed offset as the coordinator holds it (Kafka's `OffsetAndMetadata`). */
export interface CommittedOffset {
  committedOffset: bigint;
  /** -1 when the client did not send one. */
  leaderEpoch: number;
  metadata: string;
  /** ms since the epoch. */
  commitTimestamp: bigint;
  /** ms since the epoch, or -1n when the commit set no retention (the usual case). */
  expireTimestamp: bigint;
  /** Kafka base64url topic id, or ZERO_UUID when unknown. */
  topicId: string;
}

export interface OffsetToCommit {
  topic: string;
  partition: number;
  offset: bigint;
  leaderEpoch: number;
  metadata: string;
  topicId: string;
  expireTimestamp: bigint;
}

export interface OffsetStoreOptions {
  groupLog: GroupLog;
  config: BrokerConfig;
  time: Time;
}

const partitionKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

/**
 * Committed offsets per group (Kafka's `OffsetMetadataManager`). State changes only by
 * applying OffsetCommit records, the same way live and on replay, so a restart rebuilds
 * exactly what was acknowledged.
 */
export class OffsetStore {
  private readonly groups = new Map<string, Map<string, { topic: string; partition: number; offset: CommittedOffset }>>();
  private readonly groupLog: GroupLog;
  private readonly time: Time;

  constructor(options: OffsetStoreOptions) {
    this.groupLog = options.groupLog;
    this.time = options.time;
  }

  /** Applies an OffsetCommit record (or its tombstone). Used live and by log replay. */
  replay(record: OffsetCommitRecord): void {
    const key = partitionKey(record.topic, record.partition);
    if (record.value === null) {
      const offsets = this.groups.get(record.groupId);
      if (!offsets) return;
      offsets.delete(key);
      if (offsets.size === 0) this.groups.delete(record.groupId);
      return;
    }
    let offsets = this.groups.get(record.groupId);
    if (!offsets) this.groups.set(record.groupId, (offsets = new Map()));
    const v = record.value;
    offsets.set(key, {
      topic: record.topic,
      partition: record.partition,
      offset: {
        committedOffset: v.offset,
        leaderEpoch: v.leaderEpoch,
        metadata: v.metadata,
        commitTimestamp: v.commitTimestamp,
        expireTimestamp: v.expireTimestamp,
        topicId: v.topicId,
      },
    });
  }

  /**
   * Commits offsets for a group: builds OffsetCommit records (value v4 with the topic id, or
   * v1 with an expire timestamp), applies them, and resolves once they are durable.
   */
  commit(groupId: string, entries: readonly OffsetToCommit[]): Promise<void> {
    const commitTimestamp = BigInt(this.time.now());
    const records: OffsetCommitRecord[] = entries.map((e) => {
      const value: OffsetCommitValueData = {
        offset: e.offset,
        leaderEpoch: e.leaderEpoch,
        metadata: e.metadata,
        commitTimestamp,
        expireTimestamp: e.expireTimestamp,
        topicId: e.topicId,
      };
      return { kind: 'offset-commit', groupId, topic: e.topic, partition: e.partition, value };
    });
    return this.appendAndApply(records);
  }

  fetch(groupId: string, topic: string, partition: number): CommittedOffset | undefined {
    return this.groups.get(groupId)?.get(partitionKey(topic, partition))?.offset;
  }

  /** Every committed offset of a group, in commit order of first appearance. */
  offsetsOf(groupId: string): Array<{ topic: string; partition: number; offset: CommittedOffset }> {
    return [...(this.groups.get(groupId)?.values() ?? [])];
  }

  hasOffsets(groupId: string): boolean {
    return (this.groups.get(groupId)?.size ?? 0) > 0;
  }

  /** Group ids with at least one committed offset. */
  groupIds(): IterableIterator<string> {
    return this.groups.keys();
  }

  /** Tombstones every offset of the group (DeleteGroups); resolves once durable. */
  deleteGroupOffsets(groupId: string): Promise<void> {
    const records: OffsetCommitRecord[] = this.offsetsOf(groupId).map(({ topic, partition }) => ({
      kind: 'offset-commit',
      groupId,
      topic,
      partition,
      value: null,
    }));
    return this.appendAndApply(records);
  }

  /** Tombstones the offsets of the given partitions (OffsetDelete, topic deletion). */
  deleteOffsets(groupId: string, partitions: ReadonlyArray<{ topic: string; partition: number }>): Promise<void> {
    const records: OffsetCommitRecord[] = partitions
      .filter(({ topic, partition }) => this.fetch(groupId, topic, partition) !== undefined)
      .map(({ topic, partition }) => ({ kind: 'offset-commit', groupId, topic, partition, value: null }));
    return this.appendAndApply(records);
  }

  /** Tombstones every group's offsets of a topic (topic deletion); resolves once durable. */
  deleteTopicOffsets(topic: string): Promise<void> {
    const records: OffsetCommitRecord[] = [];
    for (const [groupId, offsets] of this.groups) {
      for (const entry of offsets.values()) {
        if (entry.topic === topic) records.push({ kind: 'offset-commit', groupId, topic, partition: entry.partition, value: null });
      }
    }
    return this.appendAndApply(records);
  }

  private appendAndApply(records: OffsetCommitRecord[]): Promise<void> {
    // Encoded and queued first (that may throw: then nothing changes), applied at once as Kafka's
    // coordinator applies records to its uncommitted state; the response waits for durability.
    const durable = this.groupLog.append(records);
    for (const r of records) this.replay(r);
    return durable;
  }
}
