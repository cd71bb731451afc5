/**
 * Streams groups (KIP-1071) over the raw protocol against a real server: StreamsGroupHeartbeat
 * validation, the first member creating the internal topics (MISSING_INTERNAL_TOPICS until they
 * exist), tasks given only once their previous owner revoked them, leave, session expiry on the
 * manual clock, StreamsGroupDescribe, ListGroups/ConsumerGroupHeartbeat/JoinGroup/DeleteGroups
 * answers for streams groups, offsets committed by members, and the group rebuilt from its records
 * after a restart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerHandle } from '../../src/index.js';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { FakeTime } from '../support/fake-time.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { StreamsGroupHeartbeatRequest, Topology } from '../../src/protocol/messages/StreamsGroupHeartbeatRequest.js';
import { STREAMS_TEST_CONFIG as CONFIG, TOPOLOGY, activeOf, beat, internalTopicsCreated, join } from '../support/streams-group.js';

describe('streams groups (raw protocol)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function start(options: { time?: FakeTime; dataDir?: string } = {}) {
    const time = options.time ?? new FakeTime(Date.now());
    return startClosableServer(cleanups, { config: CONFIG, time, ...(options.dataDir ? { dataDir: options.dataDir } : {}) }, 'kmc-streams-');
  }

  async function client(server: ServerHandle) {
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    return c;
  }

  async function createInput(c: RawClient, partitions: number) {
    const res = await c.send(19, 5, { topics: [{ name: 'in', numPartitions: partitions, replicationFactor: -1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    expect(res.topics[0]!.errorCode).toBe(0);
  }

  it('advertises StreamsGroupHeartbeat v0 and StreamsGroupDescribe v0 (not with --kafka-version 4.1)', async () => {
    const { server } = await start();
    const c = await client(server);
    const res = await c.send(18, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
    expect(res.apiKeys.filter((k) => k.apiKey === 88 || k.apiKey === 89).map((k) => [k.apiKey, k.minVersion, k.maxVersion])).toEqual([
      [88, 0, 0],
      [89, 0, 0],
    ]);
    const old = await startClosableServer(cleanups, { kafkaVersion: '4.1' });
    const c41 = await client(old.server);
    const res41 = await c41.send(18, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
    expect(res41.apiKeys.some((k) => k.apiKey === 88)).toBe(false);
  });

  it("refuses invalid heartbeats with Kafka's messages", async () => {
    const { server } = await start();
    const c = await client(server);
    const cases: Array<[Partial<StreamsGroupHeartbeatRequest>, number, string | null]> = [
      [{ memberId: ' ' }, ErrorCode.INVALID_REQUEST, "MemberId can't be empty."],
      [{ rebalanceTimeoutMs: -1 }, ErrorCode.INVALID_REQUEST, 'RebalanceTimeoutMs must be provided in first request.'],
      [{ activeTasks: null }, ErrorCode.INVALID_REQUEST, 'ActiveTasks must be empty when (re-)joining.'],
      [{ topology: null }, ErrorCode.INVALID_REQUEST, 'Topology must be non-null when (re-)joining.'],
      [{ instanceId: 'i1' }, ErrorCode.INVALID_REQUEST, 'Static membership is not yet supported.'],
      [{ memberEpoch: -3 }, ErrorCode.INVALID_REQUEST, 'MemberEpoch is -3, but must be greater than or equal to -2.'],
      [{ memberEpoch: 5, topology: null }, ErrorCode.GROUP_ID_NOT_FOUND, 'Streams group g not found.'],
      [
        { topology: { epoch: 0, subtopologies: [{ ...TOPOLOGY.subtopologies[0]!, sourceTopics: ['__consumer_offsets'] }] } },
        ErrorCode.STREAMS_INVALID_TOPOLOGY,
        'Use of Kafka internal topics __consumer_offsets in a Kafka Streams topology is prohibited.',
      ],
    ];
    for (const [change, errorCode, message] of cases) {
      const res = await c.send(88, 0, { ...join('g', 'm1', 'p1'), ...change });
      expect([res.errorCode, res.errorMessage], JSON.stringify(change)).toEqual([errorCode, message]);
    }
    expect(server.broker.streams.group('g')).toBeUndefined();
  });

  it('answers topologies Kafka cannot take as Kafka 4.3.1 does, and the connection stays open', async () => {
    const { server } = await start();
    const c = await client(server);
    await createInput(c, 2);
    const sub = (id: string, extra: Partial<Topology['subtopologies'][number]> = {}): Topology['subtopologies'][number] => ({
      subtopologyId: id, sourceTopics: [], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [], repartitionSourceTopics: [], copartitionGroups: [], ...extra,
    });
    const repartition = (name: string) => ({ name, partitions: 0, replicationFactor: -1, topicConfigs: [] });
    const cases: Array<[string, Topology, number, string | null]> = [
      ['a copartition index out of range', { epoch: 0, subtopologies: [sub('0', { sourceTopics: ['in'], copartitionGroups: [{ sourceTopics: [7], sourceTopicRegex: [], repartitionSourceTopics: [] }] })] }, ErrorCode.UNKNOWN_SERVER_ERROR, null],
      ['two subtopologies with one id', { epoch: 0, subtopologies: [sub('0', { sourceTopics: ['in'] }), sub('0', { sourceTopics: ['in'] })] }, ErrorCode.UNKNOWN_SERVER_ERROR, null],
      ['a negative topology epoch', { epoch: -5, subtopologies: [sub('0', { sourceTopics: ['in'] })] }, ErrorCode.UNKNOWN_SERVER_ERROR, null],
      ['a subtopology reading nothing', { epoch: 0, subtopologies: [sub('0')] }, ErrorCode.STREAMS_INVALID_TOPOLOGY, 'No source topics found for subtopology 0'],
      [
        'repartition topics feeding each other',
        { epoch: 0, subtopologies: [sub('0', { sourceTopics: ['in'] }), sub('1', { repartitionSourceTopics: [repartition('r1')], repartitionSinkTopics: ['r2'] }), sub('2', { repartitionSourceTopics: [repartition('r2')], repartitionSinkTopics: ['r1'] })] },
        ErrorCode.STREAMS_INVALID_TOPOLOGY,
        'Failed to compute number of partitions for all repartition topics. There may be loops in the topology that cannot be resolved.',
      ],
    ];
    for (const [what, topology, errorCode, message] of cases) {
      const res = await c.send(88, 0, { ...join(`bad-${what.length}`, 'm1', 'p1'), topology });
      expect([res.errorCode, res.errorMessage], what).toEqual([errorCode, message]);
    }
    // Nothing was kept, and the connection still answers.
    expect(server.broker.streams.allGroups()).toEqual([]);
    expect((await c.send(88, 0, join('good', 'm1', 'p1'))).errorCode).toBe(0);
  });

  it('creates the internal topics, assigns tasks, moves them only once revoked, and fences on leave and session expiry', async () => {
    const time = new FakeTime(Date.now());
    const { server } = await start({ time });
    const c = await client(server);
    await createInput(c, 2);

    const first = await c.send(88, 0, join('app', 'm1', 'p1'));
    expect(first.errorCode).toBe(0);
    // Group epoch 2 (a new group starts at 1) and a target of no tasks: the topology is not ready.
    expect(first.memberEpoch).toBe(2);
    expect(first.heartbeatIntervalMs).toBe(5000);
    expect(first.status).toEqual([{ statusCode: 3, statusDetail: 'Internal topics are missing: app-counts-repartition, app-counts-changelog' }]);
    expect(activeOf(first)).toEqual({});
    // Created in the background with the partitions of their source and the topology's configs.
    await server.broker.runtime.flush();
    await internalTopicsCreated(server);
    expect(server.broker.topics.get('app-counts-repartition')?.partitionCount).toBe(2);
    expect(server.broker.topics.get('app-counts-changelog')?.partitionCount).toBe(2);

    const second = await c.send(88, 0, beat('app', 'm1', 2, {}));
    expect(second.status).toEqual([]);
    expect(second.memberEpoch).toBe(3);
    expect(activeOf(second)).toEqual({ '0': [0, 1], '1': [0, 1] });

    // A second process joins: its share of tasks waits until m1 has revoked them.
    const m2 = await c.send(88, 0, join('app', 'm2', 'p2'));
    expect(m2.memberEpoch).toBe(4);
    expect(activeOf(m2)).toEqual({});
    const m1Revoking = await c.send(88, 0, beat('app', 'm1', 3, { '0': [0, 1], '1': [0, 1] }));
    expect(m1Revoking.memberEpoch).toBe(3);
    const kept = activeOf(m1Revoking)!;
    expect(Object.values(kept).flat()).toHaveLength(2);
    const m2Still = await c.send(88, 0, beat('app', 'm2', 4, {}));
    expect(m2Still.activeTasks).toBeNull();
    const m1Done = await c.send(88, 0, beat('app', 'm1', 3, kept));
    expect(m1Done.memberEpoch).toBe(4);
    const m2Gets = await c.send(88, 0, beat('app', 'm2', 4, {}));
    const given = activeOf(m2Gets)!;
    const all = [...Object.entries(kept), ...Object.entries(given)].flatMap(([s, ps]) => ps.map((p) => `${s}_${p}`)).sort();
    expect(all).toEqual(['0_0', '0_1', '1_0', '1_1']);

    // StreamsGroupDescribe: Stable at epoch 4, the configured topology, both members.
    const described = (await c.send(89, 0, { groupIds: ['app', 'nope'], includeAuthorizedOperations: false })).groups;
    const app = described.find((g) => g.groupId === 'app')!;
    expect([app.groupState, app.groupEpoch, app.assignmentEpoch, app.members.map((m) => m.memberId).sort()]).toEqual(['Stable', 4, 4, ['m1', 'm2']]);
    expect(app.topology!.subtopologies!.map((s) => [s.subtopologyId, s.repartitionSourceTopics.map((t) => [t.name, t.partitions]), s.stateChangelogTopics.map((t) => [t.name, t.partitions])])).toEqual([
      ['0', [], []],
      ['1', [['app-counts-repartition', 2]], [['app-counts-changelog', 2]]],
    ]);
    expect(described.find((g) => g.groupId === 'nope')).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group nope not found.' });
    // The admin API's view (in-process describeGroup): a streams group with its members' tasks.
    const view = (await server.describeGroup('app'))!;
    expect([view.type, view.state, view.groupEpoch, view.members.map((m) => [m.memberId, m.memberEpoch, m.streamsTasks!.active.length])]).toEqual([
      'streams',
      'Stable',
      4,
      [
        ['m1', 4, 2],
        ['m2', 4, 2],
      ],
    ]);

    // Other group APIs on a streams group id.
    const listed = await c.send(16, 5, { statesFilter: ['stable'], typesFilter: ['streams'] });
    expect(listed.groups).toEqual([{ groupId: 'app', protocolType: 'streams', groupState: 'Stable', groupType: 'streams' }]);
    const cg = await c.send(68, 1, { groupId: 'app', memberId: 'x', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 1000, subscribedTopicNames: ['in'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [] });
    expect([cg.errorCode, cg.errorMessage]).toEqual([ErrorCode.GROUP_ID_NOT_FOUND, 'Group app is not a consumer group.']);
    const deleted = await c.send(42, 2, { groupsNames: ['app'] });
    expect(deleted.results).toEqual([{ groupId: 'app', errorCode: ErrorCode.NON_EMPTY_GROUP }]);

    // m1 leaves: the group epoch goes up; m2's session expires on the manual clock.
    const left = await c.send(88, 0, { ...beat('app', 'm1', -1), activeTasks: null, standbyTasks: null, warmupTasks: null });
    expect([left.errorCode, left.memberEpoch]).toEqual([0, -1]);
    expect(server.broker.streams.group('app')!.groupEpoch).toBe(5);
    time.advance(45000);
    await server.broker.runtime.flush();
    expect(server.broker.streams.group('app')!.members.size).toBe(0);
    expect(server.broker.streams.group('app')!.state).toBe('Empty');
  });

  it('says in MISSING_INTERNAL_TOPICS why an internal topic could not be created, and creates the others', async () => {
    const { server } = await start();
    const c = await client(server);
    await createInput(c, 2);
    const bad: Topology = JSON.parse(JSON.stringify(TOPOLOGY)) as Topology;
    bad.subtopologies[1]!.stateChangelogTopics[0]!.topicConfigs = [{ key: 'cleanup.policy', value: 'bogus' }];
    const first = await c.send(88, 0, { ...join('app', 'm1', 'p1'), topology: bad });
    expect(first.status!.map((s) => s.statusDetail)).toEqual(['Internal topics are missing: app-counts-repartition, app-counts-changelog']);
    // Both creations over: the repartition topic made, the changelog refused.
    while (server.broker.internalTopicCreation.errorsOf(['app-counts-changelog']).length === 0 || !server.broker.topics.get('app-counts-repartition')) await new Promise((r) => setTimeout(r, 5));
    const again = await c.send(88, 0, beat('app', 'm1', first.memberEpoch, {}));
    expect(again.status!.map((s) => [s.statusCode, s.statusDetail])).toEqual([
      [3, "Internal topics are missing: app-counts-changelog; Creation failed: app-counts-changelog (Invalid value bogus for configuration cleanup.policy: String must be one of: compact, delete)."],
    ]);
    expect(server.broker.topics.get('app-counts-changelog')).toBeUndefined();
    expect(server.broker.topics.get('app-counts-repartition')?.partitionCount).toBe(2);
  });

  it("expires one member's session on request (expireMemberSession), leaving the other; the admin view shows owned and target tasks", async () => {
    const { server } = await start();
    const c = await client(server);
    await createInput(c, 2);
    const first = await c.send(88, 0, join('app', 'm1', 'p1'));
    await internalTopicsCreated(server);
    await c.send(88, 0, beat('app', 'm1', first.memberEpoch, {}));
    const m2 = await c.send(88, 0, join('app', 'm2', 'p2'));
    expect(m2.memberEpoch).toBe(4);
    // m1 still owns the four tasks; its target is two of them.
    const view = (await server.describeGroup('app'))!;
    const m1View = view.members.find((m) => m.memberId === 'm1')!.streamsTasks!;
    expect([m1View.active, m1View.targetActive.length, m1View.processId]).toEqual([['0_0', '0_1', '1_0', '1_1'], 2, 'p1']);
    // The partitions its active tasks read: `in` (subtopology 0) and the repartition topic (1).
    expect(view.members.find((m) => m.memberId === 'm1')!.assignment).toEqual([
      { topic: 'app-counts-repartition', partitions: [0, 1] },
      { topic: 'in', partitions: [0, 1] },
    ]);
    expect(server.expireMemberSession('app', 'm2')).toBe('streams');
    await server.broker.runtime.flush();
    expect([...server.broker.streams.group('app')!.members.keys()]).toEqual(['m1']);
    expect(server.broker.streams.group('app')!.groupEpoch).toBe(5);
    const gone = await c.send(88, 0, beat('app', 'm2', 4, {}));
    expect([gone.errorCode, gone.errorMessage]).toEqual([ErrorCode.UNKNOWN_MEMBER_ID, 'Member m2 is not a member of group app.']);
    expect(server.expireMemberSession('app', 'm2')).toBeNull();
  });

  it('keeps the group across a restart: members, tasks and epochs from its records', async () => {
    const time = new FakeTime(Date.now());
    const { server, close, dataDir } = await start({ time });
    const c = await client(server);
    await createInput(c, 2);
    await c.send(88, 0, join('app', 'm1', 'p1'));
    await server.broker.runtime.flush();
    await internalTopicsCreated(server);
    const running = await c.send(88, 0, beat('app', 'm1', 2, {}));
    expect(activeOf(running)).toEqual({ '0': [0, 1], '1': [0, 1] });
    c.socket.destroy();
    await close();

    const again = await start({ time, dataDir });
    const c2 = await client(again.server);
    const group = again.server.broker.streams.group('app')!;
    expect([group.groupEpoch, group.assignmentEpoch, group.state, [...group.members.keys()]]).toEqual([3, 3, 'Stable', ['m1']]);
    const resumed = await c2.send(88, 0, beat('app', 'm1', 3, { '0': [0, 1], '1': [0, 1] }));
    expect([resumed.errorCode, resumed.memberEpoch, resumed.activeTasks]).toEqual([0, 3, null]);
  });
});
