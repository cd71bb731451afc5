import { ErrorCode } from '../../protocol/errors.js';
import type { ClassicGroupCoordinator } from '../classic/classic-coordinator.js';
import type { ConsumerGroupCoordinator } from '../consumer/consumer-coordinator.js';

/** The two group coordinators, as commit validation consults them (a `Broker` fits). */
export interface GroupCoordinators {
  readonly consumer: Pick<ConsumerGroupCoordinator, 'hasGroup' | 'validateOffsetCommit'>;
  readonly classic: Pick<ClassicGroupCoordinator, 'group'>;
  /** Share groups (KIP-932) take no commits (`ShareGroup.validateOffsetCommit`: GROUP_ID_NOT_FOUND). */
  readonly share?: { hasGroup(groupId: string): boolean };
  /** Streams groups (KIP-1071): `StreamsGroup.validateOffsetCommit`. */
  readonly streams?: {
    hasGroup(groupId: string): boolean;
    validateOffsetCommit(groupId: string, memberId: string, memberEpoch: number, apiVersion: number, transactional: boolean, instanceId: string | null): ReturnType<ConsumerGroupCoordinator['validateOffsetCommit']>;
  };
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
 * KIP-1251 does); anything else by the classic rules: a missing group passes when the generation
 * is negative (standalone commits from `assign()` and admin tools; its simple group appears with
 * the first durable offset),
 * otherwise ILLEGAL_GENERATION (v0-8) or GROUP_ID_NOT_FOUND (v9+); an existing classic group
 * validates member, instance and generation itself.
 */
export function validateOffsetCommit(
  groups: GroupCoordinators,
  req: OffsetCommitIdentity,
  apiVersion: number,
): { errorCode: number; partitionError?: (topicId: string, partition: number) => number } {
  if (groups.share?.hasGroup(req.groupId)) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND };
  if (groups.streams?.hasGroup(req.groupId)) {
    return groups.streams.validateOffsetCommit(req.groupId, req.memberId, req.generationIdOrMemberEpoch, apiVersion, false, req.groupInstanceId);
  }
  if (groups.consumer.hasGroup(req.groupId)) {
    return groups.consumer.validateOffsetCommit(req.groupId, req.memberId, req.generationIdOrMemberEpoch, apiVersion);
  }
  const errorCode = validateClassicGroupCommit(groups, req, apiVersion);
  return errorCode === ErrorCode.NONE ? PASSED : { errorCode };
}

/** A commit the group accepts (the usual answer, shared: one object less per commit). */
const PASSED: { readonly errorCode: number } = Object.freeze({ errorCode: ErrorCode.NONE });

function validateClassicGroupCommit(groups: GroupCoordinators, req: OffsetCommitIdentity, apiVersion: number): number {
  const group = groups.classic.group(req.groupId);
  if (!group) {
    // A standalone commit to a new group: the simple group appears with its first durable offset
    // (`ClassicGroupCoordinator.group` materialises it from the offsets), so a commit that fails
    // leaves no group behind, as Kafka's timeline reverts the one it created.
    if (req.generationIdOrMemberEpoch < 0) return ErrorCode.NONE;
    return apiVersion >= 9 ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.ILLEGAL_GENERATION;
  }
  return group.validateOffsetCommit(req.memberId, req.groupInstanceId, req.generationIdOrMemberEpoch, false, apiVersion);
}
