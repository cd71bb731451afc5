/**
 * Online downgrade of a consumer group to a classic group (Kafka 4.3's `consumerGroupFenceMembers`
 * / `convertToClassicGroup` / `ClassicGroup.fromConsumerGroup`) and the classic-member behaviours
 * inside a consumer group that go with it (static replacement, SyncGroup timeout, LeaveGroup
 * fencing a set), in process with a fake clock and the in-memory log.
 */
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { BrokerConfig } from '../../../src/config.js';
import { ClassicGroupCoordinator, classicGroupsOf } from '../../../src/coordinator/classic/classic-coordinator.js';
import { GroupMap } from '../../../src/coordinator/group-map.js';
import { consumerGroupsOf } from '../../../src/coordinator/consumer/group-store.js';
import { ConsumerGroupCoordinator } from '../../../src/coordinator/consumer/consumer-coordinator.js';
import { memberMetadataValue } from '../../../src/coordinator/consumer/member.js';
import type { CoordinatorRecord } from '../../../src/coordinator/records.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { Reader, Writer } from '../../../src/protocol/primitives.js';
import type { JoinGroupRequest } from '../../../src/protocol/messages/JoinGroupRequest.js';
import * as Sub from '../../../src/records/schemas/ConsumerProtocolSubscription.js';
import * as Asg from '../../../src/records/schemas/ConsumerProtocolAssignment.js';
import { hb } from '../../support/kip848-group.js';
import { FakeTime } from '../../support/fake-time.js';
import { MemoryGroupLog } from '../../support/memory-group-log.js';
import { FakeOffsets, joinRequest, leaveGroupAt, settle, syncRequest } from '../classic/harness.js';

const T = { name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitionCount: 4 };
const U = { name: 'u', topicId: 'AAAAAAAAAAAAAAAAAAAAAg', partitionCount: 2 };
const topics = {
  get: (n: string) => [T, U].find((t) => t.name === n),
  getById: (id: string) => [T, U].find((t) => t.topicId === id),
  list: () => [T, U],
};
const silent = pino({ level: 'silent' });
const CLIENT = { apiVersion: 5, clientId: 'classic-client', clientHost: '/127.0.0.1' };
const HB_CLIENT = { apiVersion: 1, clientId: 'kip848-client', clientHost: '/127.0.0.1' };
const C = 'consumer-member-aaaaaa';

/** A ConsumerProtocol subscription at `version` (v1+ carries no owned partitions here). */
function subscription(topicNames: string[], version = 1): Buffer {
  const w = new Writer();
  w.int16(version);
  Sub.encode(w, version, { topics: topicNames, userData: null, ownedPartitions: [], generationId: -1, rackId: null });
  return w.finish();
}

function decodeAssignment(bytes: Buffer): { version: number; partitions: Record<string, number[]> } {
  const r = new Reader(bytes);
  const version = r.int16();
  const decoded = Asg.decode(r, version);
  return { version, partitions: Object.fromEntries(decoded.assignedPartitions.map((tp) => [tp.topic, [...tp.partitions].sort((a, b) => a - b)])) };
}

/** A classic coordinator and a consumer coordinator over one log, as the broker wires them. */
function coordinators(config: Record<string, string | number> = {}, time = new FakeTime(), groupLog = new MemoryGroupLog()) {
  const offsets = new FakeOffsets();
  const full = new BrokerConfig({ 'group.initial.rebalance.delay.ms': 0, 'group.consumer.assignment.interval.ms': 0, ...config });
  let consumer!: ConsumerGroupCoordinator;
  const runtime = groupLog.runtime();
  const groups = new GroupMap();
  const classic = new ClassicGroupCoordinator({ config: full, log: silent, time, writer: runtime, offsets, groups: classicGroupsOf(groups) });
  consumer = new ConsumerGroupCoordinator({ config: full, log: silent, time, writer: runtime, topics, offsets, classic, groups: consumerGroupsOf(groups) });
  runtime.register(classic);
  runtime.register(consumer.shard);
  return {
    time,
    groupLog,
    classic,
    consumer,
    /** Replays the log as the broker does at start. */
    replay(records: readonly CoordinatorRecord[]) {
      for (const r of records) if (r.kind !== 'offset-commit') runtime.load(r);
      consumer.onLoaded();
    },
    shutdown() {
      consumer.shutdown();
      classic.shutdown();
    },
  };
}
type Pair = ReturnType<typeof coordinators>;

