import type { DescribeGroupsRequest } from '../protocol/messages/DescribeGroupsRequest.js';
import type { DescribeGroupsResponse } from '../protocol/messages/DescribeGroupsResponse.js';
import { AUTHORIZED_OPERATIONS_OMITTED, GROUP_AUTHORIZED_OPERATIONS } from '../protocol/acl-operations.js';
import type { ApiDefinition } from './types.js';

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
  handle(req, ctx) {
    const groups = ctx.broker.groups.describeGroups(req.groups, ctx.apiVersion);
    if (ctx.apiVersion >= 3 && req.includeAuthorizedOperations) {
      for (const g of groups) if (g.errorCode === 0) g.authorizedOperations = GROUP_AUTHORIZED_OPERATIONS;
    }
    return { throttleTimeMs: 0, groups };
  },
};
