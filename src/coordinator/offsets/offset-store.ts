import type { Time } from '../../util/time.js';
import type { CoordinatorRuntime, CoordinatorShard, TransactionalShard } from '../runtime.js';
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
  runtime: Pick<CoordinatorRuntime, 'append' | 'appendTransactional'>;
  time: Time;
}

/** Partitions numbered below this have their keys cached (an array index, not a dictionary). */
const CACHED_PARTITIONS = 1 << 16;
/** The cache is emptied when it holds this many keys, so deleted topics' keys do not stay forever. */
const MAX_CACHED_KEYS = 1 << 17;
const partitionKeys = new Map<string, string[]>();
let cachedKeys = 0;

/**
 * The map key of a partition, `<topic>\0<partition>`, made once per topic and partition and then
 * reused: a key made anew for each record is a new string to build, flatten and hash, the largest
 * cost of replaying a million offset commits, and 1,000 groups committing one partition then hold
 * one key string instead of 1,000. Keys are equal by value, so forgetting them is always safe.
 */
function partitionKey(topic: string, partition: number): string {
  let keys = partitionKeys.get(topic);
  if (keys === undefined) {
    if (cachedKeys >= MAX_CACHED_KEYS) {
      partitionKeys.clear();
      cachedKeys = 0;
    }
    partitionKeys.set(topic, (keys = []));
  }
  let key = keys[partition];
  if (key === undefined) {
    key = `${topic}\u0000${partition}`;
    if (partition >= 0 && partition < CACHED_PARTITIONS) {
      keys[partition] = key;
      cachedKeys++;
    }
  }
  return key;
}

/**
 * One group's offsets by partition key. `order` stands for Kafka's `OffsetAndMetadata.recordOffset`:
 * records are applied in the order of their offsets in the group's `__consumer_offsets` partition
 * (at start-up in log order; live as each write becomes durable, in append order), so a larger
 * `order` is a later record of that partition.
 */
type GroupEntries = Map<string, { topic: string; partition: number; offset: CommittedOffset; order: number }>;

/** Applies an OffsetCommit record (or its tombstone), the `order`-th applied, to one group's offsets. */
function applyRecord(offsets: GroupEntries, record: OffsetCommitRecord, order: number): void {
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
    order,
  });
}

/** A group's offsets as reads see them (without the order they were applied in). */
function entriesOf(offsets: GroupEntries | undefined): Array<{ topic: string; partition: number; offset: CommittedOffset }> {
  const out: Array<{ topic: string; partition: number; offset: CommittedOffset }> = [];
  for (const { topic, partition, offset } of offsets?.values() ?? []) out.push({ topic, partition, offset });
  return out;
}

/**
 * Committed offsets per group (Kafka's `OffsetMetadataManager`), a shard of the coordinator
 * runtime (runtime.ts). State changes only by applying OffsetCommit records, the same way live and
 * on replay, so a restart rebuilds exactly what was acknowledged.
 *
 * Two views, as Kafka's timeline structures give its coordinator: reads (`fetch`, `offsetsOf`,
 * `groupIds`: OffsetFetch, describe, the admin API) see the committed offsets, which take a
 * write's records only once they are durable; later writes decide on the latest view
 * (`hasOffsets`, the tombstones a deletion writes): the committed offsets with the records still
 * in flight replayed over them, built only when asked for (deletions and emptiness checks, never a
 * commit). A write that fails just leaves the in-flight list (`revert`), so nothing
 * unacknowledged is ever visible.
 */
export class OffsetStore implements CoordinatorShard<'offset-commit'>, TransactionalShard {
  readonly kinds = ['offset-commit'] as const;
  private readonly committed = new Map<string, GroupEntries>();
  /**
   * Durable transactional offsets whose transaction has no marker yet, by producer id then group
   * (`OffsetMetadataManager.pendingTransactionalOffsets`): not visible to OffsetFetch until the
   * COMMIT marker is written to the group's partition, dropped by the ABORT marker.
   */
  private readonly pending = new Map<bigint, Map<string, GroupEntries>>();
  /** Per group, its records appended but not yet durable, in append order. */
  private readonly inFlight = new Map<string, OffsetCommitRecord[]>();
  private readonly runtime: Pick<CoordinatorRuntime, 'append' | 'appendTransactional'>;
  private readonly time: Time;
  /** How many durable records (committed or pending) have been applied: the last one's `order`. */
  private applied = 0;
  /**
   * Per group, the `changes` count when its committed offsets last changed live (not at start-up:
   * a group loaded and unchanged since has none), dropped with the group's last offset: `versionOf`.
   */
  private readonly versions = new Map<string, number>();
  private changes = 0;
  /** Counts the changes of the latest view (records replayed live or reverted): `latestChangeCount`. */
  private latestChanges = 0;

