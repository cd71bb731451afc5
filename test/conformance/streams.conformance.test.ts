/**
 * Conformance: KIP-1071 streams groups (StreamsGroupHeartbeat v0, StreamsGroupDescribe v0):
 * heartbeat validation with Kafka's messages, a word-count topology whose internal topics the
 * broker creates, a second process joining (revocation before assignment), the other group APIs
 * on a streams group id, and offsets committed by streams members (OffsetCommit v9 with current
 * and older epochs, TxnOffsetCommit, OffsetFetch v9).
 *
 * Every group first gets `streams.initial.rebalance.delay.ms=0` and `streams.assignment.interval.ms=0`
 * as group configs (IncrementalAlterConfigs on the GROUP resource, before the group exists): the
 * broker defaults (3000 and 1000 ms) would make the assignment depend on timing.
 */
import { describe } from 'vitest';
import { scenario, sleep, useTargets, type Session } from './runner.js';
import { commit, join as classicJoin } from './groups.js';
import { hb as consumerHeartbeat } from '../support/kip848-group.js';
import type { StreamsGroupHeartbeatRequest, Topology, TaskIds } from '../../src/protocol/messages/StreamsGroupHeartbeatRequest.js';
import { join as joinReq, wordCountTopology as wordCount } from '../support/streams-group.js';
import type { StreamsGroupHeartbeatResponse } from '../../src/protocol/messages/StreamsGroupHeartbeatResponse.js';

useTargets();

const MISSING_INTERNAL_TOPICS = 3;

/** A stateless topology: one subtopology reading `input`, no internal topics. */
function passThrough(input: string): Topology {
  return { epoch: 0, subtopologies: [{ subtopologyId: '0', sourceTopics: [input], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [], repartitionSourceTopics: [], copartitionGroups: [] }] };
}

/** A heartbeat after the join: owned active tasks (null: unchanged since the last heartbeat). */
function beatReq(groupId: string, memberId: string, memberEpoch: number, active: TaskIds[] | null): StreamsGroupHeartbeatRequest {
  return {
    ...joinReq(groupId, memberId, '', passThrough('')),
    memberEpoch,
    rebalanceTimeoutMs: -1,
    topology: null,
    processId: null,
    clientTags: null,
    activeTasks: active,
    standbyTasks: active === null ? null : [],
    warmupTasks: active === null ? null : [],
  };
}

const leaveReq = (groupId: string, memberId: string): StreamsGroupHeartbeatRequest => ({ ...beatReq(groupId, memberId, -1, null) });

/** Group configs that make a streams group assign at once (not recorded; must succeed). */
async function fastGroup(s: Session, groupId: string): Promise<void> {
  const r = await s.send(44, 1, {
    resources: [
      {
        resourceType: 32,
        resourceName: groupId,
        configs: [
          { name: 'streams.initial.rebalance.delay.ms', configOperation: 0, value: '0' },
          { name: 'streams.assignment.interval.ms', configOperation: 0, value: '0' },
        ],
      },
    ],
    validateOnly: false,
  } as never);
  const code = (r as { responses: Array<{ errorCode: number; errorMessage: string | null }> }).responses[0]!;
  if (code.errorCode !== 0) throw new Error(`${s.target}: group configs of ${groupId}: ${code.errorCode} ${code.errorMessage}`);
  // Kafka applies group configs from its metadata image: a moment after the answer.
  if (s.target === 'kafka') await sleep(500);
}

const taskCount = (tasks: TaskIds[] | null) => (tasks === null ? null : tasks.reduce((n, t) => n + t.partitions.length, 0));

/** A member as a Streams client tracks it: epoch and owned active tasks. */
class Member {
  epoch = 0;
  owned: TaskIds[] = [];
  constructor(
    readonly s: Session,
    readonly groupId: string,
    readonly memberId: string,
    readonly conn = 'main',
  ) {}

  private track(r: StreamsGroupHeartbeatResponse): StreamsGroupHeartbeatResponse {
    if (r.errorCode === 0) {
      this.epoch = r.memberEpoch;
      if (r.activeTasks !== null) this.owned = r.activeTasks.map((t) => ({ subtopologyId: t.subtopologyId, partitions: [...t.partitions] }));
    }
    return r;
  }

