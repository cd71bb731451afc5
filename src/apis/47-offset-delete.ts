import type { OffsetDeleteRequest } from '../protocol/messages/OffsetDeleteRequest.js';
import type { OffsetDeleteResponse } from '../protocol/messages/OffsetDeleteResponse.js';
import type { ApiDefinition } from './types.js';

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
  handle(req, ctx) {
    return ctx.broker.groups.deleteOffsets(req);
  },
};
