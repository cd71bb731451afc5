/**
 * DescribeShareGroupOffsets (90) over the raw protocol: start offsets and lag from the share
 * state (here the group coordinator's persister; the share coordinator's once it is wired in),
 * the group's initialized partitions when no topic is named, a missing topic after the others.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';

describe('DescribeShareGroupOffsets (raw protocol)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  it('answers from the share state, as Kafka 4.3 builds the answer', async () => {
    const { server } = await startClosableServer(cleanups, { config: { 'group.share.assignment.interval.ms': 0 } }, 'kmc-share-offsets-');
    const topic = server.broker.topics.create('so', 2);
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    const m = randomUUID();
    await c.send(76, 1, { groupId: 'og', memberId: m, memberEpoch: 0, rackId: null, subscribedTopicNames: ['so'] });
    await server.broker.share.initializationsSettled();
    await server.broker.runtime.flush();

    // Initialized with start offset -1 (resolved at the first ShareFetch) and leader epoch 0, as
    // Kafka's ShareGroupOffset.fromRequest: no start offset yet, so no lag (-1).
    const all = await c.send(90, 1, { groups: [{ groupId: 'og', topics: null }] });
    expect(all.groups).toEqual([
      {
        groupId: 'og', errorCode: 0, errorMessage: null,
        topics: [{ topicName: 'so', topicId: topic.topicId, partitions: [0, 1].map((p) => ({ partitionIndex: p, startOffset: -1n, leaderEpoch: 0, lag: -1n, errorCode: 0, errorMessage: null })) }],
      },
    ]);
    const named = await c.send(90, 1, { groups: [{ groupId: 'og', topics: [{ topicName: 'missing', partitions: [0] }, { topicName: 'so', partitions: [1] }] }] });
    expect(named.groups[0]!.topics).toEqual([
      { topicName: 'so', topicId: topic.topicId, partitions: [{ partitionIndex: 1, startOffset: -1n, leaderEpoch: 0, lag: -1n, errorCode: 0, errorMessage: null }] },
      { topicName: 'missing', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, startOffset: -1n, leaderEpoch: 0, lag: -1n, errorCode: 0, errorMessage: null }] },
    ]);
    // A group that does not exist has no initialized partitions: nothing to describe.
    expect((await c.send(90, 0, { groups: [{ groupId: 'nobody', topics: null }] })).groups).toEqual([{ groupId: 'nobody', topics: [], errorCode: ErrorCode.NONE, errorMessage: null }]);
  });
});
