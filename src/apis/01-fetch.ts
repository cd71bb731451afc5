import type { FetchRequest } from '../protocol/messages/FetchRequest.js';
import {
  defaultFetchResponse,
  defaultPartitionData,
  type FetchResponse,
  type FetchableTopicResponse,
  type PartitionData,
} from '../protocol/messages/FetchResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { EMPTY_BYTES } from '../protocol/primitives.js';
import type { Broker } from '../broker.js';
import type { Partition } from '../topics/partition.js';
import type { Topic } from '../topics/topic.js';
import { leaderEpochError } from '../topics/leader-epoch-check.js';
import type { ApiDefinition } from './types.js';
import { partitionedTopics } from './shapes/partitioned-topics.js';
import { byPartitionLeaders } from './shapes/routing.js';
import { joinBuffers } from '../util/join-buffers.js';
import { runSoon, Slicer } from '../util/slices.js';

/** Fetch session epochs that mean "no incremental session" (Kafka's `FetchMetadata`). */
const INITIAL_EPOCH = 0;
const FINAL_EPOCH = -1;
const READ_UNCOMMITTED = 0;
const READ_COMMITTED = 1;

/** Fetch's topics and partitions: by name, by topic id from v13 (KIP-516). */
const TOPICS = partitionedTopics<FetchRequest, FetchResponse>({
  topicIdsFrom: 13,
  request: { topics: 'topics', name: 'topic', partitions: 'partitions', index: 'partition' },
  response: { topics: 'responses', name: 'topic', partitions: 'partitions', index: 'partitionIndex' },
  emptyResponse: defaultFetchResponse,
  errorPartition: (partitionIndex, errorCode) => ({
    ...defaultPartitionData(),
    partitionIndex,
    errorCode,
    highWatermark: -1n,
    lastStableOffset: -1n,
    logStartOffset: -1n,
    // FetchResponse.partitionResponse leaves the list at its generated default: empty, not null
    // (checked against Kafka 4.3.1 by test/conformance/security.conformance.test.ts).
    abortedTransactions: [],
    records: EMPTY_BYTES,
  }),
});

/**
 * Fetch (key 1, v4-18), for consumers, as Kafka's `ReplicaManager.fetchMessages` on a single
 * replica: per partition the high watermark (the log-end offset), the last stable offset (the
 * first offset of the oldest open transaction, else the high watermark), the log start offset and
 * preferred read replica -1. read_uncommitted (isolation 0): aborted transactions null, batches up
 * to the high watermark; read_committed (1): batches below the last stable offset from one segment
 * and Kafka's aborted transactions for the fetched range (`Partition.readCommitted`; [] when none).
 * Control batches (transaction markers) are returned as stored: clients skip them.
 * Whole batches are returned from the one
 * holding the fetch offset (which may start before it), within `partition_max_bytes` and
 * the response's `max_bytes`, except that the first partition with data always gets at
 * least one batch (KIP-74). Errors: unknown topic -> UNKNOWN_TOPIC_OR_PARTITION (v13+ by id:
 * UNKNOWN_TOPIC_ID), fetch offset outside [log start, log end] -> OFFSET_OUT_OF_RANGE,
 * a current leader epoch (v9+, -1 = none) below the partition's -> FENCED_LEADER_EPOCH, above it ->
 * UNKNOWN_LEADER_EPOCH; an errored partition has watermarks -1.
 * Long poll: with fewer than `min_bytes` and no error, the response waits up to
 * `max_wait_ms` for an append to any fetched partition. Fetch sessions (KIP-227) are not
 * kept: session id 0 is answered; an incremental request gets FETCH_SESSION_ID_NOT_FOUND. A
 * partition named twice is answered once (`distinct`).
 */
