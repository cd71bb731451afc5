import type { OffsetCommitRequest } from '../protocol/messages/OffsetCommitRequest.js';
import { defaultOffsetCommitResponse, type OffsetCommitResponse, type OffsetCommitResponseTopic } from '../protocol/messages/OffsetCommitResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition } from './types.js';
import type { OffsetToCommit } from '../coordinator/offsets/offset-store.js';
import { validateOffsetCommit } from '../coordinator/offsets/commit-validation.js';
import { partitionedTopics } from './shapes/partitioned-topics.js';
import { byGroupCoordinator } from './shapes/routing.js';

/** OffsetCommit's topics and partitions: by name, by topic id from v10 (KIP-848). */
const TOPICS = partitionedTopics<OffsetCommitRequest, OffsetCommitResponse>({
  topicIdsFrom: 10,
  request: { topics: 'topics', name: 'name', partitions: 'partitions', index: 'partitionIndex' },
  response: { topics: 'topics', name: 'name', partitions: 'partitions', index: 'partitionIndex' },
  emptyResponse: defaultOffsetCommitResponse,
  errorPartition: (partitionIndex, errorCode) => ({ partitionIndex, errorCode }),
});

/**
 * OffsetCommit (key 8, v2-10). Order as Kafka 4.3: group id check (INVALID_GROUP_ID), per
 * partition topic existence (UNKNOWN_TOPIC_OR_PARTITION; v10 by topic id: UNKNOWN_TOPIC_ID),
 * then group validation (`OffsetMetadataManager.validateOffsetCommit` /
 * `ClassicGroup.validateOffsetCommit`) whose error goes on every remaining partition, then
 * per partition OFFSET_METADATA_TOO_LARGE when the metadata is longer than
 * `offset.metadata.max.bytes` in UTF-16 code units (Java's `String.length()`).
 * Accepted offsets are appended to `__consumer_offsets` and durable before the response; when
 * that write fails, every partition the group coordinator handled answers NOT_COORDINATOR (Kafka's
 * `CoordinatorOperationExceptionHelper`: a storage error becomes NOT_COORDINATOR, the whole
 * coordinator request failing) and nothing is committed.
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
  async handle(req, ctx) {
    const byId = TOPICS.byId(ctx.apiVersion);
    const { broker } = ctx;
    const validation = req.groupId === ''
      ? { errorCode: ErrorCode.INVALID_GROUP_ID as number }
      : validateOffsetCommit(broker, req, ctx.apiVersion);
    const groupError = validation.errorCode;
    const maxMetadata = broker.config.int('offset.metadata.max.bytes');
    const now = BigInt(broker.time.now());
    const toCommit: OffsetToCommit[] = [];
    /** The partitions the group coordinator handled (past the topic checks KafkaApis makes first). */
    const coordinated: Array<{ errorCode: number }> = [];
    const topics: OffsetCommitResponseTopic[] = req.topics.map((t) => {
      const topic = byId ? broker.topics.getById(t.topicId) : broker.topics.get(t.name);
      return {
        name: byId ? '' : t.name,
        topicId: byId ? t.topicId : '',
        partitions: t.partitions.map((p) => {
          let errorCode: number = ErrorCode.NONE;
          if (!topic) errorCode = byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
          else if (p.partitionIndex < 0 || p.partitionIndex >= topic.partitionCount) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
          else if (groupError !== ErrorCode.NONE) errorCode = groupError;
          else if (validation.partitionError && validation.partitionError(topic.topicId, p.partitionIndex) !== ErrorCode.NONE) {
            errorCode = validation.partitionError(topic.topicId, p.partitionIndex);
          }
          else if ((p.committedMetadata?.length ?? 0) > maxMetadata) errorCode = ErrorCode.OFFSET_METADATA_TOO_LARGE;
          else {
            toCommit.push({
              topic: topic.name,
              partition: p.partitionIndex,
              offset: p.committedOffset,
              leaderEpoch: p.committedLeaderEpoch,
              metadata: p.committedMetadata ?? '',
              topicId: topic.topicId,
              // Java's long arithmetic wraps around; Kafka stores what it computes.
              expireTimestamp: req.retentionTimeMs === -1n ? -1n : BigInt.asIntN(64, now + req.retentionTimeMs),
            });
          }
          const result = { partitionIndex: p.partitionIndex, errorCode };
          if (errorCode === ErrorCode.NONE || errorCode === ErrorCode.OFFSET_METADATA_TOO_LARGE) coordinated.push(result);
          return result;
        }),
      };
    });
    if (toCommit.length > 0) {
      try {
        await broker.offsets.commit(req.groupId, toCommit);
      } catch (err) {
        ctx.log.warn({ err, groupId: req.groupId }, 'offset commit not written; answering NOT_COORDINATOR');
        for (const p of coordinated) p.errorCode = ErrorCode.NOT_COORDINATOR;
      }
    }
    return { throttleTimeMs: 0, topics };
  },
};

