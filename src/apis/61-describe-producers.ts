import type { DescribeProducersRequest } from '../protocol/messages/DescribeProducersRequest.js';
import type { DescribeProducersResponse, PartitionResponse, ProducerState } from '../protocol/messages/DescribeProducersResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { topicValidateProblem } from '../topics/topic-name.js';
import type { Partition } from '../topics/partition.js';
import { javaHashMapOrder, javaLongHashCode } from '../util/java-hash.js';
import { ANY_BROKER } from './shapes/routing.js';
import { brokerIdOf, type ApiDefinition } from './types.js';

/** Kafka's `ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION)` message (the error's default). */
const UNKNOWN_TOPIC_MESSAGE = 'This server does not host this topic-partition.';

function partitionError(partitionIndex: number, errorCode: number, errorMessage: string | null): PartitionResponse {
  return { partitionIndex, errorCode, errorMessage, activeProducers: [] };
}

/** Every partition of the request answering `errorCode` (`DescribeProducersRequest.getErrorResponse`). */
function errorResponse(req: DescribeProducersRequest, _version: number, errorCode: number): DescribeProducersResponse {
  return { throttleTimeMs: 0, topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((p) => partitionError(p, errorCode, null)) })) };
}

/**
 * A partition's producers as Kafka's `UnifiedLog.activeProducers` lists them: `HashMap` order of the
 * producer ids; last sequence -1 without batches (after a marker's epoch bump), coordinator epoch -1
 * before any marker, current transaction start offset -1 when none is open.
 */
function activeProducers(partition: Partition): ProducerState[] {
  const entries = javaHashMapOrder([...partition.producers.entries()], ([id]) => javaLongHashCode(id));
  return entries.map(([producerId, e]) => ({
    producerId,
    producerEpoch: e.epoch,
    lastSequence: e.batches[e.batches.length - 1]?.lastSeq ?? -1,
    lastTimestamp: e.lastTimestamp,
    coordinatorEpoch: e.coordinatorEpoch,
    currentTxnStartOffset: e.currentTxnFirstOffset ?? -1n,
  }));
}

/**
 * DescribeProducers (key 61, v0; flexible), as Kafka 4.3's `KafkaApis.handleDescribeProducersRequest`
 * and `Partition.activeProducerState`: per topic, an illegal name -> INVALID_TOPIC_EXCEPTION with
 * `Topic.validate`'s message (`topicValidateProblem`), no READ under an authorizer -> TOPIC_AUTHORIZATION_FAILED (checked in
 * src/security/authorization/api-checks.ts), an unknown topic -> UNKNOWN_TOPIC_OR_PARTITION with the
 * error's default message, on each partition named; per partition, one that does not exist ->
 * UNKNOWN_TOPIC_OR_PARTITION, one this broker holds no replica of -> NOT_LEADER_OR_FOLLOWER (no
 * message), else the producer state of every producer id with state in the partition (a follower
 * answers too: it holds the log).
 */
export const api: ApiDefinition<DescribeProducersRequest, DescribeProducersResponse> = {
  apiKey: 61,
  name: 'DescribeProducers',
  minVersion: 0,
  maxVersion: 0,
  errorResponse,
  names: (req) => ({ topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes })) }),
  largeAnswers: true,
  routing: ANY_BROKER,
  handle(req, ctx) {
    const { broker } = ctx;
    const self = brokerIdOf(ctx);
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => {
        const problem = topicValidateProblem(t.name);
        let topicError: { code: number; message: string | null } | null = problem === null ? null : { code: ErrorCode.INVALID_TOPIC_EXCEPTION, message: problem };
        const topic = broker.topics.get(t.name);
        if (topicError === null && topic === undefined) topicError = { code: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, message: UNKNOWN_TOPIC_MESSAGE };
        return {
          name: t.name,
          partitions: t.partitionIndexes.map((p): PartitionResponse => {
            if (topicError) return partitionError(p, topicError.code, topicError.message);
            const partition = topic!.partition(p);
            if (!partition) return partitionError(p, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null);
            if (!broker.cluster.replicas(t.name, p).includes(self)) return partitionError(p, ErrorCode.NOT_LEADER_OR_FOLLOWER, null);
            return { partitionIndex: p, errorCode: ErrorCode.NONE, errorMessage: null, activeProducers: activeProducers(partition) };
          }),
        };
      }),
    };
  },
};
