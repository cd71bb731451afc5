/**
 * Conformance: the classic group protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) with two
 * members and its errors, static membership fencing, OffsetCommit validation in each group state
 * and OffsetFetch.
 */
import { describe } from 'vitest';
import { scenario, useTargets } from './runner.js';
import { assignment, commit, fetchGroups, heartbeat, join, stableGroup, sync } from './groups.js';

useTargets();

describe('classic group: join/sync/heartbeat/leave', () => {
  scenario('two members: MEMBER_ID_REQUIRED, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS, commits in each state, leave', async (s) => {
    const g = s.name('classic');
    const topic = s.name('classic-t');
    await s.createTopic(topic, 2);

    const a0 = await s.call('A JoinGroup without member id', 11, 9, join(g, '', [topic]));
    const a = s.alias(a0.memberId, 'A');
    const a1 = await s.call('A JoinGroup', 11, 9, join(g, a, [topic]));
    await s.call('DescribeGroups CompletingRebalance', 15, 5, { groups: [g], includeAuthorizedOperations: false });
    await s.call('A OffsetCommit in CompletingRebalance', 8, 8, commit(g, a1.generationId, a, topic, [[0, 1n]]));
    await s.call('A SyncGroup', 14, 5, sync(g, a1.generationId, a, [{ memberId: a, assignment: assignment({ [topic]: [0, 1] }) }]));
    await s.call('A Heartbeat', 12, 4, heartbeat(g, 1, a));
    await s.call('A Heartbeat wrong generation', 12, 4, heartbeat(g, 2, a));
    await s.call('Heartbeat unknown member', 12, 4, heartbeat(g, 1, 'nobody'));
    await s.call('A OffsetCommit Stable', 8, 8, commit(g, 1, a, topic, [[0, 5n, 'm']]));
    await s.call('OffsetCommit Stable wrong generation', 8, 8, commit(g, 7, a, topic, [[0, 6n]]));
    await s.call('OffsetCommit Stable unknown member', 8, 8, commit(g, 1, 'nobody', topic, [[0, 6n]]));
    await s.call('OffsetCommit Stable generation -1', 8, 8, commit(g, -1, '', topic, [[0, 6n]]));

    const b0 = await s.call('B JoinGroup without member id', 11, 9, join(g, '', [topic]), 'b');
    const b = s.alias(b0.memberId, 'B');
    const bJoin = s.send(11, 9, join(g, b, [topic]), 'b');
    await s.waitGroupState(g, 'PreparingRebalance');
    await s.call('A Heartbeat during rebalance', 12, 4, heartbeat(g, 1, a));
    await s.call('A OffsetCommit in PreparingRebalance', 8, 8, commit(g, 1, a, topic, [[0, 7n]]));
    const a2 = await s.call('A JoinGroup rejoin', 11, 9, join(g, a, [topic]));
    s.record('B JoinGroup', await bJoin);
    await s.call('A OffsetCommit in CompletingRebalance gen 2', 8, 8, commit(g, a2.generationId, a, topic, [[0, 8n]]));
    await s.call('B SyncGroup wrong generation', 14, 5, sync(g, 1, b), 'b');
    const bSync = s.send(14, 5, sync(g, 2, b), 'b');
    await s.call('A SyncGroup leader', 14, 5, sync(g, 2, a, [
      { memberId: a, assignment: assignment({ [topic]: [0] }) },
      { memberId: b, assignment: assignment({ [topic]: [1] }) },
    ]));
    s.record('B SyncGroup', await bSync);
    await s.call('DescribeGroups Stable', 15, 5, { groups: [g], includeAuthorizedOperations: false });
    await s.call('B OffsetCommit gen 1 (stale)', 8, 8, commit(g, 1, b, topic, [[1, 3n]]), 'b');
    await s.call('B OffsetCommit', 8, 8, commit(g, 2, b, topic, [[1, 3n]]), 'b');
    await s.call('B LeaveGroup', 13, 5, { groupId: g, memberId: '', members: [{ memberId: b, groupInstanceId: null, reason: 'bye' }] }, 'b');
    await s.call('B Heartbeat after leaving', 12, 4, heartbeat(g, 2, b), 'b');
    await s.call('A Heartbeat after B left', 12, 4, heartbeat(g, 2, a));
    await s.call('A JoinGroup after B left', 11, 9, join(g, a, [topic]));
    await s.call('A LeaveGroup', 13, 5, { groupId: g, memberId: '', members: [{ memberId: a, groupInstanceId: null, reason: null }] });
    await s.call('LeaveGroup unknown member', 13, 5, { groupId: g, memberId: '', members: [{ memberId: 'nobody', groupInstanceId: null, reason: null }] });
    await s.call('DescribeGroups Empty', 15, 5, { groups: [g], includeAuthorizedOperations: false });
    await s.call('OffsetCommit Empty with a generation', 8, 8, commit(g, 3, a, topic, [[0, 9n]]));
    await s.call('OffsetCommit Empty generation -1', 8, 8, commit(g, -1, '', topic, [[0, 9n]]));
    await s.call('OffsetFetch', 9, 8, fetchGroups([{ groupId: g, topics: null }]));
  }, { timeoutMs: 60_000 });

  for (const version of [0, 3, 5]) {
    scenario(`JoinGroup v${version}, SyncGroup, Heartbeat and LeaveGroup v${Math.min(version, 4)} of one member`, async (s) => {
      const g = s.name(`classic-v${version}`);
      const topic = s.name(`classic-v${version}-t`);
      const j = await s.send(11, version, join(g, '', [topic]));
      const id = s.alias(j.memberId, 'A');
      s.record('JoinGroup', j);
      const syncVersion = Math.min(version, 3);
      await s.call('SyncGroup', 14, syncVersion, sync(g, j.generationId, id, [{ memberId: id, assignment: assignment({ [topic]: [0] }) }]));
      await s.call('Heartbeat', 12, Math.min(version, 3), heartbeat(g, j.generationId, id));
      await s.call('LeaveGroup', 13, Math.min(version, 2), { groupId: g, memberId: id, members: [] });
    });
  }

  scenario('static membership: a new member with the same group.instance.id fences the old one (FENCED_INSTANCE_ID)', async (s) => {
    const g = s.name('static');
    const topic = s.name('static-t');
    await s.createTopic(topic, 1);
    const j1 = await s.call('C1 JoinGroup', 11, 9, join(g, '', [topic], { groupInstanceId: 'inst-1' }));
    const c1 = s.alias(j1.memberId, 'C1');
    await s.call('C1 SyncGroup', 14, 5, sync(g, j1.generationId, c1, [{ memberId: c1, assignment: assignment({ [topic]: [0] }) }], 'inst-1'));
    const j2 = await s.call('C2 JoinGroup same instance id', 11, 9, join(g, '', [topic], { groupInstanceId: 'inst-1' }), 'c2');
    const c2 = s.alias(j2.memberId, 'C2');
    await s.call('C1 Heartbeat (fenced)', 12, 4, heartbeat(g, j1.generationId, c1, 'inst-1'));
    await s.call('C1 OffsetCommit (fenced)', 8, 8, { ...commit(g, j1.generationId, c1, topic, [[0, 1n]]), groupInstanceId: 'inst-1' });
    await s.call('C2 SyncGroup', 14, 5, sync(g, j2.generationId, c2, [], 'inst-1'), 'c2');
    await s.call('C2 Heartbeat', 12, 4, heartbeat(g, j2.generationId, c2, 'inst-1'), 'c2');
    await s.call('C1 LeaveGroup (fenced)', 13, 5, { groupId: g, memberId: '', members: [{ memberId: c1, groupInstanceId: 'inst-1', reason: null }] });
    await s.call('DescribeGroups', 15, 5, { groups: [g], includeAuthorizedOperations: false });
  });
});

