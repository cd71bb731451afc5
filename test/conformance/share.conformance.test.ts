/**
 * Conformance: share groups (KIP-932), the group side — ShareGroupHeartbeat (validation, join,
 * assignment once the share partitions are initialized, fencing, leave), ShareGroupDescribe, and
 * the answers of the other group APIs for a share group's id.
 *
 * Kafka initializes a share partition asynchronously (the persister writes to
 * `__share_group_state` after the heartbeat is answered), so the scripts heartbeat, unrecorded,
 * until the assignment arrives, and record what follows. Topics have one partition: with two
 * members the `simple` assignor then gives it to both whatever the topic id (with more partitions
 * the choice depends on the topic id's hash, which differs between the two brokers).
 */
import { describe } from 'vitest';
import { scenario, sleep, useTargets, type Session } from './runner.js';
import { hb as consumerHeartbeat } from '../support/kip848-group.js';

useTargets();

const hb = (groupId: string, memberId: string, memberEpoch: number, topics: string[] | null = null, extra: Record<string, unknown> = {}): never =>
  ({ groupId, memberId, memberEpoch, rackId: null, subscribedTopicNames: topics, ...extra }) as never;

type HeartbeatAnswer = { memberEpoch: number; assignment: { topicPartitions: Array<{ partitions: number[] }> } | null };
const held = (r: HeartbeatAnswer): number => (r.assignment ? r.assignment.topicPartitions.reduce((n, t) => n + t.partitions.length, 0) : -1);

/** Heartbeats (not recorded) from the answer `from` on until the member holds `count` partitions; returns its epoch. */
async function untilAssigned(s: Session, g: string, member: string, from: HeartbeatAnswer, count: number, conn = 'main'): Promise<number> {
  const deadline = Date.now() + 30_000;
  let epoch = from.memberEpoch;
  let holding = held(from);
  while (holding < count) {
    if (Date.now() > deadline) throw new Error(`${s.target}: ${member} never got ${count} partition(s)`);
    await sleep(100);
    const r = await s.send(76, 1, hb(g, member, epoch), conn);
    if (r.errorCode !== 0) throw new Error(`${s.target}: heartbeat error ${r.errorCode} ${r.errorMessage}`);
    epoch = r.memberEpoch;
    if (r.assignment) holding = held(r);
  }
  return epoch;
}

const describeShare = (s: Session, label: string, g: string) => s.call(label, 77, 1, { groupIds: [g], includeAuthorizedOperations: false } as never);

