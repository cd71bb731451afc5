/**
 * OffsetDelete, as Kafka 4.3's `KafkaApis.handleOffsetDeleteRequest` with
 * `GroupCoordinatorService.deleteOffsets` and `OffsetMetadataManager.deleteOffsets`:
 * - group id "" -> INVALID_GROUP_ID (top level);
 * - topics or partitions this broker does not have -> UNKNOWN_TOPIC_OR_PARTITION per partition,
 *   answered ahead of the coordinator's entries (`OffsetDeleteResponse.Builder.merge`);
 * - unknown (or Dead) group -> GROUP_ID_NOT_FOUND; a classic group with members whose protocol type
 *   is not "consumer" -> NON_EMPTY_GROUP; both at the top level with no topics;
 * - per topic: GROUP_SUBSCRIBED_TO_TOPIC for each partition when the group consumes the topic;
 *   otherwise NONE, and the committed offsets of those partitions are tombstoned, the answer waiting
 *   until the tombstones are durable. A failed write answers its error (NOT_COORDINATOR for a
 *   storage error) at the top level, with no topics, and deletes nothing.
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../../protocol/errors.js';
import type { OffsetDeleteRequest } from '../../protocol/messages/OffsetDeleteRequest.js';
import type { OffsetDeleteResponse, OffsetDeleteResponseTopic } from '../../protocol/messages/OffsetDeleteResponse.js';
import { writeErrorCode } from '../runtime.js';
import type { OffsetStore } from './offset-store.js';

export interface OffsetDeleteContext {
  readonly offsets: Pick<OffsetStore, 'fetch' | 'deleteOffsets'>;
  /** Partitions of a topic as Kafka's metadata cache knows it (`__consumer_offsets` included), or undefined. */
  partitionCount(topic: string): number | undefined;
  /** `Group.validateOffsetDelete` then `isSubscribedToTopic`: an error code, or the subscription test. */
  subscriptionOf(groupId: string): number | ((topic: string) => boolean);
  readonly log: Logger;
}

export async function deleteOffsets(c: OffsetDeleteContext, req: OffsetDeleteRequest): Promise<OffsetDeleteResponse> {
  const topLevel = (errorCode: number): OffsetDeleteResponse => ({ errorCode, throttleTimeMs: 0, topics: [] });

  // KafkaApis: partitions the metadata cache does not know are answered here, the rest go on.
  const unknown: OffsetDeleteResponseTopic[] = [];
  const valid: Array<{ name: string; partitions: number[] }> = [];
  for (const topic of req.topics) {
    const count = c.partitionCount(topic.name);
    if (count === undefined) {
      addPartitions(unknown, topic.name, topic.partitions.map((p) => p.partitionIndex), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      continue;
    }
    const ok: number[] = [];
    for (const p of topic.partitions) {
      if (p.partitionIndex >= 0 && p.partitionIndex < count) ok.push(p.partitionIndex);
      else addPartitions(unknown, topic.name, [p.partitionIndex], ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
    if (ok.length > 0) valid.push({ name: topic.name, partitions: ok });
  }

  // GroupCoordinatorService.deleteOffsets
  if (req.groupId === '') return topLevel(ErrorCode.INVALID_GROUP_ID);
  const isSubscribed = c.subscriptionOf(req.groupId);
  if (typeof isSubscribed === 'number') return topLevel(isSubscribed);

  const coordinatorTopics: OffsetDeleteResponseTopic[] = [];
  const tombstones: Array<{ topic: string; partition: number }> = [];
  for (const topic of valid) {
    if (isSubscribed(topic.name)) {
      coordinatorTopics.push({ name: topic.name, partitions: topic.partitions.map((partitionIndex) => ({ partitionIndex, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC })) });
      continue;
    }
    coordinatorTopics.push({ name: topic.name, partitions: topic.partitions.map((partitionIndex) => ({ partitionIndex, errorCode: ErrorCode.NONE })) });
    for (const partition of topic.partitions) {
      if (c.offsets.fetch(req.groupId, topic.name, partition) !== undefined) tombstones.push({ topic: topic.name, partition });
    }
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
  if (unknown.length === 0) return { errorCode: ErrorCode.NONE, throttleTimeMs: 0, topics: coordinatorTopics };
  for (const topic of coordinatorTopics) {
    const existing = unknown.find((t) => t.name === topic.name);
    if (existing) existing.partitions.push(...topic.partitions);
    else unknown.push(topic);
  }
  return { errorCode: ErrorCode.NONE, throttleTimeMs: 0, topics: unknown };
}

function addPartitions(topics: OffsetDeleteResponseTopic[], name: string, partitions: number[], errorCode: number): void {
  let topic = topics.find((t) => t.name === name);
  if (!topic) topics.push((topic = { name, partitions: [] }));
  for (const partitionIndex of partitions) topic.partitions.push({ partitionIndex, errorCode });
}
