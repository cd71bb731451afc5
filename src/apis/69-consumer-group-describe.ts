import type { ConsumerGroupDescribeRequest } from '../protocol/messages/ConsumerGroupDescribeRequest.js';
import { defaultConsumerGroupDescribeResponse, defaultDescribedGroup, type ConsumerGroupDescribeResponse } from '../protocol/messages/ConsumerGroupDescribeResponse.js';
import { GROUP_AUTHORIZED_OPERATIONS } from '../protocol/acl-operations.js';
import type { ApiDefinition } from './types.js';
import { groupList } from './shapes/group-list.js';
import { byGroupCoordinators } from './shapes/routing.js';

const GROUPS = groupList<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse>({ request: 'groupIds', response: 'groups' });

/** READ 3, DELETE 6, DESCRIBE 8 (as DescribeGroups answers with no authorizer). */

/**
 * ConsumerGroupDescribe (key 69, v0-1): group state, epochs, assignor and members with their
 * current and target assignments (`ConsumerGroup.asDescribedGroup`). An unknown group, or one that
 * is not a consumer group, answers GROUP_ID_NOT_FOUND for that group; an empty id INVALID_GROUP_ID.
 */
export const api: ApiDefinition<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse> = {
  apiKey: 69,
  name: 'ConsumerGroupDescribe',
  minVersion: 0,
  maxVersion: 1,
  // ConsumerGroupDescribeRequest.getErrorResponse: one entry per group.
  errorResponse: (req, _version, errorCode) => ({ ...defaultConsumerGroupDescribeResponse(), groups: req.groupIds.map((groupId) => ({ ...defaultDescribedGroup(), groupId, errorCode })) }),
  names: (req) => ({ groups: GROUPS.ids(req) }),
  largeAnswers: true,
  routing: byGroupCoordinators(GROUPS),
  handle(req, ctx) {
    return { throttleTimeMs: 0, groups: ctx.broker.groups.consumerGroupDescribe(req.groupIds, req.includeAuthorizedOperations, GROUP_AUTHORIZED_OPERATIONS) };
  },
};
