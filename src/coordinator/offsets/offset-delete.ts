/**
 * OffsetDelete, as Kafka 4.3's `KafkaApis.handleOffsetDeleteRequest` with
 * `GroupCoordinatorService.deleteOffsets` and `OffsetMetadataManager.deleteOffsets`:
 * - group id "" -> INVALID_GROUP_ID (top level);
 * - topics or partitions this broker does not have -> UNKNOWN_TOPIC_OR_PARTITION per partition,
 *   answered ahead of the coordinator's entries (`OffsetDeleteResponse.Builder.merge`);
 * - unknown (or Dead) group -> GROUP_ID_NOT_FOUND; a classic group with members whose protocol type
 *   is not "consumer" -> NON_EMPTY_GROUP; both at the top level with no topics;
 * - per topic: GROUP_SUBSCRIBED_TO_TOPIC for each partition when the group consumes the topic;
 *   otherwise NONE, and the committed offsets of those partitions (and their pending transactional
 *   offsets, which a later COMMIT marker then does not bring back) are tombstoned, the answer waiting
 *   until the tombstones are durable. A failed write answers its error (NOT_COORDINATOR for a
 *   storage error) at the top level, with no topics, and deletes nothing. Tombstones that cannot
 *   fit one batch of `message.max.bytes` fail so too (Kafka 4.3's runtime builds the batch, the
 *   log refuses it with RecordTooLargeException: UNKNOWN_SERVER_ERROR), refused here before they
 *   are built when a lower bound of their size already exceeds it.
 * The topic checks (KafkaApis' part) look at `ELEMENTS_PER_SLICE` partitions per turn of the event
 * loop for a request of that many or more; the coordinator's part is one synchronous step, as
 * Kafka's operation.
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../../protocol/errors.js';
import type { OffsetDeleteRequest } from '../../protocol/messages/OffsetDeleteRequest.js';
import type { OffsetDeleteResponse, OffsetDeleteResponseTopic } from '../../protocol/messages/OffsetDeleteResponse.js';
import { ELEMENTS_PER_SLICE } from '../../protocol/primitives.js';
import { runInSlices, runNow } from '../../util/slices.js';
import { writeErrorCode } from '../runtime.js';
import type { OffsetStore } from './offset-store.js';

export interface OffsetDeleteContext {
  readonly offsets: Pick<OffsetStore, 'fetch' | 'hasPendingOffset' | 'deleteOffsets'>;
  /** Partitions of a topic as Kafka's metadata cache knows it (`__consumer_offsets` included), or undefined. */
  partitionCount(topic: string): number | undefined;
  /** `Group.validateOffsetDelete` then `isSubscribedToTopic`: an error code, or the subscription test. */
  subscriptionOf(groupId: string): number | ((topic: string) => boolean);
  readonly log: Logger;
  /** `message.max.bytes`: the largest batch one write may make (Kafka's runtime `maxBatchSize`). */
  readonly maxBatchBytes: number;
}

/**
 * A lower bound (bytes) of one offset tombstone in a batch: key version, group, topic and
 * partition; the record's own framing (length, attributes, deltas, key and null value lengths,
 * header count). String lengths in UTF-16 units, never more than their UTF-8 bytes.
 */
function tombstoneBytesAtLeast(groupId: string, topic: string): number {
  return 2 + 2 + groupId.length + 2 + topic.length + 4 + 7;
}

