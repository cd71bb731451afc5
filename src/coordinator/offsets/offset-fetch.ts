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
import { ELEMENTS_PER_SLICE, ZERO_UUID } from '../../protocol/primitives.js';
import { runSoon } from '../../util/slices.js';

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

/**
 * Answers an OffsetFetch. A request naming `ELEMENTS_PER_SLICE` partitions or more, or a group of
 * that many committed offsets fetched whole (topics null), is answered in slices, one per turn of
 * the event loop (issue #16): then each partition's offset is the one committed when its slice ran
 * (see DIFFERENCES.md, OffsetFetch).
 */
export function fetchOffsets(c: OffsetFetchContext, req: OffsetFetchRequest, apiVersion: number): Promise<OffsetFetchResponse> {
  return Promise.resolve(runSoon(fetchOffsetsInSlices(c, req, apiVersion)));
}

/** `fetchOffsets` as a generator yielding every `ELEMENTS_PER_SLICE` partitions answered. */
function* fetchOffsetsInSlices(c: OffsetFetchContext, req: OffsetFetchRequest, apiVersion: number): Generator<void, OffsetFetchResponse> {
  const byId = apiVersion >= OFFSET_FETCH_TOPIC_IDS_VERSION;
  const budget = { sinceYield: 0 };
  if (apiVersion >= OFFSET_FETCH_GROUPS_VERSION) {
    const groups: OffsetFetchResponse['groups'] = [];
    // The empty group id is fetched as any other, at every version (Kafka 4.3.1, conformance: classic).
    for (const g of req.groups) {
      if (apiVersion >= OFFSET_FETCH_MEMBER_CHECK_VERSION) {
        const errorCode = c.validateMember(g.groupId, g.memberId, g.memberEpoch);
        if (errorCode !== null && errorCode !== ErrorCode.NONE) {
          groups.push({ groupId: g.groupId, topics: [], errorCode });
          continue;
        }
      }
      groups.push({ groupId: g.groupId, topics: yield* fetchGroup(c, g.groupId, g.topics, byId, req.requireStable, budget), errorCode: ErrorCode.NONE });
    }
    return { throttleTimeMs: 0, topics: [], errorCode: ErrorCode.NONE, groups };
  }
  const topicsIn = req.topics?.map((t) => ({ name: t.name, topicId: '', partitionIndexes: t.partitionIndexes })) ?? null;
  const topics = (yield* fetchGroup(c, req.groupId, topicsIn, false, req.requireStable, budget)).map((t) => ({ name: t.name, partitions: t.partitions }));
  return { throttleTimeMs: 0, topics, errorCode: ErrorCode.NONE, groups: [] };
}

/** A partition whose transactional offset is pending, under requireStable. */
const UNSTABLE: Omit<OffsetFetchResponsePartitions, 'partitionIndex'> = { committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT };

/**
 * One group's offsets; it yields every `ELEMENTS_PER_SLICE` partitions answered (`budget` counts
 * across the groups of one request).
 */
function* fetchGroup(c: OffsetFetchContext, groupId: string, requested: RequestedTopic[] | null, byId: boolean, requireStable: boolean, budget: { sinceYield: number }): Generator<void, OffsetFetchResponseTopics[]> {
  if (requested === null) return yield* fetchAllOffsets(c, groupId, byId, requireStable, budget);
  const topics: OffsetFetchResponseTopics[] = [];
  for (const t of requested) {
    const name = byId ? c.topics.getById(t.topicId)?.name : t.name;
    const partitions: OffsetFetchResponsePartitions[] = new Array(t.partitionIndexes.length);
    topics.push({ name: byId ? '' : t.name, topicId: byId ? t.topicId : '', partitions });
    for (let i = 0; i < partitions.length; i++) {
      partitions[i] = fetchPartition(c, groupId, name, byId ? t.topicId : ZERO_UUID, t.partitionIndexes[i]!, requireStable);
      if (spend(budget)) yield;
    }
  }
  return topics;
}

/**
 * One requested partition's committed offset; `name` undefined: a topic id no topic has. An offset
 * committed for another incarnation of the topic (both ids known and different: the topic was
 * deleted and created again) is no offset, as Kafka's `OffsetMetadataManager.isOffsetInvalid`.
 */
function fetchPartition(c: OffsetFetchContext, groupId: string, name: string | undefined, requestedTopicId: string, partitionIndex: number, requireStable: boolean): OffsetFetchResponsePartitions {
  if (name === undefined) {
    return { partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.UNKNOWN_TOPIC_ID };
  }
  if (requireStable && c.offsets.hasPendingOffset(groupId, name, partitionIndex)) return { partitionIndex, ...UNSTABLE };
  const committed = c.offsets.fetch(groupId, name, partitionIndex);
  return committed && !isMismatchedTopicId(committed.topicId, requestedTopicId)
    ? { partitionIndex, committedOffset: committed.committedOffset, committedLeaderEpoch: committed.leaderEpoch, metadata: committed.metadata, errorCode: ErrorCode.NONE }
    : { partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE };
}

/** Kafka's `isMismatchedTopicId`: both ids known (not the zero uuid) and different. */
function isMismatchedTopicId(stored: string, requested: string): boolean {
  return stored !== ZERO_UUID && requested !== ZERO_UUID && stored !== requested;
}

/** Counts one partition answered; true when a slice's worth has been since the last yield. */
function spend(budget: { sinceYield: number }): boolean {
  if (++budget.sinceYield < ELEMENTS_PER_SLICE) return false;
  budget.sinceYield = 0;
  return true;
}

/**
 * Every committed offset of the group (topics null: Kafka's `fetchAllOffsets`), as they were when
 * the fetch began (a pending transactional offset: as when its slice ran).
 */
function* fetchAllOffsets(c: OffsetFetchContext, groupId: string, byId: boolean, requireStable: boolean, budget: { sinceYield: number }): Generator<void, OffsetFetchResponseTopics[]> {
  const byTopic = new Map<string, OffsetFetchResponseTopics>();
  for (const { topic, partition, offset } of c.offsets.offsetsOf(groupId)) {
    if (spend(budget)) yield;
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
