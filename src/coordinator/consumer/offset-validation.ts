/**
 * Who may commit and fetch a consumer group's offsets: Kafka 4.3's
 * `ConsumerGroup.validateOffsetCommit` (KIP-1251) and `ConsumerGroup.validateOffsetFetch`.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { ConsumerGroupStore } from './group-store.js';
import { useClassicProtocol } from './member.js';

/** A group-level error, or NONE with an optional check of each committed partition. */
export interface OffsetCommitValidation {
  errorCode: number;
  partitionError?: (topicId: string, partition: number) => number;
}

/**
 * `ConsumerGroup.validateOffsetCommit` (4.3, KIP-1251). Returns a group-level error, or a
 * per-partition check: a member committing with an older epoch than its own may commit only the
 * partitions it has held since that epoch (assignment epoch <= the request's epoch).
 */
export function validateOffsetCommit(store: ConsumerGroupStore, groupId: string, memberId: string, memberEpoch: number, apiVersion: number): OffsetCommitValidation {
  const group = store.get(groupId);
  if (!group) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND };
  if (memberEpoch < 0 && group.isEmpty()) return { errorCode: ErrorCode.NONE };
  const member = group.members.get(memberId);
  if (!member) return { errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
  const classic = useClassicProtocol(member);
  if (!classic && apiVersion < 9) return { errorCode: ErrorCode.UNSUPPORTED_VERSION };
  if (classic) return { errorCode: memberEpoch === member.memberEpoch ? ErrorCode.NONE : ErrorCode.ILLEGAL_GENERATION };
  if (memberEpoch === member.memberEpoch) return { errorCode: ErrorCode.NONE };
  if (memberEpoch > member.memberEpoch || memberEpoch < 0) return { errorCode: ErrorCode.STALE_MEMBER_EPOCH };
  return {
    errorCode: ErrorCode.NONE,
    partitionError: (topicId, partition) => {
      const assignedAt = member.assigned.get(topicId)?.get(partition) ?? member.pendingRevocation.get(topicId)?.get(partition);
      return assignedAt !== undefined && assignedAt <= memberEpoch ? ErrorCode.NONE : ErrorCode.STALE_MEMBER_EPOCH;
    },
  };
}

/** `ConsumerGroup.validateOffsetFetch`: null id with a negative epoch skips the check. */
export function validateOffsetFetch(store: ConsumerGroupStore, groupId: string, memberId: string | null, memberEpoch: number): number {
  const group = store.get(groupId);
  if (!group) return ErrorCode.NONE;
  if (memberId === null && memberEpoch < 0) return ErrorCode.NONE;
  const member = memberId === null ? undefined : group.members.get(memberId);
  if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
  if (memberEpoch === member.memberEpoch) return ErrorCode.NONE;
  return useClassicProtocol(member) ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.STALE_MEMBER_EPOCH;
}