  async join(label: string | null, processId: string, topology: Topology): Promise<StreamsGroupHeartbeatResponse> {
    const body = joinReq(this.groupId, this.memberId, processId, topology);
    return this.track(label === null ? await this.s.send(88, 0, body, this.conn) : await this.s.call(label, 88, 0, body, this.conn));
  }

  /** A heartbeat reporting the owned tasks; `summary` records epochs and task counts instead of the answer. */
  async beat(label: string | null, summary = false): Promise<StreamsGroupHeartbeatResponse> {
    const r = this.track(await this.s.send(88, 0, beatReq(this.groupId, this.memberId, this.epoch, this.owned), this.conn));
    if (label !== null) this.s.record(label, summary ? summarise(r) : r);
    return r;
  }

  /** Heartbeats (every 100 ms, not recorded) until `done`; records only the final answer. */
  async beatUntil(label: string, done: (r: StreamsGroupHeartbeatResponse) => boolean, summary = false, timeoutMs = 20_000): Promise<StreamsGroupHeartbeatResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await this.beat(null);
      if (done(r) || r.errorCode !== 0 || Date.now() > deadline) {
        this.s.record(label, summary ? summarise(r) : r);
        return r;
      }
      await sleep(100);
    }
  }
}

function summarise(r: StreamsGroupHeartbeatResponse) {
  return { errorCode: r.errorCode, memberEpoch: r.memberEpoch, status: r.status, active: taskCount(r.activeTasks), standby: taskCount(r.standbyTasks), warmup: taskCount(r.warmupTasks) };
}

const noMissingInternalTopics = (r: StreamsGroupHeartbeatResponse) => !(r.status ?? []).some((st) => st.statusCode === MISSING_INTERNAL_TOPICS);

