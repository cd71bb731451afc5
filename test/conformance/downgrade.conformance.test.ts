/**
 * Conformance: classic-protocol members inside a KIP-848 consumer group and the online
 * downgrade to a classic group (Kafka 4.3's `classicGroupJoinToConsumerGroup`,
 * `classicGroupLeaveToConsumerGroup`, `consumerGroupFenceMembers`, `convertToClassicGroup`).
 * Topics have one partition, so which member holds it does not depend on member id order.
 */
import { describe } from 'vitest';
import { scenario, sleep, useTargets, type Session } from './runner.js';
import { heartbeat, join, subscription, sync } from './groups.js';
import { hb as rawHeartbeat } from '../support/kip848-group.js';

useTargets();

const hb = (groupId: string, memberId: string, memberEpoch: number, extra: Record<string, unknown> = {}): never =>
  rawHeartbeat(groupId, memberId, memberEpoch, extra) as never;

/**
 * Group `base` on a new one-partition topic `base-t`, with a KIP-848 member that joined and
 * acknowledged its assignment (the partition).
 */
async function withKip848Member(s: Session, base: string, extra: Record<string, unknown> = {}) {
  const g = s.name(base);
  const topic = s.name(`${base}-t`);
  await s.createTopic(topic, 1);
  const m = s.name('kip848-m');
  const j = await s.call('KIP-848 member joins', 68, 1, hb(g, m, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [topic], topicPartitions: [], ...extra }));
  const owned = (j.assignment?.topicPartitions ?? []).map((t) => ({ topicId: t.topicId, partitions: t.partitions }));
  await s.call('KIP-848 member acknowledges', 68, 1, hb(g, m, j.memberEpoch, { topicPartitions: owned }));
  return { g, topic, m };
}

/** A dynamic classic member joins the consumer group (MEMBER_ID_REQUIRED, then the join) and syncs. */
async function classicJoins(s: Session, g: string, topic: string, name: string, extra: { rebalanceTimeoutMs?: number; sync?: boolean } = {}) {
  const first = await s.call(`${name} JoinGroup without member id`, 11, 5, join(g, '', [topic], { rebalanceTimeoutMs: extra.rebalanceTimeoutMs }));
  const memberId = s.alias(first.memberId, name);
  const j = await s.call(`${name} JoinGroup`, 11, 5, join(g, memberId, [topic], { rebalanceTimeoutMs: extra.rebalanceTimeoutMs }));
  if (extra.sync !== false) await s.call(`${name} SyncGroup`, 14, 5, sync(g, j.generationId, memberId));
  return { memberId, generationId: j.generationId };
}

async function listed(s: Session, label: string, g: string) {
  const r = await s.send(16, 5, { statesFilter: [], typesFilter: [] });
  s.record(label, r.groups.find((x) => x.groupId === g) ?? null);
}

const describeGroups = (s: Session, label: string, g: string) => s.call(label, 15, 5, { groups: [g], includeAuthorizedOperations: false });
const describeConsumerGroup = (s: Session, label: string, g: string) => s.call(label, 69, 1, { groupIds: [g], includeAuthorizedOperations: false } as never);

