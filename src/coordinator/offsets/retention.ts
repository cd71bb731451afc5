import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config.js';
import type { Time, Timer } from '../../util/time.js';
import type { ClassicGroupCoordinator } from '../classic/classic-coordinator.js';
import { isOffsetExpired, type OffsetExpirationCondition } from './expiration-condition.js';
import { runSoon, sliceBudgetSpent } from '../../util/slices.js';
import type { CommittedOffset, OffsetStore } from './offset-store.js';

/** A group as the retention sweep sees it (what Kafka's `Group` offers `cleanupExpiredOffsets`). */
export interface RetentionGroup {
  /** Which offsets may expire now; null when none may (see `ClassicGroup.offsetExpirationCondition`). */
  offsetExpirationCondition(): OffsetExpirationCondition | null;
  /** Offsets of subscribed topics never expire. */
  isSubscribedToTopic(topic: string): boolean;
}

/**
 * One kind of group coordinator, as the sweep reaches it. The classic coordinator is one
 * (`classicRetentionSource`); the KIP-848 consumer coordinator, when it exists, adds another
 * whose groups answer `offsetExpirationCondition()` with `COMMIT_TIMESTAMP_EXPIRATION` in every
 * state and whose `deleteGroupIfEmpty` writes the consumer-group tombstones
 * (`ConsumerGroup.createGroupTombstoneRecords`).
 */
export interface RetentionGroupSource {
  /** Ids of the groups this coordinator holds (groups without offsets included). */
  groupIds(): Iterable<string>;
  /** The group if this coordinator owns it; undefined otherwise. */
  group(groupId: string): RetentionGroup | undefined;
  /**
   * Deletes the group if it has no members and no offsets (Kafka's `maybeDeleteGroup`), applying
   * the change at once; returns the durability promise of its tombstones, or null if it stays.
   */
  deleteGroupIfEmpty(groupId: string): Promise<void> | null;
}

/** Classic groups, offsets-only ("simple") groups included: `group(id)` materialises those. */
export function classicRetentionSource(classic: ClassicGroupCoordinator): RetentionGroupSource {
  return {
    groupIds: () => classic.allGroups().map((g) => g.groupId),
    group: (groupId) => classic.group(groupId),
    deleteGroupIfEmpty: (groupId) => classic.deleteGroupIfEmpty(groupId),
  };
}

/** Groups one slice of a sweep looks at, at most (fewer when the turn's slice budget is spent first). */
export const SWEEP_GROUPS_PER_SLICE = 64;

/**
 * Offsets of one group a slice of a sweep examines (and tombstones) at most: a group with more is
 * expired over several slices (9,000 expiring offsets of one group held the loop ~70-100 ms).
 */
export const SWEEP_OFFSETS_PER_SLICE = 1024;

export interface SweepResult {
  /** Offsets tombstoned by this sweep. */
  expiredOffsets: number;
  /** Groups deleted by this sweep, in sweep order. */
  deletedGroups: string[];
}

export interface OffsetRetentionOptions {
  config: BrokerConfig;
  log: Logger;
  time: Time;
  offsets: Pick<OffsetStore, 'latestGroupIds' | 'latestOffsetsOf' | 'latestChangeCount' | 'hasOffsets' | 'deleteOffsets' | 'hasPendingOffset' | 'hasPendingOffsets'>;
  /** Group coordinators, asked in order for each group id. */
  sources: readonly RetentionGroupSource[];
}

/**
 * The offsets retention sweep (KIP-211; Kafka 4.3's `GroupCoordinatorShard.cleanupGroupMetadata`
 * with `OffsetMetadataManager.cleanupExpiredOffsets` and `GroupMetadataManager.maybeDeleteGroup`).
 * For every group: each offset of a topic the group is not subscribed to that has expired under
 * the group's condition is tombstoned; if the group then has no offsets left, it is deleted when
 * it has no members. Runs every `offsets.retention.check.interval.ms` on the injected clock once
 * `start()`ed, and on demand (`sweep()`).
 *
 * Group changes are applied when the sweep runs and offsets tombstoned at once in the offsets'
 * pending view (as Kafka applies a shard's records before they are committed); OffsetFetch and
 * the other reads see the expiry once the tombstones are durable, when the returned promise
 * resolves (`lastSweep` for the periodic runs).
 *
 * Offsets with a transaction's pending offset for the same partition are not expired, and a group
 * with pending transactional offsets is not deleted (Kafka's `hasPendingTransactionalOffsets`,
 * `openTransactionsByGroup`).
 */
