import type { DeleteShareGroupOffsetsRequest } from '../protocol/messages/DeleteShareGroupOffsetsRequest.js';
import { defaultDeleteShareGroupOffsetsResponse, type DeleteShareGroupOffsetsResponse } from '../protocol/messages/DeleteShareGroupOffsetsResponse.js';
import { shareOffsetsErrorMessage } from '../coordinator/share/share-offsets-admin.js';
import type { ApiDefinition } from './types.js';
import { byGroupCoordinator } from './shapes/routing.js';

/**
 * DeleteShareGroupOffsets (key 92, v0; KIP-932): deletes the share state of an empty share group's
 * topics, so its next member starts them from `share.auto.offset.reset`, as Kafka 4.3.1's
 * `KafkaApis.handleDeleteShareGroupOffsetsRequest` over `GroupCoordinator.deleteShareGroupOffsets`
 * (coordinator/share/share-offsets-admin.ts): INVALID_GROUP_ID, GROUP_ID_NOT_FOUND and
 * NON_EMPTY_GROUP at the top level; UNKNOWN_TOPIC_OR_PARTITION per topic. DELETE on the group and
 * READ on each topic are checked by src/security/authorization/api-checks.ts.
 */
export const api: ApiDefinition<DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse> = {
  apiKey: 92,
  name: 'DeleteShareGroupOffsets',
  minVersion: 0,
  maxVersion: 0,
  // DeleteShareGroupOffsetsRequest.getErrorResponse: the error and its message at the top level.
  errorResponse: (_req, _version, errorCode) => ({ ...defaultDeleteShareGroupOffsetsResponse(), errorCode, errorMessage: shareOffsetsErrorMessage(errorCode) }),
  names: (req) => ({ groups: [req.groupId], topics: req.topics.map((t) => ({ name: t.topicName, partitions: null })) }),
  routing: byGroupCoordinator(),
  handle(req, ctx) {
    return ctx.broker.groups.deleteShareGroupOffsets(req.groupId, req.topics.map((t) => t.topicName));
  },
};