  constructor(options: OffsetStoreOptions) {
    this.runtime = options.runtime;
    this.time = options.time;
  }

  // ---- the shard: replay, durable, revert -----------------------------------------------------

  /** Start-up replay of a stored OffsetCommit record (or its tombstone). */
  load(record: OffsetCommitRecord): void {
    this.applyCommitted(record);
  }

  /** Live replay: the record counts in the latest view until it is durable or reverted. */
  replay(record: OffsetCommitRecord): void {
    this.latestChanges++;
    const list = this.inFlight.get(record.groupId);
    if (list) list.push(record);
    else this.inFlight.set(record.groupId, [record]);
  }

  onDurable(records: readonly OffsetCommitRecord[]): void {
    this.forget(records);
    let groupId: string | null = null;
    for (const r of records) {
      this.applyCommitted(r);
      if (r.groupId !== groupId) this.changed((groupId = r.groupId));
    }
  }

  revert(failed: readonly OffsetCommitRecord[]): void {
    this.latestChanges++;
    this.forget(failed);
  }

  // ---- transactional offsets (TxnOffsetCommit, markers) ----------------------------------------

  /** A durable transactional OffsetCommit record (start-up replay or live): pending until its marker. */
  replayTransactional(record: OffsetCommitRecord, producerId: bigint): void {
    let byGroup = this.pending.get(producerId);
    if (!byGroup) this.pending.set(producerId, (byGroup = new Map()));
    let entries = byGroup.get(record.groupId);
    if (!entries) byGroup.set(record.groupId, (entries = new Map()));
    applyRecord(entries, record, ++this.applied);
  }

  /**
   * A transaction marker of `producerId` is durable on a `__consumer_offsets` partition
   * (`OffsetMetadataManager.replayEndTransactionMarker`): its pending offsets of the groups
   * `inPartition` accepts become committed (COMMIT) or are dropped (ABORT). A COMMIT keeps a
   * partition's committed offset when its record came after the transactional one (a plain
   * OffsetCommit made between the TxnOffsetCommit and the marker): Kafka materializes a pending
   * offset only when the partition has no committed offset or the pending offset's
   * `recordOffset` is larger, and the materialized offset keeps its own record offset.
   */
  replayEndTransaction(producerId: bigint, commit: boolean, inPartition: (groupId: string) => boolean): void {
    const byGroup = this.pending.get(producerId);
    if (!byGroup) return;
    for (const [groupId, entries] of byGroup) {
      if (!inPartition(groupId)) continue;
      byGroup.delete(groupId);
      if (!commit) continue;
      let offsets = this.committed.get(groupId);
      for (const [key, entry] of entries) {
        const current = offsets?.get(key);
        if (current !== undefined && current.order > entry.order) continue;
        if (!offsets) this.committed.set(groupId, (offsets = new Map()));
        offsets.set(key, entry);
      }
      this.changed(groupId);
    }
    if (byGroup.size === 0) this.pending.delete(producerId);
  }

  /**
   * TxnOffsetCommit's write: OffsetCommit records in a transactional batch of `producerId`
   * (value v4, as `commit`); they are pending once durable. Rejects with a `CoordinatorWriteError`.
   */
  commitTransactional(groupId: string, entries: readonly OffsetToCommit[], producerId: bigint, producerEpoch: number): Promise<void> {
    return this.runtime.appendTransactional(this.commitRecords(groupId, entries), producerId, producerEpoch);
  }

  /** Whether a transaction has a pending offset for the partition (OffsetFetch requireStable: UNSTABLE_OFFSET_COMMIT). */
  hasPendingOffset(groupId: string, topic: string, partition: number): boolean {
    const key = partitionKey(topic, partition);
    for (const byGroup of this.pending.values()) if (byGroup.get(groupId)?.has(key)) return true;
    return false;
  }

  /** Whether the group has pending transactional offsets (retention keeps such groups). */
  hasPendingOffsets(groupId: string): boolean {
    for (const byGroup of this.pending.values()) if (byGroup.has(groupId)) return true;
    return false;
  }

  /** Every pending transactional offset of a group, with its producer id (describe, admin API). */
  pendingOffsetsOf(groupId: string): Array<{ producerId: bigint; topic: string; partition: number; offset: CommittedOffset }> {
    const out: Array<{ producerId: bigint; topic: string; partition: number; offset: CommittedOffset }> = [];
    for (const [producerId, byGroup] of this.pending) for (const { topic, partition, offset } of byGroup.get(groupId)?.values() ?? []) out.push({ producerId, topic, partition, offset });
    return out;
  }

