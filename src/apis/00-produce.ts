import type { PartitionProduceData, ProduceRequest } from '../protocol/messages/ProduceRequest.js';
import {
  defaultPartitionProduceResponse,
  defaultProduceResponse,
  type PartitionProduceResponse,
  type ProduceResponse,
  type TopicProduceResponse,
} from '../protocol/messages/ProduceResponse.js';
import { ErrorCode, errorName } from '../protocol/errors.js';
import { firstBatchesCorruption, validateProducedRecords } from '../topics/produce-validation.js';
import { checkRecordRules, type RecordRulesFailure, type RecordRulesResult } from '../topics/record-rules.js';
import type { LogConfig } from '../configs/log-config.js';
import { BASE_SEQUENCE_OFFSET, stampCreateTime, stampLogAppendTime } from '../records/record-batch.js';
import { produceTransactionOperation, transactionalProducer, verificationFailure, verifyRetryingConcurrentTransactions } from '../topics/produce-transactions.js';
import type { Partition } from '../topics/partition.js';
import type { VerificationGuard } from '../topics/producer-state.js';
import type { Topic } from '../topics/topic.js';
import { nextTurn, Slicer } from '../util/slices.js';
import { AppendWindow, APPENDS_IN_FLIGHT } from '../topics/append-window.js';
import type { Broker } from '../broker.js';
import { CloseConnection, NO_RESPONSE, type ApiDefinition } from './types.js';
import { partitionedTopics } from './shapes/partitioned-topics.js';
import { byPartitionLeaders } from './shapes/routing.js';

/** Partitions a Produce checks, then appends, per turn of the event loop at most (some 20 µs each). */
export const PRODUCE_SLICE_PARTITIONS = 1024;
/**
 * Partitions between two looks at the turn's SLICE_BUDGET_MS: a Produce of 1,000 partitions of a
 * record each, checked and appended in one turn, held other connections 50-70 ms on a loaded machine.
 */
const PRODUCE_BUDGET_EVERY = 32;

/** Produce's topics and partitions: by name, by topic id from v13 (KIP-516). */
const TOPICS = partitionedTopics<ProduceRequest, ProduceResponse>({
  topicIdsFrom: 13,
  request: { topics: 'topicData', name: 'name', partitions: 'partitionData', index: 'index' },
  response: { topics: 'responses', name: 'name', partitions: 'partitionResponses', index: 'index' },
  emptyResponse: defaultProduceResponse,
  errorPartition: (index, errorCode) => ({ ...defaultPartitionProduceResponse(), index, errorCode, baseOffset: -1n }),
});

/**
 * Produce (key 0). Served v3-13, advertised from v0 as Kafka 4.x does (librdkafka up to
 * 2.10 disables compression unless v0 is advertised); v0-2 requests close the connection.
 * Per partition, in Kafka's order (`KafkaApis.handleProduceRequest`, `UnifiedLog.append`):
 * acks other than -1/0/1 -> INVALID_REQUIRED_ACKS; unknown topic -> UNKNOWN_TOPIC_OR_PARTITION
 * (v13 addresses topics by id: UNKNOWN_TOPIC_ID); partition out of range ->
 * UNKNOWN_TOPIC_OR_PARTITION; an internal topic (`__consumer_offsets`) -> INVALID_TOPIC_EXCEPTION; records checks (see
 * produce-validation.ts) against the topic's `max.message.bytes` (MESSAGE_TOO_LARGE, no message);
 * acks=-1 with fewer live replicas than `min.insync.replicas` (at most the replica count, Kafka's
 * `effectiveMinIsr`) -> NOT_ENOUGH_REPLICAS; the records inside, in one walk (record-rules.ts:
 * malformed records -> INVALID_RECORD, a record length varint past 5 bytes or gzip bytes that do not
 * inflate -> UNKNOWN_SERVER_ERROR, as Kafka's `LogValidator`; then keys of a compacted topic, the
 * CreateTime window -> INVALID_RECORD / INVALID_TIMESTAMP with `recordErrors`; a big gzip batch is
 * read as it inflates, off the event loop, before the appends);
 * idempotence checks (duplicate -> NONE with the original base offset; 45, 47). Accepted batches are
 * stored as sent but restamped as Kafka's `LogValidator` does: base offset and leader epoch; for a
 * LogAppendTime topic (`message.timestamp.type`) LogAppendTime and the broker's time (answered in
 * `logAppendTimeMs`), else CreateTime and the records' largest timestamp as the max timestamp.
 * acks=0 answers nothing when every partition succeeded and closes the connection when one failed
 * (Kafka's way of telling such a client); acks=1/-1 answer once the appends are durable per
 * `mock.flush.policy`; a failed write answers KAFKA_STORAGE_ERROR. At most APPENDS_IN_FLIGHT of the
 * request's appends wait for their write at once (append-window.ts).
 */
