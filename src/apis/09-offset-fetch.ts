import type { OffsetFetchRequest } from '../protocol/messages/OffsetFetchRequest.js';
import { defaultOffsetFetchResponse, type OffsetFetchResponse } from '../protocol/messages/OffsetFetchResponse.js';
import { OFFSET_FETCH_GROUPS_VERSION, OFFSET_FETCH_TOPIC_IDS_VERSION } from '../coordinator/offsets/offset-fetch.js';
import type { ApiDefinition } from './types.js';
import { partitionedTopics, topicsInGroups } from './shapes/partitioned-topics.js';
import { groupList } from './shapes/group-list.js';
import { byGroupCoordinator, byGroupCoordinators } from './shapes/routing.js';

/** From v8 a request names several groups (KIP-709), each answered by its own entry. */
const GROUPS_FROM = OFFSET_FETCH_GROUPS_VERSION;
const GROUPS = groupList<OffsetFetchRequest, OffsetFetchResponse>({ request: 'groups', id: 'groupId', response: 'groups' });

/** OffsetFetch's topics and partitions: by name, by topic id from v10 (KIP-848); inside the groups from v8. */
const TOPICS = partitionedTopics<OffsetFetchRequest, OffsetFetchResponse>({
  topicIdsFrom: OFFSET_FETCH_TOPIC_IDS_VERSION,
  request: { topics: 'topics', name: 'name', partitions: 'partitionIndexes' },
  response: { topics: 'topics', name: 'name', partitions: 'partitions', index: 'partitionIndex' },
  emptyResponse: defaultOffsetFetchResponse,
  errorPartition: (partitionIndex, errorCode) => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode }),
});
const LAYOUT = topicsInGroups(TOPICS, GROUPS_FROM, { request: 'groups', response: 'groups' });

/**
 * OffsetFetch (key 9, v1-10), served by `GroupCoordinator.fetchOffsets` (coordinator/offsets/
 * offset-fetch.ts: Kafka 4.3's `OffsetMetadataManager.fetchOffsets` / `fetchAllOffsets`). Errors
 * sit per partition (v1), at the top level (v2-7) or per group (v8+); v9+ checks a KIP-848 member;
 * v10 names topics by id.
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
  largeAnswers: true,
  routing: (version) => (version >= GROUPS_FROM ? byGroupCoordinators(GROUPS) : byGroupCoordinator()),
  handle(req, ctx) {
    return ctx.broker.groups.fetchOffsets(req, ctx.apiVersion);
  },
};
