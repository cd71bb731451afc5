import { ErrorCode } from '../../protocol/errors.js';
import type { MemberIdentity } from '../../protocol/messages/LeaveGroupRequest.js';
import type { MemberResponse } from '../../protocol/messages/LeaveGroupResponse.js';
import { errorJoin, type ClassicGroup } from './classic-group.js';
import type { ClassicContext } from './context.js';
import { ClassicGroupState } from './group-state.js';
import { CoordinatorRuntime } from '../runtime.js';

/** The coordinator's LeaveGroup answer before version shaping: a group error or per-member results. */
export interface LeaveGroupResult {
  errorCode: number;
  members: MemberResponse[];
}

/**
 * LeaveGroup for a classic group (Kafka's `classicGroupLeaveToClassicGroup`), for the batch form
 * (v3+; v0-2 requests are one member without an instance id). Per member: member id "" with an
 * instance id removes that static member (unknown instance -> UNKNOWN_MEMBER_ID); a pending
 * member is dropped; otherwise FENCED_INSTANCE_ID / UNKNOWN_MEMBER_ID from member validation.
 * An unknown group answers UNKNOWN_MEMBER_ID for every member; a Dead group
 * COORDINATOR_NOT_AVAILABLE at the top level. When anyone left, a Stable or CompletingRebalance
 * group rebalances and a PreparingRebalance group may complete its join phase.
 */
export async function leaveClassicGroup(ctx: ClassicContext, groupId: string, members: readonly MemberIdentity[]): Promise<LeaveGroupResult> {
  const group = ctx.groups.get(groupId);
  const answer = (m: MemberIdentity, errorCode: number): MemberResponse => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, errorCode });
  if (!group) return { errorCode: ErrorCode.NONE, members: members.map((m) => answer(m, ErrorCode.UNKNOWN_MEMBER_ID)) };
  if (group.isInState(ClassicGroupState.DEAD)) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };

  const { result: responses, writes } = ctx.writer.capture(() => leaveMembers(ctx, group, members));
  // The records the leave caused (the Empty group's, when the last member left) are the
  // operation's: a failed write fails the request, as Kafka's runtime answers it.
  const failure = await CoordinatorRuntime.firstFailure(writes);
  if (failure) {
    ctx.log.warn({ groupId, err: failure.message }, 'LeaveGroup records not written');
    return { errorCode: failure.errorCode, members: [] };
  }
  return { errorCode: ErrorCode.NONE, members: responses };
}

/** Removes the named members and rebalances when anyone left; the per-member answers. */
function leaveMembers(ctx: ClassicContext, group: ClassicGroup, members: readonly MemberIdentity[]): MemberResponse[] {
  const { groupId } = group;
  const answer = (m: MemberIdentity, errorCode: number): MemberResponse => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, errorCode });
  const responses: MemberResponse[] = [];
  const left: string[] = [];
  const clientReasons: string[] = [];
  for (const m of members) {
    const reason = m.reason ?? 'not provided';
    if (m.memberId === '') {
      // Administrative removal by group instance id (kafka-consumer-groups --delete-members style).
      const staticMemberId = m.groupInstanceId === null ? undefined : group.staticMemberId(m.groupInstanceId);
      if (staticMemberId === undefined) {
        responses.push(answer(m, ErrorCode.UNKNOWN_MEMBER_ID));
        continue;
      }
      removeCurrentMember(ctx, group, staticMemberId, reason);
    } else if (group.isPendingMember(m.memberId)) {
      group.remove(m.memberId);
      ctx.rebalancer.cancelHeartbeat(group, m.memberId);
      ctx.log.info({ groupId, memberId: m.memberId, reason }, 'pending classic group member left');
    } else {
      const error = group.validateMember(m.memberId, m.groupInstanceId);
      if (error !== ErrorCode.NONE) {
        responses.push(answer(m, error));
        continue;
      }
      removeCurrentMember(ctx, group, m.memberId, reason);
    }
    responses.push(answer(m, ErrorCode.NONE));
    left.push(m.memberId);
    if (m.reason !== null && m.reason !== '') clientReasons.push(m.reason);
  }

  if (left.length > 0) {
    const why = `explicit LeaveGroup request for (${left.join(', ')}) members`;
    if (group.isInState(ClassicGroupState.STABLE) || group.isInState(ClassicGroupState.COMPLETING_REBALANCE)) {
      // The console shows why the clients left (a Java consumer says "consumer poll timeout has expired.").
      const detail = clientReasons.length > 0 ? `${why}; client reason: ${[...new Set(clientReasons)].join(', ')}` : why;
      ctx.rebalancer.maybePrepareRebalanceOrCompleteJoin(group, why, detail);
    } else if (group.isInState(ClassicGroupState.PREPARING_REBALANCE)) {
      ctx.rebalancer.maybeCompleteJoinPhase(group);
    }
  }
  return responses;
}

/**
 * `removeCurrentMemberFromClassicGroup`: its parked JoinGroup (if any) gets UNKNOWN_MEMBER_ID
 * before removal, so a client still alive starts over.
 */
function removeCurrentMember(ctx: ClassicContext, group: ClassicGroup, memberId: string, reason: string): void {
  const member = group.member(memberId)!;
  ctx.rebalancer.cancelHeartbeat(group, memberId);
  ctx.log.info({ groupId: group.groupId, memberId, reason }, 'classic group member left');
  group.completeJoin(member, errorJoin(ErrorCode.UNKNOWN_MEMBER_ID));
  group.remove(memberId);
}
