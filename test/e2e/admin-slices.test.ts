/**
 * The admin API's answers about every group do not stall the Kafka port (issue #16 item 5): with
 * thousands of groups, `GET /metrics`, `/groups` and `/overview` are built in slices (and
 * `/transactions` with thousands of transactional ids), so a Kafka
 * request sent once the building began is answered before the HTTP answer arrives (order of events,
 * never time). And the per-group series `/metrics` now writes itself keep prom-client's text exactly.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { commitWholeGroup, createTopics, offsetCommit, topic, watchCall } from '../support/big-requests.js';
import { until } from '../support/until.js';
import { countTurns } from '../support/turns.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { defaultInitProducerIdRequest } from '../../src/protocol/messages/InitProducerIdRequest.js';
import type { ServerHandle } from '../../src/index.js';
import { GroupWatch, type ChangeNotice } from '../../src/admin/group-watch.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const GROUPS = 3000;
const CLIENTS = 6;

/** A server whose admin API knows `GROUPS` groups, each with a commit to partition 0 of a 2-partition topic. */
async function serverWithManyGroups(): Promise<{ server: ServerHandle; admin: string; other: RawClient }> {
  const { server } = await startClosableServer(cleanups, { inMemory: true, adminPort: 0 });
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => RawClient.connect(server.port)));
  cleanups.push(() => clients.forEach((c) => c.close()));
  expect((await clients[0]!.send(19, 7, createTopics([topic('many', 2)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
  const partitions = [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }];
  await Promise.all(clients.map(async (client, c) => {
    for (let i = c; i < GROUPS; i += CLIENTS) {
      const res = await client.send(8, 8, offsetCommit(`group-${i}`, [{ name: 'many', partitions }]));
      expect(res.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    }
  }));
  return { server, admin: server.admin!.url, other: clients[0]! };
}

/**
 * Fetches `path`; once the server has begun reading the groups' offsets for it (listing them, or
 * counting them: a group's summary for /groups only counts), sends ApiVersions; returns the order
 * the answers were complete in.
 */
async function orderOfAnswers(server: ServerHandle, admin: string, other: RawClient, path: string): Promise<{ order: string[]; body: string }> {
  const order: string[] = [];
  const lists = watchCall(server.broker.offsets, 'offsetsOf');
  const counts = watchCall(server.broker.offsets, 'committedCount');
  const reads = { get calls(): number { return lists.calls + counts.calls; } };
  // The HTTP answer counts once its whole body is in: /metrics streams, its headers come first.
  const answer = fetch(`${admin}${path}`).then(async (res) => {
    expect(res.status).toBe(200);
    const body = await res.text();
    order.push(path);
    return body;
  });
  // The building began (checked once per turn of the loop).
  while (reads.calls === 0 && order.length === 0) await new Promise((resolve) => setImmediate(resolve));
  const versions = await other.send(18, 3, { clientSoftwareName: 'admin-slices', clientSoftwareVersion: '1' });
  expect(versions.errorCode).toBe(ErrorCode.NONE);
  order.push('ApiVersions');
  return { order, body: await answer };
}

describe('admin API answers about every group, in slices', () => {
  it('GET /metrics, /groups and /overview with 3,000 groups: a Kafka request sent meanwhile is answered first', async () => {
    const { server, admin, other } = await serverWithManyGroups();

    const metrics = await orderOfAnswers(server, admin, other, '/metrics');
    expect(metrics.order).toEqual(['ApiVersions', '/metrics']);
    const lines = metrics.body.split('\n');
    expect(lines.filter((l) => l.startsWith('kafka_consumergroup_members{'))).toHaveLength(GROUPS);
    expect(lines).toContain('kafka_consumergroup_current_offset{consumergroup="group-2999",topic="many",partition="0"} 1');
    expect(lines).toContain('kafka_consumergroup_current_offset{consumergroup="group-2999",topic="many",partition="1"} -1');
    expect(lines).toContain('kmc_offset_commits_total{consumergroup="group-0"} 1');

    const groups = await orderOfAnswers(server, admin, other, '/groups');
    expect(groups.order).toEqual(['ApiVersions', '/groups']);
    expect((JSON.parse(groups.body) as { groups: unknown[] }).groups).toHaveLength(GROUPS);

    const overview = await orderOfAnswers(server, admin, other, '/overview');
    expect(overview.order).toEqual(['ApiVersions', '/overview']);
    const first = (JSON.parse(overview.body) as { groups: Array<{ groupId: string; totalLag: number }> }).groups[0];
    expect(first).toEqual({ groupId: 'group-0', type: 'classic', state: 'Empty', protocolOrAssignor: null, members: 0, totalLag: 0 });
  });

  it("the console's first and periodic looks at every group (3,000 groups): a Kafka request sent meanwhile is answered first", async () => {
    const { server, other } = await serverWithManyGroups();
    // Every look at a group asks whether its offsets changed.
    const reads = watchCall(server.broker.offsets, 'versionOf');
    // The first look starts with the watch (as the admin API starts); sample() joins it.
    const watch = new GroupWatch({ broker: server.broker, faults: server.faults, clock: server.clock, sampleIntervalMs: 0 });
    cleanups.push(() => watch.close());
    expect(watch.history(`group-${GROUPS - 1}`)).toBeNull();
    const order: string[] = [];
    const sampled = watch.sample().then(() => order.push('sample'));
    while (reads.calls === 0 && order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect((await other.send(18, 3, { clientSoftwareName: 'admin-slices', clientSoftwareVersion: '1' })).errorCode).toBe(ErrorCode.NONE);
    order.push('ApiVersions');
    await sampled;
    expect(order).toEqual(['ApiVersions', 'sample']);
    expect(watch.history('group-0')!.events[0]).toMatchObject({ kind: 'seen', state: 'Empty', members: 0 });
    // A periodic look later works the same way.
    const again = watch.sample().then(() => order.push('sample'));
    const before = reads.calls;
    while (reads.calls === before && order.length === 2) await new Promise((resolve) => setImmediate(resolve));
    expect((await other.send(18, 3, { clientSoftwareName: 'admin-slices', clientSoftwareVersion: '1' })).errorCode).toBe(ErrorCode.NONE);
    order.push('ApiVersions');
    await again;
    expect(order).toEqual(['ApiVersions', 'sample', 'ApiVersions', 'sample']);
    // So does the look a change made through the admin API asks for (a fault rule added), whose notice says so.
    const notices: ChangeNotice[] = [];
    watch.subscribe((notice) => notices.push(notice));
    const touched = watch.touched({ faults: true }).then(() => order.push('touched'));
    const looked = reads.calls;
    while (reads.calls === looked && order.length === 4) await new Promise((resolve) => setImmediate(resolve));
    expect((await other.send(18, 3, { clientSoftwareName: 'admin-slices', clientSoftwareVersion: '1' })).errorCode).toBe(ErrorCode.NONE);
    order.push('ApiVersions');
    await touched;
    expect(order.slice(4)).toEqual(['ApiVersions', 'touched']);
    expect(notices).toEqual([{ groups: [], overview: false, faults: true, clock: false, transactions: false }]);
  });

  it('a look at every group gathers the 3,000 ids in slices, then summarizes them: no turn copies every group', async () => {
    const { server } = await serverWithManyGroups();
    const loop = countTurns();
    const at: Record<string, number> = {};
    const offsets = server.broker.offsets;
    const groupIds = offsets.groupIds.bind(offsets);
    const committedCount = offsets.committedCount.bind(offsets);
    offsets.groupIds = () => ((at['gather'] ??= loop.turns), groupIds());
    offsets.committedCount = (groupId) => ((at['summarize'] ??= loop.turns), committedCount(groupId));
    const watch = new GroupWatch({ broker: server.broker, faults: server.faults, clock: server.clock, sampleIntervalMs: 0 });
    cleanups.push(() => watch.close());
    await watch.sample();
    loop.stop();
    // 3,000 committed groups' ids, at most 1,000 a turn: two turns between at least.
    expect(at['summarize']! - at['gather']!).toBeGreaterThanOrEqual(2);
    expect(watch.history('group-0')!.events[0]).toMatchObject({ kind: 'seen', state: 'Empty', members: 0 });
  });

  it('gathers the group ids of at most two listings at once: four GET /groups asked together are answered whole, in turn', async () => {
    const { server, admin } = await serverWithManyGroups();
    const offsets = server.broker.offsets;
    const groupIds = offsets.groupIds.bind(offsets);
    let active = 0;
    let most = 0;
    // A gathering goes through the offsets' ids from its first id to its last.
    offsets.groupIds = function* () {
      active++;
      most = Math.max(most, active);
      try {
        yield* groupIds();
      } finally {
        active--;
      }
    };
    const answers = await Promise.all(Array.from({ length: 4 }, async () => (await (await fetch(`${admin}/groups`)).json()) as { groups: Array<{ groupId: string }> }));
    expect(answers.map((a) => a.groups.length)).toEqual([GROUPS, GROUPS, GROUPS, GROUPS]);
    // Failed before: the four (and the console watch's look) each held their ids at the same time.
    expect(most).toBeLessThanOrEqual(2);
  });

  it('GET /transactions with 3,000 transactional ids summarizes and writes them in slices: a Kafka request sent meanwhile is answered mid-list', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, adminPort: 0 });
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => RawClient.connect(server.port)));
    cleanups.push(() => clients.forEach((c) => c.close()));
    const IDS = 3000;
    await Promise.all(clients.map(async (client, c) => {
      for (let i = c; i < IDS; i += CLIENTS) {
        const res = await client.send(22, 4, { ...defaultInitProducerIdRequest(), transactionalId: `txn-${i}`, transactionTimeoutMs: 60_000 });
        expect(res.errorCode).toBe(ErrorCode.NONE);
      }
    }));
    // Each id is looked up again as its slice comes (expired meanwhile: left out).
    const lookups = watchCall(server.broker.transactions, 'get');
    const listed = fetch(`${server.admin!.url}/transactions`).then(async (res) => (await res.json()) as { transactions: Array<{ transactionalId: string; state: string }>; total: number });
    while (lookups.calls === 0) await new Promise((resolve) => setImmediate(resolve));
    expect((await clients[0]!.send(18, 3, { clientSoftwareName: 'admin-slices', clientSoftwareVersion: '1' })).errorCode).toBe(ErrorCode.NONE);
    const lookupsWhenAnswered = lookups.calls;
    const { transactions, total } = await listed;
    expect(lookupsWhenAnswered).toBeLessThan(IDS);
    expect([transactions.length, total]).toEqual([IDS, IDS]);
    // By id, as strings sort.
    expect(transactions.slice(0, 3).map((t) => [t.transactionalId, t.state])).toEqual([['txn-0', 'Empty'], ['txn-1', 'Empty'], ['txn-10', 'Empty']]);
  });

  it('GET /metrics with a topic of 9,000 partitions writes its per-partition series in slices: a Kafka request sent meanwhile is answered mid-series', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, adminPort: 0 });
    const client = await RawClient.connect(server.port);
    cleanups.push(() => client.close());
    const PARTITIONS = 9000;
    expect((await client.send(19, 7, createTopics([topic('wide', PARTITIONS)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const all = PARTITIONS; // no group used: no `__consumer_offsets` yet
    // kafka_topic_partition_leader asks the cluster for each partition's leader as it writes its line.
    const leaders = watchCall(server.broker.cluster, 'leaderOf');
    const order: string[] = [];
    const scrape = fetch(`${server.admin!.url}/metrics`).then(async (res) => {
      const body = await res.text();
      order.push('/metrics');
      return body;
    });
    while (leaders.calls === 0 && order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect((await client.send(18, 3, { clientSoftwareName: 'admin-slices', clientSoftwareVersion: '1' })).errorCode).toBe(ErrorCode.NONE);
    const leadersWhenAnswered = leaders.calls;
    const body = await scrape;
    // Built in one turn (through prom-client, as before), every leader was asked before the answer.
    expect(leadersWhenAnswered).toBeLessThan(all);
    const lines = body.split('\n');
    expect(lines.filter((l) => l.startsWith('kafka_topic_partition_leader{'))).toHaveLength(all);
    expect(lines).toContain('kafka_topic_partitions{topic="wide"} 9000');
    expect(lines).toContain('kafka_topic_partition_current_offset{topic="wide",partition="8999"} 0');
    expect(lines).toContain('kafka_topic_partition_under_replicated_partition{topic="wide",partition="8999"} 0');
  });

  it('GET /overview with a topic of 9,000 partitions describes them in slices: a Kafka request sent meanwhile is answered mid-topic', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, adminPort: 0 });
    const client = await RawClient.connect(server.port);
    cleanups.push(() => client.close());
    const PARTITIONS = 9000;
    expect((await client.send(19, 7, createTopics([topic('wide', PARTITIONS)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    // The overview asks the cluster for each partition's leader as it describes it.
    const leaders = watchCall(server.broker.cluster, 'leaderOf');
    const described = fetch(`${server.admin!.url}/overview`).then(async (res) => (await res.json()) as { topics: Array<{ name: string; partitions: Array<{ partition: number; leader: number }> }> });
    while (leaders.calls === 0) await new Promise((resolve) => setImmediate(resolve));
    expect((await client.send(18, 3, { clientSoftwareName: 'admin-slices', clientSoftwareVersion: '1' })).errorCode).toBe(ErrorCode.NONE);
    const leadersWhenAnswered = leaders.calls;
    const overview = await described;
    expect(leadersWhenAnswered).toBeLessThan(PARTITIONS);
    expect(overview.topics.map((t) => [t.name, t.partitions.length, t.partitions.at(-1)])).toEqual([['wide', PARTITIONS, expect.objectContaining({ partition: PARTITIONS - 1, leader: 1 })]]);
  });

  it('writes the per-group series as prom-client did: escaped labels, -1 for no commit, the sums, commits by group', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, adminPort: 0 });
    const client = await RawClient.connect(server.port);
    cleanups.push(() => client.close());
    expect((await client.send(19, 7, createTopics([topic('t-b', 2), topic('t-a', 1)]))).topics.map((t) => t.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE]);
    const commit = (partitionIndex: number, committedOffset: bigint) => ({ partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: '' });
    const weird = 'q"uote\\back\nline';
    await client.send(8, 8, offsetCommit(weird, [{ name: 't-b', partitions: [commit(1, 0n)] }, { name: 't-a', partitions: [commit(0, 0n)] }]));
    await client.send(8, 8, offsetCommit(weird, [{ name: 't-b', partitions: [commit(1, 0n)] }]));
    const text = await (await fetch(`${server.admin!.url}/metrics`)).text();
    const label = 'consumergroup="q\\"uote\\\\back\\nline"';
    const block = (name: string): string => text.slice(text.indexOf(`# HELP ${name} `)).split('\n\n')[0]!;
    expect(block('kafka_consumergroup_current_offset')).toBe([
      '# HELP kafka_consumergroup_current_offset Current Offset of a ConsumerGroup at Topic/Partition',
      '# TYPE kafka_consumergroup_current_offset gauge',
      `kafka_consumergroup_current_offset{${label},topic="t-a",partition="0"} 0`,
      `kafka_consumergroup_current_offset{${label},topic="t-b",partition="0"} -1`,
      `kafka_consumergroup_current_offset{${label},topic="t-b",partition="1"} 0`,
    ].join('\n'));
    expect(block('kafka_consumergroup_current_offset_sum').split('\n').slice(2)).toEqual([
      `kafka_consumergroup_current_offset_sum{${label},topic="t-a"} 0`,
      `kafka_consumergroup_current_offset_sum{${label},topic="t-b"} -1`,
    ]);
    expect(block('kafka_consumergroup_lag').split('\n').slice(2)).toEqual([
      `kafka_consumergroup_lag{${label},topic="t-a",partition="0"} 0`,
      `kafka_consumergroup_lag{${label},topic="t-b",partition="0"} -1`,
      `kafka_consumergroup_lag{${label},topic="t-b",partition="1"} 0`,
    ]);
    expect(block('kafka_consumergroup_lag_sum').split('\n').slice(2)).toEqual([`kafka_consumergroup_lag_sum{${label},topic="t-a"} 0`, `kafka_consumergroup_lag_sum{${label},topic="t-b"} 0`]);
    expect(block('kafka_consumergroup_members').split('\n').slice(2)).toEqual([`kafka_consumergroup_members{${label}} 0`]);
    expect(block('kmc_offset_commits_total')).toBe([
      '# HELP kmc_offset_commits_total OffsetCommit and TxnOffsetCommit requests answered without an error, by group.',
      '# TYPE kmc_offset_commits_total counter',
      `kmc_offset_commits_total{${label}} 2`,
    ].join('\n'));
    // prom-client's layout around them: the topic series before, the request counters after, a newline at the end.
    expect(text.indexOf('# HELP kafka_topic_partition_under_replicated_partition')).toBeLessThan(text.indexOf('# HELP kafka_consumergroup_current_offset '));
    expect(text.indexOf('# HELP kafka_consumergroup_members')).toBeLessThan(text.indexOf('# HELP kmc_requests_total'));
    expect(text.endsWith('\n') && !text.endsWith('\n\n')).toBe(true);
  });

  it('GET /groups/{id} of a group of 10,000 offsets formats them in slices: a Kafka request sent once it began is answered first', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, adminPort: 0 });
    const client = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => client.close(), () => other.close());
    const offsets = server.broker.offsets;
    const offsetsOf = offsets.offsetsOf.bind(offsets);
    const pendingOffsetsOf = offsets.pendingOffsetsOf.bind(offsets);
    // The console's watch reads the group's offsets once after the commits, not again while they stay as they are.
    let watchRead = false;
    offsets.offsetsOf = (groupId) => ((watchRead = true), offsetsOf(groupId));
    expect(await commitWholeGroup(client, 'g-wide', ['wide-a', 'wide-b'], 5000)).toEqual([ErrorCode.NONE]);
    await until(() => watchRead, 'the watch reading the group');
    // Turns of the event loop from the read of the offsets to the read that ends the description.
    const loop = countTurns();
    const at: Record<string, number> = {};
    offsets.offsetsOf = (groupId) => ((at['read'] ??= loop.turns), offsetsOf(groupId));
    offsets.pendingOffsetsOf = (groupId) => ((at['done'] ??= loop.turns), pendingOffsetsOf(groupId));
    const { order, body } = await orderOfAnswers(server, server.admin!.url, other, '/groups/g-wide');
    loop.stop();
    expect(order).toEqual(['ApiVersions', '/groups/g-wide']);
    // 10,000 offsets in slices of at most 2,000: four turns between at least.
    expect(at['done']! - at['read']!).toBeGreaterThanOrEqual(4);
    const group = JSON.parse(body) as { offsets: Array<{ topic: string; partition: number; committedOffset: number; logEndOffset: number; lag: number }>; totalLag: number };
    expect(group.offsets).toHaveLength(10_000);
    expect(group.offsets[0]).toMatchObject({ topic: 'wide-a', partition: 0, committedOffset: 0, logEndOffset: 0, lag: 0 });
    expect(group.offsets[9_999]).toMatchObject({ topic: 'wide-b', partition: 4_999, committedOffset: 4_999, logEndOffset: 0, lag: 0 });
    expect(group.totalLag).toBe(0);
  }, 120_000);
});
