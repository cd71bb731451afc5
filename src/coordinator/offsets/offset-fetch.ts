/**
 * OffsetFetch for either group type: Kafka 4.3's `OffsetMetadataManager.fetchOffsets` /
 * `fetchAllOffsets`, reading the committed (durable) offsets. A partition with no committed offset
 * (or an unknown group) answers offset -1, leader epoch -1, metadata "" and NONE. Errors sit per
 * partition (v1), at the top level (v2-7) or per group (v8+, batched groups). Topics null means
 * every committed offset of the group. From v10 topics are named by id (unknown id:
 * UNKNOWN_TOPIC_ID on its partitions). From v9 a KIP-848 consumer group checks the member id and
 * epoch (`ConsumerGroup.validateOffsetFetch`). With requireStable (v7+) a partition with a pending
 * transactional offset (a TxnOffsetCommit whose transaction has no marker yet) answers
 * UNSTABLE_OFFSET_COMMIT with offset -1, as Kafka's `OffsetMetadataManager.fetchOffsets`.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { OffsetFetchRequest } from '../../protocol/messages/OffsetFetchRequest.js';
import type { OffsetFetchResponse, OffsetFetchResponsePartitions, OffsetFetchResponseTopics } from '../../protocol/messages/OffsetFetchResponse.js';
import type { OffsetStore } from './offset-store.js';
import type { OffsetTopics } from './offset-commit.js';

export interface OffsetFetchContext {
  readonly topics: OffsetTopics;
  readonly offsets: Pick<OffsetStore, 'fetch' | 'offsetsOf' | 'hasPendingOffset'>;
  /** The group's member check (`Group.validateOffsetFetch`); null when no group holds the id. */
  validateMember(groupId: string, memberId: string | null, memberEpoch: number): number | null;
}

/** From this version OffsetFetch batches groups (v8), checks KIP-848 members (v9), names topics by id (v10). */
export const OFFSET_FETCH_GROUPS_VERSION = 8;
export const OFFSET_FETCH_MEMBER_CHECK_VERSION = 9;
export const OFFSET_FETCH_TOPIC_IDS_VERSION = 10;

interface RequestedTopic {
  name: string;
  topicId: string;
  partitionIndexes: number[];
}

export function fetchOffsets(c: OffsetFetchContext, req: OffsetFetchRequest, apiVersion: number): OffsetFetchResponse {
  const byId = apiVersion >= OFFSET_FETCH_TOPIC_IDS_VERSION;
  if (apiVersion >= OFFSET_FETCH_GROUPS_VERSION) {
    return {
      throttleTimeMs: 0,
      topics: [],
      errorCode: ErrorCode.NONE,
      groups: req.groups.map((g) => {
        if (g.groupId === '') return { groupId: g.groupId, topics: [], errorCode: ErrorCode.INVALID_GROUP_ID };
        if (apiVersion >= OFFSET_FETCH_MEMBER_CHECK_VERSION) {
          const errorCode = c.validateMember(g.groupId, g.memberId, g.memberEpoch);
          if (errorCode !== null && errorCode !== ErrorCode.NONE) return { groupId: g.groupId, topics: [], errorCode };
        }
        return { groupId: g.groupId, topics: fetchGroup(c, g.groupId, g.topics, byId, req.requireStable), errorCode: ErrorCode.NONE };
      }),
    };
  }
  const topicsIn = req.topics?.map((t) => ({ name: t.name, topicId: '', partitionIndexes: t.partitionIndexes })) ?? null;
  const topics = fetchGroup(c, req.groupId, topicsIn, false, req.requireStable).map((t) => ({ name: t.name, partitions: t.partitions }));
  return { throttleTimeMs: 0, topics, errorCode: ErrorCode.NONE, groups: [] };
}

/** A partition whose transactional offset is pending, under requireStable. */
const UNSTABLE: Omit<OffsetFetchResponsePartitions, 'partitionIndex'> = { committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT };

function fetchGroup(c: OffsetFetchContext, groupId: string, requested: RequestedTopic[] | null, byId: boolean, requireStable: boolean): OffsetFetchResponseTopics[] {
  if (requested === null) {
    const byTopic = new Map<string, OffsetFetchResponseTopics>();
    for (const { topic, partition, offset } of c.offsets.offsetsOf(groupId)) {
      let entry = byTopic.get(topic);
      if (!entry) {
        const topicId = byId ? c.topics.get(topic)?.topicId : '';
        if (topicId === undefined) continue;
        byTopic.set(topic, (entry = { name: byId ? '' : topic, topicId, partitions: [] }));
      }
      if (requireStable && c.offsets.hasPendingOffset(groupId, topic, partition)) {
        entry.partitions.push({ partitionIndex: partition, ...UNSTABLE });
        continue;
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
    const name = byId ? c.topics.getById(t.topicId)?.name : t.name;
    return {
      name: byId ? '' : t.name,
      topicId: byId ? t.topicId : '',
      partitions: t.partitionIndexes.map((partitionIndex): OffsetFetchResponsePartitions => {
        if (name === undefined) {
          return { partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.UNKNOWN_TOPIC_ID };
        }
        if (requireStable && c.offsets.hasPendingOffset(groupId, name, partitionIndex)) return { partitionIndex, ...UNSTABLE };
        const committed = c.offsets.fetch(groupId, name, partitionIndex);
        return committed
          ? { partitionIndex, committedOffset: committed.committedOffset, committedLeaderEpoch: committed.leaderEpoch, metadata: committed.metadata, errorCode: ErrorCode.NONE }
          : { partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE };
      }),
    };
  });
}
