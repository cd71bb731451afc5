/**
 * OffsetFetch by topic id (v10) against an offset committed for another incarnation of the topic
 * (deleted and created again under the same name): Kafka's `OffsetMetadataManager.isOffsetInvalid`
 * answers no offset (-1, NONE) when both ids are known and differ; an offset stored without an id
 * (ZERO_UUID: a v1 value) and fetches by name (v9 and older) are answered as committed.
 */
import { describe, expect, it } from 'vitest';
import { fetchOffsets, type OffsetFetchContext } from '../../../src/coordinator/offsets/offset-fetch.js';
import type { CommittedOffset } from '../../../src/coordinator/offsets/offset-store.js';
import { defaultOffsetFetchRequest } from '../../../src/protocol/messages/OffsetFetchRequest.js';
import { ZERO_UUID } from '../../../src/protocol/primitives.js';

const OLD_ID = 'b2xkLXRvcGljLWlkLTAwMQ';
const NEW_ID = 'bmV3LXRvcGljLWlkLTAwMQ';

/** One group `g` holding one offset of topic `t` partition 0, stored with `storedTopicId`; `t` now has id NEW_ID. */
function context(storedTopicId: string): OffsetFetchContext {
  const committed: CommittedOffset = { committedOffset: 42n, leaderEpoch: 3, metadata: 'm', commitTimestamp: 1n, expireTimestamp: -1n, topicId: storedTopicId };
  const topic = { name: 't', topicId: NEW_ID, partitionCount: 1 };
  return {
    topics: { get: (name) => (name === 't' ? topic : undefined), getById: (id) => (id === NEW_ID ? topic : undefined) },
    offsets: {
      fetch: (groupId, name, partition) => (groupId === 'g' && name === 't' && partition === 0 ? committed : undefined),
      offsetsOf: () => [],
      hasPendingOffset: () => false,
    },
    validateMember: () => null,
  };
}

async function fetchV10(c: OffsetFetchContext) {
  const req = { ...defaultOffsetFetchRequest(), groups: [{ groupId: 'g', memberId: null, memberEpoch: -1, topics: [{ name: '', topicId: NEW_ID, partitionIndexes: [0] }] }] };
  const [partition] = (await fetchOffsets(c, req, 10)).groups[0]!.topics[0]!.partitions;
  return partition;
}

async function fetchV9(c: OffsetFetchContext) {
  const req = { ...defaultOffsetFetchRequest(), groups: [{ groupId: 'g', memberId: null, memberEpoch: -1, topics: [{ name: 't', topicId: ZERO_UUID, partitionIndexes: [0] }] }] };
  const [partition] = (await fetchOffsets(c, req, 9)).groups[0]!.topics[0]!.partitions;
  return partition;
}

describe('OffsetFetch and the stored topic id', () => {
  it('answers no offset for an offset of another incarnation of the topic, by id only', async () => {
    const stale = context(OLD_ID);
    expect(await fetchV10(stale)).toEqual({ partitionIndex: 0, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 });
    expect(await fetchV9(stale)).toEqual({ partitionIndex: 0, committedOffset: 42n, committedLeaderEpoch: 3, metadata: 'm', errorCode: 0 });
  });

  it('answers the offset when the ids match or the stored one is unknown', async () => {
    for (const stored of [NEW_ID, ZERO_UUID]) {
      expect(await fetchV10(context(stored))).toEqual({ partitionIndex: 0, committedOffset: 42n, committedLeaderEpoch: 3, metadata: 'm', errorCode: 0 });
    }
  });
});
