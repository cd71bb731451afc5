import type { OffsetDeleteRequest } from '../protocol/messages/OffsetDeleteRequest.js';
import { defaultOffsetDeleteResponse, type OffsetDeleteResponse } from '../protocol/messages/OffsetDeleteResponse.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { byGroupCoordinator } from './shapes/routing.js';

/**
 * OffsetDelete (key 47, v0), served by `GroupCoordinator.deleteOffsets` (coordinator/offsets/
 * offset-delete.ts: Kafka 4.3's `KafkaApis.handleOffsetDeleteRequest`,
 * `GroupCoordinatorService.deleteOffsets`, `OffsetMetadataManager.deleteOffsets`): INVALID_GROUP_ID,
 * GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP at the top level; UNKNOWN_TOPIC_OR_PARTITION and
 * GROUP_SUBSCRIBED_TO_TOPIC per partition.
 */
export const api: ApiDefinition<OffsetDeleteRequest, OffsetDeleteResponse> = {
  apiKey: 47,
  name: 'OffsetDelete',
  minVersion: 0,
  maxVersion: 0,
  errorResponse: topLevelError(defaultOffsetDeleteResponse),
  names: (req) => ({ groups: [req.groupId], topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => p.partitionIndex) })) }),
  routing: byGroupCoordinator(),
  handle(req, ctx) {
    return ctx.broker.groups.deleteOffsets(req);
  },
};
