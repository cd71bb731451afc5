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