/** The KIP-848 member C joins (epoch 0) and acknowledges what it was given. */
async function consumerMemberJoins(p: Pair, extra: Parameters<typeof hb>[3] = {}) {
  const res = await p.consumer.heartbeat(hb('g', C, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: ['t'], topicPartitions: [], ...extra }), HB_CLIENT);
  expect(res.errorCode).toBe(ErrorCode.NONE);
  return res;
}

/** A classic member joins the consumer group (two-phase for a dynamic member at v5) and syncs. */
async function classicMemberJoins(p: Pair, over: Partial<JoinGroupRequest> = {}, sync = true) {
  const protocols = over.protocols ?? [{ name: 'range', metadata: subscription(['t']) }];
  let join = await p.consumer.classicJoin(joinRequest({ protocols, ...over }), CLIENT);
  if (join.errorCode === ErrorCode.MEMBER_ID_REQUIRED) join = await p.consumer.classicJoin(joinRequest({ protocols, ...over, memberId: join.memberId }), CLIENT);
  expect(join.errorCode).toBe(ErrorCode.NONE);
  if (sync) {
    const s = await p.consumer.classicSync(syncRequest({ memberId: join.memberId, groupInstanceId: over.groupInstanceId ?? null, generationId: join.generationId, protocolType: 'consumer', protocolName: protocols[0]!.name }));
    expect(s.errorCode).toBe(ErrorCode.NONE);
  }
  return join;
}

const targetOf = (p: Pair, memberId: string) => [...(p.consumer.group('g')!.targetAssignment.get(memberId)?.get(T.topicId) ?? [])].sort((a, b) => a - b);
const describeRecord = (r: CoordinatorRecord) => `${r.kind}:${'memberId' in r ? r.memberId : ''}:${r.value === null ? 'null' : 'value'}`;

