import type { DeleteGroupsRequest } from '../protocol/messages/DeleteGroupsRequest.js';
import { defaultDeletableGroupResult, defaultDeleteGroupsResponse, type DeleteGroupsResponse } from '../protocol/messages/DeleteGroupsResponse.js';
import type { ApiDefinition } from './types.js';
import { groupList } from './shapes/group-list.js';
import { byGroupCoordinators } from './shapes/routing.js';

const GROUPS = groupList<DeleteGroupsRequest, DeleteGroupsResponse>({ request: 'groupsNames', response: 'results' });

/**
 * DeleteGroups (key 42, v0-2), served by `GroupCoordinator.deleteGroups`: per distinct group
 * GROUP_ID_NOT_FOUND (unknown, including ""; Kafka refuses only a null id), NON_EMPTY_GROUP
 * (members present), or NONE once the group's offsets and the group are tombstoned durably.
 */
export const api: ApiDefinition<DeleteGroupsRequest, DeleteGroupsResponse> = {
  apiKey: 42,
  name: 'DeleteGroups',
  minVersion: 0,
  maxVersion: 2,
  // DeleteGroupsRequest.getErrorResponse: one result per distinct group (a collection keyed by id).
  errorResponse: (req, _version, errorCode) => ({
    ...defaultDeleteGroupsResponse(),
    results: [...new Set(req.groupsNames)].map((groupId) => ({ ...defaultDeletableGroupResult(), groupId, errorCode })),
  }),
  names: (req) => ({ groups: GROUPS.ids(req) }),
  routing: byGroupCoordinators(GROUPS),
  async handle(req, ctx) {
    return { throttleTimeMs: 0, results: await ctx.broker.groups.deleteGroups(req.groupsNames) };
  },
};
