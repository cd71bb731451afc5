import type { WriteTxnMarkersRequest } from '../protocol/messages/WriteTxnMarkersRequest.js';
import type { WritableTxnMarkerResult, WriteTxnMarkersResponse } from '../protocol/messages/WriteTxnMarkersResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { javaHashMapOrder, javaLongHashCode, javaStringHashCode, topicPartitionHashCode } from '../util/java-hash.js';
import type { TopicPartitionRef } from '../topics/transaction-markers.js';
import { ANY_BROKER } from './shapes/routing.js';
import { brokerIdOf, type ApiDefinition, type RequestContext } from './types.js';

interface PartitionError extends TopicPartitionRef {
  errorCode: number;
}

/**
 * The response of per-producer partition errors as Kafka's `WriteTxnMarkersResponse(Map)` builds it:
 * producers in `ConcurrentHashMap` order, each one's topics in `HashMap` order of their names, the
 * partitions of a topic in the order of the producer's (concurrent) partition map.
 */
function responseOf(byProducer: Map<bigint, PartitionError[]>): WriteTxnMarkersResponse {
  const markers = javaHashMapOrder([...byProducer.keys()], javaLongHashCode, true).map((producerId): WritableTxnMarkerResult => {
    const partitions = javaHashMapOrder(byProducer.get(producerId)!, (p) => topicPartitionHashCode(p.topic, p.partition), true);
    const topics = new Map<string, { name: string; partitions: Array<{ partitionIndex: number; errorCode: number }> }>();
    for (const p of partitions) {
      let t = topics.get(p.topic);
      if (!t) topics.set(p.topic, (t = { name: p.topic, partitions: [] }));
      t.partitions.push({ partitionIndex: p.partition, errorCode: p.errorCode });
    }
    return { producerId, topics: javaHashMapOrder([...topics.values()], (t) => javaStringHashCode(t.name)) };
  });
  return { markers };
}

/** Adds a producer's partition errors, a later write of the same partition replacing the earlier (Kafka's `putAll`). */
function record(byProducer: Map<bigint, PartitionError[]>, producerId: bigint, errors: readonly PartitionError[]): void {
  let list = byProducer.get(producerId);
  if (!list) byProducer.set(producerId, (list = []));
  for (const e of errors) {
    const at = list.findIndex((x) => x.topic === e.topic && x.partition === e.partition);
    if (at >= 0) list[at] = e;
    else list.push(e);
  }
}

/** Every partition of the request failed with `errorCode` (Kafka's `WriteTxnMarkersRequest.getErrorResponse`). */
function errorResponse(req: WriteTxnMarkersRequest, _version: number, errorCode: number): WriteTxnMarkersResponse {
  const byProducer = new Map<bigint, PartitionError[]>();
  for (const m of req.markers) {
    record(byProducer, m.producerId, m.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition, errorCode }))));
  }
  return responseOf(byProducer);
}

/** Where this broker stands for a partition: UNKNOWN_TOPIC_OR_PARTITION when it holds no replica, NOT_LEADER_OR_FOLLOWER when it follows. */
function placementError(ctx: RequestContext, tp: TopicPartitionRef): number {
  const { broker } = ctx;
  if (broker.topics.get(tp.topic)?.partition(tp.partition) === undefined) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  const self = brokerIdOf(ctx);
  if (!broker.cluster.replicas(tp.topic, tp.partition).includes(self)) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  return broker.cluster.leaderOf(tp.topic, tp.partition) === self ? ErrorCode.NONE : ErrorCode.NOT_LEADER_OR_FOLLOWER;
}

/**
 * WriteTxnMarkers (key 27, v1-2; flexible), the transaction coordinator's request to partition
 * leaders, as Kafka 4.3's `KafkaApis.handleWriteTxnMarkersRequest`: ALTER or else CLUSTER_ACTION on
 * the cluster under an authorizer (CLUSTER_AUTHORIZATION_FAILED on every partition otherwise). Per
 * marker, each partition gets a COMMIT/ABORT control batch with the marker's producer id/epoch and
 * coordinator epoch (`TransactionMarkers.write`): UNKNOWN_TOPIC_OR_PARTITION when not hosted here,
 * NOT_LEADER_OR_FOLLOWER on a follower, INVALID_PRODUCER_EPOCH (older epoch; under v2's transaction
 * version 2 not newer), TRANSACTION_COORDINATOR_FENCED (older coordinator epoch). `__consumer_offsets`
 * partitions are completed by the group coordinator. The answer comes once every marker is durable,
 * one entry per producer id (two markers of one producer merge), in Kafka's hash-map order.
 */
export const api: ApiDefinition<WriteTxnMarkersRequest, WriteTxnMarkersResponse> = {
  apiKey: 27,
  name: 'WriteTxnMarkers',
  minVersion: 1,
  maxVersion: 2,
  errorResponse,
  names: (req) => ({
    topics: req.markers.flatMap((m) => m.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes }))),
  }),
  // The coordinator sends each broker the partitions it leads; this handler answers the others.
  routing: ANY_BROKER,
  async handle(req, ctx) {
    const byProducer = new Map<bigint, PartitionError[]>();
    await Promise.all(
      req.markers.map(async (m) => {
        const partitions = m.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })));
        const misplaced = partitions.map((tp) => ({ ...tp, errorCode: placementError(ctx, tp) })).filter((p) => p.errorCode !== ErrorCode.NONE);
        record(byProducer, m.producerId, misplaced);
        const here = partitions.filter((tp) => !misplaced.some((p) => p.topic === tp.topic && p.partition === tp.partition));
        if (here.length === 0) return;
        const results = await ctx.broker.txnMarkers.write(
          {
            producerId: m.producerId,
            producerEpoch: m.producerEpoch,
            coordinatorEpoch: m.coordinatorEpoch,
            commit: m.transactionResult,
            transactionVersion: ctx.apiVersion >= 2 ? m.transactionVersion : 0,
          },
          here,
        );
        record(byProducer, m.producerId, results);
      }),
    );
    return responseOf(byProducer);
  },
};
