import type { Broker } from '../../broker.js';
import { ErrorCode } from '../../protocol/errors.js';

export interface OffsetCommitIdentity {
  groupId: string;
  generationIdOrMemberEpoch: number;
  memberId: string;
  groupInstanceId: string | null;
}

/**
 * Group-level validation of a non-transactional OffsetCommit, as Kafka 4.3's
 * `OffsetMetadataManager.validateOffsetCommit`: a missing group is created as a simple group
 * when the generation is negative (standalone commits from `assign()` and admin tools);
 * otherwise ILLEGAL_GENERATION (v0-8) or GROUP_ID_NOT_FOUND (v9+, KIP-848). An existing
 * classic group validates member, instance and generation itself.
 * Returns an error code (ErrorCode.NONE when the commit may proceed).
 */
export function validateClassicOffsetCommit(broker: Broker, req: OffsetCommitIdentity, apiVersion: number): number {
  return validateOffsetCommit(broker, req, apiVersion).errorCode;
}

/**
 * The group-level check of an OffsetCommit, for either group type: a KIP-848 consumer group is
 * checked by `ConsumerGroupCoordinator.validateOffsetCommit` (UNKNOWN_MEMBER_ID, UNSUPPORTED_VERSION
 * below v9, STALE_MEMBER_EPOCH; with an older epoch, `partitionError` checks each partition as
 * KIP-1251 does); anything else by the classic rules below.
 */
export function validateOffsetCommit(
  broker: Broker,
  req: OffsetCommitIdentity,
  apiVersion: number,
): { errorCode: number; partitionError?: (topicId: string, partition: number) => number } {
  if (broker.consumer.hasGroup(req.groupId)) {
    return broker.consumer.validateOffsetCommit(req.groupId, req.memberId, req.generationIdOrMemberEpoch, apiVersion);
  }
  return { errorCode: validateClassicGroupCommit(broker, req, apiVersion) };
}

function validateClassicGroupCommit(broker: Broker, req: OffsetCommitIdentity, apiVersion: number): number {
  const group = broker.classic.group(req.groupId);
  if (!group) {
    if (req.generationIdOrMemberEpoch < 0) {
      broker.classic.getOrCreateSimpleGroup(req.groupId);
      return ErrorCode.NONE;
    }
    return apiVersion >= 9 ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.ILLEGAL_GENERATION;
  }
  return group.validateOffsetCommit(req.memberId, req.groupInstanceId, req.generationIdOrMemberEpoch, false, apiVersion);
}