describe('ShareGroupHeartbeat', () => {
  scenario(
    'request validation',
    async (s) => {
      const topic = s.name('sv-t');
      await s.createTopic(topic, 1);
      const g = s.name('sv');
      await s.call('empty member id', 76, 1, hb(g, '', 0, [topic]));
      await s.call('member id of 37 characters', 76, 1, hb(g, 'm'.repeat(37), 0, [topic]));
      await s.call('blank member id', 76, 1, hb(g, '   ', 0, [topic]));
      await s.call('blank group id', 76, 1, hb(' ', s.name('m'), 0, [topic]));
      await s.call('blank rack id', 76, 1, hb(g, s.name('m'), 0, [topic], { rackId: ' ' }));
      await s.call('join without topics', 76, 1, hb(g, s.name('m'), 0, []));
      await s.call('join with null topics', 76, 1, hb(g, s.name('m'), 0, null));
      await s.call('epoch -2', 76, 1, hb(g, s.name('m'), -2));
      await s.call('heartbeat to a missing group', 76, 1, hb(g, s.name('m'), 3));
      await s.call('leave a missing group', 76, 1, hb(g, s.name('m'), -1));
      await s.call('ShareGroupDescribe of a missing group and of ""', 77, 1, { groupIds: [g, ''], includeAuthorizedOperations: false } as never);
    },
    { exactMessages: true },
  );

  scenario(
    'join, assignment after initialization, a second member shares the partition, fencing, leave, describe',
    async (s) => {
      const topic = s.name('sh-t');
      await s.createTopic(topic, 1);
      const g = s.name('sh');
      const a = s.name('ma');
      const b = s.name('mb');
      const aJoin = await s.call('A joins (nothing initialized yet)', 76, 1, hb(g, a, 0, [topic]));
      let epochA = await untilAssigned(s, g, a, aJoin, 1);
      s.record('A epoch once assigned', epochA);
      await describeShare(s, 'ShareGroupDescribe with A', g);
      const bJoin = await s.call('B joins', 76, 1, hb(g, b, 0, [topic]), 'b');
      const bEpoch = await untilAssigned(s, g, b, bJoin, 1, 'b');
      s.record('B epoch once assigned', bEpoch);
      const r = await s.call('A heartbeat after B joined', 76, 1, hb(g, a, epochA));
      epochA = r.memberEpoch;
      await describeShare(s, 'ShareGroupDescribe with A and B', g);
      await s.call('A epoch too new', 76, 1, hb(g, a, epochA + 5));
      await s.call('A epoch too old, not the previous one', 76, 1, hb(g, a, 1));
      await s.call('unknown member', 76, 1, hb(g, s.name('mx'), epochA));
      await s.call('A heartbeat with the full subscription', 76, 1, hb(g, a, epochA, [topic]));
      await s.call('B leaves', 76, 1, hb(g, b, -1), 'b');
      await s.call('B heartbeat after leaving', 76, 1, hb(g, b, bEpoch), 'b');
      await s.call('A heartbeat after B left', 76, 1, hb(g, a, epochA));
      await describeShare(s, 'ShareGroupDescribe after B left', g);
    },
    { exactMessages: true },
  );

  scenario(
    "the other group APIs on a share group's id, and share APIs on other groups' ids",
    async (s) => {
      const topic = s.name('so-t');
      await s.createTopic(topic, 1);
      const g = s.name('so');
      const a = s.name('ma');
      const aJoin = await s.call('A joins', 76, 1, hb(g, a, 0, [topic]));
      await untilAssigned(s, g, a, aJoin, 1);
      const listed = await s.send(16, 5, { statesFilter: [], typesFilter: ['share'] });
      s.record('ListGroups type share (this group)', listed.groups.filter((x) => x.groupId === g));
      const stable = await s.send(16, 5, { statesFilter: ['stable'], typesFilter: [] });
      s.record('ListGroups state stable (this group)', stable.groups.filter((x) => x.groupId === g));
      await s.call('DescribeGroups v6', 15, 6, { groups: [g], includeAuthorizedOperations: false });
      await s.call('ConsumerGroupDescribe', 69, 1, { groupIds: [g], includeAuthorizedOperations: false } as never);
      await s.call('ConsumerGroupHeartbeat join', 68, 1, consumerHeartbeat(g, s.name('mc'), 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [topic], topicPartitions: [] }) as never);
      await s.call('JoinGroup v5', 11, 5, { groupId: g, sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null });
      await s.call('Heartbeat v4', 12, 4, { groupId: g, generationId: 1, memberId: a, groupInstanceId: null });
      await s.call('DeleteGroups while A is in', 42, 2, { groupsNames: [g] });
      await s.call('A leaves', 76, 1, hb(g, a, -1));
      await describeShare(s, 'ShareGroupDescribe of the empty group', g);
      await s.call('DeleteGroups of the empty group', 42, 2, { groupsNames: [g] });
      await describeShare(s, 'ShareGroupDescribe after DeleteGroups', g);

      const cg = s.name('cg');
      await s.call('a consumer group', 68, 1, consumerHeartbeat(cg, s.name('mc'), 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [topic], topicPartitions: [] }) as never);
      await s.call('ShareGroupHeartbeat on the consumer group', 76, 1, hb(cg, s.name('ms'), 0, [topic]));
      await s.call('ShareGroupHeartbeat leave on the consumer group', 76, 1, hb(cg, s.name('ms'), -1));
      await describeShare(s, 'ShareGroupDescribe of the consumer group', cg);
    },
    { exactMessages: true },
  );
});