export const api: ApiDefinition<FetchRequest, FetchResponse> = {
  apiKey: 1,
  name: 'Fetch',
  minVersion: 4,
  maxVersion: 18,
  errorResponse: TOPICS.failAll,
  names: (req, version) => ({ topics: TOPICS.named(req, version) }),
  partitions: TOPICS,
  routing: byPartitionLeaders(TOPICS),
  async handle(request, ctx) {
    const { broker } = ctx;
    // A partition named twice is fetched once, with its last entry's offsets (Kafka's `fetchData` map).
    const req = TOPICS.distinct(request, ctx.apiVersion);
    if (ctx.apiVersion >= 7 && req.sessionEpoch !== INITIAL_EPOCH && req.sessionEpoch !== FINAL_EPOCH) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [], nodeEndpoints: [] };
    }
    // Kafka's IsolationLevel.forId throws for another id: the request fails as a whole, answered
    // as FetchRequest.getErrorResponse answers (from v13 the top-level error alone, no partitions).
    if (req.isolationLevel !== READ_UNCOMMITTED && req.isolationLevel !== READ_COMMITTED) {
      if (ctx.apiVersion < 13) return TOPICS.failAll(req, ctx.apiVersion, ErrorCode.UNKNOWN_SERVER_ERROR);
      return { ...defaultFetchResponse(), errorCode: ErrorCode.UNKNOWN_SERVER_ERROR };
    }
    const deadline = broker.time.now() + Math.max(0, req.maxWaitMs);
    // What the broker did not know when the request arrived stays so for the whole wait (KafkaApis
    // sorts the partitions once, before ReplicaManager waits on the rest).
    let arrival: ArrivalUnknowns | null = null;
    for (;;) {
      const built: BuiltResponse = await runSoon(buildResponse(broker, req, ctx.apiVersion, arrival));
      arrival = built.arrival;
      if (built.bytes >= req.minBytes || built.hasError || built.partitions.length === 0) return built.response;
      const remaining = deadline - broker.time.now();
      if (remaining <= 0) return built.response;
      const woken = await broker.topics.waitForAppend(built.partitions, remaining);
      if (!woken) return (await runSoon(buildResponse(broker, req, ctx.apiVersion, arrival))).response;
    }
  },
};

/**
 * Response topics built as `FetchResponse.toMessage` builds them from Kafka's ordered partition
 * map: a partition joins the last entry when it is of the same topic, else opens one. From v13
 * (topic ids) the partitions Kafka did not know never join an entry of those it read (observed
 * against Kafka 4.3.1: an unknown partition of a known topic is an entry of its own there).
 */
class TopicRuns {
  readonly topics: FetchableTopicResponse[] = [];

  constructor(private readonly version: number) {}

  add(topic: { topic: string; topicId: string }, partition: PartitionData): void {
    const last = this.topics.at(-1);
    if (last !== undefined && last.topic === topic.topic && last.topicId === topic.topicId) last.partitions.push(partition);
    else this.topics.push({ ...topic, partitions: [partition] });
  }

  /** These topics, then `later`'s (its first joining this one's last below v13 when of the same topic). */
  followedBy(later: TopicRuns): FetchableTopicResponse[] {
    const [first, ...rest] = later.topics;
    if (first === undefined) return this.topics;
    const last = this.topics.at(-1);
    if (this.version < 13 && last !== undefined && last.topic === first.topic) {
      last.partitions.push(...first.partitions);
      return [...this.topics, ...rest];
    }
    return [...this.topics, ...later.topics];
  }
}

/** The request's partitions the broker did not know at its arrival, by `<topic entry>:<partition entry>`, with the error they got. */
type ArrivalUnknowns = Map<string, number>;

interface BuiltResponse {
  response: FetchResponse;
  arrival: ArrivalUnknowns;
  /** Record bytes in the response. */
  bytes: number;
  hasError: boolean;
  /** Partitions fetched without error (what a long poll waits on). */
  partitions: Partition[];
}

/** Partitions a Fetch reads per turn of the event loop at most. */
export const FETCH_SLICE_PARTITIONS = 1024;
/** Partitions between two looks at the turn's SLICE_BUDGET_MS (a consumer's usual Fetch reads fewer: no clock read for it). */
const FETCH_BUDGET_EVERY = 32;

/**
 * The answer, reading FETCH_SLICE_PARTITIONS partitions (or SLICE_BUDGET_MS of reads) per turn of
 * the event loop (issue #16 item 5: a Fetch of 9,000 partitions held other connections 24-88 ms).
 * Partitions read in a later slice may have grown meanwhile, as in Kafka, whose fetch reads
 * partition after partition while appends go on.
 */
