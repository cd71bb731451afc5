import { ErrorCode } from '../protocol/errors.js';
import type { ListGroupsRequest } from '../protocol/messages/ListGroupsRequest.js';
import { defaultListGroupsResponse, type ListGroupsResponse } from '../protocol/messages/ListGroupsResponse.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { namesNothing } from './shapes/names.js';
import { COORDINATED_GROUPS } from './shapes/routing.js';

/**
 * ListGroups (key 16, v0-5), served by `GroupCoordinator.listGroups`: every group this
 * broker coordinates, filtered by state (v4+, case-insensitive) and type (v5+: "classic" groups
 * from the classic coordinator, "consumer" groups from the KIP-848 coordinator). Older versions carry no filters, so none apply.
 * The groups are listed in slices (100,000 groups held every connection 200-500 ms).
 */
export const api: ApiDefinition<ListGroupsRequest, ListGroupsResponse> = {
  apiKey: 16,
  name: 'ListGroups',
  minVersion: 0,
  maxVersion: 5,
  errorResponse: topLevelError(defaultListGroupsResponse),
  names: namesNothing,
  largeAnswers: true,
  routing: COORDINATED_GROUPS,
  async handle(req, ctx) {
    const states = ctx.apiVersion >= 4 ? req.statesFilter : [];
    const types = ctx.apiVersion >= 5 ? req.typesFilter : [];
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups: await ctx.broker.groups.listGroups(states, types) };
  },
};
