/**
 * Share groups (KIP-932, the group side) over the raw protocol against a real server:
 * ShareGroupHeartbeat validation, join with client-generated member ids, share-state
 * initialization before assignment, the `simple` assignor sharing partitions, fencing, leave,
 * session timeout on the manual clock, ShareGroupDescribe, ListGroups/DescribeGroups/
 * ConsumerGroupDescribe/DeleteGroups answers for share groups, FindCoordinator for share-state
 * keys, and the group rebuilt from its records after a restart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { ServerHandle } from '../../src/index.js';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer, tempDataDir } from '../support/server.js';
import { FakeTime } from '../support/fake-time.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import type { ShareGroupHeartbeatRequest } from '../../src/protocol/messages/ShareGroupHeartbeatRequest.js';
import { hb as consumerHb } from '../support/kip848-group.js';
import { setReceivedRequestsQueue } from '../../src/util/received-requests.js';
import { runBehindWaiting } from '../../src/server/turn-budget.js';

const CONFIG = {
  'group.share.session.timeout.ms': 3000,
  'group.share.min.session.timeout.ms': 1000,
  'group.share.heartbeat.interval.ms': 200,
  'group.share.min.heartbeat.interval.ms': 100,
  'group.share.assignment.interval.ms': 0,
};

/** A member id as KafkaShareConsumer makes one (`Uuid.randomUuid().toString()` is 22 chars; any ≤ 36 works). */
const memberId = () => randomUUID();

function hb(groupId: string, member: string, memberEpoch: number, topics: string[] | null = null, extra: Partial<ShareGroupHeartbeatRequest> = {}): ShareGroupHeartbeatRequest {
  return { groupId, memberId: member, memberEpoch, rackId: null, subscribedTopicNames: topics, ...extra };
}

const partitionsOf = (a: { topicPartitions: Array<{ partitions: number[] }> } | null): number[] =>
  a ? a.topicPartitions.flatMap((t) => t.partitions).sort((x, y) => x - y) : [];

/** Lets the initialization the heartbeat started (persister, then record 15) finish. */
async function initialized(server: ServerHandle): Promise<void> {
  await server.broker.share.initializationsSettled();
  await server.broker.runtime.flush();
}