function* buildResponse(broker: Broker, req: FetchRequest, version: number, arrived: ArrivalUnknowns | null): Generator<void, BuiltResponse> {
  const arrival: ArrivalUnknowns = arrived ?? new Map();
  const byId = TOPICS.byId(version);
  const readCommitted = req.isolationLevel === READ_COMMITTED;
  let remaining = req.maxBytes;
  let bytes = 0;
  let hasError = false;
  const partitions: Partition[] = [];
  const logConfig = broker.topics.logConfigs();
  const slicer = new Slicer(FETCH_SLICE_PARTITIONS, FETCH_BUDGET_EVERY);

  // Kafka answers the partitions it read (in request order), then those it did not know
  // (KafkaApis' `erroneous`, in request order), each run of one topic in one entry.
  const read = new TopicRuns(version);
  const notKnown = new TopicRuns(version);
  for (let ti = 0; ti < req.topics.length; ti++) {
    const t = req.topics[ti]!;
    const lookUp = (): Topic | undefined => (byId ? broker.topics.getById(t.topicId) : broker.topics.get(t.topic));
    let topic = lookUp();
    // How the answer names the topic (one object per topic entry of the request, not per partition).
    const nameOf = (found: Topic | undefined) => ({ topic: byId ? '' : t.topic, topicId: byId ? t.topicId : found?.id ?? t.topicId });
    let entry = nameOf(topic);
    for (let pi = 0; pi < t.partitions.length; pi++) {
      const p = t.partitions[pi]!;
      if (slicer.due()) {
        yield;
        // Deleted (or deleted and created again) between slices: answered as a lookup now finds it.
        topic = lookUp();
        entry = nameOf(topic);
      }
      const res = defaultPartitionData();
      res.partitionIndex = p.partition;
      res.preferredReadReplica = -1;
      // A read that fails (ReplicaManager's) answers at once, as Kafka's `errorReadingData`.
      const fail = (errorCode: number): void => {
        hasError = true;
        Object.assign(res, TOPICS.spec.errorPartition(p.partition, errorCode), { preferredReadReplica: -1, abortedTransactions: null });
        read.add(entry, res);
      };
      // A topic or partition the broker does not know is answered beside the reads and ends no long
      // poll (KafkaApis.handleFetchRequest's `erroneous`, FetchResponse.partitionResponse: aborted
      // transactions []), as Kafka: a consumer still fetching a deleted topic waits out max_wait_ms.
      const unknown = (errorCode: number): void => {
        Object.assign(res, TOPICS.spec.errorPartition(p.partition, errorCode), { preferredReadReplica: -1 });
        notKnown.add(entry, res);
        if (arrived === null) arrival.set(`${ti}:${pi}`, errorCode);
      };
      const unknownAtArrival = arrived?.get(`${ti}:${pi}`);
      if (unknownAtArrival !== undefined) {
        // Created since: still unknown to this request, as on Kafka.
        unknown(unknownAtArrival);
        continue;
      }
      const partition = topic?.partition(p.partition);
      if (!partition) {
        if (arrived === null) unknown(topic || !byId ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.UNKNOWN_TOPIC_ID);
        // Deleted while the request waited: ReplicaManager's read finds no partition.
        else fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        continue;
      }
      const epochError = version >= 9 ? leaderEpochError(p.currentLeaderEpoch, partition.leaderEpoch) : ErrorCode.NONE;
      if (epochError !== ErrorCode.NONE) {
        fail(epochError);
        continue;
      }
      const logStart = partition.logStartOffset;
      const logEnd = partition.logEndOffset;
      if (p.fetchOffset < logStart || p.fetchOffset > logEnd) {
        fail(ErrorCode.OFFSET_OUT_OF_RANGE);
        continue;
      }
      // UnifiedLog.read fails a negative limit (IllegalArgumentException) once there is something to
      // read: at the end of what the isolation level reads it answers nothing first, and waits.
      if (p.partitionMaxBytes < 0 && p.fetchOffset !== (readCommitted ? partition.lastStableOffset : partition.highWatermark)) {
        fail(ErrorCode.UNKNOWN_SERVER_ERROR);
        continue;
      }
      read.add(entry, res);
      res.highWatermark = partition.highWatermark;
      res.lastStableOffset = partition.lastStableOffset;
      res.logStartOffset = logStart;
      partitions.push(partition);
      const limit = Math.max(0, Math.min(p.partitionMaxBytes, remaining));
      let batches: Buffer[];
      if (readCommitted) {
        const read = partition.readCommitted(p.fetchOffset, limit, bytes === 0, logConfig(topic!, p.partition)?.indexIntervalBytes ?? 4096);
        batches = read.batches;
        res.abortedTransactions = read.abortedTransactions;
      } else {
        batches = partition.readUncommitted(p.fetchOffset, limit, bytes === 0);
        res.abortedTransactions = null;
      }
      res.records = batches.length === 0 ? EMPTY_BYTES : joinBuffers(batches);
      bytes += res.records.length;
      remaining -= res.records.length;
    }
  }

  return {
    response: { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses: read.followedBy(notKnown), nodeEndpoints: [] },
    arrival,
    bytes,
    hasError,
    partitions,
  };
}
