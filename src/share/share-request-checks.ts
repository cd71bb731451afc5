/**
 * Checks shared by ShareFetch and ShareAcknowledge before any share partition is touched (Kafka
 * 4.3.1's `KafkaApis.isMemberIdValid` and `validateAcknowledgementBatches`).
 */
import { ErrorCode } from '../protocol/errors.js';

/** A member id is non-empty and at most 36 characters (a UUID's string form). */
export function isValidMemberId(memberId: string | null): boolean {
  return memberId !== null && memberId.length > 0 && memberId.length <= 36;
}

interface AckBatch {
  firstOffset: bigint;
  lastOffset: bigint;
  acknowledgeTypes: number[];
}

/**
 * INVALID_REQUEST (no message, as `ShareAcknowledgeResponse.partitionResponse`) for a partition's
 * acknowledgement batches when one has first > last, overlaps the one before, has no types, has
 * several types but not one per offset, has a type outside 0..3 (0..4 from version 2, RENEW), or
 * RENEW in a request that is not `IsRenewAck`; null when they are well formed.
 */
export function ackRequestError(batches: readonly AckBatch[], supportsRenew: boolean, isRenewAck: boolean): { errorCode: number; errorMessage: null } | null {
  const maxType = supportsRenew ? 4 : 3;
  let prevEnd = -1n;
  for (const b of batches) {
    const bad =
      b.firstOffset > b.lastOffset ||
      b.firstOffset < prevEnd ||
      b.acknowledgeTypes.length === 0 ||
      (b.acknowledgeTypes.length > 1 && b.lastOffset - b.firstOffset !== BigInt(b.acknowledgeTypes.length - 1)) ||
      b.acknowledgeTypes.some((t) => t < 0 || t > maxType) ||
      (b.acknowledgeTypes.includes(4) && !isRenewAck);
    if (bad) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: null };
    prevEnd = b.lastOffset;
  }
  return null;
}

/** Partitions a ShareFetch or ShareAcknowledge works on per turn of the event loop at most (issue #16 item 5). */
export const SHARE_SLICE_PARTITIONS = 1024;
/** Partitions between two looks at the turn's SLICE_BUDGET_MS (a consumer's usual request names fewer). */
export const SHARE_BUDGET_EVERY = 32;

/**
 * The partition entries of a request that a later entry of the same topic id and partition
 * replaces, or null when none is named twice. Kafka's handlers collect a request's partitions in a
 * map (`getAcknowledgeBatchesFromShareAcknowledgeRequest`, `...FromShareFetchRequest`): a partition
 * named twice is acknowledged once, with the batches it was named with last, and answered once.
 */
export function supersededEntries<P extends { partitionIndex: number }>(topics: ReadonlyArray<{ topicId: string; partitions: readonly P[] }>): Set<P> | null {
  const last = new Map<string, P>();
  let named = 0;
  for (const t of topics) {
    for (const p of t.partitions) {
      last.set(`${t.topicId}:${p.partitionIndex}`, p);
      named++;
    }
  }
  if (last.size === named) return null;
  const superseded = new Set<P>();
  for (const t of topics) for (const p of t.partitions) if (last.get(`${t.topicId}:${p.partitionIndex}`) !== p) superseded.add(p);
  return superseded;
}
