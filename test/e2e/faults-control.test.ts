import { afterEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../support/server.js';
import { startCli, kill, type CliServer } from '../support/cli-process.js';
import { groupConsumer, kafkaClient, waitFor } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { defaultOffsetCommitRequest } from '../../src/protocol/messages/OffsetCommitRequest.js';
import { defaultCreateTopicsRequest, defaultCreatableTopic } from '../../src/protocol/messages/CreateTopicsRequest.js';
import { ErrorCode } from '../../src/protocol/errors.js';

/** The HTTP admin API and the CLI drive the same fault model as the programmatic API. */

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

describe('control surfaces', () => {
  it('HTTP: REBALANCE_IN_PROGRESS x3 on a kafkajs group, wait for the firings, then read the group, offsets, lag and request log', async () => {
    const server = await startTestServer({ adminPort: 0, adminHost: '127.0.0.1' });
    cleanups.push(() => server.stop());
    const base = server.admin!.url;
    const kafka = kafkaClient(server.bootstrap);
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'web', messages: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
    await producer.disconnect();

    const added = await http(base, 'POST', '/faults', { id: 'rip', match: { api: 'OffsetCommit', group: 'gh' }, action: { type: 'error', error: 'REBALANCE_IN_PROGRESS' }, times: 3 });
    expect(added).toMatchObject({ status: 201, body: { id: 'rip', times: 3, fired: 0, state: 'active', match: { api: 'OffsetCommit', apiKey: 8, group: 'gh' } } });
    expect((await http(base, 'POST', '/faults', { id: 'rip', action: { type: 'delay', ms: 1 } })).status).toBe(409);

    const consumer = groupConsumer(kafka, 'gh');
    cleanups.push(() => consumer.disconnect());
    await consumer.connect();
    await consumer.subscribe({ topic: 'web', fromBeginning: true });
    let seen = 0;
    await consumer.run({
      autoCommitThreshold: 1,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary }) => {
        // Leave the third message unprocessed, so the group has a lag of 1.
        for (const m of batch.messages.filter((msg) => Number(msg.offset) < 2)) {
          seen++;
          resolveOffset(m.offset);
          await commitOffsetsIfNecessary();
        }
      },
    });
    const waited = await http(base, 'POST', '/faults/rip/wait', { count: 3, timeoutMs: 30_000 });
    expect(waited).toMatchObject({ status: 200, body: { fired: 3, state: 'exhausted' } });
    await waitFor(() => server.broker.offsets.fetch('gh', 'web', 0)?.committedOffset === 2n, 30_000, 'the commit');
    expect(seen).toBeGreaterThan(2);

    const groups = await http(base, 'GET', '/groups');
    expect(groups.body.groups).toContainEqual(expect.objectContaining({ groupId: 'gh', state: 'Stable', members: 1, protocolType: 'consumer' }));
    const group = await http(base, 'GET', '/groups/gh');
    expect(group.body).toMatchObject({
      groupId: 'gh',
      state: 'Stable',
      members: [{ clientId: 'kmc-test', assignment: [{ topic: 'web', partitions: [0] }] }],
      offsets: [{ topic: 'web', partition: 0, committedOffset: 2, logEndOffset: 3, lag: 1 }],
      totalLag: 1,
    });
    expect(group.body.offsets[0].memberId).toBe(group.body.members[0].memberId);
    expect((await http(base, 'GET', '/groups/nope')).status).toBe(404);

    const log = await http(base, 'GET', '/requests?api=OffsetCommit&group=gh');
    expect(log.body.requests.slice(0, 3).map((e: { error: string; faults: string[] }) => [e.error, e.faults])).toEqual(Array(3).fill(['REBALANCE_IN_PROGRESS', ['rip']]));
    // Only the failed ones: the three the rule answered (with the group's other failed requests, if any).
    const failed = await http(base, 'GET', '/requests?group=gh&failed=true');
    expect(failed.body.requests.filter((e: { api: string }) => e.api === 'OffsetCommit').map((e: { error: string; faults: string[] }) => [e.error, e.faults])).toEqual(Array(3).fill(['REBALANCE_IN_PROGRESS', ['rip']]));
    expect(failed.body.requests.every((e: { error: string | null; faults: string[]; outcome: string }) => e.error !== null || e.faults.length > 0 || e.outcome !== 'response')).toBe(true);
    expect((await http(base, 'GET', '/requests?failed=yes')).status).toBe(400);
    // By error name (any case) or code: the same three; a name no Kafka has is a 400 naming a close one.
    for (const error of ['REBALANCE_IN_PROGRESS', 'rebalance_in_progress', '27']) {
      const byError = await http(base, 'GET', `/requests?group=gh&error=${error}`);
      expect(byError.body.requests.map((e: { api: string; error: string; faults: string[] }) => [e.api, e.error, e.faults])).toEqual(Array(3).fill(['OffsetCommit', 'REBALANCE_IN_PROGRESS', ['rip']]));
    }
    // A long unknown name is not echoed whole.
    const long = await http(base, 'GET', `/requests?error=${'X'.repeat(5000)}`);
    expect([long.status, long.body.message.length < 300]).toEqual([400, true]);
    expect(await http(base, 'GET', '/requests?error=REBALANCE_IN_PROGRES')).toMatchObject({ status: 400, body: { message: 'unknown error "REBALANCE_IN_PROGRES" (did you mean REBALANCE_IN_PROGRESS?)' } });
    expect((await http(base, 'DELETE', '/faults/rip')).status).toBe(204);
    expect((await http(base, 'GET', '/faults')).body).toEqual({ faults: [] });
  });

  it('CLI: startup rules from KMC_FAULTS, faults add/list/remove/clear, clock advance on a manual clock', async () => {
    const startup = JSON.stringify([{ id: 'boot', match: { api: 'DescribeGroups' }, action: { type: 'error', error: 'COORDINATOR_NOT_AVAILABLE' }, times: 'unlimited' }]);
    const server: CliServer = await startCli(['--in-memory', '--port', '0', '--admin-port', '0', '--admin-host', '127.0.0.1', '--clock', 'manual'], { KMC_FAULTS: startup });
    cleanups.push(() => kill(server, 'SIGTERM'));
    const adminLine = server.lines.find((l) => l.includes('"admin":"http'));
    const admin = /"admin":"(http:\/\/[^"]+)"/.exec(adminLine ?? '')![1]!;
    const cli = async (...args: string[]) => JSON.parse((await run(process.execPath, [CLI, ...args, '--admin', admin])).stdout || 'null');

    expect((await cli('faults', 'list')).faults.map((f: { id: string }) => f.id)).toEqual(['boot']);
    // --admin before the command (and between its words) works as after it.
    for (const args of [['--admin', admin, 'faults', 'list'], ['faults', '--admin', admin, 'list']]) {
      expect(JSON.parse((await run(process.execPath, [CLI, ...args], { env: { ...process.env, KMC_ADMIN_URL: 'http://127.0.0.1:9' } })).stdout).faults.map((f: { id: string }) => f.id)).toEqual(['boot']);
    }
    // Not an option of serving, nor of a command that calls no admin API: said so.
    await expect(run(process.execPath, [CLI, '--admin', admin])).rejects.toMatchObject({
      code: 2,
      stderr: `kafka-mock-coordinator: --admin <url> names a running server's admin API, for a command: kafka-mock-coordinator --admin ${admin} faults list; the server's own admin API takes --admin-port and --admin-host\n`,
    });
    await expect(run(process.execPath, [CLI, '--admin', admin, 'dump-log', 'none.log'])).rejects.toMatchObject({
      code: 1,
      stderr: "error: unknown option '--admin' (it names the admin API for faults, cluster, transactions, clock, requests)\n",
    });
    const added = await run(process.execPath, [CLI, 'faults', 'add', '--api', 'OffsetCommit', '--group', 'gc', '--topic', 'parts', '--partition', '1', '--error', 'OFFSET_METADATA_TOO_LARGE', '--admin', admin]);
    expect(JSON.parse(added.stdout)).toMatchObject({ id: 'f1', match: { partitions: [1], topic: 'parts' }, action: { type: 'error', errorCode: 12 } });
    // Which server took it, on stderr (stdout stays the rule's JSON).
    expect(added.stderr).toBe(`kafka-mock-coordinator: fault rule f1 added on the server at localhost:${server.port} (admin API ${admin})\n`);

    const client = await RawClient.connect(server.port);
    cleanups.push(() => client.close());
    await client.send(19, 4, { ...defaultCreateTopicsRequest(), topics: [{ ...defaultCreatableTopic(), name: 'parts', numPartitions: 3, replicationFactor: 1 }], timeoutMs: 5000 });
    const res = await client.send(8, 8, {
      ...defaultOffsetCommitRequest(),
      groupId: 'gc',
      generationIdOrMemberEpoch: -1,
      topics: [{ name: 'parts', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [0, 1, 2].map((partitionIndex) => ({ partitionIndex, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: '' })) }],
    });
    expect(res.topics[0]!.partitions.map((p) => p.errorCode)).toEqual([0, 12, 0]);
    const described = await client.send(15, 5, { groups: ['gc'], includeAuthorizedOperations: false });
    expect(described.groups[0]!.errorCode).toBe(15);

    const listed = (await cli('faults', 'list')).faults;
    expect(listed.map((f: { id: string; fired: number }) => [f.id, f.fired])).toEqual([['boot', 1], ['f1', 1]]);
    const requests = await cli('requests', '--api', 'OffsetCommit', '--group', 'gc');
    expect(requests.requests[0]).toMatchObject({ api: 'OffsetCommit', group: 'gc', error: 'OFFSET_METADATA_TOO_LARGE', faults: ['f1'] });

    // A transactional id: the rule fails EndTxn for that id only; the request log filters on it.
    const txRule = await cli('faults', 'add', '--api', 'EndTxn', '--transactional-id', 'tx-c', '--error', 'CONCURRENT_TRANSACTIONS');
    expect(txRule).toMatchObject({ id: 'f2', match: { api: 'EndTxn', transactionalId: 'tx-c' }, action: { type: 'error', errorCode: 51 } });
    const endTxn = (transactionalId: string) => client.send(26, 4, { transactionalId, producerId: 5n, producerEpoch: 0, committed: true });
    expect((await endTxn('tx-other')).errorCode).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    expect((await endTxn('tx-c')).errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect((await cli('requests', '--transactional-id', 'tx-c')).requests.map((r: { api: string; error: string; faults: string[] }) => [r.api, r.error, r.faults])).toEqual([['EndTxn', 'CONCURRENT_TRANSACTIONS', ['f2']]]);
    expect(await cli('faults', 'remove', 'f2')).toEqual({ removedId: 'f2' });
    // By prefix: every transactional id starting with it, none that merely contains it.
    const prefixRule = await cli('faults', 'add', '--api', 'EndTxn', '--transactional-id-prefix', 'shop-', '--error', 'CONCURRENT_TRANSACTIONS', '--times', 'unlimited');
    expect(prefixRule).toMatchObject({ id: 'f3', match: { api: 'EndTxn', transactionalId: { prefix: 'shop-' } } });
    expect((await endTxn('shop-1-0_1')).errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect((await endTxn('my-shop-1')).errorCode).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    expect(await cli('faults', 'remove', 'f3')).toEqual({ removedId: 'f3' });
    await expect(run(process.execPath, [CLI, 'faults', 'add', '--api', 'EndTxn', '--group', 'g', '--group-prefix', 'g', '--error', '15', '--admin', admin])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('give --group or --group-prefix, not both'),
    });

    const before = await cli('clock', 'now');
    expect(before.mode).toBe('manual');
    const advanced = await cli('clock', 'advance', '60000');
    expect(advanced.now).toBe(before.now + 60_000);
    expect(await cli('faults', 'remove', 'boot')).toEqual({ removedId: 'boot' });
    await expect(run(process.execPath, [CLI, 'faults', 'remove', 'boot', '--admin', admin])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('404') });
    expect(await cli('faults', 'clear')).toEqual({ removed: 1 });
  });
});
