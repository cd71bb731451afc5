import type { ListOffsetsRequest } from '../protocol/messages/ListOffsetsRequest.js';
import {
  defaultListOffsetsPartitionResponse,
  defaultListOffsetsResponse,
  type ListOffsetsPartitionResponse,
  type ListOffsetsResponse,
} from '../protocol/messages/ListOffsetsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { Partition } from '../topics/partition.js';
import { leaderEpochError } from '../topics/leader-epoch-check.js';
import type { ApiDefinition, RequestContext } from './types.js';
import { runSoon, Slicer } from '../util/slices.js';
import { ELEMENTS_PER_SLICE } from '../protocol/primitives.js';
import { partitionedTopics } from './shapes/partitioned-topics.js';
import { byPartitionLeaders } from './shapes/routing.js';

/** ListOffsets' topics and partitions (always by name). */
const TOPICS = partitionedTopics<ListOffsetsRequest, ListOffsetsResponse>({
  request: { topics: 'topics', name: 'name', partitions: 'partitions', index: 'partitionIndex' },
  response: { topics: 'topics', name: 'name', partitions: 'partitions', index: 'partitionIndex' },
  emptyResponse: defaultListOffsetsResponse,
  errorPartition: (partitionIndex, errorCode) => ({ ...defaultListOffsetsPartitionResponse(), partitionIndex, errorCode }),
});

/** Special timestamps of ListOffsets (Kafka's `ListOffsetsRequest`). */
export const LATEST_TIMESTAMP = -1n;
const READ_COMMITTED = 1;
export const EARLIEST_TIMESTAMP = -2n;
export const MAX_TIMESTAMP = -3n;
export const EARLIEST_LOCAL_TIMESTAMP = -4n;
export const LATEST_TIERED_TIMESTAMP = -5n;
export const EARLIEST_PENDING_UPLOAD_TIMESTAMP = -6n;

/**
 * The first version that may ask for each special timestamp (Kafka's
 * `ReplicaManager.timestampMinSupportedVersion`); any other negative timestamp is asked at none.
 */
const SPECIAL_TIMESTAMP_MIN_VERSION = new Map<bigint, number>([
  [EARLIEST_TIMESTAMP, 1],
  [LATEST_TIMESTAMP, 1],
  [MAX_TIMESTAMP, 7],
  [EARLIEST_LOCAL_TIMESTAMP, 8],
  [LATEST_TIERED_TIMESTAMP, 9],
  [EARLIEST_PENDING_UPLOAD_TIMESTAMP, 11],
]);

/** A negative timestamp this version may not ask for (`ReplicaManager.isListOffsetsTimestampUnsupported`). */
function unsupportedTimestamp(timestamp: bigint, version: number): boolean {
  return timestamp < 0n && !(version >= (SPECIAL_TIMESTAMP_MIN_VERSION.get(timestamp) ?? Infinity));
}

/**
 * ListOffsets (key 2, v1-11), as Kafka's `UnifiedLog.fetchOffsetByTimestamp` on a log
 * without tiered storage: -2 earliest / -4 earliest local -> log start offset; -1 latest ->
 * the high watermark (= log-end offset here), under read_committed (v2+ isolation level 1) the last
 * stable offset; a lookup finding an offset at or past that answers -1; -3 -> the first record
 * holding the largest timestamp; -5/-6 (tiered) -> offset -1; any other T -> the first
 * offset whose record timestamp >= T, with that timestamp. A special timestamp below the version
 * that introduced it (-3 v7, -4 v8, -5 v9, -6 v11) or any other negative one -> UNSUPPORTED_VERSION
 * for that partition, before the topic is looked up. Not found: offset -1,
 * timestamp -1, no error. Special timestamps answer timestamp -1. Unknown topic or
 * partition -> UNKNOWN_TOPIC_OR_PARTITION; a partition named twice -> one INVALID_REQUEST entry
 * (`duplicatePartitions`); a current leader epoch (v4+) below the
 * partition's -> FENCED_LEADER_EPOCH, above it -> UNKNOWN_LEADER_EPOCH. The leader epoch answered is
 * the one of the offset found (the current one for latest).
 */
export const api: ApiDefinition<ListOffsetsRequest, ListOffsetsResponse> = {
  apiKey: 2,
  name: 'ListOffsets',
  minVersion: 1,
  maxVersion: 11,
  errorResponse: TOPICS.failAll,
  names: (req, version) => ({ topics: TOPICS.named(req, version) }),
  partitions: TOPICS,
  routing: byPartitionLeaders(TOPICS),
  // ELEMENTS_PER_SLICE partitions (or SLICE_BUDGET_MS of them) per turn of the event loop (issue
  // #16 item 5): a request of 200,000 partitions held every connection for about a second.
  handle: (req, ctx) => runSoon(listOffsets(req, ctx)),
};

