import type { StreamsGroupDescribeRequest } from '../protocol/messages/StreamsGroupDescribeRequest.js';
import { defaultStreamsGroupDescribeResponse, defaultDescribedGroup, type StreamsGroupDescribeResponse } from '../protocol/messages/StreamsGroupDescribeResponse.js';
import { GROUP_AUTHORIZED_OPERATIONS } from '../protocol/acl-operations.js';
import type { ApiDefinition } from './types.js';
import { groupList } from './shapes/group-list.js';
import { byGroupCoordinators } from './shapes/routing.js';

const GROUPS = groupList<StreamsGroupDescribeRequest, StreamsGroupDescribeResponse>({ request: 'groupIds', response: 'groups' });

/**
 * StreamsGroupDescribe (key 89, v0; KIP-1071): state, epochs, the topology (configured when ready)
 * and members with their process, endpoint and current and target tasks
 * (`StreamsGroup.asDescribedGroup`). An unknown group answers GROUP_ID_NOT_FOUND (`Group g not
 * found.`), a group of another type `Group g is not a streams group.`, an empty id INVALID_GROUP_ID.
 */
export const api: ApiDefinition<StreamsGroupDescribeRequest, StreamsGroupDescribeResponse> = {
  apiKey: 89,
  name: 'StreamsGroupDescribe',
  minVersion: 0,
  maxVersion: 0,
  // StreamsGroupDescribeRequest.getErrorResponse: one entry per group.
  errorResponse: (req, _version, errorCode) => ({ ...defaultStreamsGroupDescribeResponse(), groups: req.groupIds.map((groupId) => ({ ...defaultDescribedGroup(), groupId, errorCode })) }),
  names: (req) => ({ groups: GROUPS.ids(req) }),
  largeAnswers: true,
  routing: byGroupCoordinators(GROUPS),
  handle(req, ctx) {
    return { throttleTimeMs: 0, groups: ctx.broker.groups.streamsGroupDescribe(req.groupIds, req.includeAuthorizedOperations, GROUP_AUTHORIZED_OPERATIONS) };
  },
};
