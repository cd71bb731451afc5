import type { OffsetCommitRequest } from '../protocol/messages/OffsetCommitRequest.js';
import { defaultOffsetCommitResponse, type OffsetCommitResponse } from '../protocol/messages/OffsetCommitResponse.js';
import type { ApiDefinition } from './types.js';
import { ELEMENTS_PER_SLICE } from '../protocol/primitives.js';
import { OFFSET_COMMIT_TOPIC_IDS_VERSION } from '../coordinator/offsets/offset-commit.js';
import { partitionedTopics } from './shapes/partitioned-topics.js';
import { byGroupCoordinator } from './shapes/routing.js';

/** OffsetCommit's topics and partitions: by name, by topic id from v10 (KIP-848). */
const TOPICS = partitionedTopics<OffsetCommitRequest, OffsetCommitResponse>({
  topicIdsFrom: OFFSET_COMMIT_TOPIC_IDS_VERSION,
  request: { topics: 'topics', name: 'name', partitions: 'partitions', index: 'partitionIndex' },
  response: { topics: 'topics', name: 'name', partitions: 'partitions', index: 'partitionIndex' },
  emptyResponse: defaultOffsetCommitResponse,
  errorPartition: (partitionIndex, errorCode) => ({ partitionIndex, errorCode }),
});

/** The codes of a response without errors. */
const NO_ERRORS: readonly number[] = Object.freeze([]);

/**
 * The request log's error codes of an answer: its partitions' codes in order (the response has no
 * top-level code at any version), each once; null past `ELEMENTS_PER_SLICE` partitions, left to
 * the log's walk in slices.
 */
function errorCodes(res: OffsetCommitResponse): readonly number[] | null {
  let found: number[] | null = null;
  let partitions = 0;
  for (const t of res.topics) {
    partitions += t.partitions.length;
    if (partitions > ELEMENTS_PER_SLICE) return null;
    for (const p of t.partitions) {
      const code = p.errorCode;
      if (code !== 0 && (found === null || !found.includes(code))) (found ??= []).push(code);
    }
  }
  return found ?? NO_ERRORS;
}

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
  errorResponse: TOPICS.failAll,
  names: (req, version) => ({ groups: [req.groupId], members: [req.memberId], topics: TOPICS.named(req, version) }),
  partitions: TOPICS,
  routing: byGroupCoordinator(),
  errorCodes,
  handle(req, ctx) {
    return ctx.broker.groups.commitOffsets(req, ctx.apiVersion);
  },
};

