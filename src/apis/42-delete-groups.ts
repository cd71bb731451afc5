import type { DeleteGroupsRequest } from '../protocol/messages/DeleteGroupsRequest.js';
import type { DeleteGroupsResponse } from '../protocol/messages/DeleteGroupsResponse.js';
import type { ApiDefinition } from './types.js';

/**
 * DeleteGroups (key 42, v0-2), served by `GroupCoordinator.deleteGroups`: per group
 * GROUP_ID_NOT_FOUND (unknown, including ""; Kafka refuses only a null id), NON_EMPTY_GROUP
 * (members present), or NONE once the group's offsets and the group are tombstoned durably.
 */
export const api: ApiDefinition<DeleteGroupsRequest, DeleteGroupsResponse> = {
  apiKey: 42,
  name: 'DeleteGroups',
  minVersion: 0,
  maxVersion: 2,
  async handle(req, ctx) {
    return { throttleTimeMs: 0, results: await ctx.broker.groups.deleteGroups(req.groupsNames) };
  },
};