  /** Every pending transactional offset of a producer, by group (the admin API's view of a transaction). */
  pendingOffsetsOfProducer(producerId: bigint): Array<{ groupId: string; topic: string; partition: number; offset: CommittedOffset }> {
    const out: Array<{ groupId: string; topic: string; partition: number; offset: CommittedOffset }> = [];
    for (const [groupId, entries] of this.pending.get(producerId) ?? []) for (const { topic, partition, offset } of entries.values()) out.push({ groupId, topic, partition, offset });
    return out;
  }

  // ---- writes ---------------------------------------------------------------------------------

  /**
   * Commits offsets for a group: builds OffsetCommit records (value v4 with the topic id, or
   * v1 with an expire timestamp) and resolves once they are durable; rejects with a
   * `CoordinatorWriteError` (nothing committed) when the write fails.
   */
  commit(groupId: string, entries: readonly OffsetToCommit[]): Promise<void> {
    return this.write(this.commitRecords(groupId, entries));
  }

  private commitRecords(groupId: string, entries: readonly OffsetToCommit[]): OffsetCommitRecord[] {
    const commitTimestamp = BigInt(this.time.now());
    return entries.map((e): OffsetCommitRecord => {
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
  }

  /** Tombstones every offset of the group, writes in flight included; resolves once durable. */
  deleteGroupOffsets(groupId: string): Promise<void> {
    const records = this.tombstoneGroup(groupId);
    return records.length === 0 ? Promise.resolve() : this.runtime.append(records);
  }

  /**
   * `OffsetMetadataManager.deleteAllOffsets`: the tombstones of every offset of the group (writes
   * in flight included), replayed into the latest view, for the caller to append with the
   * group's own tombstones in one write (DeleteGroups, group expiry).
   */
  tombstoneGroup(groupId: string): OffsetCommitRecord[] {
    const records: OffsetCommitRecord[] = [...this.partitionsOf(groupId).values()].map(({ topic, partition }) => ({
      kind: 'offset-commit',
      groupId,
      topic,
      partition,
      value: null,
    }));
    for (const r of records) this.replay(r);
    return records;
  }

  /**
   * Tombstones the offsets of the given partitions (OffsetDelete, retention): those with a
   * committed offset or a pending transactional one (`OffsetMetadataManager.deleteOffsets`).
   */
  deleteOffsets(groupId: string, partitions: ReadonlyArray<{ topic: string; partition: number }>): Promise<void> {
    const offsets = this.partitionsOf(groupId);
    const records: OffsetCommitRecord[] = partitions
      .filter(({ topic, partition }) => offsets.has(partitionKey(topic, partition)))
      .map(({ topic, partition }) => ({ kind: 'offset-commit', groupId, topic, partition, value: null }));
    return this.write(records);
  }

  /**
   * Tombstones every group's offsets of a topic, committed or pending (topic deletion,
   * `OffsetMetadataManager.onTopicsDeleted`); resolves once durable.
   */
  deleteTopicOffsets(topic: string): Promise<void> {
    const records: OffsetCommitRecord[] = [];
    const groupIds = new Set([...this.committed.keys(), ...this.inFlight.keys()]);
    for (const byGroup of this.pending.values()) for (const groupId of byGroup.keys()) groupIds.add(groupId);
    for (const groupId of groupIds) {
      for (const entry of this.partitionsOf(groupId).values()) {
        if (entry.topic === topic) records.push({ kind: 'offset-commit', groupId, topic, partition: entry.partition, value: null });
      }
    }
    return this.write(records);
  }

  /**
   * The partitions a group has an offset of, by partition key: committed (writes in flight
   * applied) or pending in an open transaction. What Kafka tombstones when it deletes offsets.
   */
  private partitionsOf(groupId: string): ReadonlyMap<string, { topic: string; partition: number }> {
    const latest = this.latestOf(groupId);
    if (this.pending.size === 0) return latest ?? new Map();
    const all = new Map<string, { topic: string; partition: number }>(latest);
    for (const byGroup of this.pending.values()) for (const [key, e] of byGroup.get(groupId) ?? []) if (!all.has(key)) all.set(key, e);
    return all;
  }

  // ---- reads ----------------------------------------------------------------------------------

  /** The durable committed offset of a partition (reads: OffsetFetch, describe). */
  fetch(groupId: string, topic: string, partition: number): CommittedOffset | undefined {
    return this.committed.get(groupId)?.get(partitionKey(topic, partition))?.offset;
  }

  /** Every durable committed offset of a group, in commit order of first appearance. */
  offsetsOf(groupId: string): Array<{ topic: string; partition: number; offset: CommittedOffset }> {
    return entriesOf(this.committed.get(groupId));
  }

  /**
   * A number that differs from the one returned before whenever the group's durable committed
   * offsets (`offsetsOf`) changed in between, so that a reader looking again and again (the
   * console's group watch) reads a group of 36,000 offsets only when they changed: 0 for a group
   * whose offsets are all from start-up, -1 for a group without offsets, else a count of changes
   * (never reused).
   */
  versionOf(groupId: string): number {
    return this.versions.get(groupId) ?? (this.committed.has(groupId) ? 0 : -1);
  }

  /** How many partitions have a durable committed offset of the group (what `offsetsOf` would list, without listing them). */
  committedCount(groupId: string): number {
    return this.committed.get(groupId)?.size ?? 0;
  }

  /** Whether the group has offsets, counting writes in flight (for the decisions of later writes). */
  hasOffsets(groupId: string): boolean {
    return (this.latestOf(groupId)?.size ?? 0) > 0;
  }

  /** Group ids with at least one durable committed offset. */
  groupIds(): IterableIterator<string> {
    return this.committed.keys();
  }

  /**
   * A group's offsets with its writes in flight applied: what a write decides on (the retention
   * sweep's `cleanupExpiredOffsets` runs on the latest state, so a commit still being written is
   * never taken for the expired offset it replaces).
   */
  latestOffsetsOf(groupId: string): Array<{ topic: string; partition: number; offset: CommittedOffset }> {
    return entriesOf(this.latestOf(groupId));
  }

  /**
   * A number that moves whenever any group's latest view (`latestOffsetsOf`) may have changed: a
   * reader working over several turns (the retention sweep of a large group) knows whether what it
   * read is still the latest.
   */
  get latestChangeCount(): number {
    return this.latestChanges;
  }

  /** Group ids with offsets, counting writes in flight. */
  latestGroupIds(): string[] {
    return [...new Set([...this.committed.keys(), ...this.inFlight.keys()])].filter((id) => this.hasOffsets(id));
  }

  // ---- internals ------------------------------------------------------------------------------

  /** Replays `records` into the latest view and appends them (nothing to write: resolves at once). */
  private write(records: OffsetCommitRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    for (const r of records) this.replay(r);
    return this.runtime.append(records);
  }

  /** A group's offsets with its records in flight applied (a copy when there are any). */
  private latestOf(groupId: string): GroupEntries | undefined {
    const records = this.inFlight.get(groupId);
    if (!records) return this.committed.get(groupId);
    const view = new Map(this.committed.get(groupId));
    for (const r of records) applyRecord(view, r, 0);
    return view;
  }

  /**
   * Drops records from the in-flight lists (they became durable or were reverted): one pass per
   * group touched, so a write of many partitions costs no more than its size.
   */
  private forget(records: readonly OffsetCommitRecord[]): void {
    const groupId = records[0]!.groupId;
    const list = this.inFlight.get(groupId);
    // The usual case: one group's write, the oldest of its writes in flight (writes become durable
    // in append order), so its records head the group's list.
    if (list && list.length >= records.length && records.every((r, i) => r.groupId === groupId && list[i] === r)) {
      if (list.length === records.length) this.inFlight.delete(groupId);
      else list.splice(0, records.length);
      return;
    }
    const done = new Set(records);
    for (const id of new Set(records.map((r) => r.groupId))) {
      const held = this.inFlight.get(id);
      if (!held) continue;
      const left = held.filter((r) => !done.has(r));
      if (left.length === 0) this.inFlight.delete(id);
      else this.inFlight.set(id, left);
    }
  }

  /**
   * A durable record (or tombstone) into the committed offsets. A tombstone also drops the
   * partition's pending transactional offsets, of every open transaction
   * (`OffsetMetadataManager.replay`: a deleted offset is not brought back by a later COMMIT marker).
   */
  private applyCommitted(record: OffsetCommitRecord): void {
    let offsets = this.committed.get(record.groupId);
    if (!offsets) this.committed.set(record.groupId, (offsets = new Map()));
    applyRecord(offsets, record, ++this.applied);
    if (offsets.size === 0) {
      this.committed.delete(record.groupId);
      this.versions.delete(record.groupId);
    }
    if (record.value === null && this.pending.size > 0) this.dropPending(record.groupId, partitionKey(record.topic, record.partition));
  }

  /** Marks the group's committed offsets changed (`versionOf`): gone, or at the latest record applied. */
  private changed(groupId: string): void {
    if (this.committed.has(groupId)) this.versions.set(groupId, ++this.changes);
  }

  /** Removes a partition's pending offsets of a group from every open transaction. */
  private dropPending(groupId: string, key: string): void {
    for (const [producerId, byGroup] of this.pending) {
      const entries = byGroup.get(groupId);
      if (!entries?.delete(key) || entries.size > 0) continue;
      byGroup.delete(groupId);
      if (byGroup.size === 0) this.pending.delete(producerId);
    }
  }
}