describe('online downgrade of a consumer group', () => {
  it('the last KIP-848 member leaving turns the group into a classic group: tombstones, then GroupMetadata, then a rebalance', async () => {
    const p = coordinators();
    await consumerMemberJoins(p);
    const k = await classicMemberJoins(p, { sessionTimeoutMs: 12_000, rebalanceTimeoutMs: 40_000 });
    const group = p.consumer.group('g')!;
    const epoch = group.groupEpoch;
    const kTarget = targetOf(p, k.memberId);
    expect(kTarget.length).toBe(2);
    const before = p.groupLog.records.length;

    const left = await p.consumer.heartbeat(hb('g', C, -1), HB_CLIENT);
    expect(left).toMatchObject({ errorCode: ErrorCode.NONE, memberId: C, memberEpoch: -1 });
    const written = p.groupLog.records.slice(before);
    expect(written.map(describeRecord)).toEqual([
      `cg-current-assignment:${C}:null`,
      `cg-current-assignment:${k.memberId}:null`,
      `cg-target-member:${C}:null`,
      `cg-target-member:${k.memberId}:null`,
      'cg-target-metadata::null',
      `cg-member-metadata:${C}:null`,
      `cg-member-metadata:${k.memberId}:null`,
      'cg-partition-metadata::null',
      'cg-metadata::null',
      'group-metadata::value',
    ]);
    // The GroupMetadata record: generation = group epoch, protocol type consumer, the selected
    // protocol, the first member as leader, each member with its target as its assignment.
    const gm = written.at(-1)!;
    if (gm.kind !== 'group-metadata' || gm.value === null) throw new Error('expected a GroupMetadata record');
    expect(gm.value).toMatchObject({ protocolType: 'consumer', generation: epoch, protocol: 'range', leader: k.memberId, currentStateTimestamp: BigInt(p.time.now()) });
    expect(gm.value.members).toHaveLength(1);
    const m = gm.value.members[0]!;
    expect(m).toMatchObject({ memberId: k.memberId, groupInstanceId: null, clientId: 'classic-client', clientHost: '/127.0.0.1', rebalanceTimeout: 40_000, sessionTimeout: 12_000 });
    expect(m.subscription.equals(subscription(['t']))).toBe(true);
    // Serialized at the version of the member's subscription (v1), with the target (not all four partitions).
    expect(decodeAssignment(m.assignment)).toEqual({ version: 1, partitions: { t: kTarget } });

    // The group is classic only, rebalancing; the classic member is told to rejoin and does.
    expect(p.consumer.hasGroup('g')).toBe(false);
    const classicGroup = p.classic.group('g')!;
    expect(classicGroup.state).toBe('PreparingRebalance');
    expect(classicGroup.generationId).toBe(epoch);
    expect((await p.classic.heartbeat({ groupId: 'g', generationId: epoch, memberId: k.memberId, groupInstanceId: null })).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const rejoin = await p.classic.joinGroup(joinRequest({ memberId: k.memberId, protocols: [{ name: 'range', metadata: subscription(['t']) }] }), CLIENT);
    expect(rejoin).toMatchObject({ errorCode: ErrorCode.NONE, generationId: epoch + 1, leader: k.memberId, protocolName: 'range' });
    const assignment = Buffer.from(subscription(['t']).subarray(0, 0));
    const sync = await p.classic.syncGroup(syncRequest({ memberId: k.memberId, generationId: epoch + 1, assignments: [{ memberId: k.memberId, assignment }] }), { apiVersion: 3 });
    expect(sync.errorCode).toBe(ErrorCode.NONE);
    expect(p.classic.group('g')!.state).toBe('Stable');
    p.shutdown();
  });

  it('replays into the classic group: after a restart the group is classic with the generation of the GroupMetadata record', async () => {
    const p = coordinators();
    await consumerMemberJoins(p);
    const k = await classicMemberJoins(p);
    const epoch = p.consumer.group('g')!.groupEpoch;
    await p.consumer.heartbeat(hb('g', C, -1), HB_CLIENT);
    p.shutdown();

    const restarted = coordinators();
    restarted.replay(p.groupLog.records);
    expect(restarted.consumer.hasGroup('g')).toBe(false);
    const g = restarted.classic.group('g')!;
    expect(g.state).toBe('Stable');
    expect(g.generationId).toBe(epoch);
    expect(g.protocolType).toBe('consumer');
    expect(g.protocolName).toBe('range');
    expect(g.leaderId).toBe(k.memberId);
    expect(g.allMembers().map((m) => m.memberId)).toEqual([k.memberId]);
    expect((await restarted.classic.listGroups()).find((l) => l.groupId === 'g')?.groupType).toBe('classic');
    restarted.shutdown();
  });

  it('the session expiry of the last KIP-848 member triggers the downgrade', async () => {
    const p = coordinators({ 'group.consumer.session.timeout.ms': 20_000, 'group.consumer.min.session.timeout.ms': 1_000 });
    await consumerMemberJoins(p);
    const k = await classicMemberJoins(p, { sessionTimeoutMs: 60_000, rebalanceTimeoutMs: 60_000 });
    const epoch = p.consumer.group('g')!.groupEpoch;
    p.time.advance(20_001);
    await settle();
    expect(p.consumer.hasGroup('g')).toBe(false);
    const g = p.classic.group('g')!;
    expect(g.state).toBe('PreparingRebalance');
    expect(g.generationId).toBe(epoch);
    expect(g.allMembers().map((m) => m.memberId)).toEqual([k.memberId]);
    expect(p.groupLog.groupMetadata('g').at(-1)).toMatchObject({ generation: epoch, protocolType: 'consumer', leader: k.memberId });
    // The classic member's session now runs on the classic side (60 s): it is still there at 59 s.
    p.time.advance(59_000);
    expect(p.classic.group('g')!.hasMember(k.memberId)).toBe(true);
    p.shutdown();
  });

  it('does not downgrade under the upgrade and disabled policies: the group stays a consumer group of classic members', async () => {
    // Built under bidirectional; "disabled" is then a restart with another policy.
    for (const policy of ['upgrade', 'disabled']) {
      const built = coordinators({ 'group.consumer.migration.policy': policy === 'upgrade' ? 'upgrade' : 'bidirectional' });
      await consumerMemberJoins(built);
      const k = await classicMemberJoins(built);
      built.shutdown();
      const p = coordinators({ 'group.consumer.migration.policy': policy }, built.time, built.groupLog);
      p.replay(built.groupLog.records);
      const epoch = p.consumer.group('g')!.groupEpoch;
      const before = p.groupLog.records.length;
      expect((await p.consumer.heartbeat(hb('g', C, -1), HB_CLIENT)).errorCode).toBe(ErrorCode.NONE);
      expect(p.groupLog.records.slice(before).map(describeRecord)).toEqual([
        `cg-current-assignment:${C}:null`,
        `cg-target-member:${C}:null`,
        `cg-member-metadata:${C}:null`,
        'cg-metadata::value',
      ]);
      const g = p.consumer.group('g')!;
      expect(g.groupEpoch).toBe(epoch + 1);
      expect([...g.members.keys()]).toEqual([k.memberId]);
      expect(p.classic.classicGroupStatus('g')).toBe('none');
      p.shutdown();
    }
  });

  it('does not downgrade when the remaining members exceed group.max.size', async () => {
    for (const [maxSize, downgraded] of [[1, false], [2, true]] as const) {
      const p = coordinators({ 'group.max.size': maxSize });
      await consumerMemberJoins(p);
      await classicMemberJoins(p);
      await classicMemberJoins(p);
      expect((await p.consumer.heartbeat(hb('g', C, -1), HB_CLIENT)).errorCode).toBe(ErrorCode.NONE);
      expect(p.consumer.hasGroup('g')).toBe(!downgraded);
      expect(p.classic.classicGroupStatus('g')).toBe(downgraded ? 'non-empty' : 'none');
      if (!downgraded) expect(p.consumer.group('g')!.numMembers).toBe(2);
      p.shutdown();
    }
  });

  it('a LeaveGroup fences its members as one set: one epoch bump, or the downgrade when only classic members remain', async () => {
    const p = coordinators();
    await consumerMemberJoins(p);
    const k1 = await classicMemberJoins(p);
    const k2 = await classicMemberJoins(p);
    const k3 = await classicMemberJoins(p);
    const epoch = p.consumer.group('g')!.groupEpoch;
    const before = p.groupLog.records.length;
    const res = await leaveGroupAt({ leaveGroup: (g, m) => p.consumer.classicLeave(g, m) }, { groupId: 'g', memberId: '', members: [{ memberId: k1.memberId, groupInstanceId: null, reason: null }, { memberId: k2.memberId, groupInstanceId: null, reason: null }, { memberId: 'nope', groupInstanceId: null, reason: null }] }, { apiVersion: 5 });
    expect(res.members.map((m) => m.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID]);
    expect(p.groupLog.records.slice(before).map(describeRecord)).toEqual([
      `cg-current-assignment:${k1.memberId}:null`,
      `cg-target-member:${k1.memberId}:null`,
      `cg-member-metadata:${k1.memberId}:null`,
      `cg-current-assignment:${k2.memberId}:null`,
      `cg-target-member:${k2.memberId}:null`,
      `cg-member-metadata:${k2.memberId}:null`,
      'cg-metadata::value',
    ]);
    expect(p.consumer.group('g')!.groupEpoch).toBe(epoch + 1);
    // Kafka 4.3 looks members up whatever protocol they use: naming the KIP-848 member leaves only k3, a classic member.
    const last = await leaveGroupAt({ leaveGroup: (g, m) => p.consumer.classicLeave(g, m) }, { groupId: 'g', memberId: '', members: [{ memberId: C, groupInstanceId: null, reason: 'bye' }] }, { apiVersion: 5 });
    expect(last.members).toEqual([{ memberId: C, groupInstanceId: null, errorCode: ErrorCode.NONE }]);
    expect(p.consumer.hasGroup('g')).toBe(false);
    expect(p.classic.group('g')!.allMembers().map((m) => m.memberId)).toEqual([k3.memberId]);
    p.shutdown();
  });

  it('a member whose subscription carries no readable version makes the downgrade fail with GROUP_ID_NOT_FOUND and nothing changes', async () => {
    const p = coordinators();
    await consumerMemberJoins(p);
    const k = await classicMemberJoins(p);
    // Its record 5 as the log could hold it: the selected protocol's metadata is one byte.
    p.consumer.shard.load({
      kind: 'cg-member-metadata',
      groupId: 'g',
      memberId: k.memberId,
      value: { ...memberMetadataValue(p.consumer.group('g')!.members.get(k.memberId)!), classicMemberMetadata: { sessionTimeoutMs: 10_000, supportedProtocols: [{ name: 'range', metadata: Buffer.from([0]) }] } },
    });
    const before = p.groupLog.records.length;
    const res = await p.consumer.heartbeat(hb('g', C, -1), HB_CLIENT);
    expect(res.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(res.errorMessage).toBe("Cannot downgrade the classic group g: Buffer underflow while parsing consumer protocol's header.");
    expect(p.groupLog.records.length).toBe(before);
    expect(p.consumer.group('g')!.numMembers).toBe(2);
    expect(p.classic.classicGroupStatus('g')).toBe('none');
    p.shutdown();
  });
});


describe('static classic members replacing each other inside a consumer group', () => {
  it('a classic member taking the instance id of the last KIP-848 member downgrades the group without a rebalance', async () => {
    const p = coordinators();
    await consumerMemberJoins(p, { instanceId: 'inst-c' });
    const k = await classicMemberJoins(p);
    const group = p.consumer.group('g')!;
    const epoch = group.groupEpoch;
    const cTarget = targetOf(p, C);
    const before = p.groupLog.records.length;

    const join = await p.consumer.classicJoin(joinRequest({ memberId: '', groupInstanceId: 'inst-c', sessionTimeoutMs: 15_000, protocols: [{ name: 'range', metadata: subscription(['t']) }] }), CLIENT);
    expect(join).toMatchObject({ errorCode: ErrorCode.NONE, generationId: epoch, protocolType: 'consumer', protocolName: 'range', leader: '', members: [] });
    const newId = join.memberId;
    expect(newId).not.toBe(C);
    expect(p.groupLog.records.slice(before).map(describeRecord)).toEqual([
      // The replaced member's records, the new member taking its target and assignment.
      `cg-current-assignment:${C}:null`,
      `cg-target-member:${C}:null`,
      `cg-member-metadata:${C}:null`,
      `cg-member-metadata:${newId}:value`,
      `cg-target-member:${newId}:value`,
      `cg-current-assignment:${newId}:value`,
      // The member now uses the classic protocol and is reconciled to the current target.
      `cg-member-metadata:${newId}:value`,
      `cg-current-assignment:${newId}:value`,
      // The consumer group goes, the classic group comes.
      `cg-current-assignment:${k.memberId}:null`,
      `cg-current-assignment:${newId}:null`,
      `cg-target-member:${k.memberId}:null`,
      `cg-target-member:${newId}:null`,
      'cg-target-metadata::null',
      `cg-member-metadata:${k.memberId}:null`,
      `cg-member-metadata:${newId}:null`,
      'cg-partition-metadata::null',
      'cg-metadata::null',
      'group-metadata::value',
    ]);
    const g = p.classic.group('g')!;
    expect(g.state).toBe('Stable');
    expect(g.generationId).toBe(epoch);
    expect(g.allMembers().map((m) => [m.memberId, m.groupInstanceId, m.sessionTimeoutMs])).toEqual([
      [k.memberId, null, 10_000],
      [newId, 'inst-c', 15_000],
    ]);
    expect(g.leaderId).toBe(k.memberId);
    // Its SyncGroup (now served by the classic group) returns the replaced member's target.
    const sync = await p.classic.syncGroup(syncRequest({ memberId: newId, groupInstanceId: 'inst-c', generationId: join.generationId }), { apiVersion: 3 });
    expect(sync.errorCode).toBe(ErrorCode.NONE);
    expect(decodeAssignment(sync.assignment).partitions).toEqual({ t: cTarget });
    p.shutdown();
  });

  it('with a stale target (the replacement changes the subscription) the downgraded group rebalances', async () => {
    const p = coordinators();
    await consumerMemberJoins(p, { instanceId: 'inst-c' });
    await classicMemberJoins(p);
    const epoch = p.consumer.group('g')!.groupEpoch;
    const before = p.groupLog.records.length;
    const join = await p.consumer.classicJoin(joinRequest({ memberId: '', groupInstanceId: 'inst-c', protocols: [{ name: 'range', metadata: subscription(['t', 'u']) }] }), CLIENT);
    // Not reconciled: the generation is the replacement's epoch 0.
    expect(join).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 0 });
    const written = p.groupLog.records.slice(before).map(describeRecord);
    expect(written.slice(6, 8)).toEqual([`cg-member-metadata:${join.memberId}:value`, 'cg-metadata::value']);
    expect(written[8]).toBe(`cg-current-assignment:${[...p.classic.group('g')!.allMembers()][0]!.memberId}:null`);
    const g = p.classic.group('g')!;
    expect(g.state).toBe('PreparingRebalance');
    // The generation is the group epoch before the join's bump.
    expect(g.generationId).toBe(epoch);
    expect(p.groupLog.groupMetadata('g').at(-1)?.generation).toBe(epoch);
    p.shutdown();
  });

  it('replaces a classic static member without downgrading while a KIP-848 member remains; fences a known member id mismatch', async () => {
    const p = coordinators();
    await consumerMemberJoins(p);
    const s = await classicMemberJoins(p, { groupInstanceId: 'inst-s' });
    const sTarget = targetOf(p, s.memberId);
    const sAssigned = p.consumer.group('g')!.members.get(s.memberId)!.assigned;
    const join = await p.consumer.classicJoin(joinRequest({ memberId: '', groupInstanceId: 'inst-s', protocols: [{ name: 'range', metadata: subscription(['t']) }] }), CLIENT);
    expect(join.errorCode).toBe(ErrorCode.NONE);
    const group = p.consumer.group('g')!;
    expect(group.members.has(s.memberId)).toBe(false);
    expect(group.staticMember('inst-s')!.memberId).toBe(join.memberId);
    expect(targetOf(p, join.memberId)).toEqual(sTarget);
    expect(group.members.get(join.memberId)!.assigned).toEqual(sAssigned);
    expect(p.classic.classicGroupStatus('g')).toBe('none');
    // The old member id is fenced; an unknown instance id with a member id is unknown.
    expect((await p.consumer.classicJoin(joinRequest({ memberId: s.memberId, groupInstanceId: 'inst-s', protocols: [{ name: 'range', metadata: subscription(['t']) }] }), CLIENT)).errorCode).toBe(
      ErrorCode.FENCED_INSTANCE_ID,
    );
    expect((await p.consumer.classicJoin(joinRequest({ memberId: 'someone', groupInstanceId: 'inst-x', protocols: [{ name: 'range', metadata: subscription(['t']) }] }), CLIENT)).errorCode).toBe(
      ErrorCode.UNKNOWN_MEMBER_ID,
    );
    // The new member syncs at its epoch and keeps its session.
    const sync = await p.consumer.classicSync(syncRequest({ memberId: join.memberId, groupInstanceId: 'inst-s', generationId: join.generationId, protocolType: 'consumer', protocolName: 'range' }));
    expect(sync.errorCode).toBe(ErrorCode.NONE);
    p.shutdown();
  });

  it('a classic static member replacing a KIP-848 static member subscribed by regex subscribes by names only (the regex goes)', async () => {
    const p = coordinators();
    await consumerMemberJoins(p);
    const R = 'regex-member-aaaaaaaaa';
    expect((await p.consumer.heartbeat(hb('g', R, 0, { instanceId: 'inst-r', rebalanceTimeoutMs: 30000, subscribedTopicRegex: '^t$', topicPartitions: [] }), HB_CLIENT)).errorCode).toBe(ErrorCode.NONE);
    expect(p.consumer.group('g')!.members.get(R)!.subscribedTopicRegex).toBe('^t$');
    const epochBefore = p.consumer.group('g')!.groupEpoch;
    const join = await p.consumer.classicJoin(joinRequest({ memberId: '', groupInstanceId: 'inst-r', protocols: [{ name: 'range', metadata: subscription(['t']) }] }), CLIENT);
    expect(join.errorCode).toBe(ErrorCode.NONE);
    const group = p.consumer.group('g')!;
    const replaced = group.staticMember('inst-r')!;
    expect(replaced.memberId).toBe(join.memberId);
    expect(replaced.subscribedTopicRegex).toBe('');
    expect(replaced.subscribedTopicNames).toEqual(['t']);
    // Its regex had no other subscriber: tombstoned, and the classic join bumps the epoch.
    expect(p.groupLog.records.some((r) => r.kind === 'cg-regex' && r.regex === '^t$' && r.value === null)).toBe(true);
    expect(group.groupEpoch).toBe(epochBefore + 1);
    p.shutdown();
  });
});