/** StreamsGroupDescribe reduced to what does not depend on the assignor's choice of tasks. */
async function describeSummary(s: Session, label: string, groupId: string, memberIds: string[]): Promise<void> {
  const g = (await s.send(89, 0, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0]!;
  s.record(label, {
    errorCode: g.errorCode,
    groupState: g.groupState,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    members: memberIds.map((id) => g.members.find((m) => m.memberId === id)).map((m) => m && { memberEpoch: m.memberEpoch, active: taskCount(m.assignment.activeTasks), target: taskCount(m.targetAssignment.activeTasks) }),
  });
}

/** ListGroups v5 restricted to this scenario's groups (the broker is shared). */
async function listGroups(s: Session, label: string, statesFilter: string[], typesFilter: string[]): Promise<void> {
  const r = await s.send(16, 5, { statesFilter, typesFilter });
  s.record(label, { errorCode: r.errorCode, groups: r.groups.filter((g) => g.groupId.endsWith(s.name(''))).sort((a, b) => a.groupId.localeCompare(b.groupId)) });
}

describe('StreamsGroupHeartbeat validation', () => {
  scenario(
    'invalid first heartbeats, unknown groups and members',
    async (s) => {
      const g = s.name('sv');
      const input = s.name('sv-in');
      await s.createTopic(input, 1);
      await fastGroup(s, g);
      const topo = wordCount(g, input);
      const base = joinReq(g, s.name('m1'), 'p1', topo);
      const cases: Array<[string, Partial<StreamsGroupHeartbeatRequest>]> = [
        ['blank member id', { memberId: ' ' }],
        ['rebalanceTimeoutMs -1', { rebalanceTimeoutMs: -1 }],
        ['null activeTasks', { activeTasks: null }],
        ['null topology', { topology: null }],
        ['instance id set', { instanceId: 'i1' }],
        ['epoch -3', { memberEpoch: -3 }],
        ['changelog with partitions 1', { topology: { epoch: 0, subtopologies: [topo.subtopologies[0]!, { ...topo.subtopologies[1]!, stateChangelogTopics: [{ ...topo.subtopologies[1]!.stateChangelogTopics[0]!, partitions: 1 }] }] } }],
        ['__consumer_offsets as a source', { topology: { epoch: 0, subtopologies: [{ ...topo.subtopologies[0]!, sourceTopics: ['__consumer_offsets'] }] } }],
        ['invalid topic name as a source', { topology: { epoch: 0, subtopologies: [{ ...topo.subtopologies[0]!, sourceTopics: ['bad topic!'] }] } }],
        ['epoch 5 to an unknown group', { memberEpoch: 5, topology: null }],
      ];
      for (const [label, change] of cases) await s.call(label, 88, 0, { ...base, ...change });
      await s.call('leave of an unknown member of an unknown group', 88, 0, leaveReq(g, s.name('mx')));
      await s.call('StreamsGroupDescribe: no group was created', 89, 0, { groupIds: [g], includeAuthorizedOperations: false });
      // A valid join creates the group; then the unknown member's leave and heartbeat.
      await s.call('valid join', 88, 0, base);
      await s.call('leave of an unknown member', 88, 0, leaveReq(g, s.name('mx')));
      await s.call('heartbeat of an unknown member (epoch 5)', 88, 0, beatReq(g, s.name('mx'), 5, null));
      await s.call('M1 heartbeat with a greater epoch', 88, 0, beatReq(g, s.name('m1'), 50, null));
      await s.call('M1 heartbeat with topology after the join', 88, 0, { ...beatReq(g, s.name('m1'), 1, null), topology: topo });
      await s.call('M1 leaves', 88, 0, leaveReq(g, s.name('m1')));
    },
    { exactMessages: true },
  );
});

describe('streams group lifecycle', () => {
  scenario(
    'word count: internal topics created, tasks, describe, other group APIs, delete',
    async (s) => {
      const g = s.name('wc');
      const input = s.name('wc-in');
      await s.createTopic(input, 2);
      await fastGroup(s, g);
      const m1 = new Member(s, g, s.name('m1'));
      await m1.join('M1 joins (internal topics missing)', 'p1', wordCount(g, input));
      await m1.beatUntil('M1 heartbeat once the internal topics exist', noMissingInternalTopics);
      await m1.beat('M1 heartbeat with its tasks');
      await s.call('StreamsGroupDescribe', 89, 0, { groupIds: [g, s.name('nope')], includeAuthorizedOperations: false });

      // A second group whose source topic is missing stays NotReady.
      const nr = s.name('wc-notready');
      await fastGroup(s, nr);
      await new Member(s, nr, s.name('m9')).join('NotReady group: join (source topic missing)', 'p9', passThrough(s.name('wc-missing')));
      await listGroups(s, 'ListGroups v5 type streams, state not_ready', ['not_ready'], ['streams']);
      await listGroups(s, 'ListGroups v5 type streams, state NotReady', ['NotReady'], ['streams']);
      await listGroups(s, 'ListGroups v5 type streams, state stable', ['stable'], ['streams']);
      await listGroups(s, 'ListGroups v5 type streams', [], ['streams']);
      await listGroups(s, 'ListGroups v5 type consumer', [], ['consumer']);
      await s.call('DescribeGroups v6 of the streams group', 15, 6, { groups: [g], includeAuthorizedOperations: false });
      await s.call('ConsumerGroupHeartbeat v1 on the streams group', 68, 1, consumerHeartbeat(g, s.name('cx'), 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [input], topicPartitions: [] }) as never);
      await s.call('JoinGroup v9 on the streams group', 11, 9, classicJoin(g, '', [input]));
      await s.call('DeleteGroups of the non-empty group', 42, 2, { groupsNames: [g] });
      await s.call('M1 leaves', 88, 0, leaveReq(g, m1.memberId));
      await s.call('StreamsGroupDescribe after the leave', 89, 0, { groupIds: [g], includeAuthorizedOperations: false });
      await s.call('DeleteGroups after the leave', 42, 2, { groupsNames: [g, nr] });
      await s.call('StreamsGroupDescribe after the delete', 89, 0, { groupIds: [g], includeAuthorizedOperations: false });
    },
    { timeoutMs: 60_000 },
  );

  // Which of the four tasks move to the second process is the assignor's choice: recorded are
  // epochs and task counts.
  scenario('a second process joins: revocation first, then assignment', async (s) => {
    const g = s.name('wc2');
    const input = s.name('wc2-in');
    await s.createTopic(input, 2);
    await fastGroup(s, g);
    const m1 = new Member(s, g, s.name('m1'));
    const m2 = new Member(s, g, s.name('m2'), 'b');
    await m1.join(null, 'p1', wordCount(g, input));
    await m1.beatUntil('M1 heartbeat once the internal topics exist', noMissingInternalTopics, true);
    await m1.beat('M1 heartbeat with its tasks', true);
    await describeSummary(s, 'StreamsGroupDescribe (one member)', g, [m1.memberId]);
    const j = await m2.join(null, 'p2', wordCount(g, input));
    s.record('M2 joins', summarise(j));
    await describeSummary(s, 'StreamsGroupDescribe after M2 joined', g, [m1.memberId, m2.memberId]);
    await m1.beat('M1 heartbeat (asked to revoke)', true);
    await m2.beat('M2 heartbeat (tasks not free yet)', true);
    await describeSummary(s, 'StreamsGroupDescribe while M1 revokes', g, [m1.memberId, m2.memberId]);
    await m1.beat('M1 heartbeat after revoking', true);
    await m2.beat('M2 heartbeat gets its tasks', true);
    await m2.beat('M2 heartbeat with its tasks', true);
    await m1.beat('M1 heartbeat', true);
    await describeSummary(s, 'StreamsGroupDescribe (stable)', g, [m1.memberId, m2.memberId]);
    await s.call('M2 leaves', 88, 0, leaveReq(g, m2.memberId), 'b');
    await m1.beat('M1 heartbeat after M2 left', true);
    await m1.beat('M1 heartbeat with all tasks', true);
    await describeSummary(s, 'StreamsGroupDescribe (one member again)', g, [m1.memberId, m2.memberId]);
  });
});

