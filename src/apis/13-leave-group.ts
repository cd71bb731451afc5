import type { LeaveGroupRequest, MemberIdentity } from '../protocol/messages/LeaveGroupRequest.js';
import { defaultLeaveGroupResponse, type LeaveGroupResponse, type MemberResponse } from '../protocol/messages/LeaveGroupResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { byGroupCoordinator } from './shapes/routing.js';

/** From v3 a LeaveGroup names a batch of members (KIP-345). */
const BATCHED_FROM = 3;

/**
 * The members a LeaveGroup request names, as Kafka's `LeaveGroupRequest.members()`: v0-2 carry
 * one member id (no instance id), v3+ a list.
 */
export function leavingMembers(req: LeaveGroupRequest, version: number): MemberIdentity[] {
  return version >= BATCHED_FROM ? req.members : [{ memberId: req.memberId, groupInstanceId: null, reason: null }];
}

/**
 * A LeaveGroup answer at `version`, as Kafka's `LeaveGroupResponse` constructor shapes it: v0-2
 * carry no member list, so the group's error, else the one member's, is the top-level error.
 */
export function leaveGroupResponseAt(version: number, errorCode: number, members: MemberResponse[]): LeaveGroupResponse {
  if (version >= BATCHED_FROM) return { throttleTimeMs: 0, errorCode, members };
  return { throttleTimeMs: 0, errorCode: errorCode !== ErrorCode.NONE ? errorCode : (members[0]?.errorCode ?? ErrorCode.NONE), members: [] };
}

/**
 * LeaveGroup (key 13, v0-5), served by `GroupCoordinator.leaveGroup`. v0-2 name one
 * member and get its error (UNKNOWN_MEMBER_ID, …) as the top-level error; v3+ name members
 * (by member id, or by group instance id with member id "") and get one result per member
 * (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID). INVALID_GROUP_ID and COORDINATOR_NOT_AVAILABLE are
 * top-level in every version.
 */
export const api: ApiDefinition<LeaveGroupRequest, LeaveGroupResponse> = {
  apiKey: 13,
  name: 'LeaveGroup',
  minVersion: 0,
  maxVersion: 5,
  errorResponse: topLevelError(defaultLeaveGroupResponse),
  names: (req, version) => ({ groups: [req.groupId], members: leavingMembers(req, version).map((m) => m.memberId) }),
  routing: byGroupCoordinator(),
  async handle(req, ctx) {
    const result = await ctx.broker.groups.leaveGroup(req.groupId, leavingMembers(req, ctx.apiVersion));
    return leaveGroupResponseAt(ctx.apiVersion, result.errorCode, result.members);
  },
};
