import type { DeleteRecordsRequest } from '../protocol/messages/DeleteRecordsRequest.js';
import { defaultDeleteRecordsResponse, type DeleteRecordsPartitionResult, type DeleteRecordsResponse } from '../protocol/messages/DeleteRecordsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition } from './types.js';
import type { Partition } from '../topics/partition.js';
import type { Topic } from '../topics/topic.js';
import type { Broker } from '../broker.js';
import { ELEMENTS_PER_SLICE } from '../protocol/primitives.js';
import { runInSlices, runNow } from '../util/slices.js';
import { partitionedTopics } from './shapes/partitioned-topics.js';
import { byPartitionLeaders } from './shapes/routing.js';

/** DeleteRecords' topics and partitions (by name). */
const TOPICS = partitionedTopics<DeleteRecordsRequest, DeleteRecordsResponse>({
  request: { topics: 'topics', name: 'name', partitions: 'partitions', index: 'partitionIndex' },
  response: { topics: 'topics', name: 'name', partitions: 'partitions', index: 'partitionIndex' },
  emptyResponse: defaultDeleteRecordsResponse,
  errorPartition: (partitionIndex, errorCode) => ({ partitionIndex, lowWatermark: -1n, errorCode }),
});

/**
 * DeleteRecords (key 21, v0-2; v2 flexible), as Kafka 4.3's `ReplicaManager.deleteRecords` on the
 * partition leader: per partition, unknown topic or partition -> UNKNOWN_TOPIC_OR_PARTITION; an
 * internal topic -> INVALID_TOPIC_EXCEPTION ("Cannot delete records of internal topic"); offset -1
 * means the high watermark; a negative offset or one above the high watermark -> OFFSET_OUT_OF_RANGE;
 * otherwise the log start offset moves up to the offset (never down), the segments wholly below it
 * are deleted, and the low watermark answered is the new log start offset. Fetch below it then
 * answers OFFSET_OUT_OF_RANGE and ListOffsets earliest answers it. The moved log start offsets are
 * written to `<data-dir>/log-start-offset-checkpoint` (Kafka's file) before they move and before the
 * answer, so they survive a restart; when that write fails nothing moves and the partitions answer
 * KAFKA_STORAGE_ERROR (ours: Kafka writes the checkpoint later and takes a failed log dir offline). Routed to the leader (NOT_LEADER_OR_FOLLOWER elsewhere).
 * A topic whose `cleanup.policy` is `compact` without `delete` -> POLICY_VIOLATION (an empty policy, or
 * `delete`, deletes: Kafka checks `!config.delete && config.compact`). Errored partitions answer low
 * watermark -1. A partition named twice (or a topic twice) is answered once, with the offset named
 * last, as Kafka keys the request by TopicPartition.
 */
export const api: ApiDefinition<DeleteRecordsRequest, DeleteRecordsResponse> = {
  apiKey: 21,
  name: 'DeleteRecords',
  minVersion: 0,
  maxVersion: 2,
  errorResponse: TOPICS.failAll,
  names: (req, version) => ({ topics: TOPICS.named(req, version) }),
  partitions: TOPICS,
  routing: byPartitionLeaders(TOPICS),
  async handle(req, ctx) {
    const { broker } = ctx;
    // A request of ELEMENTS_PER_SLICE partitions or more is checked, then answered, that many
    // partitions per turn of the event loop (each partition on its own, as Kafka's ReplicaManager).
    let count = 0;
    for (const t of req.topics) count += t.partitions.length;
    const run = count >= ELEMENTS_PER_SLICE ? runInSlices : runNow;
    // Checked first, changed after: the new log start offsets are durable before any moves.
    const moves = new Map<Partition, bigint>();
    const topics = await run(checkPartitions(broker, req, moves));
    let written = true;
    if (moves.size > 0) {
      try {
        await broker.topics.checkpointLogStartOffsets(moves);
      } catch (err) {
        // The checkpoint could not be written (a full disk): nothing moves, and the partitions that
        // would have answer KAFKA_STORAGE_ERROR, as a Kafka partition whose log directory failed.
        broker.log.error({ err }, 'DeleteRecords: could not write log-start-offset-checkpoint');
        written = false;
      }
    }
    return { throttleTimeMs: 0, topics: await run(applyMoves(topics, moves, written)) };
  },
};

