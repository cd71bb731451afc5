/**
 * Conformance: KIP-848 consumer groups (ConsumerGroupHeartbeat join/heartbeat/leave, epoch
 * fencing, OffsetCommit member-epoch checks, regex subscriptions resolved off the heartbeat and
 * at most every 10 s) and ConsumerGroupDescribe.
 */
import { describe } from 'vitest';
import { scenario, sleep, useTargets, type Session } from './runner.js';
import { commit } from './groups.js';
import { hb as rawHeartbeat } from '../support/kip848-group.js';
import { formGroupInOrder } from '../support/kip848-formation.js';

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

describe('OffsetCommit with an older member epoch', () => {
  // The member owns partition 0 from epoch E and partition 1 (added by CreatePartitions) from a
  // later epoch: a commit of both at epoch E shows whether the whole request or one partition fails.
  scenario('a partition assigned at that epoch and one assigned later', async (s) => {
    const g = s.name('cgold');
    const topic = s.name('cgold-t');
    await s.createTopic(topic, 1);
    const m1 = s.name('member-1');
    const first = await joinStable(s, g, m1, topic, 'M1');
    const cp = await s.send(37, 3, { topics: [{ name: topic, count: 2, assignments: null }], timeoutMs: 30_000, validateOnly: false });
    if (cp.results[0]!.errorCode !== 0) throw new Error(`${s.target}: CreatePartitions ${cp.results[0]!.errorCode}`);
    let owned = (await s.send(69, 1, { groupIds: [g], includeAuthorizedOperations: false } as never)).groups[0]!.members[0]!.assignment.topicPartitions.map((t) => ({ topicId: t.topicId, partitions: t.partitions }));
    let epoch = first;
    // Heartbeats (not recorded, timing differs) until the new partition is assigned; the final answer is recorded.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const r = await s.send(68, 1, hb(g, m1, epoch, { topicPartitions: owned }));
      if (r.errorCode === 0) epoch = r.memberEpoch;
      if (r.assignment) owned = r.assignment.topicPartitions.map((t) => ({ topicId: t.topicId, partitions: t.partitions }));
      if (r.errorCode !== 0 || owned.reduce((n, t) => n + t.partitions.length, 0) === 2 || Date.now() > deadline) {
        s.record('M1 heartbeat once the topic has 2 partitions', r);
        break;
      }
      await sleep(100);
    }
    await s.call('M1 heartbeat with both partitions', 68, 1, hb(g, m1, epoch, { topicPartitions: owned }));
    s.record('epochs (first partition, second partition)', [first, epoch]);
    await s.call('OffsetCommit v9 current epoch', 8, 9, commit(g, epoch, m1, topic, [[0, 5n], [1, 5n]]));
    await s.call('OffsetCommit v9 older epoch: partition 0 assigned then, 1 later', 8, 9, commit(g, first, m1, topic, [[0, 6n], [1, 6n]]));
    const split = commit(g, first, m1, topic, [[0, 6n]]);
    split.topics.push(commit(g, first, m1, topic, [[1, 6n]]).topics[0]!);
    await s.call('OffsetCommit v9 older epoch: the two partitions as two topic entries', 8, 9, split);
    await s.call('OffsetCommit v9 older epoch: only partition 0', 8, 9, commit(g, first, m1, topic, [[0, 7n]]));
    await s.call('OffsetCommit v9 older epoch: only partition 1', 8, 9, commit(g, first, m1, topic, [[1, 7n]]));
    await s.call('OffsetCommit v9 epoch before the first', 8, 9, commit(g, first - 1, m1, topic, [[0, 8n]]));
    await s.call('OffsetFetch v9 of both partitions', 9, 9, {
      groupId: '', topics: [], requireStable: false,
      groups: [{ groupId: g, memberId: m1, memberEpoch: epoch, topics: [{ name: topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitionIndexes: [0, 1] }] }],
    });
  });
});

