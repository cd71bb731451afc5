import type { WriteTxnMarkersRequest } from '../protocol/messages/WriteTxnMarkersRequest.js';
import type { WritableTxnMarkerResult, WriteTxnMarkersResponse } from '../protocol/messages/WriteTxnMarkersResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { javaHashMapOrder, javaLongHashCode, javaStringHashCode, topicPartitionHashCode } from '../util/java-hash.js';
import type { TopicPartitionRef } from '../topics/transaction-markers.js';
import { ANY_BROKER } from './shapes/routing.js';
import { brokerIdOf, type ApiDefinition, type RequestContext } from './types.js';
import { Slicer } from '../util/slices.js';

/** Markers whose writes begin per turn of the event loop at most (or the turn's budget). */
const MARKERS_PER_SLICE = 500;

interface PartitionError extends TopicPartitionRef {
  errorCode: number;
}

/**
 * The response of per-producer partition errors as Kafka's `WriteTxnMarkersResponse(Map)` builds it:
 * producers in `ConcurrentHashMap` order, each one's topics in `HashMap` order of their names, the
 * partitions of a topic in the order of the producer's (concurrent) partition map.
 */
function responseOf(byProducer: ProducerErrors): WriteTxnMarkersResponse {
  const markers = javaHashMapOrder([...byProducer.keys()], javaLongHashCode, true).map((producerId): WritableTxnMarkerResult => {
    const partitions = javaHashMapOrder([...byProducer.get(producerId)!.values()], (p) => topicPartitionHashCode(p.topic, p.partition), true);
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

/** Per producer id, its partitions' errors by `topic\0partition`, in the order first written. */
type ProducerErrors = Map<bigint, Map<string, PartitionError>>;

/**
 * Adds a producer's partition errors, a later write of the same partition replacing the earlier
 * in its place (Kafka's `putAll`). Keyed, not searched: 20,000 markers of one producer held the
 * event loop ~1 s searching its list (adversarial trial 26).
 */
function record(byProducer: ProducerErrors, producerId: bigint, errors: readonly PartitionError[]): void {
  let partitions = byProducer.get(producerId);
  if (!partitions) byProducer.set(producerId, (partitions = new Map()));
  for (const e of errors) partitions.set(`${e.topic}\u0000${e.partition}`, e);
}

/** Every partition of the request failed with `errorCode` (Kafka's `WriteTxnMarkersRequest.getErrorResponse`). */
function errorResponse(req: WriteTxnMarkersRequest, _version: number, errorCode: number): WriteTxnMarkersResponse {
  const byProducer: ProducerErrors = new Map();
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
    const byProducer: ProducerErrors = new Map();
    // Each marker's write begins in turn, a slice of markers per turn of the event loop (20,000
    // markers in one request began their writes in one turn); the writes then run together.
    const slicer = new Slicer(MARKERS_PER_SLICE);
    const writes: Array<Promise<void>> = [];
    for (const m of req.markers) {
      await slicer.next();
      const write = (async () => {
        const misplaced: PartitionError[] = [];
        const here: TopicPartitionRef[] = [];
        for (const t of m.topics) {
          for (const partition of t.partitionIndexes) {
            const tp = { topic: t.name, partition };
            const errorCode = placementError(ctx, tp);
            if (errorCode === ErrorCode.NONE) here.push(tp);
            else misplaced.push({ ...tp, errorCode });
          }
        }
        record(byProducer, m.producerId, misplaced);
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
      })();
      // Awaited below with the others; a failure meanwhile is not an unhandled rejection.
      write.catch(() => {});
      writes.push(write);
    }
    await Promise.all(writes);
    return responseOf(byProducer);
  },
};