export const api: ApiDefinition<ProduceRequest, ProduceResponse> = {
  apiKey: 0,
  name: 'Produce',
  advertisedMinVersion: 0,
  minVersion: 3,
  maxVersion: 13,
  errorResponse: TOPICS.failAll,
  names: (req, version) => ({ topics: TOPICS.named(req, version), transactionalIds: [req.transactionalId] }),
  partitions: TOPICS,
  routing: byPartitionLeaders(TOPICS),
  unanswered: answerOrClose,
  async handle(request, ctx) {
    const { broker } = ctx;
    const version = ctx.apiVersion;
    // A partition named twice appends its last entry's batch, once (Kafka's `authorizedRequestInfo` map).
    const req = TOPICS.distinct(request, version);
    const byId = TOPICS.byId(version);
    const acksValid = req.acks === -1 || req.acks === 0 || req.acks === 1;
    const now = BigInt(broker.time.now());
    const pending: Promise<void>[] = [];

    // KafkaApis' first look at the batches (RequestUtils.hasTransactionalRecords): a first batch its
    // reader refuses fails the whole request, with the reader's message.
    const corrupt = firstBatchesCorruption(request.topicData.flatMap((t) => t.partitionData.map((p) => p.records)));
    if (corrupt !== null) return answerOrClose(req, withMessage(TOPICS.failAll(req, version, ErrorCode.CORRUPT_MESSAGE), corrupt));

    // KafkaApis: transactional batches need a transactional id; ReplicaManager: one producer at most.
    const producers = new Set<string>();
    for (const t of req.topicData) {
      for (const p of t.partitionData) {
        const producer = transactionalProducer(p.records);
        if (producer) producers.add(`${producer.producerId}:${producer.producerEpoch}`);
      }
    }
    if (producers.size > 0 && req.transactionalId === null) return answerOrClose(req, TOPICS.failAll(req, version, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
    if (producers.size > 1) return answerOrClose(req, TOPICS.failAll(req, version, ErrorCode.INVALID_PRODUCER_ID_MAPPING));

    /** A partition that passed every check before the append. */
    interface Ready {
      res: PartitionProduceResponse;
      partition: Partition;
      batch: Buffer;
      lc: LogConfig;
      /** The record checks still running (a streamed gzip batch), else null. */
      rules: Promise<RecordRulesResult> | null;
    }
    let ready: Ready[] = [];
    const logConfig = broker.topics.logConfigs();
    const checkPartition = (topic: Topic | undefined, p: PartitionProduceData): PartitionProduceResponse => {
      const res = defaultPartitionProduceResponse();
      res.index = p.index;
      const fail = (errorCode: number, message: string | null = null) => failPartition(res, errorCode, message);
      if (!acksValid) return fail(ErrorCode.INVALID_REQUIRED_ACKS);
      if (!topic) return fail(byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      const partition = topic.partition(p.index);
      if (!partition) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      // ReplicaManager.appendToLocalLog: "Cannot append to internal topic" (no message on the wire).
      if (topic.internal) return fail(ErrorCode.INVALID_TOPIC_EXCEPTION);
      const lc = logConfig(topic, p.index)!;
      const check = validateProducedRecords(p.records, version, lc.maxMessageBytes);
      if (!check.ok) {
        fail(check.errorCode);
        if (check.withLogStartOffset) res.logStartOffset = partition.logStartOffset;
        return res;
      }
      if (req.acks === -1) {
        const replicas = broker.cluster.replicas(topic.name, p.index);
        const inSync = replicas.filter((id) => broker.cluster.isUp(id)).length;
        if (inSync < Math.min(lc.minInsyncReplicas, replicas.length)) return fail(ErrorCode.NOT_ENOUGH_REPLICAS);
      }
      const rules = checkRecordRules(check.batch, lc, partition.name, now);
      if (rules instanceof Promise) {
        // A big gzip batch, read as it inflates: settled before the appends below.
        ready.push({ res, partition, batch: check.batch, lc, rules });
        streamed++;
        return res;
      }
      if (rules.failure) return refuseRecords(res, partition, rules.failure);
      ready.push(accept({ res, partition, batch: check.batch, lc, rules: null }, rules.maxTimestamp));
      return res;
    };
    // LogValidator restamps what it accepts: LogAppendTime with the broker's time, else CreateTime
    // with the records' largest timestamp (a batch stored as sent when its records were not read).
    const accept = (r: Ready, maxTimestamp: bigint | null): Ready => {
      if (r.lc.logAppendTime) {
        stampLogAppendTime(r.batch, now);
        r.res.logAppendTimeMs = now;
      } else if (maxTimestamp !== null) {
        stampCreateTime(r.batch, maxTimestamp);
      }
      return r;
    };
    let streamed = 0;
    // A turn of the event loop every PRODUCE_SLICE_PARTITIONS partitions (or SLICE_BUDGET_MS)
    // checked, and appended below (issue #16 item 5): the partitions of a big request are appended
    // over several turns, as Kafka's appends to different partitions interleave with other requests'.
    const slicer = new Slicer(PRODUCE_SLICE_PARTITIONS, PRODUCE_BUDGET_EVERY);
    const responses: TopicProduceResponse[] = [];
    for (const t of req.topicData) {
      const topic = byId ? broker.topics.getById(t.topicId) : broker.topics.get(t.name);
      const partitionResponses: PartitionProduceResponse[] = [];
      responses.push({ name: byId ? '' : t.name, topicId: byId ? t.topicId : topic?.id ?? t.topicId, partitionResponses });
      for (const p of t.partitionData) {
        partitionResponses.push(checkPartition(topic, p));
        if (slicer.due()) await nextTurn();
      }
    }

    if (streamed > 0) {
      const settled: Ready[] = [];
      for (const r of ready) {
        if (r.rules === null) {
          settled.push(r);
          continue;
        }
        const rules = await r.rules;
        if (rules.failure) refuseRecords(r.res, r.partition, rules.failure);
        else settled.push(accept(r, rules.maxTimestamp));
      }
      ready = settled;
    }

    const verification = req.transactionalId === null ? null : await verifyTransaction(broker, req.transactionalId, ready, version);
    const window = new AppendWindow(APPENDS_IN_FLIGHT);
    for (const [i, { res, partition, batch }] of ready.entries()) {
      if (i > 0 && slicer.due()) await nextTurn();
      // A topic deleted (or deleted and created again) since this partition's check, between slices:
      // its partition is gone, as ReplicaManager's lookup at the append finds (not a storage error
      // from its closed log); answered as the check would answer it now.
      if (broker.topics.get(partition.topicName)?.partition(partition.index) !== partition) {
        failPartition(res, byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        continue;
      }
      const failure = verification?.refused.get(partition);
      if (failure) {
        failPartition(res, failure.errorCode, failure.message);
        continue;
      }
      let outcome;
      try {
        // A transactional batch appends only if its transaction is still open here, or its
        // verification still stands: an abort written between the slices voids both.
        outcome = partition.appendProduced(batch, verification?.guards.get(partition) ?? null);
      } catch (err) {
        ctx.log.error({ err, partition: partition.name }, 'produce append failed');
        failPartition(res, ErrorCode.KAFKA_STORAGE_ERROR, (err as Error).message);
        continue;
      }
      if (!('baseOffset' in outcome)) {
        // ReplicaManager.appendToLocalLog: a producer-state refusal (45, 47, 48) answers the log start
        // offset and no message (`hasCustomErrorMessage` false).
        failPartition(res, outcome.errorCode);
        res.logStartOffset = partition.logStartOffset;
        continue;
      }
      res.baseOffset = outcome.baseOffset;
      if (outcome.duplicateTimestamp !== null) res.logAppendTimeMs = outcome.duplicateTimestamp;
      res.logStartOffset = partition.logStartOffset;
      const durable = outcome.durable.catch((err: Error) => void failPartition(res, ErrorCode.KAFKA_STORAGE_ERROR, err.message));
      pending.push(durable);
      window.track(durable);
      const room = window.room();
      if (room !== null) await room;
    }

    if (req.acks === 0) return answerOrClose(req, { responses, throttleTimeMs: 0, nodeEndpoints: [] });
    if (pending.length > 0) await Promise.all(pending);
    return { responses, throttleTimeMs: 0, nodeEndpoints: [] };
  },
};

/**
 * A Produce with acks=0 gets no answer when every partition succeeded; one failed partition closes
 * the connection instead, so the client learns of it and refreshes its metadata
 * (`KafkaApis.handleProduceRequest`: "Closing connection due to error during produce request ...
 * with ack=0", then each partition and its error). Other acks: `res` as is.
 */
function answerOrClose(req: ProduceRequest, res: ProduceResponse): ProduceResponse | typeof NO_RESPONSE {
  if (req.acks !== 0) return res;
  const failed = res.responses.flatMap((t) =>
    t.partitionResponses.filter((p) => p.errorCode !== ErrorCode.NONE).map((p) => `${t.name || t.topicId}-${p.index} -> ${errorName(p.errorCode)}`),
  );
  if (failed.length > 0) throw new CloseConnection(`error during a Produce with acks=0: ${failed.join(', ')}`);
  return NO_RESPONSE;
}

/** `res` with `message` on every partition (a whole-request error's, `ProduceRequest.getErrorResponse`). */
function withMessage(res: ProduceResponse, message: string): ProduceResponse {
  for (const t of res.responses) for (const p of t.partitionResponses) p.errorMessage = message;
  return res;
}

/** Marks a partition's answer failed by its records' checks (record-rules.ts), with the log start offset as Kafka's `unknownLogAppendInfoWithLogStartOffset`. */
function refuseRecords(res: PartitionProduceResponse, partition: Partition, failure: RecordRulesFailure): PartitionProduceResponse {
  failPartition(res, failure.errorCode, failure.errorMessage);
  res.recordErrors = failure.recordErrors;
  res.logStartOffset = partition.logStartOffset;
  return res;
}

/** Marks a partition's answer failed (no offsets, no log append time: a LogAppendTime topic's stamp is dropped, as Kafka answers -1). */
function failPartition(res: PartitionProduceResponse, errorCode: number, message: string | null = null): PartitionProduceResponse {
  res.errorCode = errorCode;
  res.errorMessage = message;
  res.baseOffset = -1n;
  res.logAppendTimeMs = -1n;
  res.logStartOffset = -1n;
  return res;
}

/**
 * Asks the transaction coordinator about the partitions whose transactional batch would open the
 * producer's transaction there (`Partition.maybeStartTransactionVerification`: none is asked about
 * a transaction already open at that epoch, and each asked about holds a verification guard from
 * before the question); under v12+ they join the transaction (KIP-890), and a CONCURRENT_TRANSACTIONS
 * answer is asked again for a while (`verifyRetryingConcurrentTransactions`). Returns the refused
 * partitions with the error each answers and the guards their appends present, or null when none
 * was asked about.
 */
async function verifyTransaction(
  broker: Broker,
  transactionalId: string,
  ready: ReadonlyArray<{ partition: Partition; batch: Buffer }>,
  version: number,
): Promise<{ refused: Map<Partition, { errorCode: number; message: string | null }>; guards: Map<Partition, VerificationGuard> } | null> {
  const toVerify: Partition[] = [];
  const guards = new Map<Partition, VerificationGuard>();
  const operation = produceTransactionOperation(version);
  let producer: { producerId: bigint; producerEpoch: number } | null = null;
  for (const { partition, batch } of ready) {
    const p = transactionalProducer(batch);
    if (p === null || partition.producers.hasOngoingTransaction(p.producerId, p.producerEpoch)) continue;
    producer = p;
    toVerify.push(partition);
    guards.set(partition, partition.producers.startVerification(p.producerId, p.producerEpoch, operation === 'add-partition', batch.readInt32BE(BASE_SEQUENCE_OFFSET)));
  }
  if (producer === null) return null;
  const request = {
    transactionalId,
    producerId: producer.producerId,
    producerEpoch: producer.producerEpoch,
    partitions: toVerify.map((p) => ({ topic: p.topicName, partition: p.index })),
    implicitAdd: operation === 'add-partition',
  };
  const verify = (): Promise<number[]> => broker.txnMarkers.verifier.verify(request);
  const { config } = broker;
  const errors =
    operation === 'add-partition'
      ? await verifyRetryingConcurrentTransactions(
          verify,
          config.int('add.partitions.to.txn.retry.backoff.ms'),
          Math.min(config.int('add.partitions.to.txn.retry.backoff.max.ms'), config.int('request.timeout.ms')),
        )
      : await verify();
  const refused = new Map<Partition, { errorCode: number; message: string | null }>();
  toVerify.forEach((partition, i) => {
    const error = errors[i] ?? ErrorCode.NONE;
    if (error !== ErrorCode.NONE) refused.set(partition, verificationFailure(error, operation));
  });
  return { refused, guards };
}