describe('online downgrade of a consumer group', () => {
  scenario('the last KIP-848 member leaving: the group becomes classic, rebalances, and the classic member carries on', async (s) => {
    const { g, topic, m } = await withKip848Member(s, 'dg1');
    const k = await classicJoins(s, g, topic, 'K');
    await describeConsumerGroup(s, 'ConsumerGroupDescribe before the leave', g);
    await s.call('KIP-848 member leaves', 68, 1, hb(g, m, -1));
    await listed(s, 'ListGroups entry after the leave', g);
    await describeGroups(s, 'DescribeGroups after the leave', g);
    await describeConsumerGroup(s, 'ConsumerGroupDescribe after the leave', g);
    await s.call('K Heartbeat at its generation', 12, 4, heartbeat(g, k.generationId, k.memberId));
    const rejoin = await s.call('K rejoins', 11, 5, join(g, k.memberId, [topic]));
    await s.call('K SyncGroup as leader', 14, 5, sync(g, rejoin.generationId, k.memberId, [{ memberId: k.memberId, assignment: Buffer.alloc(0) }]));
    await describeGroups(s, 'DescribeGroups after the rebalance', g);
    await s.call('OffsetCommit v9 at the classic generation', 8, 9, {
      groupId: g, generationIdOrMemberEpoch: rejoin.generationId, memberId: k.memberId, groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    } as never);
  });

  scenario('a LeaveGroup fences its members together; naming the KIP-848 member downgrades the group', async (s) => {
    const { g, topic, m } = await withKip848Member(s, 'dg2');
    const k1 = await classicJoins(s, g, topic, 'K1');
    const k2 = await classicJoins(s, g, topic, 'K2');
    await classicJoins(s, g, topic, 'K3');
    await s.call('LeaveGroup K1, K2 and an unknown member', 13, 5, {
      groupId: g, memberId: '',
      members: [{ memberId: k1.memberId, groupInstanceId: null, reason: null }, { memberId: k2.memberId, groupInstanceId: null, reason: null }, { memberId: s.name('nobody'), groupInstanceId: null, reason: null }],
    } as never);
    await describeConsumerGroup(s, 'ConsumerGroupDescribe after the LeaveGroup (one epoch bump)', g);
    await s.call('LeaveGroup naming the KIP-848 member', 13, 5, { groupId: g, memberId: '', members: [{ memberId: m, groupInstanceId: null, reason: 'bye' }] } as never);
    await listed(s, 'ListGroups entry after it', g);
    await describeGroups(s, 'DescribeGroups after it', g);
  });

  scenario('a classic member taking the instance id of the last (static) KIP-848 member downgrades without a rebalance', async (s) => {
    const { g, topic } = await withKip848Member(s, 'dg3', { instanceId: 'inst-m' });
    await classicJoins(s, g, topic, 'K');
    const j = await s.call('J JoinGroup with the instance id', 11, 5, join(g, '', [topic], { groupInstanceId: 'inst-m' }));
    s.alias(j.memberId, 'J');
    await listed(s, 'ListGroups entry after the join', g);
    await describeGroups(s, 'DescribeGroups after the join', g);
    await s.call('J SyncGroup', 14, 5, sync(g, j.generationId, j.memberId, [], 'inst-m'));
    await s.call('J JoinGroup again with the old member id of nobody', 11, 5, join(g, s.name('other'), [topic], { groupInstanceId: 'inst-m' }));
  });
});

describe('classic members inside a consumer group', () => {
  scenario('static replacement between classic members, fencing, unknown instance ids, unknown dynamic member ids', async (s) => {
    const { g, topic } = await withKip848Member(s, 'cm1');
    const first = await s.call('S JoinGroup (static)', 11, 5, join(g, '', [topic], { groupInstanceId: 'inst-s' }));
    s.alias(first.memberId, 'S');
    await s.call('S SyncGroup', 14, 5, sync(g, first.generationId, first.memberId, [], 'inst-s'));
    const second = await s.call('S2 JoinGroup with the same instance id', 11, 5, join(g, '', [topic], { groupInstanceId: 'inst-s' }));
    s.alias(second.memberId, 'S2');
    await s.call('S JoinGroup with its old member id (fenced)', 11, 5, join(g, first.memberId, [topic], { groupInstanceId: 'inst-s' }));
    await s.call('JoinGroup with a member id and an unknown instance id', 11, 5, join(g, s.name('x'), [topic], { groupInstanceId: 'inst-x' }));
    await s.call('JoinGroup with an unknown dynamic member id', 11, 5, join(g, s.name('my-own-id'), [topic]));
    await s.call('JoinGroup with no protocol in common', 11, 5, { ...join(g, s.name('other-id'), [topic]), protocols: [{ name: 'roundrobin', metadata: subscription([topic]) }] });
    await s.call('JoinGroup with a session timeout under the minimum', 11, 5, join(g, s.name('other-id'), [topic], { sessionTimeoutMs: 1000 }));
    await describeConsumerGroup(s, 'ConsumerGroupDescribe', g);
  });

  scenario('a classic member that does not send SyncGroup within its rebalance timeout is fenced', async (s) => {
    const { g, topic } = await withKip848Member(s, 'cm2');
    await classicJoins(s, g, topic, 'K', { rebalanceTimeoutMs: 1000, sync: false });
    await classicJoins(s, g, topic, 'L', { rebalanceTimeoutMs: 1000 });
    await sleep(2500);
    await describeConsumerGroup(s, 'ConsumerGroupDescribe after the sync timeout', g);
  });
});
