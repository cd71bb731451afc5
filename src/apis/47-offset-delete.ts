import type { Broker } from '../broker.js';
import { ErrorCode } from '../protocol/errors.js';
import type { OffsetDeleteRequest } from '../protocol/messages/OffsetDeleteRequest.js';
import { defaultOffsetDeleteResponse, type OffsetDeleteResponse, type OffsetDeleteResponseTopic } from '../protocol/messages/OffsetDeleteResponse.js';
import { ClassicGroupState } from '../coordinator/classic/group-state.js';
import { GROUP_METADATA_TOPIC_NAME } from '../topics/topic-name.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { byGroupCoordinator } from './shapes/routing.js';

/**
 * OffsetDelete (key 47, v0), as Kafka 4.3's `KafkaApis.handleOffsetDeleteRequest` with
 * `GroupCoordinatorService.deleteOffsets` and `OffsetMetadataManager.deleteOffsets`:
 * - group id "" -> INVALID_GROUP_ID (top level);
 * - topics or partitions this broker does not have -> UNKNOWN_TOPIC_OR_PARTITION per partition,
 *   answered ahead of the coordinator's entries (`OffsetDeleteResponse.Builder.merge`);
 * - unknown (or Dead) group -> GROUP_ID_NOT_FOUND; a classic group with members whose protocol type
 *   is not "consumer" -> NON_EMPTY_GROUP; both at the top level with no topics;
 * - per topic: GROUP_SUBSCRIBED_TO_TOPIC for each partition when the group consumes the topic
 *   (`ClassicGroup.isSubscribedToTopic`, or a KIP-848 group's subscribed names and resolved regexes);
 *   otherwise NONE, and the committed offsets of those partitions are tombstoned, the response
 *   waiting until the tombstones are durable.
 */
export const api: ApiDefinition<OffsetDeleteRequest, OffsetDeleteResponse> = {
  apiKey: 47,
  name: 'OffsetDelete',
  minVersion: 0,
  maxVersion: 0,
  errorResponse: topLevelError(defaultOffsetDeleteResponse),
  names: (req) => ({ groups: [req.groupId], topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => p.partitionIndex) })) }),
  routing: byGroupCoordinator(),
  async handle(req, ctx) {
    const { broker } = ctx;
    const topLevel = (errorCode: number): OffsetDeleteResponse => ({ errorCode, throttleTimeMs: 0, topics: [] });

    // KafkaApis: partitions the metadata cache does not know are answered here, the rest go on.
    const unknown: OffsetDeleteResponseTopic[] = [];
    const valid: Array<{ name: string; partitions: number[] }> = [];
    for (const topic of req.topics) {
      const count = partitionCountOf(broker, topic.name);
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
    const isSubscribed = subscriptionOf(broker, req.groupId);
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
        if (broker.offsets.fetch(req.groupId, topic.name, partition) !== undefined) tombstones.push({ topic: topic.name, partition });
      }
    }
    if (tombstones.length > 0) {
      try {
        await broker.offsets.deleteOffsets(req.groupId, tombstones);
      } catch (err) {
        // The coordinator operation failed as a whole (GroupCoordinatorService.deleteOffsets): a
        // storage error answers NOT_COORDINATOR at the top level, with no topics.
        ctx.log.warn({ err, groupId: req.groupId }, 'offset deletion not written; answering NOT_COORDINATOR');
        return { errorCode: ErrorCode.NOT_COORDINATOR, throttleTimeMs: 0, topics: [] };
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
  },
};

/** Partitions of a topic as Kafka's metadata cache knows it (`__consumer_offsets` included), or undefined. */
function partitionCountOf(broker: Broker, name: string): number | undefined {
  if (name === GROUP_METADATA_TOPIC_NAME) return broker.groupLog.partitionCount;
  return broker.topics.get(name)?.partitionCount;
}

function addPartitions(topics: OffsetDeleteResponseTopic[], name: string, partitions: number[], errorCode: number): void {
  let topic = topics.find((t) => t.name === name);
  if (!topic) topics.push((topic = { name, partitions: [] }));
  for (const partitionIndex of partitions) topic.partitions.push({ partitionIndex, errorCode });
}

/**
 * `GroupMetadataManager.group(id)` then `Group.validateOffsetDelete()`: an error code, or the
 * group's `isSubscribedToTopic`.
 */
function subscriptionOf(broker: Broker, groupId: string): number | ((topic: string) => boolean) {
  if (broker.consumer.hasGroup(groupId)) {
    // ConsumerGroup.validateOffsetDelete accepts any state; ModernGroup.isSubscribedToTopic.
    const view = broker.consumer.retentionSource().group(groupId);
    return view ? (topic) => view.isSubscribedToTopic(topic) : ErrorCode.GROUP_ID_NOT_FOUND;
  }
  const group = broker.classic.group(groupId);
  if (!group || group.isInState(ClassicGroupState.DEAD)) return ErrorCode.GROUP_ID_NOT_FOUND;
  // ClassicGroup.validateOffsetDelete: Stable, PreparingRebalance and CompletingRebalance groups
  // must use the consumer protocol; Empty groups always pass.
  if (!group.isInState(ClassicGroupState.EMPTY) && !group.usesConsumerProtocol()) return ErrorCode.NON_EMPTY_GROUP;
  return (topic) => group.isSubscribedToTopic(topic);
}
