import { ErrorCode } from '../../protocol/errors.js';
import type { SyncGroupRequest } from '../../protocol/messages/SyncGroupRequest.js';
import type { SyncGroupResponse } from '../../protocol/messages/SyncGroupResponse.js';
import { EMPTY_BYTES } from '../../protocol/primitives.js';
import { errorSync, type ClassicGroup } from './classic-group.js';
import type { ClassicContext } from './context.js';
import { ClassicGroupState } from './group-state.js';
import { groupMetadataRecord } from './group-metadata.js';
import { writeErrorCode } from '../runtime.js';

const { EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD } = ClassicGroupState;

/**
 * SyncGroup for a classic group (Kafka's `GroupMetadataManager.classicGroupSyncToClassicGroup`).
 * Errors: UNKNOWN_MEMBER_ID (unknown or Empty group, unknown member), FENCED_INSTANCE_ID,
 * COORDINATOR_NOT_AVAILABLE (Dead), ILLEGAL_GENERATION, INCONSISTENT_GROUP_PROTOCOL (type or
 * name differs from the group's), REBALANCE_IN_PROGRESS (PreparingRebalance, or a rebalance
 * started while the request was parked).
 * In CompletingRebalance followers wait; the leader's assignments (empty bytes for members it
 * left out) are written as GroupMetadata and, once durable, every parked member gets its own and
 * the group becomes Stable. In Stable the stored assignment is returned.
 */
export async function syncClassicGroup(ctx: ClassicContext, req: SyncGroupRequest): Promise<SyncGroupResponse> {
  const group = ctx.groups.get(req.groupId);
  if (!group || group.isInState(EMPTY)) return errorSync(ErrorCode.UNKNOWN_MEMBER_ID);
  const error = validateSyncGroup(group, req);
  if (error !== ErrorCode.NONE) return errorSync(error);

  if (group.isInState(PREPARING_REBALANCE)) return errorSync(ErrorCode.REBALANCE_IN_PROGRESS);

  const member = group.member(req.memberId)!;
  if (group.isInState(STABLE)) {
    ctx.rebalancer.removePendingSyncMember(group, req.memberId);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, protocolType: group.protocolType, protocolName: group.protocolName, assignment: member.assignment };
  }

  // CompletingRebalance: park until the leader's assignment is stored.
  const response = new Promise<SyncGroupResponse>((resolve) => (member.awaitingSync = resolve));
  ctx.rebalancer.removePendingSyncMember(group, req.memberId);
  if (group.isLeader(req.memberId)) storeLeaderAssignment(ctx, group, req);
  return response;
}

/** `validateSyncGroup`: Dead, member/instance, generation, then protocol type and name. */
function validateSyncGroup(group: ClassicGroup, req: SyncGroupRequest): number {
  if (group.isInState(DEAD)) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  const memberError = group.validateMember(req.memberId, req.groupInstanceId);
  if (memberError !== ErrorCode.NONE) return memberError;
  if (req.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
  if (isInconsistent(req.protocolType, group.protocolType) || isInconsistent(req.protocolName, group.protocolName)) {
    return ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
  }
  return ErrorCode.NONE;
}

/** Only a value both sides know can disagree (v0-4 requests carry neither). */
function isInconsistent(requested: string | null, current: string | null): boolean {
  return requested !== null && current !== null && requested !== current;
}

/**
 * Writes the leader's assignments and, if the group is still in the same CompletingRebalance
 * generation when the write is durable (a member may have joined meanwhile), hands them out and
 * moves to Stable; on a write failure every parked member gets the error and the group rebalances.
 */
function storeLeaderAssignment(ctx: ClassicContext, group: ClassicGroup, req: SyncGroupRequest): void {
  const assignments = new Map<string, Buffer>();
  for (const a of req.assignments) assignments.set(a.memberId, a.assignment);
  const missing = group.allMembers().filter((m) => !assignments.has(m.memberId)).map((m) => m.memberId);
  for (const memberId of missing) assignments.set(memberId, EMPTY_BYTES);
  if (missing.length > 0) {
    ctx.log.warn({ groupId: group.groupId, generationId: group.generationId, memberIds: missing }, 'leader sent no assignment for some members; they get an empty one');
  }
  // Assignments for ids that are not members are ignored, as Kafka only stores members' entries.
  const memberAssignments = new Map(group.allMembers().map((m) => [m.memberId, assignments.get(m.memberId)!]));
  ctx.log.info(
    { groupId: group.groupId, generationId: group.generationId, leader: req.memberId, members: group.numMembers, staticMembers: group.staticMemberCount() },
    'assignment received from classic group leader',
  );
  const stillCurrent = () => group.isInState(COMPLETING_REBALANCE) && req.generationId === group.generationId;
  ctx.writer.append([groupMetadataRecord(group, memberAssignments)]).then(
    () => {
      if (!stillCurrent()) return;
      ctx.rebalancer.setAndPropagateAssignment(group, memberAssignments);
      group.transitionTo(STABLE);
    },
    (err: unknown) => {
      if (!stillCurrent()) return;
      ctx.rebalancer.resetAndPropagateAssignmentWithError(group, writeErrorCode(err));
      ctx.rebalancer.maybePrepareRebalanceOrCompleteJoin(group, `error storing the assignment of generation ${group.generationId}`);
    },
  );
}
