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

/** One group's offsets by partition key. */
type GroupEntries = Map<string, { topic: string; partition: number; offset: CommittedOffset }>;

/** Applies an OffsetCommit record (or its tombstone) to one group's offsets. */
function applyRecord(offsets: GroupEntries, record: OffsetCommitRecord): void {
  const key = partitionKey(record.topic, record.partition);
  const v = record.value;
  if (v === null) {
    offsets.delete(key);
    return;
  }
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

/** The records of a write by group, in order. */
function byGroup(records: readonly OffsetCommitRecord[]): Map<string, OffsetCommitRecord[]> {
  const groups = new Map<string, OffsetCommitRecord[]>();
  for (const r of records) {
    const list = groups.get(r.groupId);
    if (list) list.push(r);
    else groups.set(r.groupId, [r]);
  }
  return groups;
}

/**
 * Committed offsets per group (Kafka's `OffsetMetadataManager`). State changes only by
 * applying OffsetCommit records, the same way live and on replay, so a restart rebuilds
 * exactly what was acknowledged.
 *
 * Two views, as Kafka's timeline structures give its coordinator: reads (`fetch`, `offsetsOf`,
 * `groupIds`: OffsetFetch, describe, the admin API) see the committed offsets, which take a
 * write's records only once they are durable; later writes decide on the pending view
 * (`hasOffsets`, the tombstones a deletion writes): the committed offsets with the writes still in
 * flight replayed over them, built only when asked for (deletions and emptiness checks, never a
 * commit). A write that fails just leaves the in-flight list, so nothing unacknowledged is ever
 * visible.
 */
export class OffsetStore {
  private readonly committed = new Map<string, GroupEntries>();
  /** Per group, its writes appended but not yet durable, in append order. */
  private readonly inFlight = new Map<string, Array<readonly OffsetCommitRecord[]>>();
  private readonly groupLog: GroupLog;
  private readonly time: Time;

  constructor(options: OffsetStoreOptions) {
    this.groupLog = options.groupLog;
    this.time = options.time;
  }

  /** Applies a stored OffsetCommit record (or its tombstone): log replay at start. */
  replay(record: OffsetCommitRecord): void {
    this.applyCommitted(record.groupId, [record]);
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
    return (this.pendingOf(groupId)?.size ?? 0) > 0;
  }

  /** Group ids with at least one durable committed offset. */
  groupIds(): IterableIterator<string> {
    return this.committed.keys();
  }

  /** A group's offsets with its writes in flight applied (a copy when there are any). */
  private pendingOf(groupId: string): GroupEntries | undefined {
    const writes = this.inFlight.get(groupId);
    if (!writes) return this.committed.get(groupId);
    const view = new Map(this.committed.get(groupId));
    for (const w of writes) for (const r of w) applyRecord(view, r);
    return view;
  }

  /** Tombstones every offset of the group (DeleteGroups), writes in flight included; resolves once durable. */
  deleteGroupOffsets(groupId: string): Promise<void> {
    const records: OffsetCommitRecord[] = [...(this.pendingOf(groupId)?.values() ?? [])].map(({ topic, partition }) => ({
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
    const offsets = this.pendingOf(groupId);
    const records: OffsetCommitRecord[] = partitions
      .filter(({ topic, partition }) => offsets?.has(partitionKey(topic, partition)))
      .map(({ topic, partition }) => ({ kind: 'offset-commit', groupId, topic, partition, value: null }));
    return this.appendAndApply(records);
  }

  /** Tombstones every group's offsets of a topic (topic deletion); resolves once durable. */
  deleteTopicOffsets(topic: string): Promise<void> {
    const records: OffsetCommitRecord[] = [];
    for (const groupId of new Set([...this.committed.keys(), ...this.inFlight.keys()])) {
      const offsets = this.pendingOf(groupId)!;
      for (const entry of offsets.values()) {
        if (entry.topic === topic) records.push({ kind: 'offset-commit', groupId, topic, partition: entry.partition, value: null });
      }
    }
    return this.appendAndApply(records);
  }

  /**
   * Appends `records` (encoding may throw: then nothing changes), counts them in the pending view
   * at once and applies them to the committed offsets once durable; rejects, with both views as if
   * the write had never been made, when the append fails.
   */
  private async appendAndApply(records: OffsetCommitRecord[]): Promise<void> {
    if (records.length === 0) return;
    const durable = this.groupLog.append(records);
    const groups = byGroup(records);
    for (const [groupId, list] of groups) {
      const writes = this.inFlight.get(groupId);
      if (writes) writes.push(list);
      else this.inFlight.set(groupId, [list]);
    }
    let failure: unknown = null;
    try {
      await durable;
    } catch (err) {
      failure = err;
    }
    for (const [groupId, list] of groups) {
      const writes = this.inFlight.get(groupId)!;
      writes.splice(writes.indexOf(list), 1);
      if (writes.length === 0) this.inFlight.delete(groupId);
      if (failure === null) this.applyCommitted(groupId, list);
    }
    if (failure !== null) throw failure;
  }

  private applyCommitted(groupId: string, records: readonly OffsetCommitRecord[]): void {
    let offsets = this.committed.get(groupId);
    if (!offsets) this.committed.set(groupId, (offsets = new Map()));
    for (const r of records) applyRecord(offsets, r);
    if (offsets.size === 0) this.committed.delete(groupId);
  }
}