export class OffsetRetention {
  readonly retentionMs: number;
  readonly checkIntervalMs: number;
  private readonly log: Logger;
  private readonly time: Time;
  private readonly offsets: OffsetRetentionOptions['offsets'];
  private readonly sources: readonly RetentionGroupSource[];
  private timer: Timer | null = null;
  private running = false;
  /** The latest periodic sweep (its result once its tombstones are durable; null if it failed), or null before the first. */
  lastSweep: Promise<SweepResult | null> | null = null;
  /** Totals since start, periodic and on-demand sweeps alike (read by /metrics at scrape time). */
  readonly stats = { sweeps: 0, expiredOffsets: 0, deletedGroups: 0 };

  constructor(options: OffsetRetentionOptions) {
    this.retentionMs = options.config.int('offsets.retention.minutes') * 60_000;
    this.checkIntervalMs = Number(options.config.long('offsets.retention.check.interval.ms'));
    this.log = options.log;
    this.time = options.time;
    this.offsets = options.offsets;
    this.sources = options.sources;
  }

  /** Schedules the periodic sweep (first run one interval from now); idempotent. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.scheduleNext();
  }

  /** Cancels the periodic sweep. A sweep already started still completes its writes. */
  stop(): void {
    this.running = false;
    this.timer?.cancel();
    this.timer = null;
  }

  /**
   * Runs one sweep now, group by group in slices (SWEEP_GROUPS_PER_SLICE groups, or until the turn's
   * slice budget, `sliceBudgetSpent`, is spent; a sweep that fits in one, as most do, is applied before this returns): 300,000 offsets expiring
   * over 1,000 groups held every connection for 0.6-0.95 s in one piece (adversarial trial,
   * session 19). Kafka's coordinator thread does the same work beside the network threads. Each
   * group's change is applied at once in its slice; the promise resolves when every tombstone is
   * durable (rejects if an append failed; what was applied stays applied, as with any other
   * failed coordinator write here).
   */
  sweep(): Promise<SweepResult> {
    return Promise.resolve(runSoon(this.sweepInSlices(this.time.now())));
  }

  private *sweepInSlices(nowMs: number): Generator<void, Promise<SweepResult>> {
    const writes: Promise<void>[] = [];
    const expiredByGroup: Record<string, number> = {};
    let expiredOffsets = 0;
    const deletedGroups: string[] = [];
    let inSlice = 0;

    for (const groupId of this.candidateGroupIds()) {
      // At least one group per slice; the budget is the turn's, shared with other sliced work.
      if (inSlice === SWEEP_GROUPS_PER_SLICE || (inSlice > 0 && sliceBudgetSpent())) {
        yield;
        inSlice = 0;
      }
      inSlice++;
      let owner = this.ownerOf(groupId);
      if (!owner) continue;
      const offsets = this.offsets.latestOffsetsOf(groupId);
      let expiredCount: number;
      let allExpired: boolean;
      if (offsets.length <= SWEEP_OFFSETS_PER_SLICE) {
        const found = this.expiredOffsetsOf(groupId, owner.group, nowMs, offsets);
        if (found.expired.length > 0) writes.push(this.offsets.deleteOffsets(groupId, found.expired));
        expiredCount = found.expired.length;
        allExpired = found.allExpired;
      } else {
        expiredCount = yield* this.expireInSlices(groupId, offsets, nowMs, writes);
        inSlice = SWEEP_GROUPS_PER_SLICE; // the next group starts a slice of its own
        owner = this.ownerOf(groupId);
        allExpired = owner !== undefined && !this.offsets.hasOffsets(groupId) && !this.offsets.hasPendingOffsets(groupId);
      }
      if (expiredCount > 0) {
        expiredByGroup[groupId] = expiredCount;
        expiredOffsets += expiredCount;
      }
      if (!allExpired || owner === undefined) continue;
      const deleted = owner.source.deleteGroupIfEmpty(groupId);
      if (deleted) {
        writes.push(deleted);
        deletedGroups.push(groupId);
      }
    }

    if (expiredOffsets > 0 || deletedGroups.length > 0) {
      this.log.info({ expiredOffsets, groups: expiredByGroup, deletedGroups }, 'offsets retention sweep removed expired offsets');
    }
    this.stats.sweeps++;
    this.stats.expiredOffsets += expiredOffsets;
    this.stats.deletedGroups += deletedGroups.length;
    const result: SweepResult = { expiredOffsets, deletedGroups };
    return Promise.all(writes).then(() => result);
  }