describe('classic members inside a consumer group', () => {
  it('a classic member that does not send SyncGroup within its rebalance timeout is fenced; SyncGroup cancels the timer', async () => {
    const p = coordinators();
    await consumerMemberJoins(p);
    const silentJoin = await classicMemberJoins(p, { sessionTimeoutMs: 60_000, rebalanceTimeoutMs: 5_000 }, false);
    const synced = await classicMemberJoins(p, { sessionTimeoutMs: 60_000, rebalanceTimeoutMs: 5_000 }, true);
    const epoch = p.consumer.group('g')!.groupEpoch;
    const before = p.groupLog.records.length;
    p.time.advance(4_999);
    expect(p.consumer.group('g')!.members.has(silentJoin.memberId)).toBe(true);
    p.time.advance(1);
    await settle();
    const group = p.consumer.group('g')!;
    expect(group.members.has(silentJoin.memberId)).toBe(false);
    expect(group.members.has(synced.memberId)).toBe(true);
    expect(group.groupEpoch).toBe(epoch + 1);
    expect(p.groupLog.records.slice(before).map(describeRecord).slice(0, 4)).toEqual([
      `cg-current-assignment:${silentJoin.memberId}:null`,
      `cg-target-member:${silentJoin.memberId}:null`,
      `cg-member-metadata:${silentJoin.memberId}:null`,
      'cg-metadata::value',
    ]);
    p.time.advance(30_000);
    expect(p.consumer.group('g')!.members.has(synced.memberId)).toBe(true);
    p.shutdown();
  });

  it('a dynamic classic member joining with a member id the group does not know is added (createIfNotExists)', async () => {
    const p = coordinators();
    await consumerMemberJoins(p);
    const join = await p.consumer.classicJoin(joinRequest({ memberId: 'my-own-id', protocols: [{ name: 'range', metadata: subscription(['t']) }] }), CLIENT);
    expect(join).toMatchObject({ errorCode: ErrorCode.NONE, memberId: 'my-own-id' });
    expect(p.consumer.group('g')!.members.has('my-own-id')).toBe(true);
    p.shutdown();
  });

  it('a classic member whose protocols share none with the classic members gets INCONSISTENT_GROUP_PROTOCOL', async () => {
    const p = coordinators();
    await consumerMemberJoins(p);
    await classicMemberJoins(p);
    const join = await p.consumer.classicJoin(joinRequest({ memberId: 'other', protocols: [{ name: 'roundrobin', metadata: subscription(['t']) }] }), CLIENT);
    expect(join.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    p.shutdown();
  });
});
