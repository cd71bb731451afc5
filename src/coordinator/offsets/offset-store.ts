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

type GroupOffsets = Map<string, Map<string, { topic: string; partition: number; offset: CommittedOffset }>>;

/** Applies an OffsetCommit record (or its tombstone) to `groups`. */
function applyRecord(groups: GroupOffsets, record: OffsetCommitRecord): void {
  const key = partitionKey(record.topic, record.partition);
  if (record.value === null) {
    const offsets = groups.get(record.groupId);
    if (!offsets) return;
    offsets.delete(key);
    if (offsets.size === 0) groups.delete(record.groupId);
    return;
  }
  let offsets = groups.get(record.groupId);
  if (!offsets) groups.set(record.groupId, (offsets = new Map()));
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
 * Committed offsets per group (Kafka's `OffsetMetadataManager`). State changes only by
 * applying OffsetCommit records, the same way live and on replay, so a restart rebuilds
 * exactly what was acknowledged.
 *
 * Two views, as Kafka's timeline structures give its coordinator: a write applies its records
 * at once to the pending view, which later writes build on (`hasOffsets`, the tombstones a
 * deletion writes); reads (`fetch`, `offsetsOf`, `groupIds`: OffsetFetch, describe, the admin
 * API) see the committed view, which takes a write's records only once they are durable. A write
 * that fails reaches neither: the pending view is rebuilt from the committed one and the writes
 * still in flight, so nothing unacknowledged is ever visible.
 */
export class OffsetStore {
  private committed: GroupOffsets = new Map();
  private pending: GroupOffsets = new Map();
  /** Writes appended but not yet durable, in append order. */
  private readonly inFlight = new Set<readonly OffsetCommitRecord[]>();
  private readonly groupLog: GroupLog;
  private readonly time: Time;

  constructor(options: OffsetStoreOptions) {
    this.groupLog = options.groupLog;
    this.time = options.time;
  }

  /** Applies a stored OffsetCommit record (or its tombstone) to both views: log replay at start. */
  replay(record: OffsetCommitRecord): void {
    applyRecord(this.committed, record);
    applyRecord(this.pending, record);
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

  /** The durable committed offset of a partition (reads: OffsetFetch, describe). */
  fetch(groupId: string, topic: string, partition: number): CommittedOffset | undefined {
    return this.committed.get(groupId)?.get(partitionKey(topic, partition))?.offset;
  }

  /** Every durable committed offset of a group, in commit order of first appearance. */
  offsetsOf(groupId: string): Array<{ topic: string; partition: number; offset: CommittedOffset }> {
    return [...(this.committed.get(groupId)?.values() ?? [])];
  }

  /** Whether the group has offsets, counting writes in flight (for the decisions of later writes). */
  hasOffsets(groupId: string): boolean {
    return (this.pending.get(groupId)?.size ?? 0) > 0;
  }

  /** Group ids with at least one durable committed offset. */
  groupIds(): IterableIterator<string> {
    return this.committed.keys();
  }

  /** Tombstones every offset of the group (DeleteGroups), writes in flight included; resolves once durable. */
  deleteGroupOffsets(groupId: string): Promise<void> {
    const records: OffsetCommitRecord[] = [...(this.pending.get(groupId)?.values() ?? [])].map(({ topic, partition }) => ({
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
      .filter(({ topic, partition }) => this.pending.get(groupId)?.has(partitionKey(topic, partition)))
      .map(({ topic, partition }) => ({ kind: 'offset-commit', groupId, topic, partition, value: null }));
    return this.appendAndApply(records);
  }

  /** Tombstones every group's offsets of a topic (topic deletion); resolves once durable. */
  deleteTopicOffsets(topic: string): Promise<void> {
    const records: OffsetCommitRecord[] = [];
    for (const [groupId, offsets] of this.pending) {
      for (const entry of offsets.values()) {
        if (entry.topic === topic) records.push({ kind: 'offset-commit', groupId, topic, partition: entry.partition, value: null });
      }
    }
    return this.appendAndApply(records);
  }

  /**
   * Appends `records` (encoding may throw: then nothing changes), applies them to the pending view
   * at once and to the committed view once durable; rejects, with both views as if the write had
   * never been made, when the append fails.
   */
  private async appendAndApply(records: OffsetCommitRecord[]): Promise<void> {
    if (records.length === 0) return;
    const durable = this.groupLog.append(records);
    this.inFlight.add(records);
    for (const r of records) applyRecord(this.pending, r);
    try {
      await durable;
    } catch (err) {
      this.inFlight.delete(records);
      this.rebuildPending();
      throw err;
    }
    this.inFlight.delete(records);
    for (const r of records) applyRecord(this.committed, r);
  }

  /** The pending view anew: the committed offsets plus every write still in flight, in order. */
  private rebuildPending(): void {
    this.pending = new Map([...this.committed].map(([groupId, offsets]) => [groupId, new Map(offsets)]));
    for (const records of this.inFlight) for (const r of records) applyRecord(this.pending, r);
  }
}