/** KafkaApis' checks: partitions the metadata cache does not know, and the rest by topic; yields every `ELEMENTS_PER_SLICE` partitions. */
function* checkTopics(c: OffsetDeleteContext, req: OffsetDeleteRequest): Generator<void, { unknown: TopicAnswers; valid: Array<{ name: string; partitions: number[] }> }> {
  const unknown = new TopicAnswers();
  const valid: Array<{ name: string; partitions: number[] }> = [];
  let sinceYield = 0;
  for (const topic of req.topics) {
    const count = c.partitionCount(topic.name);
    const ok: number[] = [];
    for (const p of topic.partitions) {
      if (count !== undefined && p.partitionIndex >= 0 && p.partitionIndex < count) ok.push(p.partitionIndex);
      else unknown.addPartition(topic.name, p.partitionIndex, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      if (++sinceYield === ELEMENTS_PER_SLICE) {
        sinceYield = 0;
        yield;
      }
    }
    if (ok.length > 0) valid.push({ name: topic.name, partitions: ok });
  }
  return { unknown, valid };
}

export async function deleteOffsets(c: OffsetDeleteContext, req: OffsetDeleteRequest): Promise<OffsetDeleteResponse> {
  const topLevel = (errorCode: number): OffsetDeleteResponse => ({ errorCode, throttleTimeMs: 0, topics: [] });

  // KafkaApis: partitions the metadata cache does not know are answered here, the rest go on.
  let partitionCount = 0;
  for (const topic of req.topics) partitionCount += topic.partitions.length;
  const checks = checkTopics(c, req);
  const { unknown, valid } = partitionCount >= ELEMENTS_PER_SLICE ? await runInSlices(checks) : runNow(checks);

  // GroupCoordinatorService.deleteOffsets, from here one synchronous step.
  if (req.groupId === '') return topLevel(ErrorCode.INVALID_GROUP_ID);
  const isSubscribed = c.subscriptionOf(req.groupId);
  if (typeof isSubscribed === 'number') return topLevel(isSubscribed);

  const coordinatorTopics: OffsetDeleteResponseTopic[] = [];
  const tombstones: Array<{ topic: string; partition: number }> = [];
  let bytesAtLeast = 0;
  for (const topic of valid) {
    if (isSubscribed(topic.name)) {
      coordinatorTopics.push({ name: topic.name, partitions: topic.partitions.map((partitionIndex) => ({ partitionIndex, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC })) });
      continue;
    }
    coordinatorTopics.push({ name: topic.name, partitions: topic.partitions.map((partitionIndex) => ({ partitionIndex, errorCode: ErrorCode.NONE })) });
    const tombstoneBytes = tombstoneBytesAtLeast(req.groupId, topic.name);
    for (const partition of topic.partitions) {
      // A committed offset or a pending transactional one (`hasCommittedOffset` or
      // `hasPendingTransactionalOffsets`): the tombstone drops both.
      if (c.offsets.fetch(req.groupId, topic.name, partition) !== undefined || c.offsets.hasPendingOffset(req.groupId, topic.name, partition)) {
        tombstones.push({ topic: topic.name, partition });
        bytesAtLeast += tombstoneBytes;
      }
    }
  }
  if (bytesAtLeast > c.maxBatchBytes) {
    // The batch the write would make is refused (as the write below would be, after building it).
    const errorCode = writeErrorCode(Object.assign(new Error('record batch too large'), { errorCode: ErrorCode.MESSAGE_TOO_LARGE }));
    c.log.warn({ groupId: req.groupId, tombstones: tombstones.length, bytesAtLeast, maxBatchBytes: c.maxBatchBytes, errorCode }, 'offset deletion not written: larger than one batch');
    return topLevel(errorCode);
  }
  if (tombstones.length > 0) {
    try {
      await c.offsets.deleteOffsets(req.groupId, tombstones);
    } catch (err) {
      // The coordinator operation failed as a whole (GroupCoordinatorService.deleteOffsets).
      const errorCode = writeErrorCode(err);
      c.log.warn({ err, groupId: req.groupId, errorCode }, 'offset deletion not written');
      return topLevel(errorCode);
    }
  }

  // OffsetDeleteResponse.Builder.merge: the coordinator's answer as is when nothing was answered
  // before; else its partitions appended to the topics already there, new topics after them.
  if (unknown.topics.length === 0) return { errorCode: ErrorCode.NONE, throttleTimeMs: 0, topics: coordinatorTopics };
  for (const topic of coordinatorTopics) {
    const existing = unknown.get(topic.name);
    if (existing) for (const p of topic.partitions) existing.partitions.push(p);
    else unknown.add(topic);
  }
  return { errorCode: ErrorCode.NONE, throttleTimeMs: 0, topics: unknown.topics };
}

/** Response topics in order of first appearance, found by name in constant time (a request may name 100,000 topics). */
class TopicAnswers {
  readonly topics: OffsetDeleteResponseTopic[] = [];
  private readonly byName = new Map<string, OffsetDeleteResponseTopic>();

  get(name: string): OffsetDeleteResponseTopic | undefined {
    return this.byName.get(name);
  }

  add(topic: OffsetDeleteResponseTopic): void {
    this.topics.push(topic);
    this.byName.set(topic.name, topic);
  }

  addPartition(name: string, partitionIndex: number, errorCode: number): void {
    let topic = this.byName.get(name);
    if (!topic) this.add((topic = { name, partitions: [] }));
    topic.partitions.push({ partitionIndex, errorCode });
  }
}
