import type { DeleteGroupsRequest } from '../protocol/messages/DeleteGroupsRequest.js';
import { defaultDeletableGroupResult, defaultDeleteGroupsResponse, type DeleteGroupsResponse } from '../protocol/messages/DeleteGroupsResponse.js';
import type { ApiDefinition } from './types.js';
import { groupList } from './shapes/group-list.js';
import { byGroupCoordinators } from './shapes/routing.js';

const GROUPS = groupList<DeleteGroupsRequest, DeleteGroupsResponse>({ request: 'groupsNames', response: 'results' });

/**
 * DeleteGroups (key 42, v0-2), served by `ClassicGroupCoordinator.deleteGroups`: per group
 * GROUP_ID_NOT_FOUND (unknown, including ""; Kafka refuses only a null id), NON_EMPTY_GROUP
 * (members present), or NONE once the group's offsets and the group are tombstoned durably.
 */
export const api: ApiDefinition<DeleteGroupsRequest, DeleteGroupsResponse> = {
  apiKey: 42,
  name: 'DeleteGroups',
  minVersion: 0,
  maxVersion: 2,
  // DeleteGroupsRequest.getErrorResponse: one result per group.
  errorResponse: (req, _version, errorCode) => ({ ...defaultDeleteGroupsResponse(), results: req.groupsNames.map((groupId) => ({ ...defaultDeletableGroupResult(), groupId, errorCode })) }),
  names: (req) => ({ groups: GROUPS.ids(req) }),
  routing: byGroupCoordinators(GROUPS),
  async handle(req, ctx) {
    const { classic, consumer } = ctx.broker;
    const consumerIds = req.groupsNames.filter((id) => consumer.hasGroup(id));
    const classicResults = await classic.deleteGroups(req.groupsNames.filter((id) => !consumerIds.includes(id)));
    const consumerResults = new Map(await Promise.all(consumerIds.map(async (id) => [id, await consumer.deleteGroup(id)] as const)));
    let next = 0;
    const results = req.groupsNames.map((groupId) =>
      consumerResults.has(groupId) ? { groupId, errorCode: consumerResults.get(groupId)! } : classicResults[next++]!,
    );
    return { throttleTimeMs: 0, results };
  },
};
