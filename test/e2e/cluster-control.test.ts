/** The HTTP admin API and the CLI drive the same cluster actions as `server.cluster`. */
import { afterEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../support/server.js';
import { startCli, kill, type CliServer } from '../support/cli-process.js';
import { RawClient } from '../support/raw-client.js';
import { kafkaClient } from '../support/kafkajs.js';
import { describeGroups, listGroups } from '../../src/tools/consumer-groups.js';
import { defaultFindCoordinatorRequest } from '../../src/protocol/messages/FindCoordinatorRequest.js';
import { defaultHeartbeatRequest } from '../../src/protocol/messages/HeartbeatRequest.js';
import { defaultOffsetFetchRequest } from '../../src/protocol/messages/OffsetFetchRequest.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const run = promisify(execFile);
const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function http(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** FindCoordinator v3 for a group (key type 0) or a transactional id (1). */
async function findCoordinator(port: number, group: string, keyType = 0): Promise<number> {
  const raw = await RawClient.connect(port);
  try {
    const res = await raw.send(10, 3, { ...defaultFindCoordinatorRequest(), key: group, keyType });
    return res.nodeId;
  } finally {
    raw.socket.destroy();
  }
}

describe('cluster control surfaces', () => {
  it('HTTP: describe, move-coordinator, coordinator-load, stop and start a broker, move-leader, errors', async () => {
    const server = await startTestServer({ brokers: 3, adminPort: 0, adminHost: '127.0.0.1' });
    cleanups.push(() => server.stop());
    const base = server.admin!.url;

    const described = await http(base, 'GET', '/cluster');
    expect(described.status).toBe(200);
    expect(described.body.brokers.map((b: { id: number; up: boolean }) => [b.id, b.up])).toEqual([[1, true], [2, true], [3, true]]);
    expect(described.body.controllerId).toBe(1);
    // Port 0: a free port for the first broker, the ports after it for the others.
    expect([...server.ports.values()].map((p) => p - server.port)).toEqual([0, 1, 2]);

    const from = server.cluster.coordinatorOf('hg');
    const to = from === 3 ? 1 : from + 1;
    expect(await http(base, 'POST', '/cluster/move-coordinator', { groupId: 'hg', brokerId: to })).toEqual({ status: 200, body: { groupId: 'hg', previous: from, coordinator: to } });
    expect(await findCoordinator(server.port, 'hg')).toBe(to);
    const old = await RawClient.connect(server.ports.get(from)!);
    cleanups.push(() => void old.socket.destroy());
    expect((await old.send(12, 4, { ...defaultHeartbeatRequest(), groupId: 'hg', generationId: 1, memberId: 'm' })).errorCode).toBe(16);
    // The request log names the broker that answered it, and filters on it.
    expect((await http(base, 'GET', `/requests?api=Heartbeat&brokerId=${from}`)).body.requests.map((e: { brokerId: number; error: string }) => [e.brokerId, e.error])).toEqual([[from, 'NOT_COORDINATOR']]);
    expect((await http(base, 'GET', `/requests?api=Heartbeat&brokerId=${to}`)).body.requests).toEqual([]);

    // COORDINATOR_LOAD_IN_PROGRESS on the coordinator: OffsetFetch gets it, a classic Heartbeat gets NONE.
    const load = await http(base, 'POST', '/cluster/coordinator-load', { groupId: 'hg', durationMs: 60_000 });
    expect(load.status).toBe(200);
    expect(load.body.groupId).toBe('hg');
    const coord = await RawClient.connect(server.ports.get(to)!);
    cleanups.push(() => void coord.socket.destroy());
    expect((await coord.send(9, 7, { ...defaultOffsetFetchRequest(), groupId: 'hg', topics: null })).errorCode).toBe(14);
    expect((await coord.send(12, 4, { ...defaultHeartbeatRequest(), groupId: 'hg', generationId: 1, memberId: 'm' })).errorCode).toBe(0);
    expect((await http(base, 'GET', '/cluster')).body.loadInProgress.groups).toHaveProperty('hg');
    expect((await http(base, 'POST', '/cluster/coordinator-load', { groupId: 'hg', durationMs: 0 })).body.until).toBeNull();
    expect((await coord.send(9, 7, { ...defaultOffsetFetchRequest(), groupId: 'hg', topics: null })).errorCode).toBe(0);

    const stopped = await http(base, 'POST', `/cluster/brokers/${to}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.brokers.find((b: { id: number }) => b.id === to).up).toBe(false);
    await coord.waitClosed();
    expect(await findCoordinator(server.ports.get(to === 1 ? 2 : 1)!, 'hg')).not.toBe(to);
    expect((await http(base, 'POST', `/cluster/brokers/${to}/stop`)).status).toBe(409);
    expect((await http(base, 'POST', `/cluster/brokers/${to}/start`)).status).toBe(200);
    expect(await findCoordinator(server.ports.get(to)!, 'hg')).toBe(to);

    const admin = kafkaClient(server.bootstrap).admin();
    cleanups.push(() => admin.disconnect());
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'ht', numPartitions: 2 }] });
    const leader = server.cluster.leaderOf('ht', 1);
    const target = leader === 3 ? 1 : leader + 1;
    expect(await http(base, 'POST', '/cluster/move-leader', { topic: 'ht', partition: 1, brokerId: target })).toEqual({ status: 200, body: { topic: 'ht', partition: 1, previous: leader, leader: target, pendingLeader: null } });
    expect((await http(base, 'GET', '/cluster')).body.leaderOverrides).toEqual([{ topic: 'ht', partition: 1, brokerId: target }]);

    // To a stopped broker: it leads once it starts again; until then the leader and its epoch stay.
    const partition0 = server.broker.topics.get('ht')!.partition(0)!;
    const leader0 = server.cluster.leaderOf('ht', 0);
    const later = leader0 === 3 ? 1 : leader0 + 1;
    await server.cluster.stopBroker(later);
    const epoch0 = partition0.leaderEpoch;
    expect(await http(base, 'POST', '/cluster/move-leader', { topic: 'ht', partition: 0, brokerId: later })).toEqual({ status: 200, body: { topic: 'ht', partition: 0, previous: leader0, leader: leader0, pendingLeader: later } });
    expect(partition0.leaderEpoch).toBe(epoch0);
    // Its port taken while it was stopped: 409, and it stays stopped until the port is free.
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(server.ports.get(later)!, resolve));
    const refused = await http(base, 'POST', `/cluster/brokers/${later}/start`);
    expect(refused).toMatchObject({ status: 409, body: { message: `broker ${later} cannot listen on port ${server.ports.get(later)} again: another process took it while the broker was stopped (EADDRINUSE); it stays stopped until the port is free` } });
    expect(server.cluster.describe().brokers.find((b) => b.id === later)!.up).toBe(false);
    await new Promise((resolve) => squatter.close(resolve));
    expect((await http(base, 'POST', `/cluster/brokers/${later}/start`)).status).toBe(200);
    expect([server.cluster.leaderOf('ht', 0), partition0.leaderEpoch]).toEqual([later, epoch0 + 1]);
    for (const id of ['01', '-1', '1.0']) {
      expect(await http(base, 'POST', `/cluster/brokers/${id}/stop`)).toMatchObject({ status: 400, body: { message: `broker id must be a non-negative integer written without leading zeros, got "${id}"` } });
    }
    expect(await http(base, 'POST', '/cluster/brokers/99999999999999999999/stop')).toMatchObject({ status: 400, body: { message: 'broker id must be at most 2147483647, got "99999999999999999999"' } });

    expect((await http(base, 'POST', '/cluster/move-leader', { topic: 'nope', partition: 0, brokerId: 1 })).status).toBe(404);
    expect((await http(base, 'POST', '/cluster/move-coordinator', { groupId: 'hg', brokerId: 7 })).status).toBe(404);
    expect((await http(base, 'POST', '/cluster/move-coordinator', { brokerId: 1 }))).toMatchObject({ status: 400, body: { message: expect.stringContaining('groupId') } });
  });

  it('CLI: cluster describe, move-coordinator, load-in-progress, stop-broker, start-broker, move-leader', async () => {
    const server: CliServer = await startCli(['--in-memory', '--port', '0', '--brokers', '3', '--admin-port', '0', '--admin-host', '127.0.0.1', '--kafka-version', '4.0']);
    cleanups.push(() => kill(server, 'SIGTERM'));
    const adminLine = server.lines.find((l) => l.includes('"admin":"http'));
    const admin = /"admin":"(http:\/\/[^"]+)"/.exec(adminLine ?? '')![1]!;
    const cli = async (...args: string[]) => JSON.parse((await run(process.execPath, [CLI, ...args, '--admin', admin])).stdout || 'null');

    const described = await cli('cluster', 'describe');
    expect(described.brokers).toHaveLength(3);
    const ports = new Map<number, number>(described.brokers.map((b: { id: number; port: number }) => [b.id, b.port]));
    expect(ports.get(1)).toBe(server.port);

    const from = await findCoordinator(server.port, 'cg');
    const to = from === 3 ? 1 : from + 1;
    expect(await cli('cluster', 'move-coordinator', '--group', 'cg', '--broker', String(to))).toEqual({ groupId: 'cg', previous: from, coordinator: to });
    expect(await findCoordinator(ports.get(from)!, 'cg')).toBe(to);
    // The request log by the broker that received the request (the first FindCoordinator went to broker 1).
    expect((await cli('requests', '--api', 'FindCoordinator', '--broker-id', String(from))).requests.map((e: { brokerId: number }) => e.brokerId)).toEqual(from === 1 ? [1, 1] : [from]);
    const txFrom = await findCoordinator(server.port, 'ctx', 1);
    const txTo = txFrom === 3 ? 1 : txFrom + 1;
    expect(await cli('cluster', 'move-coordinator', '--transactional-id', 'ctx', '--broker', String(txTo))).toEqual({ transactionalId: 'ctx', previous: txFrom, coordinator: txTo });
    expect(await findCoordinator(ports.get(txFrom)!, 'ctx', 1)).toBe(txTo);
    expect((await cli('cluster', 'describe')).transactionCoordinatorOverrides).toEqual({ ctx: txTo });
    await expect(run(process.execPath, [CLI, 'cluster', 'move-coordinator', '--broker', '1', '--admin', admin])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('--transactional-id') });

    expect((await cli('cluster', 'load-in-progress', '--all', '--duration', '2000')).groupId).toBeNull();
    const stopped = await cli('cluster', 'stop-broker', String(to));
    expect(stopped.brokers.find((b: { id: number }) => b.id === to).up).toBe(false);
    await expect(RawClient.connect(ports.get(to)!)).rejects.toThrow();
    await expect(run(process.execPath, [CLI, 'cluster', 'stop-broker', String(to), '--admin', admin])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('409') });
    await cli('cluster', 'start-broker', String(to));
    expect(await findCoordinator(ports.get(to)!, 'cg')).toBe(to);

    const kafka = kafkaClient(server.bootstrap);
    const kadmin = kafka.admin();
    cleanups.push(() => kadmin.disconnect());
    await kadmin.connect();
    await kadmin.createTopics({ topics: [{ topic: 'ct', numPartitions: 1 }] });
    const moved = await cli('cluster', 'move-leader', '--topic', 'ct', '--partition', '0', '--broker', '2');
    expect(moved).toMatchObject({ topic: 'ct', partition: 0, leader: 2 });
    const md = await kadmin.fetchTopicMetadata({ topics: ['ct'] });
    expect(md.topics[0]!.partitions[0]!.leader).toBe(2);
  });

  it('the groups tool asks every broker: ListGroups per broker, ListOffsets per leader', async () => {
    const server = await startTestServer({ brokers: 3 });
    cleanups.push(() => server.stop());
    const kafka = kafkaClient(server.bootstrap);
    const admin = kafka.admin();
    cleanups.push(() => admin.disconnect());
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'lag', numPartitions: 3 }] });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'lag', messages: [0, 1, 2].map((partition) => ({ value: 'x', partition })) });
    await producer.disconnect();
    // Groups on different coordinators, so no single broker lists them all.
    const groups = ['ga', 'gb', 'gc', 'gd', 'ge', 'gf'];
    expect(new Set(groups.map((g) => server.cluster.coordinatorOf(g))).size).toBeGreaterThan(1);
    const topicId = server.broker.topics.get('lag')!.topicId;
    for (const g of groups) await server.broker.offsets.commit(g, [0, 1, 2].map((partition) => ({ topic: 'lag', partition, offset: 0n, leaderEpoch: -1, metadata: '', topicId, expireTimestamp: -1n })));
    const listed = await listGroups({ bootstrapServer: server.bootstrap, timeoutMs: 10_000 });
    expect(listed.exitCode).toBe(0);
    for (const g of groups) expect(listed.stdout).toContain(g);
    const described = await describeGroups({ bootstrapServer: server.bootstrap, timeoutMs: 10_000, groups: ['ga'] });
    expect(described.exitCode, described.stderr).toBe(0);
    const lags = described.stdout.split('\n').filter((l) => l.startsWith('ga ')).map((l) => l.trim().split(/\s+/));
    expect(lags).toHaveLength(3);
    for (const row of lags) expect(row.slice(3, 6)).toEqual(['0', '1', '1']);
  });
});
