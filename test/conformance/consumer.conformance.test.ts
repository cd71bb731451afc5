/**
 * Conformance: KIP-848 consumer groups (ConsumerGroupHeartbeat join/heartbeat/leave, epoch
 * fencing, OffsetCommit member-epoch checks) and ConsumerGroupDescribe.
 */
import { describe } from 'vitest';
import { scenario, useTargets, type Session } from './runner.js';
import { commit } from './groups.js';
import { hb as rawHeartbeat } from '../support/kip848-group.js';

useTargets();

/** The raw ConsumerGroupHeartbeat builder of the e2e tests; the runner takes untyped bodies. */
const hb = (groupId: string, memberId: string, memberEpoch: number, extra: Record<string, unknown> = {}): never =>
  rawHeartbeat(groupId, memberId, memberEpoch, extra) as never;

/** Joins and heartbeats until the member owns its assignment; returns the epoch. */
async function joinStable(s: Session, g: string, member: string, topic: string, label: string, conn = 'main'): Promise<number> {
  const j = await s.call(`${label} join`, 68, 1, hb(g, member, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [topic], topicPartitions: [] }), conn);
  const owned = (j.assignment?.topicPartitions ?? []).map((t) => ({ topicId: t.topicId, partitions: t.partitions }));
  const h = await s.call(`${label} heartbeat with its assignment`, 68, 1, hb(g, member, j.memberEpoch, { topicPartitions: owned }), conn);
  return h.memberEpoch;
}

describe('ConsumerGroupHeartbeat', () => {
  scenario('join, heartbeat, FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH commits, leave', async (s) => {
    const g = s.name('cg');
    const topic = s.name('cg-t');
    await s.createTopic(topic, 2);
    const m1 = s.name('member-1');
    const epoch = await joinStable(s, g, m1, topic, 'M1');
    await s.call('M1 heartbeat wrong epoch', 68, 1, hb(g, m1, epoch + 5));
    await s.call('unknown member heartbeat', 68, 1, hb(g, s.name('member-x'), 3));
    await s.call('join without member id (v1)', 68, 1, hb(g, '', 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [topic], topicPartitions: [] }));
    await s.call('OffsetCommit v9 current epoch', 8, 9, commit(g, epoch, m1, topic, [[0, 5n]]));
    await s.call('OffsetCommit v9 stale epoch', 8, 9, commit(g, epoch - 1, m1, topic, [[0, 6n]]));
    await s.call('OffsetCommit v9 future epoch', 8, 9, commit(g, epoch + 1, m1, topic, [[0, 6n]]));
    await s.call('OffsetCommit v9 unknown member', 8, 9, commit(g, epoch, s.name('member-x'), topic, [[0, 6n]]));
    await s.call('OffsetCommit v8 generation -1', 8, 8, commit(g, -1, '', topic, [[0, 7n]]));
    await s.call('OffsetFetch v9 with member epoch', 9, 9, {
      groupId: '', topics: [], requireStable: false,
      groups: [{ groupId: g, memberId: m1, memberEpoch: epoch, topics: [{ name: topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitionIndexes: [0, 1] }] }],
    });
    await s.call('OffsetFetch v9 stale member epoch', 9, 9, {
      groupId: '', topics: [], requireStable: false,
      groups: [{ groupId: g, memberId: m1, memberEpoch: epoch - 1, topics: null }],
    });
    await s.call('ConsumerGroupDescribe', 69, 1, { groupIds: [g], includeAuthorizedOperations: false } as never);
    await s.call('M1 leave', 68, 1, hb(g, m1, -1));
    await s.call('M1 heartbeat after leaving', 68, 1, hb(g, m1, epoch));
    await s.call('DescribeGroups v6 of the empty consumer group', 15, 6, { groups: [g], includeAuthorizedOperations: false });
  });

  scenario('a new group starts at epoch 1: an empty subscription keeps epoch 1, subscribing bumps it to 2', async (s) => {
    const g = s.name('cg3');
    const topic = s.name('cg3-t');
    await s.createTopic(topic, 1);
    const m1 = s.name('member-1');
    await s.call('M1 joins with no topics', 68, 1, hb(g, m1, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [], topicPartitions: [] }));
    await s.call('ConsumerGroupDescribe (epochs 1)', 69, 1, { groupIds: [g], includeAuthorizedOperations: false } as never);
    await s.call('M1 subscribes', 68, 1, hb(g, m1, 1, { subscribedTopicNames: [topic], topicPartitions: [] }));
    await s.call('ConsumerGroupDescribe (epochs 2)', 69, 1, { groupIds: [g], includeAuthorizedOperations: false } as never);
    await s.call('M1 joins a missing topic in a new group', 68, 1, hb(s.name('cg3b'), m1, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [s.name('cg3-missing')], topicPartitions: [] }));
  });

  scenario('two members share the partitions; the first is fenced after a wrong epoch and rejoins', async (s) => {
    const g = s.name('cg2');
    const topic = s.name('cg2-t');
    await s.createTopic(topic, 4);
    const m1 = s.name('member-1');
    const m2 = s.name('member-2');
    const e1 = await joinStable(s, g, m1, topic, 'M1');
    await s.call('M2 join', 68, 1, hb(g, m2, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [topic], topicPartitions: [] }), 'b');
    await s.call('M1 heartbeat (asked to revoke)', 68, 1, hb(g, m1, e1));
    await s.call('ConsumerGroupDescribe', 69, 1, { groupIds: [g], includeAuthorizedOperations: false } as never);
    await s.call('M1 fenced (wrong epoch)', 68, 1, hb(g, m1, e1 + 10));
    await s.call('M1 rejoins with epoch 0', 68, 1, hb(g, m1, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [topic], topicPartitions: [] }));
    await s.call('ConsumerGroupDescribe after the rejoin', 69, 1, { groupIds: [g], includeAuthorizedOperations: false } as never);
  });
});
