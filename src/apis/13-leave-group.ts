import type { LeaveGroupRequest } from '../protocol/messages/LeaveGroupRequest.js';
import type { LeaveGroupResponse } from '../protocol/messages/LeaveGroupResponse.js';
import type { ApiDefinition } from './types.js';

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
  handle(req, ctx) {
    return ctx.broker.groups.leaveGroup(req, ctx);
  },
};