  /**
   * The group's expired offsets (`OffsetMetadataManager.cleanupExpiredOffsets`), and whether it
   * has none left afterwards (true too when it had none to begin with).
   */
  private expiredOffsetsOf(
    groupId: string,
    group: RetentionGroup,
    nowMs: number,
    offsets: ReadonlyArray<{ topic: string; partition: number; offset: CommittedOffset }>,
  ): { expired: Array<{ topic: string; partition: number }>; allExpired: boolean } {
    if (offsets.length === 0) return { expired: [], allExpired: !this.offsets.hasPendingOffsets(groupId) };
    const condition = group.offsetExpirationCondition();
    if (condition === null) return { expired: [], allExpired: false };
    const expired: Array<{ topic: string; partition: number }> = [];
    for (const { topic, partition, offset } of offsets) {
      if (this.expires(groupId, group, condition, topic, partition, offset, nowMs)) expired.push({ topic, partition });
    }
    // A group with an open transaction's offsets is kept (`openTransactionsByGroup`).
    return { expired, allExpired: expired.length === offsets.length && !this.offsets.hasPendingOffsets(groupId) };
  }

  /** Whether an offset is expired and may go (not subscribed to, no transaction about to replace it: `hasPendingTransactionalOffsets`). */
  private expires(groupId: string, group: RetentionGroup, condition: OffsetExpirationCondition, topic: string, partition: number, offset: CommittedOffset, nowMs: number): boolean {
    return !group.isSubscribedToTopic(topic) && isOffsetExpired(condition, offset, nowMs, this.retentionMs) && !this.offsets.hasPendingOffset(groupId, topic, partition);
  }

  /**
   * `expiredOffsetsOf` for a group of more than SWEEP_OFFSETS_PER_SLICE offsets: a slice examines
   * that many, decides on the state of its own turn (the group, its condition, the offsets read
   * again when anything changed them since the last slice: a commit in between is never taken for
   * the expired offset it replaced) and tombstones those expired at once. Returns how many.
   */
  private *expireInSlices(
    groupId: string,
    offsets: ReadonlyArray<{ topic: string; partition: number; offset: CommittedOffset }>,
    nowMs: number,
    writes: Array<Promise<void>>,
  ): Generator<void, number> {
    let expiredCount = 0;
    let latest = offsets;
    let at = 0;
    let seen = this.offsets.latestChangeCount;
    // Partitions examined already, skipped when the offsets are read again.
    const examined = new Set<string>();
    for (;;) {
      const group = this.ownerOf(groupId)?.group;
      const condition = group?.offsetExpirationCondition() ?? null;
      if (group === undefined || condition === null) return expiredCount;
      if (this.offsets.latestChangeCount !== seen) {
        latest = this.offsets.latestOffsetsOf(groupId);
        at = 0;
      }
      const expired: Array<{ topic: string; partition: number }> = [];
      for (let n = 0; at < latest.length && n < SWEEP_OFFSETS_PER_SLICE; at++) {
        const { topic, partition, offset } = latest[at]!;
        const key = `${topic}\u0000${partition}`;
        if (examined.has(key)) continue;
        examined.add(key);
        n++;
        if (this.expires(groupId, group, condition, topic, partition, offset, nowMs)) expired.push({ topic, partition });
      }
      if (expired.length > 0) {
        writes.push(this.offsets.deleteOffsets(groupId, expired));
        expiredCount += expired.length;
      }
      seen = this.offsets.latestChangeCount;
      if (at >= latest.length) return expiredCount;
      yield;
    }
  }

  /** Every group any coordinator holds plus every group with offsets, each once. */
  private candidateGroupIds(): string[] {
    const ids = new Set<string>();
    for (const source of this.sources) for (const id of source.groupIds()) ids.add(id);
    for (const id of this.offsets.latestGroupIds()) ids.add(id);
    return [...ids];
  }

  private ownerOf(groupId: string): { source: RetentionGroupSource; group: RetentionGroup } | undefined {
    for (const source of this.sources) {
      const group = source.group(groupId);
      if (group) return { source, group };
    }
    return undefined;
  }

  private scheduleNext(): void {
    this.timer = this.time.schedule(this.checkIntervalMs, () => {
      this.timer = null;
      if (!this.running) return;
      try {
        this.lastSweep = this.sweep().catch((err: unknown) => {
          this.log.error({ err }, 'offsets retention sweep: could not write tombstones');
          return null;
        });
      } catch (err) {
        this.log.error({ err }, 'offsets retention sweep failed');
      }
      // Kafka reschedules after each run (`scheduleGroupMetadataExpiration`).
      if (this.running) this.scheduleNext();
      // A fixed delay after each run: a manual clock jumping far ahead runs it once per stretch.
    }, { coalesce: true });
  }
}
