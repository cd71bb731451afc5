/**
 * KIP-848 consumer groups over the raw protocol against a real server: revocation ordering,
 * epoch fencing, OffsetCommit v9 member epochs (KIP-1251), restart, session timeout (fake time),
 * ConsumerGroupDescribe, ListGroups, DescribeGroups and validation errors.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { ServerHandle } from '../../src/index.js';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer, tempDataDir } from '../support/server.js';
import { FakeTime } from '../support/fake-time.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ConsumerGroupHeartbeatRequest } from '../../src/protocol/messages/ConsumerGroupHeartbeatRequest.js';
import { hb } from '../support/kip848-group.js';
import { MemberState } from '../../src/coordinator/consumer/member.js';
import { setReceivedRequestsQueue } from '../../src/util/received-requests.js';
import { runBehindWaiting } from '../../src/server/turn-budget.js';

const CONFIG = {
  'group.consumer.session.timeout.ms': 3000,
  'group.consumer.min.session.timeout.ms': 1000,
  'group.consumer.heartbeat.interval.ms': 200,
  'group.consumer.min.heartbeat.interval.ms': 100,
  'group.consumer.assignment.interval.ms': 0,
};

const uuid = () => randomBytes(16).toString('base64url');

type Owned = Array<{ topicId: string; partitions: number[] }>;


function joinReq(groupId: string, memberId: string, topics: string[], extra: Partial<ConsumerGroupHeartbeatRequest> = {}) {
  return hb(groupId, memberId, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: topics, topicPartitions: [], ...extra });
}

const partitionsOf = (a: { topicPartitions: Owned } | null): number[] => (a ? a.topicPartitions.flatMap((t) => t.partitions).sort((x, y) => x - y) : []);

describe('KIP-848 consumer groups (raw protocol)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  /** Always on a manual clock: the 3 s sessions must not expire while a loaded machine is slow between two requests. */
  async function start(options: { time?: FakeTime; dataDir?: string; config?: Record<string, string | number> } = {}) {
    const { time = new FakeTime(Date.now()), dataDir } = options;
    return startClosableServer(cleanups, { config: { ...CONFIG, ...options.config }, time, ...(dataDir ? { dataDir } : {}) }, 'kmc-cg-');
  }

  async function client(server: ServerHandle) {
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    return c;
  }

  function createTopic(server: ServerHandle, name: string, partitions: number) {
    return server.broker.topics.create(name, partitions);
  }

  it('advertises ConsumerGroupHeartbeat v0-1 and ConsumerGroupDescribe v0-1', async () => {
    const { server } = await start();
    const c = await client(server);
    const res = await c.send(18, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
    expect(res.apiKeys.find((k: { apiKey: number }) => k.apiKey === 68)).toEqual({ apiKey: 68, minVersion: 0, maxVersion: 1 });
    expect(res.apiKeys.find((k: { apiKey: number }) => k.apiKey === 69)).toEqual({ apiKey: 69, minVersion: 0, maxVersion: 1 });
  });

  it('validates requests as Kafka does', async () => {
    const { server } = await start();
    createTopic(server, 'vt', 1);
    const c = await client(server);
    expect((await c.send(68, 1, joinReq('g', '', ['vt']))).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await c.send(68, 1, joinReq(' ', uuid(), ['vt']))).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await c.send(68, 1, joinReq('g', uuid(), ['vt'], { rebalanceTimeoutMs: -1 }))).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await c.send(68, 1, hb('g', uuid(), -3))).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await c.send(68, 1, hb('g', uuid(), -2))).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await c.send(68, 1, joinReq('g', uuid(), ['vt'], { serverAssignor: 'sticky' }))).errorCode).toBe(ErrorCode.UNSUPPORTED_ASSIGNOR);
    expect((await c.send(68, 1, joinReq('g', uuid(), [], { subscribedTopicNames: null, subscribedTopicRegex: '(a' }))).errorCode).toBe(ErrorCode.INVALID_REGULAR_EXPRESSION);
    // Kafka 4.3.1: a heartbeat goes through getOrMaybeCreateConsumerGroup ("Consumer group X not found."),
    // a leave through consumerGroup -> group ("Group X not found.").
    expect(await c.send(68, 1, hb('missing', uuid(), 3))).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Consumer group missing not found.' });
    expect(await c.send(68, 1, hb('missing', uuid(), -1))).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group missing not found.' });
    // v0: an empty member id on join gets a coordinator-generated one.
    const v0 = await c.send(68, 0, joinReq('g0', '', ['vt']));
    expect(v0.errorCode).toBe(0);
    expect(v0.memberId).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('never gives a partition to a new owner before the old owner released it; stale epochs are fenced', async () => {
    const { server } = await start();
    const topic = createTopic(server, 'rev', 2);
    const c = await client(server);
    const g = 'rev-group';
    const a = uuid();
    const b = uuid();
    const ra = await c.send(68, 1, joinReq(g, a, ['rev']));
    expect(ra.errorCode).toBe(0);
    expect(ra.memberEpoch).toBe(2);
    expect(partitionsOf(ra.assignment)).toEqual([0, 1]);
    const ownedA: Owned = [{ topicId: topic.topicId, partitions: [0, 1] }];
    // A acknowledges both partitions.
    expect((await c.send(68, 1, hb(g, a, 2, { topicPartitions: ownedA }))).errorCode).toBe(0);

    // B joins: the target gives it one partition, still owned by A.
    const rb = await c.send(68, 1, joinReq(g, b, ['rev']));
    expect(rb.errorCode).toBe(0);
    expect(rb.memberEpoch).toBe(3);
    expect(partitionsOf(rb.assignment)).toEqual([]);
    const describe1 = (await c.send(69, 1, { groupIds: [g], includeAuthorizedOperations: false })).groups[0]!;
    const targetB = describe1.members.find((m: { memberId: string }) => m.memberId === b)!.targetAssignment.topicPartitions.flatMap((t: { partitions: number[] }) => t.partitions);
    expect(targetB).toHaveLength(1);
    const moving = targetB[0]!;
    const staying = 1 - moving;

    // A still reports both: it must revoke `moving`, keeps its epoch, is told only `staying`.
    const ra2 = await c.send(68, 1, hb(g, a, 2, { topicPartitions: ownedA }));
    expect(ra2.memberEpoch).toBe(2);
    expect(partitionsOf(ra2.assignment)).toEqual([staying]);
    // B heartbeats while A still owns `moving`: B never sees it.
    for (let i = 0; i < 3; i++) {
      const r = await c.send(68, 1, hb(g, b, 3, { topicPartitions: [] }));
      expect(r.errorCode).toBe(0);
      expect(partitionsOf(r.assignment)).not.toContain(moving);
    }
    const stateA = server.broker.consumer.group(g)!.members.get(a)!;
    expect(stateA.state).toBe(1); // UNREVOKED_PARTITIONS
    expect([...stateA.pendingRevocation.get(topic.topicId)!.keys()]).toEqual([moving]);
    const describe2 = (await c.send(69, 1, { groupIds: [g], includeAuthorizedOperations: false })).groups[0]!;
    expect(describe2.groupState).toBe('Reconciling');

    // A releases it and moves to epoch 3; then B gets it.
    const ra3 = await c.send(68, 1, hb(g, a, 2, { topicPartitions: [{ topicId: topic.topicId, partitions: [staying] }] }));
    expect(ra3.memberEpoch).toBe(3);
    const rb2 = await c.send(68, 1, hb(g, b, 3, { topicPartitions: [] }));
    expect(partitionsOf(rb2.assignment)).toEqual([moving]);
    expect((await c.send(69, 1, { groupIds: [g], includeAuthorizedOperations: false })).groups[0]!.groupState).toBe('Stable');

    // Epoch fencing: a greater epoch, and a smaller one that is not the previous epoch with owned ⊆ assigned.
    expect((await c.send(68, 1, hb(g, a, 8, { topicPartitions: [] }))).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
    expect((await c.send(68, 1, hb(g, b, 2, { topicPartitions: [] }))).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
    // The previous epoch with owned ⊆ assigned is accepted (a lost response).
    expect((await c.send(68, 1, hb(g, a, 2, { topicPartitions: [{ topicId: topic.topicId, partitions: [staying] }] }))).errorCode).toBe(0);
    expect((await c.send(68, 1, hb(g, uuid(), 3, { topicPartitions: [] }))).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);

    // Leave: B goes, A gets both back once it heartbeats.
    const leave = await c.send(68, 1, hb(g, b, -1));
    expect(leave.errorCode).toBe(0);
    expect(leave.memberEpoch).toBe(-1);
    const ra4 = await c.send(68, 1, hb(g, a, 3, { topicPartitions: [{ topicId: topic.topicId, partitions: [staying] }] }));
    expect(ra4.memberEpoch).toBe(4);
    expect(partitionsOf(ra4.assignment)).toEqual([0, 1]);
  });

  it('OffsetCommit v9: STALE_MEMBER_EPOCH for a partition not held since the old epoch, accepted for one held (KIP-1251)', async () => {
    const { server } = await start();
    const topic = createTopic(server, 'oc', 2);
    const c = await client(server);
    const g = 'oc-group';
    const a = uuid();
    const b = uuid();
    await c.send(68, 1, joinReq(g, a, ['oc'])); // A: epoch 2, partitions 0 and 1
    await c.send(68, 1, hb(g, a, 2, { topicPartitions: [{ topicId: topic.topicId, partitions: [0, 1] }] }));
    await c.send(68, 1, joinReq(g, b, ['oc'])); // epoch 3: one partition moves to B
    const target = server.broker.consumer.group(g)!.targetOf(a).get(topic.topicId)!;
    const kept = [...target][0]!;
    const moving = 1 - kept;
    await c.send(68, 1, hb(g, a, 2, { topicPartitions: [{ topicId: topic.topicId, partitions: [kept] }] })); // A -> epoch 3
    const rb = await c.send(68, 1, hb(g, b, 3, { topicPartitions: [] }));
    expect(partitionsOf(rb.assignment)).toEqual([moving]);
    await c.send(68, 1, hb(g, b, 3, { topicPartitions: [{ topicId: topic.topicId, partitions: [moving] }] }));
    await c.send(68, 1, hb(g, a, 3, { topicPartitions: [{ topicId: topic.topicId, partitions: [kept] }] }));
    // B now joins a third member? No: make A's epoch move on by a rebalance that keeps its partition.
    const cm = uuid();
    await c.send(68, 1, joinReq(g, cm, ['oc'])); // epoch 4: 2 partitions, 3 members
    await c.send(68, 1, hb(g, a, 3, { topicPartitions: [{ topicId: topic.topicId, partitions: [kept] }] }));
    await c.send(68, 1, hb(g, b, 3, { topicPartitions: [{ topicId: topic.topicId, partitions: [moving] }] }));
    const group = server.broker.consumer.group(g)!;
    // Find a member at epoch 4 that kept a partition assigned at epoch <= 3.
    const holder = [...group.members.values()].find((m) => m.memberEpoch === 4 && [...(m.assigned.get(topic.topicId)?.values() ?? [])].some((e) => e <= 3));
    expect(holder).toBeDefined();
    const heldPartition = [...holder!.assigned.get(topic.topicId)!.entries()].find(([, e]) => e <= 3)![0];
    const otherPartition = 1 - heldPartition;

    const commit = (memberId: string, epoch: number, partition: number) =>
      c.send(8, 9, {
        groupId: g,
        generationIdOrMemberEpoch: epoch,
        memberId,
        groupInstanceId: null,
        retentionTimeMs: -1n,
        topics: [{ name: 'oc', topicId: '', partitions: [{ partitionIndex: partition, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
      });
    // Current epoch: accepted.
    expect((await commit(holder!.memberId, 4, heldPartition)).topics[0]!.partitions[0]!.errorCode).toBe(0);
    // Older epoch (3) for a partition held since epoch <= 3: accepted (KIP-1251).
    expect((await commit(holder!.memberId, 3, heldPartition)).topics[0]!.partitions[0]!.errorCode).toBe(0);
    // Older epoch for a partition it does not hold: STALE_MEMBER_EPOCH.
    expect((await commit(holder!.memberId, 3, otherPartition)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.STALE_MEMBER_EPOCH);
    // An epoch ahead of the member's: STALE_MEMBER_EPOCH.
    expect((await commit(holder!.memberId, 10, heldPartition)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.STALE_MEMBER_EPOCH);
    // Unknown member: UNKNOWN_MEMBER_ID; a consumer-protocol member on a classic version: UNSUPPORTED_VERSION.
    expect((await commit(uuid(), 4, heldPartition)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const v8 = await c.send(8, 8, {
      groupId: g, generationIdOrMemberEpoch: 4, memberId: holder!.memberId, groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: 'oc', topicId: '', partitions: [{ partitionIndex: heldPartition, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    });
    expect(v8.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    // OffsetFetch v9 checks member id and epoch.
    const fetch = (memberId: string | null, memberEpoch: number) =>
      c.send(9, 9, { groupId: '', topics: [], requireStable: false, groups: [{ groupId: g, memberId, memberEpoch, topics: [{ name: 'oc', topicId: '', partitionIndexes: [heldPartition] }] }] });
    const ok = await fetch(holder!.memberId, 4);
    expect(ok.groups[0]!.errorCode).toBe(0);
    expect(ok.groups[0]!.topics[0]!.partitions[0]!.committedOffset).toBe(5n);
    expect((await fetch(holder!.memberId, 2)).groups[0]!.errorCode).toBe(ErrorCode.STALE_MEMBER_EPOCH);
    expect((await fetch(uuid(), 4)).groups[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await fetch(null, -1)).groups[0]!.errorCode).toBe(0);
  });

  it('keeps epochs and assignments across a restart; members heartbeat on without rejoining', async () => {
    const data = tempDataDir('kmc-cg-restart-');
    cleanups.push(() => data.remove());
    const first = await start({ dataDir: data.dir });
    const topic = createTopic(first.server, 'rs', 4);
    let c = await client(first.server);
    const g = 'rs-group';
    const a = uuid();
    const b = uuid();
    await c.send(68, 1, joinReq(g, a, ['rs'], { serverAssignor: 'range' }));
    await c.send(68, 1, hb(g, a, 2, { topicPartitions: [{ topicId: topic.topicId, partitions: [0, 1, 2, 3] }] }));
    await c.send(68, 1, joinReq(g, b, ['rs'], { serverAssignor: 'range' }));
    await c.send(68, 1, hb(g, a, 2, { topicPartitions: [{ topicId: topic.topicId, partitions: [0, 1, 2, 3] }] }));
    const keptA = [...first.server.broker.consumer.group(g)!.targetOf(a).get(topic.topicId)!].sort();
    const forB = [0, 1, 2, 3].filter((p) => !keptA.includes(p));
    // Range: contiguous halves.
    expect([[0, 1], [2, 3]]).toContainEqual(keptA);
    await c.send(68, 1, hb(g, a, 2, { topicPartitions: [{ topicId: topic.topicId, partitions: keptA }] }));
    const rb = await c.send(68, 1, hb(g, b, 3, { topicPartitions: [] }));
    expect(partitionsOf(rb.assignment)).toEqual(forB);
    const before = (await c.send(69, 1, { groupIds: [g], includeAuthorizedOperations: false })).groups[0]!;
    expect(before.groupState).toBe('Stable');
    expect(before.assignorName).toBe('range');
    await first.close();

    const second = await start({ dataDir: data.dir });
    c = await client(second.server);
    const after = (await c.send(69, 1, { groupIds: [g], includeAuthorizedOperations: false })).groups[0]!;
    const summary = (d: typeof before) => ({
      state: d.groupState,
      groupEpoch: d.groupEpoch,
      assignmentEpoch: d.assignmentEpoch,
      members: d.members
        .map((m: { memberId: string; memberEpoch: number; assignment: { topicPartitions: Owned } }) => ({ id: m.memberId, epoch: m.memberEpoch, parts: partitionsOf(m.assignment) }))
        .sort((x: { id: string }, y: { id: string }) => (x.id < y.id ? -1 : 1)),
    });
    expect(summary(after)).toEqual(summary(before));
    // Both members continue at their epochs, with no change.
    const ha = await c.send(68, 1, hb(g, a, 3, { topicPartitions: [{ topicId: topic.topicId, partitions: keptA }] }));
    expect(ha.errorCode).toBe(0);
    expect(ha.memberEpoch).toBe(3);
    const hb2 = await c.send(68, 1, hb(g, b, 3, { topicPartitions: [{ topicId: topic.topicId, partitions: forB }] }));
    expect(hb2.errorCode).toBe(0);
    expect(hb2.memberEpoch).toBe(3);
    expect(second.server.broker.consumer.group(g)!.groupEpoch).toBe(3);
  });

  it('removes a member after the session timeout and gives its partitions to the others (fake time)', async () => {
    const time = new FakeTime(Date.now());
    const { server } = await start({ time });
    const topic = createTopic(server, 'st', 4);
    const c = await client(server);
    const g = 'st-group';
    const a = uuid();
    const b = uuid();
    await c.send(68, 1, joinReq(g, a, ['st']));
    await c.send(68, 1, hb(g, a, 2, { topicPartitions: [{ topicId: topic.topicId, partitions: [0, 1, 2, 3] }] }));
    await c.send(68, 1, joinReq(g, b, ['st']));
    const ra = await c.send(68, 1, hb(g, a, 2, { topicPartitions: [{ topicId: topic.topicId, partitions: [0, 1, 2, 3] }] }));
    const keptA = partitionsOf(ra.assignment);
    expect(keptA).toHaveLength(2);
    await c.send(68, 1, hb(g, a, 2, { topicPartitions: [{ topicId: topic.topicId, partitions: keptA }] }));
    const rb = await c.send(68, 1, hb(g, b, 3, { topicPartitions: [] }));
    expect(partitionsOf(rb.assignment)).toHaveLength(2);

    // A keeps heartbeating; B goes silent past the session timeout (3000 ms).
    let seen: number[] = keptA;
    for (let i = 0; i < 4; i++) {
      time.advance(1000);
      const r = await c.send(68, 1, hb(g, a, 3, { topicPartitions: [{ topicId: topic.topicId, partitions: keptA }] }));
      expect(r.errorCode).toBe(0);
      if (r.assignment) seen = partitionsOf(r.assignment);
    }
    expect(seen).toEqual([0, 1, 2, 3]);
    const group = server.broker.consumer.group(g)!;
    expect([...group.members.keys()]).toEqual([a]);
    expect(group.members.get(a)!.memberEpoch).toBe(4);
    expect([...group.members.get(a)!.assigned.get(topic.topicId)!.keys()].sort()).toEqual([0, 1, 2, 3]);
    expect((await c.send(68, 1, hb(g, b, 3, { topicPartitions: [] }))).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a heartbeat read before the session expired keeps the member: the expiry runs behind it, as Kafka queues a timer operation (fake time)', async () => {
    const time = new FakeTime(Date.now());
    const { server } = await start({ time });
    const topic = createTopic(server, 'sb', 2);
    const c = await client(server);
    const g = 'sb-group';
    const a = uuid();
    const epoch = (await c.send(68, 1, joinReq(g, a, ['sb']))).memberEpoch;
    const owned = [{ topicId: topic.topicId, partitions: [0, 1] }];
    expect((await c.send(68, 1, hb(g, a, epoch, { topicPartitions: owned }))).errorCode).toBe(0);
    // The server's queue of requests read and not yet handled, held by the test: the heartbeat
    // below stands for one read in the turn the session timer expires in.
    const read: Array<() => void> = [];
    setReceivedRequestsQueue((fn) => read.push(fn));
    try {
      time.advance(3000);
      expect(read).toHaveLength(1); // the expiry's operation waits
      expect(server.broker.consumer.group(g)!.members.has(a)).toBe(true);
      const r = await c.send(68, 1, hb(g, a, epoch, { topicPartitions: owned }));
      expect([r.errorCode, r.memberEpoch]).toEqual([0, epoch]);
      read.shift()!(); // its timer was replaced by the heartbeat's: skipped
      await server.broker.runtime.flush();
      expect([...server.broker.consumer.group(g)!.members.keys()]).toEqual([a]);
    } finally {
      setReceivedRequestsQueue(runBehindWaiting);
    }
    // Silent from here, the member's session (restarted by that heartbeat) expires.
    time.advance(3000);
    await server.broker.runtime.flush();
    expect(server.broker.consumer.group(g)!.members.size).toBe(0);
  });

  it("a group's own consumer.heartbeat.interval.ms and consumer.session.timeout.ms (GROUP configs) apply to it alone (fake time)", async () => {
    const time = new FakeTime(Date.now());
    const { server } = await start({ time });
    createTopic(server, 'gc', 2);
    const c = await client(server);
    const own = 'gc-own';
    const other = 'gc-other';
    const altered = await c.send(44, 1, {
      resources: [{ resourceType: 32, resourceName: own, configs: [{ name: 'consumer.session.timeout.ms', configOperation: 0, value: '1500' }, { name: 'consumer.heartbeat.interval.ms', configOperation: 0, value: '150' }] }],
      validateOnly: false,
    });
    expect(altered.responses[0]!.errorCode).toBe(0);
    const a = uuid();
    const b = uuid();
    const joinedA = await c.send(68, 1, joinReq(own, a, ['gc']));
    const joinedB = await c.send(68, 1, joinReq(other, b, ['gc']));
    expect([joinedA.heartbeatIntervalMs, joinedB.heartbeatIntervalMs]).toEqual([150, 200]);
    // Past the group's 1500 ms but within the broker's 3000 ms: only the first member is gone.
    time.advance(2000);
    const owned = (r: typeof joinedA) => r.assignment!.topicPartitions;
    expect((await c.send(68, 1, hb(own, a, joinedA.memberEpoch, { topicPartitions: owned(joinedA) }))).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await c.send(68, 1, hb(other, b, joinedB.memberEpoch, { topicPartitions: owned(joinedB) }))).errorCode).toBe(ErrorCode.NONE);
  });

  it('lists consumer groups with their type; DescribeGroups answers for them as for non-classic groups; empty groups convert', async () => {
    const { server } = await start();
    createTopic(server, 'lt', 1);
    const c = await client(server);
    const m = uuid();
    await c.send(68, 1, joinReq('lg', m, ['lt']));
    const list = await c.send(16, 5, { statesFilter: [], typesFilter: ['consumer'] });
    expect(list.groups).toEqual([{ groupId: 'lg', protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer' }]);
    expect((await c.send(16, 5, { statesFilter: [], typesFilter: ['classic'] })).groups).toEqual([]);
    const d6 = (await c.send(15, 6, { groups: ['lg'], includeAuthorizedOperations: false })).groups[0]!;
    expect(d6.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(d6.groupState).toBe('Dead');
    const d5 = (await c.send(15, 5, { groups: ['lg'], includeAuthorizedOperations: false })).groups[0]!;
    expect(d5.errorCode).toBe(0);
    expect(d5.groupState).toBe('Dead');
    expect((await c.send(69, 1, { groupIds: ['nope'], includeAuthorizedOperations: false })).groups[0]!.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    // Non-empty: cannot delete. After the member leaves: deleted.
    expect((await c.send(42, 2, { groupsNames: ['lg'] })).results[0]!.errorCode).toBe(ErrorCode.NON_EMPTY_GROUP);
    await c.send(68, 1, hb('lg', m, -1));
    expect((await c.send(42, 2, { groupsNames: ['lg'] })).results[0]!.errorCode).toBe(0);
    expect(server.broker.consumer.hasGroup('lg')).toBe(false);
  });

  it('static members: leave with -2 keeps the assignment, the same instance rejoins and inherits it; a live instance is UNRELEASED', async () => {
    const { server } = await start();
    const topic = createTopic(server, 'sm', 2);
    const c = await client(server);
    const g = 'sm-group';
    const a = uuid();
    const ra = await c.send(68, 1, joinReq(g, a, ['sm'], { instanceId: 'inst-1' }));
    expect(partitionsOf(ra.assignment)).toEqual([0, 1]);
    // Kafka 4.3.1's throwIfInstanceIdIsUnreleased / throwIfInstanceIdIsFenced: the requester first, the owner last.
    const b = uuid();
    expect(await c.send(68, 1, joinReq(g, b, ['sm'], { instanceId: 'inst-1' }))).toMatchObject({
      errorCode: ErrorCode.UNRELEASED_INSTANCE_ID, errorMessage: `Static member ${b} with instance id inst-1 cannot join the group because the instance id is owned by ${a} member.`,
    });
    expect(await c.send(68, 1, hb(g, b, 2, { instanceId: 'inst-1', topicPartitions: [] }))).toMatchObject({
      errorCode: ErrorCode.FENCED_INSTANCE_ID, errorMessage: `Static member ${b} with instance id inst-1 was fenced by member ${a}.`,
    });
    const left = await c.send(68, 1, hb(g, a, -2, { instanceId: 'inst-1' }));
    expect(left.memberEpoch).toBe(-2);
    // Kafka keeps the assignment with its assignment epochs reset to 0 (KIP-1251).
    const parked = server.broker.consumer.group(g)!.members.get(a)!;
    expect(parked.memberEpoch).toBe(-2);
    expect([...parked.assigned.get(topic.topicId)!]).toEqual([
      [0, 0],
      [1, 0],
    ]);
    const a2 = uuid();
    const r = await c.send(68, 1, joinReq(g, a2, ['sm'], { instanceId: 'inst-1' }));
    expect(r.errorCode).toBe(0);
    expect(r.memberEpoch).toBe(2);
    expect(partitionsOf(r.assignment)).toEqual([0, 1]);
    expect([...server.broker.consumer.group(g)!.members.keys()]).toEqual([a2]);
  });

  it('a member that unsubscribes a topic gives up its partitions at once, before the next target (group.consumer.assignment.interval.ms)', async () => {
    const time = new FakeTime(Date.now());
    const { server } = await start({ time, config: { 'group.consumer.assignment.interval.ms': 5000, 'group.consumer.session.timeout.ms': 20000 } });
    const u1 = createTopic(server, 'unsub-1', 2);
    const u2 = createTopic(server, 'unsub-2', 2);
    const c = await client(server);
    const g = 'unsub-group';
    const a = uuid();
    const owned = (t1: number[], t2: number[]) => [
      { topicId: u1.topicId, partitions: t1 },
      { topicId: u2.topicId, partitions: t2 },
    ];
    const joined = await c.send(68, 1, joinReq(g, a, ['unsub-1', 'unsub-2']));
    const e = joined.memberEpoch; // a new group starts at epoch 1, so its first member gets 2
    expect(e).toBe(2);
    await c.send(68, 1, hb(g, a, e, { topicPartitions: owned([0, 1], [0, 1]) }));

    // Within the assignment interval: the group epoch moves on but no new target is computed, yet
    // the member's unsubscribed partitions are revoked now (Kafka's CurrentAssignmentBuilder).
    time.advance(100);
    const r = await c.send(68, 1, hb(g, a, e, { subscribedTopicNames: ['unsub-1'], topicPartitions: owned([0, 1], [0, 1]) }));
    expect(r.errorCode).toBe(0);
    expect(r.memberEpoch).toBe(e);
    expect(r.assignment!.topicPartitions).toEqual([{ topicId: u1.topicId, partitions: [0, 1] }]);
    const group = server.broker.consumer.group(g)!;
    expect(group.groupEpoch).toBe(e + 1);
    expect(group.assignmentEpoch).toBe(e);
    expect(group.members.get(a)!.state).toBe(MemberState.UNREVOKED_PARTITIONS);
    expect(group.currentPartitionEpoch(u2.topicId, 0)).toBe(e);

    // Released: the partitions are free for others although the target is still the old epoch's.
    const released = await c.send(68, 1, hb(g, a, e, { topicPartitions: owned([0, 1], []) }));
    expect(released.memberEpoch).toBe(e);
    expect(group.members.get(a)!.state).toBe(MemberState.STABLE);
    expect(group.currentPartitionEpoch(u2.topicId, 0)).toBe(-1);

    // After the interval the new target (epoch e + 1) holds only unsub-1.
    time.advance(5000);
    const next = await c.send(68, 1, hb(g, a, e, { topicPartitions: [{ topicId: u1.topicId, partitions: [0, 1] }] }));
    expect(next.memberEpoch).toBe(e + 1);
    expect(group.assignmentEpoch).toBe(e + 1);
    expect([...group.targetOf(a).keys()]).toEqual([u1.topicId]);
  });

  it('GROUP_MAX_SIZE_REACHED when group.consumer.max.size is reached; a regex member gets its partitions once the regex is resolved', async () => {
    const time = new FakeTime(Date.now());
    const { server } = await start({ time, config: { 'group.consumer.max.size': 1 } });
    createTopic(server, 'rx-a', 1);
    const c = await client(server);
    const m = uuid();
    // The regex is resolved off the heartbeat (see consumer-group-regex.test.ts): nothing yet.
    const r = await c.send(68, 1, joinReq('rx', m, [], { subscribedTopicNames: null, subscribedTopicRegex: 'rx-.*' }));
    expect(r.errorCode).toBe(0);
    expect(partitionsOf(r.assignment)).toEqual([]);
    expect((await c.send(68, 1, joinReq('rx', uuid(), ['rx-a']))).errorCode).toBe(ErrorCode.GROUP_MAX_SIZE_REACHED);
    time.advance(0);
    const r2 = await c.send(68, 1, hb('rx', m, r.memberEpoch, { topicPartitions: [] }));
    expect(r2.memberEpoch).toBe(r.memberEpoch + 1);
    expect(partitionsOf(r2.assignment)).toEqual([0]);
  });
});
