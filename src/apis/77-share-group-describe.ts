import type { ShareGroupDescribeRequest } from '../protocol/messages/ShareGroupDescribeRequest.js';
import { defaultShareGroupDescribeResponse, defaultDescribedGroup, type ShareGroupDescribeResponse } from '../protocol/messages/ShareGroupDescribeResponse.js';
import { GROUP_AUTHORIZED_OPERATIONS } from '../protocol/acl-operations.js';
import type { ApiDefinition } from './types.js';
import { groupList } from './shapes/group-list.js';
import { byGroupCoordinators } from './shapes/routing.js';

const GROUPS = groupList<ShareGroupDescribeRequest, ShareGroupDescribeResponse>({ request: 'groupIds', response: 'groups' });

/**
 * ShareGroupDescribe (key 77, v1; KIP-932): group state (Empty or Stable), epochs, the `simple`
 * assignor and members with their subscriptions and assignments (`ShareGroup.asDescribedGroup`).
 * An unknown group answers GROUP_ID_NOT_FOUND (`Group g not found.`), a group of another type
 * `Group g is not a share group.`, an empty id INVALID_GROUP_ID.
 */
export const api: ApiDefinition<ShareGroupDescribeRequest, ShareGroupDescribeResponse> = {
  apiKey: 77,
  name: 'ShareGroupDescribe',
  minVersion: 1,
  maxVersion: 1,
  // ShareGroupDescribeRequest.getErrorResponse: one entry per group.
  errorResponse: (req, _version, errorCode) => ({ ...defaultShareGroupDescribeResponse(), groups: req.groupIds.map((groupId) => ({ ...defaultDescribedGroup(), groupId, errorCode })) }),
  names: (req) => ({ groups: GROUPS.ids(req) }),
  largeAnswers: true,
  routing: byGroupCoordinators(GROUPS),
  handle(req, ctx) {
    return { throttleTimeMs: 0, groups: ctx.broker.groups.shareGroupDescribe(req.groupIds, req.includeAuthorizedOperations, GROUP_AUTHORIZED_OPERATIONS) };
  },
};