/** A stream member owning `input`-0 at epoch E, then `input`-1 too from a later epoch (CreatePartitions). */
async function memberWithLaterTask(s: Session, g: string, input: string): Promise<{ m1: Member; first: number; later: number }> {
  await s.createTopic(input, 1);
  await fastGroup(s, g);
  const m1 = new Member(s, g, s.name('m1'));
  await m1.join('M1 joins', 'p1', passThrough(input));
  await m1.beat('M1 heartbeat with its task');
  const first = m1.epoch;
  const cp = await s.send(37, 3, { topics: [{ name: input, count: 2, assignments: null }], timeoutMs: 30_000, validateOnly: false });
  if (cp.results[0]!.errorCode !== 0) throw new Error(`${s.target}: CreatePartitions ${cp.results[0]!.errorCode}`);
  await m1.beatUntil('M1 heartbeat once the input has 2 partitions', (r) => taskCount(r.activeTasks) === 2);
  await m1.beat('M1 heartbeat with both tasks');
  return { m1, first, later: m1.epoch };
}

describe('offsets of streams members', () => {
  scenario('OffsetCommit v9: current epoch, an older epoch with one task assigned then and one later', async (s) => {
    const g = s.name('so');
    const input = s.name('so-in');
    const { m1, first, later } = await memberWithLaterTask(s, g, input);
    s.record('epochs (first task, second task)', [first, later]);
    await s.call('OffsetCommit v9 current epoch', 8, 9, commit(g, later, m1.memberId, input, [[0, 5n], [1, 5n]]));
    await s.call('OffsetCommit v9 older epoch: task 0 assigned then, task 1 later', 8, 9, commit(g, first, m1.memberId, input, [[0, 6n], [1, 6n]]));
    const split = commit(g, first, m1.memberId, input, [[0, 6n]]);
    split.topics.push(commit(g, first, m1.memberId, input, [[1, 6n]]).topics[0]!);
    await s.call('OffsetCommit v9 older epoch: the two tasks as two topic entries', 8, 9, split);
    await s.call('OffsetCommit v9 older epoch: only the task assigned then', 8, 9, commit(g, first, m1.memberId, input, [[0, 7n]]));
    await s.call('OffsetCommit v9 older epoch: only the later task', 8, 9, commit(g, first, m1.memberId, input, [[1, 7n]]));
    await s.call('OffsetCommit v9 future epoch', 8, 9, commit(g, later + 1, m1.memberId, input, [[0, 8n]]));
    await s.call('OffsetCommit v9 unknown member', 8, 9, commit(g, later, s.name('mx'), input, [[0, 8n]]));
    await s.call('OffsetCommit v8 by the member', 8, 8, commit(g, later, m1.memberId, input, [[0, 8n]]));
    await s.call('OffsetCommit v9 epoch -1 (admin)', 8, 9, commit(g, -1, '', input, [[0, 8n]]));
    await s.call('OffsetFetch v9', 9, 9, {
      groupId: '', topics: [], requireStable: false,
      groups: [{ groupId: g, memberId: m1.memberId, memberEpoch: later, topics: [{ name: input, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitionIndexes: [0, 1] }] }],
    });
  });

  scenario('TxnOffsetCommit and OffsetFetch v9 with the member epoch and a wrong one', async (s) => {
    const g = s.name('st');
    const input = s.name('st-in');
    const { m1, first, later } = await memberWithLaterTask(s, g, input);
    const txn = s.name('st-txn');
    // The transaction coordinator, then InitProducerId (not recorded).
    let pid = -1n;
    let pepoch = -1;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const fc = await s.send(10, 3, { key: txn, keyType: 1, coordinatorKeys: [] });
      if (fc.errorCode === 0) {
        const r = await s.send(22, 4, { transactionalId: txn, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
        if (r.errorCode === 0) {
          pid = r.producerId;
          pepoch = r.producerEpoch;
          break;
        }
      }
      if (Date.now() > deadline) throw new Error(`${s.target}: no transactional producer`);
      await sleep(200);
    }
    await s.call('AddOffsetsToTxn', 25, 3, { transactionalId: txn, producerId: pid, producerEpoch: pepoch, groupId: g });
    const txnCommit = (generationId: number, memberId: string, partitions: number[]) => ({
      transactionalId: txn, groupId: g, producerId: pid, producerEpoch: pepoch, generationId, memberId, groupInstanceId: null,
      topics: [{ name: input, partitions: partitions.map((partitionIndex) => ({ partitionIndex, committedOffset: 3n, committedLeaderEpoch: -1, committedMetadata: '' })) }],
    });
    await s.call('TxnOffsetCommit v4 member epoch', 28, 4, txnCommit(later, m1.memberId, [0, 1]));
    await s.call('TxnOffsetCommit v4 older epoch (task 0 then, task 1 later)', 28, 4, txnCommit(first, m1.memberId, [0, 1]));
    await s.call('TxnOffsetCommit v4 older epoch: only the task assigned then', 28, 4, txnCommit(first, m1.memberId, [0]));
    await s.call('TxnOffsetCommit v4 older epoch: only the later task', 28, 4, txnCommit(first, m1.memberId, [1]));
    await s.call('TxnOffsetCommit v4 future epoch', 28, 4, txnCommit(later + 1, m1.memberId, [0]));
    await s.call('TxnOffsetCommit v4 unknown member', 28, 4, txnCommit(later, s.name('mx'), [0]));
    await s.call('TxnOffsetCommit v4 no member (generation -1)', 28, 4, txnCommit(-1, '', [0]));
    await s.call('TxnOffsetCommit v3 member epoch', 28, 3, txnCommit(later, m1.memberId, [0]));
    await s.call('EndTxn abort', 26, 3, { transactionalId: txn, producerId: pid, producerEpoch: pepoch, committed: false });
    const fetch = (memberId: string | null, memberEpoch: number) => ({
      groupId: '', topics: [], requireStable: false,
      groups: [{ groupId: g, memberId, memberEpoch, topics: [{ name: input, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitionIndexes: [0, 1] }] }],
    });
    await s.call('OffsetFetch v9 member epoch', 9, 9, fetch(m1.memberId, later));
    await s.call('OffsetFetch v9 older epoch', 9, 9, fetch(m1.memberId, first));
    await s.call('OffsetFetch v9 future epoch', 9, 9, fetch(m1.memberId, later + 1));
    await s.call('OffsetFetch v9 unknown member', 9, 9, fetch(s.name('mx'), later));
    await s.call('OffsetFetch v9 no member (epoch -1)', 9, 9, fetch(null, -1));
  });
});