type CheckedPartition = DeleteRecordsPartitionResult & { partition?: Partition };

/** Each partition's checks, in request order, its move (if any) added to `moves`; yields every `ELEMENTS_PER_SLICE` partitions. */
function* checkPartitions(broker: Broker, req: DeleteRecordsRequest, moves: Map<Partition, bigint>): Generator<void, Array<{ name: string; partitions: CheckedPartition[] }>> {
  const logConfig = broker.topics.logConfigs();
  const out: Array<{ name: string; partitions: CheckedPartition[] }> = [];
  let sinceYield = 0;
  for (const t of lastOffsetPerPartition(req)) {
    const topic = broker.topics.get(t.name);
    const partitions: CheckedPartition[] = [];
    out.push({ name: t.name, partitions });
    for (const p of t.partitions) {
      partitions.push(checkPartition(topic, p, logConfig, moves));
      if (++sinceYield === ELEMENTS_PER_SLICE) {
        sinceYield = 0;
        yield;
      }
    }
  }
  return out;
}

function checkPartition(topic: Topic | undefined, p: { partitionIndex: number; offset: bigint }, logConfig: ReturnType<Broker['topics']['logConfigs']>, moves: Map<Partition, bigint>): CheckedPartition {
  const fail = (errorCode: number): DeleteRecordsPartitionResult => ({ partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode });
  const partition = topic?.partition(p.partitionIndex);
  if (!topic || !partition) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  if (topic.internal) return fail(ErrorCode.INVALID_TOPIC_EXCEPTION);
  // Partition.deleteRecordsOnLeader refuses only a compacted log that does not also delete ("Records of
  // partition X can not be deleted due to the configured policy"); `cleanup.policy=""` deletes.
  const config = logConfig(topic, p.partitionIndex)!;
  if (config.compactPolicy && !config.deletePolicy) return fail(ErrorCode.POLICY_VIOLATION);
  const checked = partition.deleteRecordsTarget(p.offset);
  if (checked.errorCode !== ErrorCode.NONE) return fail(checked.errorCode);
  if (checked.lowWatermark > partition.logStartOffset && checked.lowWatermark > (moves.get(partition) ?? -1n)) moves.set(partition, checked.lowWatermark);
  return { partitionIndex: p.partitionIndex, lowWatermark: checked.lowWatermark, errorCode: ErrorCode.NONE, partition };
}

/** The answer: each moved partition's log start offset moved (or KAFKA_STORAGE_ERROR when the checkpoint was not `written`); yields every `ELEMENTS_PER_SLICE` partitions. */
function* applyMoves(topics: Array<{ name: string; partitions: CheckedPartition[] }>, moves: Map<Partition, bigint>, written: boolean): Generator<void, DeleteRecordsResponse['topics']> {
  const out: DeleteRecordsResponse['topics'] = [];
  let sinceYield = 0;
  for (const t of topics) {
    const partitions: DeleteRecordsPartitionResult[] = [];
    out.push({ name: t.name, partitions });
    for (const { partition, ...res } of t.partitions) {
      const target = partition ? moves.get(partition) : undefined;
      if (partition === undefined || target === undefined) partitions.push(res);
      else if (!written) partitions.push({ partitionIndex: res.partitionIndex, lowWatermark: -1n, errorCode: ErrorCode.KAFKA_STORAGE_ERROR });
      else partitions.push({ ...res, lowWatermark: partition.deleteRecordsBefore(target).lowWatermark });
      if (++sinceYield === ELEMENTS_PER_SLICE) {
        sinceYield = 0;
        yield;
      }
    }
  }
  return out;
}

/**
 * The request's topics with each partition once, at the offset named last (KafkaApis collects the
 * partitions into a map by TopicPartition); topics and partitions in the order first named.
 */
function lastOffsetPerPartition(req: DeleteRecordsRequest): { name: string; partitions: { partitionIndex: number; offset: bigint }[] }[] {
  const topics = new Map<string, Map<number, bigint>>();
  for (const t of req.topics) {
    const partitions = topics.get(t.name) ?? new Map<number, bigint>();
    topics.set(t.name, partitions);
    for (const p of t.partitions) partitions.set(p.partitionIndex, p.offset);
  }
  return [...topics].map(([name, partitions]) => ({ name, partitions: [...partitions].map(([partitionIndex, offset]) => ({ partitionIndex, offset })) }));
}