/**
 * Lookups between two looks at the turn's SLICE_BUDGET_MS: a lookup by timestamp (or the max
 * timestamp, -3) reads a batch from its segment file, opening it when the file cache closed it
 * (~80 us each), and 20,000 partitions of a data directory held other connections 80-180 ms a
 * slice (adversarial trial 28).
 */
const LOOKUPS_BUDGET_EVERY = 32;

/** The answer, a generator that yields every `ELEMENTS_PER_SLICE` partitions looked up, or sooner once the turn's budget is spent. */
function* listOffsets(request: ListOffsetsRequest, ctx: RequestContext): Generator<void, ListOffsetsResponse> {
  const { broker } = ctx;
  // Kafka refuses a partition named twice (`ListOffsetsRequest.duplicatePartitions`): one entry, INVALID_REQUEST.
  const req = TOPICS.distinct(request, ctx.apiVersion);
  const duplicated = req === request ? null : duplicatePartitions(request);
  const slicer = new Slicer(ELEMENTS_PER_SLICE, LOOKUPS_BUDGET_EVERY);
  const topics: ListOffsetsResponse['topics'] = [];
  for (const t of req.topics) {
    const topic = broker.topics.get(t.name);
    const partitions: ListOffsetsPartitionResponse[] = [];
    topics.push({ name: t.name, partitions });
    for (const p of t.partitions) {
      const res = defaultListOffsetsPartitionResponse();
      res.partitionIndex = p.partitionIndex;
      const partition = topic?.partition(p.partitionIndex);
      if (duplicated?.has(`${t.name}\u0000${p.partitionIndex}`)) res.errorCode = ErrorCode.INVALID_REQUEST;
      else if (unsupportedTimestamp(p.timestamp, ctx.apiVersion)) res.errorCode = ErrorCode.UNSUPPORTED_VERSION;
      else if (!partition) res.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      else if (ctx.apiVersion >= 4 && leaderEpochError(p.currentLeaderEpoch, partition.leaderEpoch, true) !== ErrorCode.NONE) {
        res.errorCode = leaderEpochError(p.currentLeaderEpoch, partition.leaderEpoch, true);
      } else Object.assign(res, lookup(partition, p.timestamp, req.isolationLevel === READ_COMMITTED));
      partitions.push(res);
      if (slicer.due()) yield;
    }
  }
  return { throttleTimeMs: 0, topics };
}

/** The partitions `req` names more than once, as `${topic}\0${partition}`. */
function duplicatePartitions(req: ListOffsetsRequest): Set<string> {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const t of req.topics) {
    for (const p of t.partitions) {
      const key = `${t.name}\u0000${p.partitionIndex}`;
      if (seen.has(key)) twice.add(key);
      seen.add(key);
    }
  }
  return twice;
}

/**
 * Kafka's `Partition.fetchOffsetForTimestamp` for a client: the last fetchable offset is the last
 * stable offset under read_committed, the high watermark otherwise; latest answers it, and a
 * timestamp lookup finding an offset at or past it answers nothing (`ReplicaManager.fetchOffset`).
 */
function lookup(partition: Partition, timestamp: bigint, readCommitted: boolean): { offset: bigint; timestamp: bigint; leaderEpoch: number } {
  const lastFetchable = readCommitted ? partition.lastStableOffset : partition.highWatermark;
  // UnifiedLog.fetchOffsetByTimestamp: the epoch of the offset found (the latest epoch for LATEST).
  const none = { offset: -1n, timestamp: -1n, leaderEpoch: -1 };
  const found = (offset: bigint, ts = -1n) => (offset < lastFetchable ? { offset, timestamp: ts, leaderEpoch: partition.epochs.epochForOffset(offset) } : none);
  switch (timestamp) {
    case EARLIEST_TIMESTAMP:
    case EARLIEST_LOCAL_TIMESTAMP:
      return { offset: partition.logStartOffset, timestamp: -1n, leaderEpoch: partition.epochs.epochForOffset(partition.logStartOffset) };
    case LATEST_TIMESTAMP:
      return { offset: lastFetchable, timestamp: -1n, leaderEpoch: partition.leaderEpoch };
    case LATEST_TIERED_TIMESTAMP:
    case EARLIEST_PENDING_UPLOAD_TIMESTAMP:
      return none;
    case MAX_TIMESTAMP: {
      // The epoch is the batch's (UnifiedLog.fetchOffsetByTimestamp), also below a log start
      // DeleteRecords moved past it, where the leader epoch cache knows none.
      const max = partition.log.maxTimestamp();
      return max && max.offset < lastFetchable ? max : none;
    }
    default: {
      const hit = partition.log.offsetForTimestamp(timestamp);
      return hit ? found(hit.offset, hit.timestamp) : none;
    }
  }
}