describe('OffsetCommit validation', () => {
  for (const version of [2, 5, 8, 9]) {
    scenario(`v${version}: standalone commits (generation -1), OFFSET_METADATA_TOO_LARGE, unknown topic and partition`, async (s) => {
      const g = s.name(`oc-v${version}`);
      const topic = s.name(`oc-v${version}-t`);
      await s.createTopic(topic, 2);
      await s.call('standalone commit', 8, version, commit(g, -1, '', topic, [[0, 10n, 'meta'], [1, 20n]]));
      await s.call('metadata 4096 chars', 8, version, commit(g, -1, '', topic, [[0, 11n, 'x'.repeat(4096)]]));
      await s.call('metadata 4097 chars', 8, version, commit(g, -1, '', topic, [[0, 12n, 'x'.repeat(4097)], [1, 21n]]));
      await s.call('unknown partition', 8, version, commit(g, -1, '', topic, [[0, 13n], [5, 1n]]));
      await s.call('unknown topic', 8, version, commit(g, -1, '', s.name('oc-missing'), [[0, 1n]]));
      await s.call('generation 1 on a group with no members', 8, version, commit(g, 1, 'someone', topic, [[0, 14n]]));
      await s.call('generation -1 with a member id', 8, version, commit(g, -1, 'someone', topic, [[0, 15n]]));
      await s.call('OffsetFetch', 9, Math.min(version, 7), { groupId: g, topics: [{ name: topic, partitionIndexes: [0, 1, 5] }], groups: [], requireStable: false });
    });
  }

  scenario('v10: by topic id (and an unknown topic id)', async (s) => {
    const g = s.name('oc-v10');
    const topic = s.name('oc-v10-t');
    const id = await s.createTopic(topic, 1);
    await s.call('commit by topic id', 8, 10, commit(g, -1, '', '', [[0, 3n]], id));
    await s.call('commit by unknown topic id', 8, 10, commit(g, -1, '', '', [[0, 3n]], 'AAAAAAAAAAAAAAAAAAAAAQ'));
    await s.call('OffsetFetch v10 by topic id', 9, 10, fetchGroups([{ groupId: g, topics: [{ name: '', topicId: id, partitionIndexes: [0] }] }]));
  });

  scenario('v8: a commit to a group being a consumer-protocol (non-classic) member id', async (s) => {
    const g = s.name('oc-stable');
    const topic = s.name('oc-stable-t');
    await s.createTopic(topic, 1);
    const a = await stableGroup(s, g, topic);
    await s.call('commit with generation -1 while the group has members', 8, 8, commit(g, -1, '', topic, [[0, 4n]]));
    await s.call('commit with generation -1 and the member id', 8, 8, commit(g, -1, a, topic, [[0, 4n]]));
  });
});

