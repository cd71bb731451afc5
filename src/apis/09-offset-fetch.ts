import type { OffsetFetchRequest } from '../protocol/messages/OffsetFetchRequest.js';
import {
  defaultOffsetFetchResponse,
  type OffsetFetchResponse,
  OffsetFetchResponsePartitions,
  OffsetFetchResponseTopics,
} from '../protocol/messages/OffsetFetchResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { Broker } from '../broker.js';
import type { ApiDefinition } from './types.js';
import { partitionedTopics, topicsInGroups } from './shapes/partitioned-topics.js';
import { groupList } from './shapes/group-list.js';
import { byGroupCoordinator, byGroupCoordinators } from './shapes/routing.js';

/** From v8 a request names several groups (KIP-709), each answered by its own entry. */
const GROUPS_FROM = 8;
const GROUPS = groupList<OffsetFetchRequest, OffsetFetchResponse>({ request: 'groups', id: 'groupId', response: 'groups' });

/** OffsetFetch's topics and partitions: by name, by topic id from v10 (KIP-848); inside the groups from v8. */
const TOPICS = partitionedTopics<OffsetFetchRequest, OffsetFetchResponse>({
  topicIdsFrom: 10,
  request: { topics: 'topics', name: 'name', partitions: 'partitionIndexes' },
  response: { topics: 'topics', name: 'name', partitions: 'partitions', index: 'partitionIndex' },
  emptyResponse: defaultOffsetFetchResponse,
  errorPartition: (partitionIndex, errorCode) => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode }),
});
const LAYOUT = topicsInGroups(TOPICS, GROUPS_FROM, { request: 'groups', response: 'groups' });

interface RequestedTopic {
  name: string;
  topicId: string;
  partitionIndexes: number[];
}

/**
 * OffsetFetch (key 9, v1-10), as Kafka 4.3's `OffsetMetadataManager.fetchOffsets` /
 * `fetchAllOffsets`: a partition with no committed offset (or an unknown group) answers
 * offset -1, leader epoch -1, metadata "" and NONE. Errors sit per partition (v1), at the top
 * level (v2-7) or per group (v8+, batched groups). Topics null means every committed offset of
 * the group. v10 addresses topics by id (unknown id: UNKNOWN_TOPIC_ID on its partitions).
 * requireStable (v7+) never answers UNSTABLE_OFFSET_COMMIT: there are no pending transactional
 * offsets here.
 */
export const api: ApiDefinition<OffsetFetchRequest, OffsetFetchResponse> = {
  apiKey: 9,
  name: 'OffsetFetch',
  minVersion: 1,
  maxVersion: 10,
  // OffsetFetchRequest.getErrorResponse: per partition (v0-1), at the top level (v2-7), per group (v8+).
  errorResponse(req, version, errorCode) {
    if (version >= GROUPS_FROM) return { ...defaultOffsetFetchResponse(), groups: req.groups.map((g) => ({ groupId: g.groupId, topics: [], errorCode })) };
    if (version < 2) return TOPICS.failAll(req, version, errorCode);
    return { ...defaultOffsetFetchResponse(), errorCode };
  },
  names: (req, version) =>
    version >= GROUPS_FROM
      ? { groups: GROUPS.ids(req), members: req.groups.map((g) => g.memberId), topics: LAYOUT.named(req, version) }
      : { groups: [req.groupId], topics: LAYOUT.named(req, version) },
  partitions: LAYOUT,
  routing: (version) => (version >= GROUPS_FROM ? byGroupCoordinators(GROUPS) : byGroupCoordinator()),
  handle(req, ctx) {
    const v = ctx.apiVersion;
    const byId = TOPICS.byId(v);
    if (v >= GROUPS_FROM) {
      return {
        throttleTimeMs: 0,
        topics: [],
        errorCode: ErrorCode.NONE,
        groups: req.groups.map((g) => {
          if (g.groupId === '') return { groupId: g.groupId, topics: [], errorCode: ErrorCode.INVALID_GROUP_ID };
          // v9+ (KIP-848): a consumer group checks the member id and epoch (`ConsumerGroup.validateOffsetFetch`).
          if (v >= 9 && ctx.broker.consumer.hasGroup(g.groupId)) {
            const errorCode = ctx.broker.consumer.validateOffsetFetch(g.groupId, g.memberId, g.memberEpoch);
            if (errorCode !== ErrorCode.NONE) return { groupId: g.groupId, topics: [], errorCode };
          }
          return { groupId: g.groupId, topics: fetchGroup(ctx.broker, g.groupId, g.topics, byId), errorCode: ErrorCode.NONE };
        }),
      };
    }
    const topicsIn = req.topics?.map((t) => ({ name: t.name, topicId: '', partitionIndexes: t.partitionIndexes })) ?? null;
    const topics = fetchGroup(ctx.broker, req.groupId, topicsIn, false).map((t) => ({ name: t.name, partitions: t.partitions }));
    return { throttleTimeMs: 0, topics, errorCode: ErrorCode.NONE, groups: [] };
  },
};

function fetchGroup(broker: Broker, groupId: string, requested: RequestedTopic[] | null, byId: boolean): OffsetFetchResponseTopics[] {
  if (requested === null) {
    const byTopic = new Map<string, OffsetFetchResponseTopics>();
    for (const { topic, partition, offset } of broker.offsets.offsetsOf(groupId)) {
      let entry = byTopic.get(topic);
      if (!entry) {
        const topicId = byId ? broker.topics.get(topic)?.topicId : '';
        if (topicId === undefined) continue;
        byTopic.set(topic, (entry = { name: byId ? '' : topic, topicId, partitions: [] }));
      }
      entry.partitions.push({
        partitionIndex: partition,
        committedOffset: offset.committedOffset,
        committedLeaderEpoch: offset.leaderEpoch,
        metadata: offset.metadata,
        errorCode: ErrorCode.NONE,
      });
    }
    return [...byTopic.values()];
  }
  return requested.map((t) => {
    const name = byId ? broker.topics.getById(t.topicId)?.name : t.name;
    return {
      name: byId ? '' : t.name,
      topicId: byId ? t.topicId : '',
      partitions: t.partitionIndexes.map((partitionIndex): OffsetFetchResponsePartitions => {
        if (name === undefined) {
          return { partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.UNKNOWN_TOPIC_ID };
        }
        const committed = broker.offsets.fetch(groupId, name, partitionIndex);
        return committed
          ? { partitionIndex, committedOffset: committed.committedOffset, committedLeaderEpoch: committed.leaderEpoch, metadata: committed.metadata, errorCode: ErrorCode.NONE }
          : { partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE };
      }),
    };
  });
}
