import type { DescribeTopicPartitionsRequest } from '../protocol/messages/DescribeTopicPartitionsRequest.js';
import { defaultDescribeTopicPartitionsResponse, type DescribeTopicPartitionsResponse, type DescribeTopicPartitionsResponseTopic } from '../protocol/messages/DescribeTopicPartitionsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { ZERO_UUID } from '../protocol/primitives.js';
import { ALL_TOPIC_OPERATIONS, partitionMetadata } from './partition-metadata.js';
import type { ApiDefinition } from './types.js';
import { ANY_BROKER } from './shapes/routing.js';

/** Kafka's `max.request.partition.size.limit` default: the most partitions one response holds. */
const MAX_PARTITIONS_PER_RESPONSE = 2000;

/**
 * DescribeTopicPartitions (key 75, v0), what Kafka 4's `kafka-topics --describe` and `Admin`
 * describeTopics use, as `DescribeTopicPartitionsRequestHandler`: the topics named (none: every
 * topic, `__consumer_offsets` included), in name order, each with its partitions as Metadata
 * describes them plus empty eligible-leader-replica lists (ELR on, no ELR here), and every topic
 * operation authorized. At most `responsePartitionLimit` partitions (capped at 2000) per response;
 * `cursor` (a topic and a partition) says where to start and `nextCursor` where the next response
 * starts (null when done). An unknown topic answers UNKNOWN_TOPIC_OR_PARTITION in its place. A cursor
 * with a negative partition, or naming a topic the (non-empty) list lacks, is INVALID_REQUEST on
 * every topic named (the handler's InvalidRequestException: "DescribeTopicPartitionsRequest cursor
 * partition must be valid: ..." / "... topic list should contain the cursor topic: ...").
 */
export const api: ApiDefinition<DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse> = {
  apiKey: 75,
  name: 'DescribeTopicPartitions',
  minVersion: 0,
  maxVersion: 0,
  // DescribeTopicPartitionsRequest.getErrorResponse: each topic named with the error.
  errorResponse: (req, _version, errorCode) => ({
    ...defaultDescribeTopicPartitionsResponse(),
    topics: req.topics.map((t) => ({ errorCode, name: t.name, topicId: ZERO_UUID, isInternal: false, partitions: [], topicAuthorizedOperations: -2147483648 })),
  }),
  names: (req) => ({ topics: req.topics.map((t) => ({ name: t.name, partitions: null })) }),
  largeAnswers: true,
  routing: ANY_BROKER,
  handle(req, ctx) {
    const { broker } = ctx;
    const names = req.topics.length === 0 ? broker.topics.list().map((t) => t.name) : [...new Set(req.topics.map((t) => t.name))].sort(compareNames);
    const cursor = req.cursor;
    if (cursor && (cursor.partitionIndex < 0 || (req.topics.length > 0 && !req.topics.some((t) => t.name === cursor.topicName)))) {
      return api.errorResponse(req, ctx.apiVersion, ErrorCode.INVALID_REQUEST);
    }
    let budget = Math.max(1, Math.min(req.responsePartitionLimit, MAX_PARTITIONS_PER_RESPONSE));
    const topics: DescribeTopicPartitionsResponseTopic[] = [];
    let nextCursor: DescribeTopicPartitionsResponse['nextCursor'] = null;
    for (const name of names) {
      if (cursor && compareNames(name, cursor.topicName) < 0) continue;
      const topic = broker.topics.get(name);
      if (!topic) {
        topics.push({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name, topicId: ZERO_UUID, isInternal: false, partitions: [], topicAuthorizedOperations: ALL_TOPIC_OPERATIONS });
        continue;
      }
      if (budget === 0) {
        nextCursor = { topicName: name, partitionIndex: 0 };
        break;
      }
      const from = cursor && cursor.topicName === name ? cursor.partitionIndex : 0;
      const to = Math.min(topic.partitionCount, from + budget);
      const partitions = [];
      for (let p = from; p < to; p++) partitions.push({ ...partitionMetadata(broker, topic, p), eligibleLeaderReplicas: [], lastKnownElr: [] });
      budget -= partitions.length;
      topics.push({ errorCode: ErrorCode.NONE, name, topicId: topic.id, isInternal: topic.internal, partitions, topicAuthorizedOperations: ALL_TOPIC_OPERATIONS });
      if (to < topic.partitionCount) {
        nextCursor = { topicName: name, partitionIndex: to };
        break;
      }
    }
    return { throttleTimeMs: 0, topics, nextCursor };
  },
};

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