describe('OffsetFetch', () => {
  scenario('no commit, requireStable, all topics (v1, v5, v7)', async (s) => {
    const g = s.name('of');
    const topic = s.name('of-t');
    await s.createTopic(topic, 2);
    for (const version of [1, 5, 7]) {
      await s.call(`v${version} no commit`, 9, version, { groupId: g, topics: [{ name: topic, partitionIndexes: [0, 1] }], groups: [], requireStable: false });
    }
    await s.send(8, 8, commit(g, -1, '', topic, [[1, 42n, 'hello']]));
    await s.call('v7 requireStable', 9, 7, { groupId: g, topics: [{ name: topic, partitionIndexes: [0, 1] }], groups: [], requireStable: true });
    await s.call('v7 all topics', 9, 7, { groupId: g, topics: null, groups: [], requireStable: false });
    await s.call('v5 unknown topic', 9, 5, { groupId: g, topics: [{ name: s.name('of-missing'), partitionIndexes: [0] }], groups: [], requireStable: false });
  });

  // Kafka fetches offsets of the empty group id as of any other (an old client's simple consumer);
  // INVALID_GROUP_ID is for no id (adversarial trial, session 33).
  scenario('the empty group id, every version from v1, all topics and named ones', async (s) => {
    const topic = s.name('of-empty-t');
    await s.createTopic(topic, 1);
    for (const version of [1, 5, 7]) {
      await s.call(`v${version}`, 9, version, { groupId: '', topics: version >= 2 ? null : [{ name: topic, partitionIndexes: [0] }], groups: [], requireStable: false });
    }
    for (const version of [8, 9, 10]) {
      await s.call(`v${version} all topics`, 9, version, fetchGroups([{ groupId: '', topics: null }]));
    }
    await s.call('v8 a named topic', 9, 8, fetchGroups([{ groupId: '', topics: [{ name: topic, partitionIndexes: [0] }] }]));
  });

  scenario('the empty group id: commits at v2, v5, v8, v9, fetched back; OffsetDelete; DeleteGroups', async (s) => {
    const topic = s.name('oc-empty-t');
    await s.createTopic(topic, 4);
    for (const [i, version] of [2, 5, 8, 9].entries()) {
      await s.call(`OffsetCommit v${version}`, 8, version, commit('', -1, '', topic, [[i, BigInt(10 + i)]]));
    }
    await s.call('OffsetFetch v9', 9, 9, fetchGroups([{ groupId: '', topics: [{ name: topic, partitionIndexes: [0, 1, 2, 3] }] }]));
    await s.call('OffsetDelete', 47, 0, { groupId: '', topics: [{ name: topic, partitions: [{ partitionIndex: 0 }] }] });
    await s.call('DeleteGroups', 42, 2, { groupsNames: [''] });
    await s.call('OffsetFetch v9 after', 9, 9, fetchGroups([{ groupId: '', topics: [{ name: topic, partitionIndexes: [0, 1, 2, 3] }] }]));
  });

  for (const version of [8, 9]) {
    scenario(`v${version}: several groups in one request (committed, empty, all topics, unknown group)`, async (s) => {
      const g1 = s.name('of-multi-1');
      const g2 = s.name('of-multi-2');
      const topic = s.name('of-multi-t');
      await s.createTopic(topic, 2);
      await s.send(8, 8, commit(g1, -1, '', topic, [[0, 7n, 'g1']]));
      await s.send(8, 8, commit(g2, -1, '', topic, [[1, 9n]]));
      await s.call('OffsetFetch groups', 9, version, fetchGroups([
        { groupId: g1, topics: [{ name: topic, partitionIndexes: [0, 1] }] },
        { groupId: g2, topics: null },
        { groupId: s.name('of-multi-none'), topics: null },
        { groupId: s.name('of-multi-none2'), topics: [{ name: topic, partitionIndexes: [0] }] },
      ], true));
    });
  }
});