describe('share groups (raw protocol)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  /**
   * Always on a manual clock: a member's session (3 s here) must not expire while a loaded machine
   * takes seconds between two requests (a new-user trial saw a member expire between its heartbeat
   * and the ListGroups after it, 8.9 s apart at load 25-40).
   */
  async function start(options: { time?: FakeTime; dataDir?: string } = {}) {
    const time = options.time ?? new FakeTime(Date.now());
    return startClosableServer(cleanups, { config: CONFIG, time, ...(options.dataDir ? { dataDir: options.dataDir } : {}) }, 'kmc-share-');
  }

  async function client(server: ServerHandle) {
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    return c;
  }

  it('advertises ShareGroupHeartbeat v1 and ShareGroupDescribe v1', async () => {
    const { server } = await start();
    const c = await client(server);
    const res = await c.send(18, 4, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
    expect(res.apiKeys.find((k: { apiKey: number }) => k.apiKey === 76)).toEqual({ apiKey: 76, minVersion: 1, maxVersion: 1 });
    expect(res.apiKeys.find((k: { apiKey: number }) => k.apiKey === 77)).toEqual({ apiKey: 77, minVersion: 1, maxVersion: 1 });
    // share.version as Kafka 4.3.1 advertises it: supported 0-1, finalized at 1.
    const named = <T extends { name: string }>(features: T[]) => features.filter((f) => f.name === 'share.version');
    expect(named(res.supportedFeatures)).toEqual([{ name: 'share.version', minVersion: 0, maxVersion: 1 }]);
    expect(named(res.finalizedFeatures)).toEqual([{ name: 'share.version', minVersionLevel: 1, maxVersionLevel: 1 }]);
    expect(res.finalizedFeaturesEpoch).toBe(1n);
    // KIP-1022: v3 leaves out supported ranges that start at 0.
    expect((await c.send(18, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' })).supportedFeatures).toEqual([]);
  });

  it('validates ShareGroupHeartbeat as Kafka 4.3 does', async () => {
    const { server } = await start();
    server.broker.topics.create('vt', 1);
    const c = await client(server);
    const err = async (req: ShareGroupHeartbeatRequest) => {
      const r = await c.send(76, 1, req);
      return [r.errorCode, r.errorMessage];
    };
    expect(await err(hb('g', '', 0, ['vt']))).toEqual([ErrorCode.INVALID_REQUEST, null]);
    expect(await err(hb('g', 'x'.repeat(37), 0, ['vt']))).toEqual([ErrorCode.INVALID_REQUEST, null]);
    expect(await err(hb('g', '   ', 0, ['vt']))).toEqual([ErrorCode.INVALID_REQUEST, "MemberId can't be empty."]);
    expect(await err(hb(' ', memberId(), 0, ['vt']))).toEqual([ErrorCode.INVALID_REQUEST, "GroupId can't be empty."]);
    expect(await err(hb('g', memberId(), 0, ['vt'], { rackId: ' ' }))).toEqual([ErrorCode.INVALID_REQUEST, "RackId can't be empty."]);
    expect(await err(hb('g', memberId(), 0, []))).toEqual([ErrorCode.INVALID_REQUEST, 'SubscribedTopicNames must be set in first request.']);
    expect(await err(hb('g', memberId(), 0, null))).toEqual([ErrorCode.INVALID_REQUEST, 'SubscribedTopicNames must be set in first request.']);
    expect(await err(hb('g', memberId(), -2))).toEqual([ErrorCode.INVALID_REQUEST, 'MemberEpoch is invalid.']);
    expect(await err(hb('missing', memberId(), 3))).toEqual([ErrorCode.GROUP_ID_NOT_FOUND, 'Share group missing not found.']);
    expect(await err(hb('missing', memberId(), -1))).toEqual([ErrorCode.GROUP_ID_NOT_FOUND, 'Group missing not found.']);
  });

  it('assigns a partition only once its share state is initialized, shares partitions between members, fences and leaves', async () => {
    const { server } = await start();
    const topic = server.broker.topics.create('sh', 2);
    const c = await client(server);
    const g = 'share-g';
    const a = memberId();
    const b = memberId();

    // Join: epoch 2 (a new group starts at 1), nothing assignable yet.
    const joined = await c.send(76, 1, hb(g, a, 0, ['sh']));
    expect(joined).toMatchObject({ errorCode: 0, memberId: a, memberEpoch: 2, heartbeatIntervalMs: 200 });
    expect(partitionsOf(joined.assignment)).toEqual([]);
    await initialized(server);
    const state = server.broker.share.group(g)!.stateMetadata!;
    expect([...state.initialized.get(topic.topicId)!.partitions].sort()).toEqual([0, 1]);
    expect(state.initializing.size).toBe(0);

    // The next heartbeat sees initialized partitions not yet assigned: epoch 3, both partitions.
    const second = await c.send(76, 1, hb(g, a, 2));
    expect(second).toMatchObject({ errorCode: 0, memberEpoch: 3 });
    expect(second.assignment!.topicPartitions).toEqual([{ topicId: topic.topicId, partitions: [0, 1] }]);
    // Nothing changed: no assignment in the answer.
    expect((await c.send(76, 1, hb(g, a, 3))).assignment).toBeNull();

    // B joins: each member gets one of the two partitions (sharing 1, one partition each).
    const bJoin = await c.send(76, 1, hb(g, b, 0, ['sh']));
    expect(bJoin).toMatchObject({ errorCode: 0, memberEpoch: 4 });
    const aNext = await c.send(76, 1, hb(g, a, 3));
    expect(aNext.memberEpoch).toBe(4);
    const pa = partitionsOf(aNext.assignment);
    const pb = partitionsOf(bJoin.assignment);
    expect(pa).toHaveLength(1);
    expect(pb).toHaveLength(1);
    expect([...pa, ...pb].sort()).toEqual([0, 1]);

    // Fencing: an epoch ahead of the coordinator's; one behind that is not the previous one.
    const ahead = await c.send(76, 1, hb(g, a, 9));
    expect(ahead.errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
    expect(ahead.errorMessage).toBe(
      'The share group member has a greater member epoch (9) than the one known by the group coordinator (4). The member must abandon all its partitions and rejoin.',
    );
    const behind = await c.send(76, 1, hb(g, a, 2));
    expect(behind.errorMessage).toBe(
      'The share group member has a smaller member epoch (2) than the one known by the group coordinator (4), and it does not match the previous member epoch (3). The member must abandon all its partitions and rejoin.',
    );
    expect((await c.send(76, 1, hb(g, a, 3))).errorCode).toBe(0);
    expect((await c.send(76, 1, hb(g, memberId(), 4))).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);

    // ShareGroupDescribe: both members, the simple assignor, Stable.
    // Kafka's order: the invalid "" first, then the groups by __consumer_offsets partition.
    const answered = (await c.send(77, 1, { groupIds: [g, 'nope', ''], includeAuthorizedOperations: true })).groups;
    expect(answered[0]).toMatchObject({ groupId: '', errorCode: ErrorCode.INVALID_GROUP_ID });
    const described = [g, 'nope', ''].map((id) => answered.find((x: { groupId: string }) => x.groupId === id)!);
    expect(described[0]!).toMatchObject({ errorCode: 0, groupId: g, groupState: 'Stable', groupEpoch: 4, assignmentEpoch: 4, assignorName: 'simple', authorizedOperations: 3400 });
    expect(described[0]!.members.map((m: { memberId: string }) => m.memberId).sort()).toEqual([a, b].sort());
    const descA = described[0]!.members.find((m: { memberId: string }) => m.memberId === a)!;
    expect(descA).toMatchObject({ memberEpoch: 4, clientId: 'raw-test', subscribedTopicNames: ['sh'], rackId: null });
    expect(descA.assignment.topicPartitions).toEqual([{ topicId: topic.topicId, topicName: 'sh', partitions: pa }]);
    expect(described[1]).toMatchObject({ groupId: 'nope', errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group nope not found.' });
    expect(described[2]).toMatchObject({ groupId: '', errorCode: ErrorCode.INVALID_GROUP_ID });

    // B leaves with -1: the answer echoes the epoch; A takes both partitions at the next epoch.
    const left = await c.send(76, 1, hb(g, b, -1));
    expect(left).toMatchObject({ errorCode: 0, memberId: b, memberEpoch: -1 });
    const alone = await c.send(76, 1, hb(g, a, 4));
    expect(alone.memberEpoch).toBe(5);
    expect(partitionsOf(alone.assignment)).toEqual([0, 1]);
  });

  it('answers the other group APIs for share groups as Kafka 4.3 does', async () => {
    const { server } = await start();
    server.broker.topics.create('ot', 1);
    const c = await client(server);
    const a = memberId();
    await c.send(76, 1, hb('sg', a, 0, ['ot']));
    await initialized(server);

    const listed = await c.send(16, 5, { statesFilter: [], typesFilter: [] });
    expect(listed.groups).toContainEqual({ groupId: 'sg', protocolType: 'share', groupState: 'Stable', groupType: 'share' });
    expect((await c.send(16, 5, { statesFilter: [], typesFilter: ['share'] })).groups).toEqual([{ groupId: 'sg', protocolType: 'share', groupState: 'Stable', groupType: 'share' }]);
    expect((await c.send(16, 5, { statesFilter: [], typesFilter: ['consumer'] })).groups).toEqual([]);
    expect((await c.send(16, 5, { statesFilter: ['empty'], typesFilter: ['share'] })).groups).toEqual([]);

    const dg = (await c.send(15, 6, { groups: ['sg'], includeAuthorizedOperations: false })).groups[0];
    expect(dg).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group sg is not a classic group.' });
    const cgd = (await c.send(69, 1, { groupIds: ['sg'], includeAuthorizedOperations: false })).groups[0];
    expect(cgd).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group sg is not a consumer group.' });
    const cgh = await c.send(68, 1, consumerHb('sg', memberId(), 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: ['ot'], topicPartitions: [] }));
    expect(cgh).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group sg is not a consumer group.' });
    const join = await c.send(11, 5, { groupId: 'sg', sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null });
    expect(join).toMatchObject({ errorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL, memberId: '' });

    // A consumer group's id is no share group.
    await c.send(68, 1, consumerHb('cg', memberId(), 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: ['ot'], topicPartitions: [] }));
    const wrong = await c.send(76, 1, hb('cg', memberId(), 0, ['ot']));
    expect(wrong).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group cg is not a share group.' });
    const sgd = (await c.send(77, 1, { groupIds: ['cg'], includeAuthorizedOperations: false })).groups[0];
    expect(sgd).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group cg is not a share group.' });

    // A group known only by the offsets an OffsetCommit of generation -1 committed (assign() and
    // commitSync(), kafka-consumer-groups --reset-offsets) is a classic group: no share group takes
    // its id, and its offsets stay (differential trial 29: Kafka 4.3.1 refuses, we took it over).
    const simple = await c.send(8, 9, { groupId: 'simple', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'ot', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: 42n, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
    expect(simple.topics[0]!.partitions[0]!.errorCode).toBe(0);
    expect(await c.send(76, 1, hb('simple', memberId(), 0, ['ot']))).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group simple is not a share group.' });
    const kept = await c.send(9, 9, { groupId: '', topics: [], groups: [{ groupId: 'simple', memberId: null, memberEpoch: -1, topics: null }], requireStable: false });
    expect(kept.groups[0]).toMatchObject({ errorCode: 0, topics: [{ name: 'ot', partitions: [{ partitionIndex: 0, committedOffset: 42n, errorCode: 0 }] }] });
    // OffsetFetch of a share group: no error, no offsets (Kafka's fetchOffsets takes the share group's
    // GroupIdNotFoundException as a group without offsets).
    const ofShare = await c.send(9, 9, { groupId: '', topics: [], groups: [{ groupId: 'sg', memberId: null, memberEpoch: -1, topics: null }, { groupId: 'sg', memberId: null, memberEpoch: -1, topics: [{ name: 'ot', topicId: ZERO_UUID, partitionIndexes: [0] }] }], requireStable: false });
    expect(ofShare.groups.map((g) => [g.errorCode, g.topics.map((t) => t.partitions.map((p) => [p.committedOffset, p.errorCode]))])).toEqual([[0, []], [0, [[[-1n, 0]]]]]);

    // DeleteGroups: NON_EMPTY_GROUP while a member is in; then the group is gone.
    expect((await c.send(42, 2, { groupsNames: ['sg'] })).results).toEqual([{ groupId: 'sg', errorCode: ErrorCode.NON_EMPTY_GROUP }]);
    await c.send(76, 1, hb('sg', a, -1));
    expect((await c.send(42, 2, { groupsNames: ['sg'] })).results).toEqual([{ groupId: 'sg', errorCode: 0 }]);
    expect((await c.send(77, 1, { groupIds: ['sg'], includeAuthorizedOperations: false })).groups[0]).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group sg not found.' });
  });

  it('fences a member whose session expires (manual clock)', async () => {
    const time = new FakeTime(Date.now());
    const { server } = await start({ time });
    server.broker.topics.create('st', 2);
    const c = await client(server);
    const a = memberId();
    const b = memberId();
    await c.send(76, 1, hb('tg', a, 0, ['st']));
    await initialized(server);
    await c.send(76, 1, hb('tg', b, 0, ['st']));
    let epochA = (await c.send(76, 1, hb('tg', a, 0, ['st']))).memberEpoch;
    for (let i = 0; i < 4; i++) {
      time.advance(1000);
      const r = await c.send(76, 1, hb('tg', a, epochA));
      expect(r.errorCode).toBe(0);
      epochA = r.memberEpoch;
    }
    await server.broker.runtime.flush();
    const group = server.broker.share.group('tg')!;
    expect([...group.members.keys()]).toEqual([a]);
    expect((await c.send(76, 1, hb('tg', b, 4))).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    time.advance(3000);
    await server.broker.runtime.flush();
    expect(server.broker.share.group('tg')!.state).toBe('Empty');
  });

  it('a heartbeat read before the session expired keeps the member: the expiry runs behind it, as Kafka queues a timer operation (manual clock)', async () => {
    const time = new FakeTime(Date.now());
    const { server } = await start({ time });
    server.broker.topics.create('sb', 1);
    const c = await client(server);
    const a = memberId();
    const epoch = (await c.send(76, 1, hb('sbg', a, 0, ['sb']))).memberEpoch;
    await initialized(server);
    // The server's queue of requests read and not yet handled, held by the test (see the consumer
    // group test of the same name in consumer-group-raw.test.ts).
    const read: Array<() => void> = [];
    setReceivedRequestsQueue((fn) => read.push(fn));
    try {
      time.advance(3000);
      expect(read).toHaveLength(1);
      const r = await c.send(76, 1, hb('sbg', a, epoch));
      expect(r.errorCode).toBe(0);
      read.shift()!();
      await server.broker.runtime.flush();
      expect([...server.broker.share.group('sbg')!.members.keys()]).toEqual([a]);
    } finally {
      setReceivedRequestsQueue(runBehindWaiting);
    }
    time.advance(3000);
    await server.broker.runtime.flush();
    expect(server.broker.share.group('sbg')!.state).toBe('Empty');
  });

  it('rebuilds share groups from their records after a restart', async () => {
    const data = tempDataDir('kmc-share-restart-');
    cleanups.push(() => data.remove());
    const first = await start({ dataDir: data.dir });
    const topic = first.server.broker.topics.create('rt', 3);
    const c = await client(first.server);
    const a = memberId();
    await c.send(76, 1, hb('rg', a, 0, ['rt']));
    await initialized(first.server);
    const r = await c.send(76, 1, hb('rg', a, 2));
    expect(partitionsOf(r.assignment)).toEqual([0, 1, 2]);
    const before = (await c.send(77, 1, { groupIds: ['rg'], includeAuthorizedOperations: false })).groups[0];
    await first.close();

    const second = await start({ dataDir: data.dir });
    const c2 = await client(second.server);
    const after = (await c2.send(77, 1, { groupIds: ['rg'], includeAuthorizedOperations: false })).groups[0];
    expect(after).toEqual(before);
    expect([...second.server.broker.share.group('rg')!.stateMetadata!.initialized.get(topic.topicId)!.partitions].sort()).toEqual([0, 1, 2]);
    expect((await c2.send(76, 1, hb('rg', a, 3))).errorCode).toBe(0);
  });

  it('FindCoordinator v6 answers share-state keys (groupId:topicId:partition) and refuses malformed ones', async () => {
    const { server } = await start();
    const topic = server.broker.topics.create('fc', 1);
    const c = await client(server);
    const res = await c.send(10, 6, { key: '', keyType: 2, coordinatorKeys: [`g:${topic.topicId}:0`, 'g:notauuid:0', 'g:0', `:${topic.topicId}:0`] });
    expect(res.coordinators.map((k: { errorCode: number; nodeId: number }) => [k.errorCode, k.nodeId])).toEqual([
      [0, server.broker.nodeId],
      [ErrorCode.INVALID_REQUEST, -1],
      [ErrorCode.INVALID_REQUEST, -1],
      [ErrorCode.INVALID_REQUEST, -1],
    ]);
  });
});
