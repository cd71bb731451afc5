import type { OffsetForLeaderEpochRequest } from '../protocol/messages/OffsetForLeaderEpochRequest.js';
import { defaultOffsetForLeaderEpochResponse, type EpochEndOffset, type OffsetForLeaderEpochResponse } from '../protocol/messages/OffsetForLeaderEpochResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { leaderEpochError } from '../topics/leader-epoch-check.js';
import type { ApiDefinition } from './types.js';
import { partitionedTopics } from './shapes/partitioned-topics.js';
import { byPartitionLeaders } from './shapes/routing.js';

/** OffsetForLeaderEpoch's topics and partitions (by name). */
const TOPICS = partitionedTopics<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse>({
  request: { topics: 'topics', name: 'topic', partitions: 'partitions', index: 'partition' },
  response: { topics: 'topics', name: 'topic', partitions: 'partitions', index: 'partition' },
  emptyResponse: defaultOffsetForLeaderEpochResponse,
  errorPartition: (partition, errorCode) => ({ errorCode, partition, leaderEpoch: -1, endOffset: -1n }),
});

/**
 * OffsetForLeaderEpoch (key 23, v2-4; v4 flexible), what consumers send to validate their position
 * after a leader change, as Kafka 4.3's `Partition.lastOffsetForLeaderEpoch` on the leader: per
 * partition, unknown -> UNKNOWN_TOPIC_OR_PARTITION; the current leader epoch (-1: unchecked) below
 * the partition's -> FENCED_LEADER_EPOCH, above -> UNKNOWN_LEADER_EPOCH; else the end offset of the
 * requested epoch from the partition's leader epoch cache (`LeaderEpochFileCache.endOffsetFor`:
 * the start offset of the next epoch, the log-end offset for the current one; an epoch above the
 * current one answers epoch -1, offset -1). Errored partitions answer -1, -1. Routed to the leader
 * (NOT_LEADER_OR_FOLLOWER elsewhere).
 */
export const api: ApiDefinition<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse> = {
  apiKey: 23,
  name: 'OffsetForLeaderEpoch',
  minVersion: 2,
  maxVersion: 4,
  errorResponse: TOPICS.failAll,
  names: (req, version) => ({ topics: TOPICS.named(req, version) }),
  partitions: TOPICS,
  routing: byPartitionLeaders(TOPICS),
  handle(req, ctx) {
    const { broker } = ctx;
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => {
        const topic = broker.topics.get(t.topic);
        return {
          topic: t.topic,
          partitions: t.partitions.map((p): EpochEndOffset => {
            const fail = (errorCode: number): EpochEndOffset => ({ errorCode, partition: p.partition, leaderEpoch: -1, endOffset: -1n });
            const partition = topic?.partition(p.partition);
            if (!partition) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
            const epochError = leaderEpochError(p.currentLeaderEpoch, partition.leaderEpoch, true);
            if (epochError !== ErrorCode.NONE) return fail(epochError);
            const found = partition.epochs.endOffsetFor(p.leaderEpoch, partition.logEndOffset);
            return { errorCode: ErrorCode.NONE, partition: p.partition, leaderEpoch: found.epoch, endOffset: found.endOffset };
          }),
        };
      }),
    };
  },
};
