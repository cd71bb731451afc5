import type { DescribeGroupsRequest } from '../protocol/messages/DescribeGroupsRequest.js';
import { defaultDescribeGroupsResponse, defaultDescribedGroup, type DescribeGroupsResponse } from '../protocol/messages/DescribeGroupsResponse.js';
import { AUTHORIZED_OPERATIONS_OMITTED, GROUP_AUTHORIZED_OPERATIONS } from '../protocol/acl-operations.js';
import type { ApiDefinition } from './types.js';
import { groupList } from './shapes/group-list.js';
import { byGroupCoordinators } from './shapes/routing.js';

const GROUPS = groupList<DescribeGroupsRequest, DescribeGroupsResponse>({ request: 'groups', response: 'groups' });

/**
 * Operations a client may perform on a group (Kafka's supported ACL operations for the GROUP
 * resource: READ 3, DELETE 6, DESCRIBE 8), as a bit field; with no authorizer all are allowed.
 */

/**
 * DescribeGroups (key 15, v0-6), served by `GroupCoordinator.describeGroups`. Unknown
 * groups: state "Dead" with NONE up to v5, GROUP_ID_NOT_FOUND with a message in v6.
 * Authorized operations (v3+) are filled only when requested, else Kafka's "omitted" value.
 */
export const api: ApiDefinition<DescribeGroupsRequest, DescribeGroupsResponse> = {
  apiKey: 15,
  name: 'DescribeGroups',
  minVersion: 0,
  maxVersion: 6,
  // DescribeGroupsRequest.getErrorResponse: one entry per group.
  errorResponse: (req, _version, errorCode) => ({
    ...defaultDescribeGroupsResponse(),
    groups: req.groups.map((groupId) => ({ ...defaultDescribedGroup(), groupId, errorCode, groupState: '', authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED })),
  }),
  names: (req) => ({ groups: GROUPS.ids(req) }),
  largeAnswers: true,
  routing: byGroupCoordinators(GROUPS),
  async handle(req, ctx) {
    const groups = await ctx.broker.groups.describeGroups(req.groups, ctx.apiVersion);
    if (ctx.apiVersion >= 3 && req.includeAuthorizedOperations) {
      for (const g of groups) if (g.errorCode === 0) g.authorizedOperations = GROUP_AUTHORIZED_OPERATIONS;
    }
    return { throttleTimeMs: 0, groups };
  },
};
