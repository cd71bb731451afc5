import type { OffsetCommitRequest } from '../protocol/messages/OffsetCommitRequest.js';
import type { OffsetCommitResponse } from '../protocol/messages/OffsetCommitResponse.js';
import type { ApiDefinition } from './types.js';

/**
 * OffsetCommit (key 8, v2-10), served by `GroupCoordinator.commitOffsets` (coordinator/offsets/
 * offset-commit.ts: `KafkaApis.handleOffsetCommitRequest` topic checks, then
 * `OffsetMetadataManager.commitOffset`): INVALID_GROUP_ID, UNKNOWN_TOPIC_OR_PARTITION /
 * UNKNOWN_TOPIC_ID (v10), the group's validation error, OFFSET_METADATA_TOO_LARGE per partition;
 * NOT_COORDINATOR on every coordinated partition when the write fails.
 */
export const api: ApiDefinition<OffsetCommitRequest, OffsetCommitResponse> = {
  apiKey: 8,
  name: 'OffsetCommit',
  minVersion: 2,
  maxVersion: 10,
  handle(req, ctx) {
    return ctx.broker.groups.commitOffsets(req, ctx.apiVersion);
  },
};

