import type { CommittedOffset } from './offset-store.js';

/**
 * When a group's committed offsets expire (Kafka's `OffsetExpirationCondition`). A group that
 * lets offsets expire returns one from `offsetExpirationCondition()`; a group whose offsets must
 * not expire right now returns null (Kafka's `Optional.empty()`).
 */
export interface OffsetExpirationCondition {
  /** ms since the epoch from which the retention period of `offset` counts. */
  baseTimestamp(offset: CommittedOffset): number;
}

/** Retention counted from each offset's own commit time (simple groups, Stable consumer groups, KIP-848 groups). */
export const COMMIT_TIMESTAMP_EXPIRATION: OffsetExpirationCondition = {
  baseTimestamp: (offset) => Number(offset.commitTimestamp),
};

/** Retention counted from a fixed time (an Empty classic group: when it became Empty). */
export function expirationFrom(baseMs: number): OffsetExpirationCondition {
  return { baseTimestamp: () => baseMs };
}

/**
 * Whether `offset` has expired at `nowMs` (Kafka's `OffsetExpirationConditionImpl.isOffsetExpired`):
 * a commit that carried an explicit retention (OffsetCommit v2-4 `retention_time_ms`, stored as
 * an OffsetCommitValue v1 expire timestamp) expires once `nowMs >= expireTimestamp`; any other
 * once `nowMs - base >= retentionMs`.
 */
export function isOffsetExpired(condition: OffsetExpirationCondition, offset: CommittedOffset, nowMs: number, retentionMs: number): boolean {
  if (offset.expireTimestamp !== -1n) return nowMs >= Number(offset.expireTimestamp);
  return nowMs - condition.baseTimestamp(offset) >= retentionMs;
}
