/**
 * The admin HTTP API's group views (GET /groups, /groups/{id}, /groups/{id}/offsets) on a live
 * KIP-848 consumer group built with raw ConsumerGroupHeartbeat requests.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';
import { kafkaClient } from '../support/kafkajs.js';
import { KIP848_CONFIG, rawTwoMemberGroup } from '../support/kip848-group.js';
import { documentedKeys, getJson as get } from '../support/admin-http.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('admin API: KIP-848 consumer groups', () => {
  it('lists and describes a consumer group: epochs, assignor, members, subscriptions, assignments, targets, offsets and lag', async () => {
    const server = await startTestServer({ adminPort: 0, adminHost: '127.0.0.1', config: KIP848_CONFIG });
    cleanups.push(() => server.stop());
    const base = server.admin!.url;
    server.broker.topics.create('views', 3);
    const producer = kafkaClient(server.bootstrap, 'views-producer').producer();
    await producer.connect();
    await producer.send({ topic: 'views', messages: Array.from({ length: 9 }, (_, i) => ({ partition: i % 3, value: `m${i}` })) });
    await producer.disconnect();

    const a = 'views-member-a-0000000';
    const b = 'views-member-b-0000000';
    const group = await rawTwoMemberGroup(server, 'cg-views', 'views', [a, b]);
    cleanups.push(() => group.close());
    expect(group.targetB).toEqual([2]);

    // Mid-reconciliation: A still owns partition 2, which is B's target (A has not heartbeated since, so its member state is unchanged).
    const reconciling = await get(base, '/groups/cg-views');
    expect(reconciling.status).toBe(200);
    expect(reconciling.body).toMatchObject({ type: 'consumer', state: 'Reconciling', groupEpoch: 3, assignmentEpoch: 3, assignor: 'uniform' });
    const memberA = reconciling.body.members.find((m: { memberId: string }) => m.memberId === a);
    expect(memberA).toMatchObject({
      memberEpoch: 2,
      memberState: 'stable',
      assignment: [{ topic: 'views', partitions: [0, 1, 2] }],
      targetAssignment: [{ topic: 'views', partitions: [0, 1] }],
      connectAssignment: null,
      streamsTasks: null,
    });

    await group.settle();
    expect(await group.commit(group.a, 'views', { 0: 1n, 1: 3n })).toEqual([0, 0]);
    expect(await group.commit(group.b, 'views', { 2: 2n })).toEqual([0]);

    const listed = await get(base, '/groups');
    expect(listed.body.groups).toEqual([{ groupId: 'cg-views', type: 'consumer', state: 'Stable', protocolType: 'consumer', members: 2, committedPartitions: 3, groupEpoch: 3 }]);
    expect(Object.keys(listed.body.groups[0]).sort()).toEqual(documentedKeys('GroupSummary'));

    const described = await get(base, '/groups/cg-views');
    const host = described.body.members[0].clientHost;
    // Each session runs: at most the group's session timeout (45 s) to go.
    for (const m of described.body.members) expect(m.sessionExpiresInMs > 0 && m.sessionExpiresInMs <= 45_000, String(m.sessionExpiresInMs)).toBe(true);
    expect(host).toMatch(/^\/(::ffff:)?127\.0\.0\.1$/);
    const member = (memberId: string, clientId: string, partitions: number[]) => ({
      memberId,
      groupInstanceId: null,
      clientId,
      clientHost: host,
      sessionTimeoutMs: null,
      sessionExpiresInMs: expect.any(Number),
      upgraded: true,
      rebalanceTimeoutMs: 30000,
      assignment: [{ topic: 'views', partitions }],
      memberEpoch: 3,
      memberState: 'stable',
      rackId: null,
      subscribedTopicNames: ['views'],
      subscribedTopicRegex: null,
      targetAssignment: [{ topic: 'views', partitions }],
      connectAssignment: null,
      streamsTasks: null,
    });
    const offset = (partition: number, committedOffset: number, memberId: string) => ({
      topic: 'views',
      partition,
      committedOffset,
      logEndOffset: 3,
      lag: 3 - committedOffset,
      leaderEpoch: -1,
      metadata: '',
      commitTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      memberId,
    });
    expect(described.body).toEqual({
      groupId: 'cg-views',
      type: 'consumer',
      state: 'Stable',
      protocolType: 'consumer',
      protocol: null,
      generationId: -1,
      leaderId: null,
      groupEpoch: 3,
      assignmentEpoch: 3,
      assignor: 'uniform',
      members: [member(a, 'client-a', [0, 1]), member(b, 'client-b', [2])],
      offsets: [offset(0, 1, a), offset(1, 3, a), offset(2, 2, b)],
      uncommittedPartitions: [],
      pendingTransactionalOffsets: [],
      totalLag: 3,
      sharePartitions: null,
      // "cg-views".hashCode() is -936353851: 936353851 % 50 (offsets.topic.num.partitions) = 1.
      offsetsTopicPartition: 1,
      coordinatorId: 1,
    });
    expect(Object.keys(described.body).sort()).toEqual(documentedKeys('GroupDescription'));
    expect(Object.keys(described.body.members[0]).sort()).toEqual(documentedKeys('GroupMember'));
    expect(Object.keys(described.body.offsets[0]).sort()).toEqual(documentedKeys('GroupOffset'));

    expect((await get(base, '/groups/cg-views/offsets')).body).toEqual({ groupId: 'cg-views', offsets: described.body.offsets, totalLag: 3 });

    // Both leave (each departure bumps the group epoch): Empty, no members, the offsets stay (no owner).
    await group.leave();
    const empty = await get(base, '/groups/cg-views');
    expect(empty.body).toMatchObject({ type: 'consumer', state: 'Empty', members: [], totalLag: 3 });
    expect(empty.body.offsets.map((o: { memberId: string | null }) => o.memberId)).toEqual([null, null, null]);
    expect((await get(base, '/groups')).body.groups).toEqual([{ groupId: 'cg-views', type: 'consumer', state: 'Empty', protocolType: 'consumer', members: 0, committedPartitions: 3, groupEpoch: 5 }]);
  });
});
