import { ErrorCode } from '../../protocol/errors.js';
import type { HeartbeatRequest } from '../../protocol/messages/HeartbeatRequest.js';
import type { ClassicContext } from './context.js';
import { ClassicGroupState } from './group-state.js';

/**
 * Heartbeat for a classic group (Kafka's `classicGroupHeartbeatToClassicGroup` and
 * `validateClassicGroupHeartbeat`). Returns the error code:
 * UNKNOWN_MEMBER_ID (unknown group or member, or Empty group), FENCED_INSTANCE_ID,
 * COORDINATOR_NOT_AVAILABLE (Dead), ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS (PreparingRebalance:
 * the session is still refreshed so the member has time to rejoin), NONE (CompletingRebalance,
 * Stable: consumers heartbeat between their JoinGroup and SyncGroup responses).
 */
export function heartbeatClassicGroup(ctx: ClassicContext, req: HeartbeatRequest): number {
  const group = ctx.groups.get(req.groupId);
  if (!group) return ErrorCode.UNKNOWN_MEMBER_ID;
  if (group.isInState(ClassicGroupState.DEAD)) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  const memberError = group.validateMember(req.memberId, req.groupInstanceId);
  if (memberError !== ErrorCode.NONE) return memberError;
  if (req.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
  const member = group.member(req.memberId)!;
  switch (group.state) {
    case ClassicGroupState.EMPTY:
      return ErrorCode.UNKNOWN_MEMBER_ID;
    case ClassicGroupState.PREPARING_REBALANCE:
      ctx.rebalancer.rescheduleHeartbeat(group, member);
      return ErrorCode.REBALANCE_IN_PROGRESS;
    default:
      ctx.rebalancer.rescheduleHeartbeat(group, member);
      return ErrorCode.NONE;
  }
}
