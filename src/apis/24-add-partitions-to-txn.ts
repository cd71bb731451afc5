import type { AddPartitionsToTxnRequest, AddPartitionsToTxnTopic, AddPartitionsToTxnTransaction } from '../protocol/messages/AddPartitionsToTxnRequest.js';
import { defaultAddPartitionsToTxnResponse, type AddPartitionsToTxnResponse, type AddPartitionsToTxnTopicResult } from '../protocol/messages/AddPartitionsToTxnResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition, RequestContext } from './types.js';
import { ANY_BROKER, byTransactionCoordinator } from './shapes/routing.js';
import { brokerIdOf } from './types.js';
import { fencedForVersion } from './shapes/txn-errors.js';
import type { TxnPartition } from '../transactions/transaction-metadata.js';
import { isInternalTopic } from '../topics/topic-name.js';
import { Slicer } from '../util/slices.js';

/** From v4 a request batches transactions (KIP-890: sent by brokers, with `verifyOnly`). */
const BATCHED_VERSION = 4;
/** Transactions of a v4+ request begun per turn of the event loop at most (or the turn's budget). */
const TRANSACTIONS_PER_SLICE = 500;
/** A v5 add (not verify-only) is transaction version 2's implicit add. */
const TV2_VERSION = 5;
/** Below this version PRODUCER_FENCED is answered as INVALID_PRODUCER_EPOCH (KIP-588). */
const PRODUCER_FENCED_VERSION = 2;

/**
 * AddPartitionsToTxn (key 24, v0-5), as Kafka's `KafkaApis.handleAddPartitionsToTxnRequest` and
 * `TransactionCoordinator.handleAddPartitionsToTransaction`:
 * - v0-3 (transaction version 1 clients: kafkajs, librdkafka): one transaction; partitions of
 *   internal topics (`__consumer_offsets`, `__transaction_state`, `__share_group_state`: Kafka leaves
 *   them out of the topics a client may write, whatever its ACLs) answer TOPIC_AUTHORIZATION_FAILED,
 *   partitions of unknown topics (or beyond the partition count) UNKNOWN_TOPIC_OR_PARTITION, and
 *   every other partition then OPERATION_NOT_ATTEMPTED; otherwise the coordinator's error on every partition:
 *   INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED (INVALID_PRODUCER_EPOCH below v2),
 *   CONCURRENT_TRANSACTIONS, INVALID_REQUEST for an empty id. Routed to the id's coordinator.
 * - v4-5 (sent by partition leaders): per transaction, the same answer for unknown partitions;
 *   then `verifyOnly` checks that the partitions are in the transaction (TRANSACTION_ABORTABLE for
 *   those that are not); otherwise they are added (v5: transaction version 2). A transaction this broker does not coordinate answers
 *   NOT_COORDINATOR on its partitions. Not modelled: the CLUSTER_ACTION check Kafka makes for v4+.
 */
