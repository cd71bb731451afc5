import { ErrorCode } from '../../protocol/errors.js';
import type { ClassicGroupCoordinator } from '../classic/classic-coordinator.js';
import type { ConsumerGroupCoordinator } from '../consumer/consumer-coordinator.js';

/** The two group coordinators, as commit validation consults them (a `Broker` fits). */
export interface GroupCoordinators {
  readonly consumer: Pick<ConsumerGroupCoordinator, 'hasGroup' | 'validateOffsetCommit'>;
  readonly classic: Pick<ClassicGroupCoordinator, 'group' | 'getOrCreateSimpleGroup'>;
}

export interface OffsetCommitIdentity {
  groupId: string;
  generationIdOrMemberEpoch: number;
  memberId: string;
  groupInstanceId: string | null;
}

/**
 * The group-level check of a non-transactional OffsetCommit, for either group type (Kafka 4.3's
 * `OffsetMetadataManager.validateOffsetCommit`): a KIP-848 consumer group is
 * checked by `ConsumerGroupCoordinator.validateOffsetCommit` (UNKNOWN_MEMBER_ID, UNSUPPORTED_VERSION
 * below v9, STALE_MEMBER_EPOCH; with an older epoch, `partitionError` checks each partition as
 * KIP-1251 does); anything else by the classic rules: a missing group is created as a simple
 * group when the generation is negative (standalone commits from `assign()` and admin tools),
 * otherwise ILLEGAL_GENERATION (v0-8) or GROUP_ID_NOT_FOUND (v9+); an existing classic group
 * validates member, instance and generation itself.
 */
export function validateOffsetCommit(
  groups: GroupCoordinators,
  req: OffsetCommitIdentity,
  apiVersion: number,
): { errorCode: number; partitionError?: (topicId: string, partition: number) => number } {
  if (groups.consumer.hasGroup(req.groupId)) {
    return groups.consumer.validateOffsetCommit(req.groupId, req.memberId, req.generationIdOrMemberEpoch, apiVersion);
  }
  return { errorCode: validateClassicGroupCommit(groups, req, apiVersion) };
}

function validateClassicGroupCommit(groups: GroupCoordinators, req: OffsetCommitIdentity, apiVersion: number): number {
  const group = groups.classic.group(req.groupId);
  if (!group) {
    if (req.generationIdOrMemberEpoch < 0) {
      groups.classic.getOrCreateSimpleGroup(req.groupId);
      return ErrorCode.NONE;
    }
    return apiVersion >= 9 ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.ILLEGAL_GENERATION;
  }
  return group.validateOffsetCommit(req.memberId, req.groupInstanceId, req.generationIdOrMemberEpoch, false, apiVersion);
}