describe('KIP-848 group formation', () => {
  // The order of test/support/kip848-formation.ts (all joins, acknowledgements, heartbeat rounds);
  // test/e2e/consumer-group-formation.test.ts pins the same figures on the manual clock. Recorded:
  // each answer's epoch and how many partitions it assigned, not which: after several joins the
  // uniform assignor's choice of partitions differs from Kafka's (its hash orders).
  scenario('ten members join together: one group epoch per join, four heartbeats each', async (s) => {
    const g = s.name('formation');
    const topic = s.name('formation-t');
    await s.createTopic(topic, 200);
    const memberIds = Array.from({ length: 10 }, (_, i) => s.name(`member-${i}`));
    const counts = new Map<number, number>();
    const count = (a: { topicPartitions: Array<{ partitions: number[] }> } | null) => (a ? a.topicPartitions.reduce((n, t) => n + t.partitions.length, 0) : null);
    const r = await formGroupInOrder({
      groupId: g,
      topic,
      memberIds,
      heartbeat: async (i, req) => {
        counts.set(i, (counts.get(i) ?? 0) + 1);
        const res = await s.send(68, 1, req as never);
        s.record(`M${i} heartbeat ${counts.get(i)}`, { errorCode: res.errorCode, memberEpoch: res.memberEpoch, assigned: count(res.assignment) });
        return res;
      },
      describe: async () => {
        const group = (await s.send(69, 1, { groupIds: [g], includeAuthorizedOperations: false } as never)).groups[0]!;
        s.record('ConsumerGroupDescribe', {
          groupState: group.groupState,
          groupEpoch: group.groupEpoch,
          assignmentEpoch: group.assignmentEpoch,
          members: memberIds.map((id) => group.members.find((m) => m.memberId === id)).map((m) => m && [m.memberEpoch, count(m.assignment), count(m.targetAssignment)]),
        });
        return group;
      },
    });
    s.record('heartbeats per member, interval rounds, member epochs', [r.heartbeatsPerMember, r.intervalRounds, r.memberEpochs]);
  });
});

describe('ConsumerGroupHeartbeat with regex subscriptions', () => {
  scenario('a new regex is resolved after the heartbeat (epoch bump, then the partitions); a second regex waits 10 s', async (s) => {
    const g = s.name('cgrx');
    await s.createTopic(s.name('rxa'), 2);
    await s.createTopic(s.name('rxb'), 1);
    await s.createTopic(s.name('zz'), 1);
    const m1 = s.name('member-1');
    const m2 = s.name('member-2');
    const state = new Map<string, { epoch: number; owned: Array<{ topicId: string; partitions: number[] }> }>();
    const track = (member: string, r: { memberEpoch: number; assignment: { topicPartitions: Array<{ topicId: string; partitions: number[] }> } | null }) => {
      const prev = state.get(member);
      const owned = r.assignment ? r.assignment.topicPartitions.map((t) => ({ topicId: t.topicId, partitions: [...t.partitions] })) : (prev?.owned ?? []);
      state.set(member, { epoch: r.memberEpoch, owned });
      return r;
    };
    const beat = async (member: string, label: string | null, conn = 'main') => {
      const st = state.get(member)!;
      const body = hb(g, member, st.epoch, { topicPartitions: st.owned });
      return track(member, label === null ? await s.send(68, 1, body, conn) : await s.call(label, 68, 1, body, conn));
    };
    const describe = (label: string) => s.call(label, 69, 1, { groupIds: [g], includeAuthorizedOperations: false } as never);

    // The heartbeat only schedules the resolution: no partitions, no epoch bump.
    track(m1, await s.call('M1 joins with a regex', 68, 1, hb(g, m1, 0, { rebalanceTimeoutMs: 30000, subscribedTopicRegex: s.name('rx[ab]'), topicPartitions: [] })));
    await sleep(1000);
    await describe('ConsumerGroupDescribe once the regex is resolved (group epoch bumped)');
    await beat(m1, 'M1 heartbeat gets the partitions of both topics');
    await beat(m1, 'M1 heartbeat with them');

    // Within 10 s of the last resolution, a new regex is not resolved.
    track(m2, await s.call('M2 joins with another regex', 68, 1, hb(g, m2, 0, { rebalanceTimeoutMs: 30000, subscribedTopicRegex: s.name('z+'), topicPartitions: [] }), 'b'));
    await sleep(1000);
    await describe('ConsumerGroupDescribe: the second regex is not resolved yet');
    // Keep both sessions (6 s) alive until about 8 s after the resolution (not recorded) ...
    for (let i = 0; i < 3; i++) {
      await sleep(2000);
      await beat(m1, null);
      await beat(m2, null, 'b');
    }
    // ... then, about 11 s after it, a heartbeat schedules the next resolution.
    await sleep(3000);
    await beat(m2, 'M2 heartbeat past the 10 s (schedules the resolution)', 'b');
    await sleep(1000);
    await describe('ConsumerGroupDescribe once the second regex is resolved');
    await beat(m2, 'M2 heartbeat gets its partition', 'b');
  }, { timeoutMs: 60_000 });
});