export const api: ApiDefinition<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse> = {
  apiKey: 24,
  name: 'AddPartitionsToTxn',
  minVersion: 0,
  maxVersion: 5,
  // AddPartitionsToTxnRequest.getErrorResponse: every partition (v0-3), the top-level error (v4+).
  errorResponse(req, version, errorCode) {
    if (version >= BATCHED_VERSION) return { ...defaultAddPartitionsToTxnResponse(), errorCode };
    return { ...defaultAddPartitionsToTxnResponse(), resultsByTopicV3AndBelow: topicResults(req.v3AndBelowTopics, () => errorCode) };
  },
  names: (req, version) => ({
    transactionalIds: version >= BATCHED_VERSION ? req.transactions.map((t) => t.transactionalId) : [req.v3AndBelowTransactionalId],
    topics: (version >= BATCHED_VERSION ? req.transactions.flatMap((t) => t.topics) : req.v3AndBelowTopics).map((t) => ({ name: t.name, partitions: t.partitions })),
  }),
  routing: (version) => (version >= BATCHED_VERSION ? ANY_BROKER : byTransactionCoordinator<AddPartitionsToTxnRequest>((req) => req.v3AndBelowTransactionalId)),
  async handle(req, ctx) {
    if (ctx.apiVersion >= BATCHED_VERSION) {
      // Each transaction begins in turn, a slice of them per turn of the event loop (50,000 in one
      // request held it 177 ms, adversarial trial 26); then they run together.
      const slicer = new Slicer(TRANSACTIONS_PER_SLICE);
      const results: Array<Promise<AddPartitionsToTxnTopicResult[]>> = [];
      for (const t of req.transactions) {
        await slicer.next();
        const result = handleBatched(t, ctx);
        // Awaited below with the others; a failure meanwhile is not an unhandled rejection.
        result.catch(() => {});
        results.push(result);
      }
      const topicResults = await Promise.all(results);
      const resultsByTransaction = req.transactions.map((t, i) => ({ transactionalId: t.transactionalId, topicResults: topicResults[i]! }));
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, resultsByTransaction, resultsByTopicV3AndBelow: [] };
    }
    const res = { throttleTimeMs: 0, errorCode: ErrorCode.NONE, resultsByTransaction: [] };
    const refused = refusedPartitionResults(req.v3AndBelowTopics, ctx, true);
    if (refused) return { ...res, resultsByTopicV3AndBelow: refused };
    const errorCode = await ctx.broker.transactions.addPartitions(req.v3AndBelowTransactionalId, req.v3AndBelowProducerId, req.v3AndBelowProducerEpoch, partitionsOf(req.v3AndBelowTopics), 0);
    const answered = fencedForVersion(errorCode, ctx.apiVersion, PRODUCER_FENCED_VERSION);
    return { ...res, resultsByTopicV3AndBelow: topicResults(req.v3AndBelowTopics, () => answered) };
  },
};

/** One transaction of a v4+ request: verified or added, or NOT_COORDINATOR when another broker coordinates it. */
async function handleBatched(t: AddPartitionsToTxnTransaction, ctx: RequestContext): Promise<AddPartitionsToTxnTopicResult[]> {
  const { broker } = ctx;
  const unknown = refusedPartitionResults(t.topics, ctx, false);
  if (unknown) return unknown;
  if (t.transactionalId !== '' && broker.cluster.transactionCoordinatorOf(t.transactionalId) !== brokerIdOf(ctx)) return topicResults(t.topics, () => ErrorCode.NOT_COORDINATOR);
  const partitions = partitionsOf(t.topics);
  if (t.verifyOnly) {
    const codes = broker.transactions.verifyPartitions(t.transactionalId, t.producerId, t.producerEpoch, partitions);
    let i = 0;
    return topicResults(t.topics, () => codes[i++]!);
  }
  const errorCode = await broker.transactions.addPartitions(t.transactionalId, t.producerId, t.producerEpoch, partitions, ctx.apiVersion >= TV2_VERSION ? 2 : 0);
  return topicResults(t.topics, () => errorCode);
}

function partitionsOf(topics: readonly AddPartitionsToTxnTopic[]): TxnPartition[] {
  return topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.name, partition })));
}

/**
 * When some partitions cannot be added (`KafkaApis`' per-transaction check, before the coordinator):
 * with `fromClient` (v0-3), TOPIC_AUTHORIZATION_FAILED on those of internal topics (Kafka filters
 * them out before authorizing the rest); UNKNOWN_TOPIC_OR_PARTITION on those that do not exist;
 * OPERATION_NOT_ATTEMPTED on the others. Null when every partition can be added.
 */
function refusedPartitionResults(topics: readonly AddPartitionsToTxnTopic[], ctx: RequestContext, fromClient: boolean): AddPartitionsToTxnTopicResult[] | null {
  const refused = new Map<string, number>();
  for (const t of topics) {
    const internal = fromClient && isInternalTopic(t.name);
    const count = ctx.broker.topics.get(t.name)?.partitionCount ?? 0;
    for (const p of t.partitions) {
      if (internal) refused.set(`${t.name}\u0000${p}`, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      else if (p < 0 || p >= count) refused.set(`${t.name}\u0000${p}`, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
  }
  if (refused.size === 0) return null;
  return topicResults(topics, (topic, p) => refused.get(`${topic}\u0000${p}`) ?? ErrorCode.OPERATION_NOT_ATTEMPTED);
}

function topicResults(topics: readonly AddPartitionsToTxnTopic[], code: (topic: string, partition: number) => number): AddPartitionsToTxnTopicResult[] {
  return topics.map((t) => ({ name: t.name, resultsByPartition: t.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: code(t.name, p) })) }));
}
