/**
 * The admin API's transactions (issue 13): `GET /transactions` and `GET /transactions/{id}` show a
 * kafkajs transaction open with records on two partitions and offsets sent for a group (state,
 * producer id and epoch, timeout, coordinator, partitions with the group's `__consumer_offsets`
 * partition, the pending offsets), `GET /groups/{id}` shows the group's pending transactional
 * offsets with their transactional id; after the commit the offsets are committed and nothing is
 * pending. Every key is one the OpenAPI document lists.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';
import { kafkaClient } from '../support/kafkajs.js';
import { documentedKeys, getJson as get } from '../support/admin-http.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const run = promisify(execFile);

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);

describe('admin API: transactions', () => {
  it('shows an open transaction, its partitions and pending offsets, and the group its offsets wait for; nothing pending after the commit', async () => {
    const server = await startTestServer({ adminPort: 0 });
    cleanups.push(() => server.stop());
    const base = server.admin!.url;
    const kafka = kafkaClient(server.bootstrap, 'kmc-admin-txn');
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(() => admin.disconnect());
    await admin.createTopics({ topics: [{ topic: 'at-out', numPartitions: 2 }, { topic: 'at-in', numPartitions: 1 }] });
    const producer = kafka.producer({ transactionalId: 'at-tx', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    cleanups.push(() => producer.disconnect());
    const txn = await producer.transaction();
    await txn.send({ topic: 'at-out', messages: [{ partition: 1, value: 'b' }, { partition: 0, value: 'a' }] });
    await txn.sendOffsets({ consumerGroupId: 'at-group', topics: [{ topic: 'at-in', partitions: [{ partition: 0, offset: '5' }] }] });

    const state = server.broker.transactions.get('at-tx')!;
    const producerId = Number(state.producerId);
    const offsetsPartition = server.broker.cluster.offsetsPartitionOf('at-group');
    const open = {
      transactionalId: 'at-tx',
      state: 'Ongoing',
      producerId,
      producerEpoch: 0,
      timeoutMs: 60_000,
      startTime: new Date(state.fields.txnStartTimestamp).toISOString(),
      lastUpdateTime: ISO,
      coordinator: 1,
      partitions: [{ topic: '__consumer_offsets', partitions: [offsetsPartition] }, { topic: 'at-out', partitions: [0, 1] }],
    };
    const listed = await get(base, '/transactions');
    expect(listed).toEqual({ status: 200, body: { transactions: [open], total: 1 } });
    expect(Object.keys(listed.body.transactions[0]).sort()).toEqual(documentedKeys('Transaction'));
    // `limit`: the first ids by id, `total` still counting all.
    expect(await get(base, '/transactions?limit=1')).toEqual(listed);
    expect(await get(base, '/transactions?limit=0')).toEqual({ status: 400, body: { statusCode: 400, error: 'Bad Request', message: 'limit (a query parameter) must be an integer from 1 to 9007199254740991 in digits, got "0"' } });
    const described = await get(base, '/transactions/at-tx');
    expect(described).toEqual({ status: 200, body: { ...open, pendingOffsets: [{ groupId: 'at-group', topic: 'at-in', partition: 0, offset: 5, metadata: '' }] } });
    expect(Object.keys(described.body).sort()).toEqual(documentedKeys('TransactionDescription'));
    // The query form names any id, also `.` and `..`, which URL parsing folds out of a path.
    expect(await get(base, '/transaction?transactionalId=at-tx')).toEqual(described);
    expect(await get(base, '/transaction?transactionalId=..')).toEqual({ status: 404, body: { statusCode: 404, error: 'Not Found', message: 'unknown transactional id ".."' } });
    expect(await get(base, '/transaction')).toEqual({ status: 400, body: { statusCode: 400, error: 'Bad Request', message: 'transactionalId (one query parameter) is required' } });
    // The command line prints the same views (`kafka-mock-coordinator transactions list | describe <id>`).
    const cli = async (...args: string[]) => JSON.parse((await run(process.execPath, [CLI, 'transactions', ...args, '--admin', base])).stdout);
    expect(await cli('list')).toEqual(listed.body);
    expect(await cli('describe', 'at-tx')).toEqual(described.body);
    await expect(run(process.execPath, [CLI, 'transactions', 'describe', 'nope', '--admin', base])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('404 unknown transactional id "nope"') });
    await expect(run(process.execPath, [CLI, 'transactions', 'describe', '.', '--admin', base])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('404 unknown transactional id "."') });

    // The group exists only by its pending offset: no committed offset yet.
    const group = await get(base, '/groups/at-group');
    expect(group.status).toBe(200);
    expect(group.body).toMatchObject({ groupId: 'at-group', state: 'Empty', offsets: [], totalLag: 0 });
    expect(group.body.pendingTransactionalOffsets).toEqual([{ topic: 'at-in', partition: 0, offset: 5, leaderEpoch: -1, metadata: '', producerId, transactionalId: 'at-tx' }]);
    expect(Object.keys(group.body.pendingTransactionalOffsets[0]).sort()).toEqual(documentedKeys('PendingOffset'));

    await txn.commit();
    await server.broker.transactions.flush();
    const committed = await get(base, '/transactions/at-tx');
    expect(committed.body).toMatchObject({ state: 'CompleteCommit', producerId, partitions: [], pendingOffsets: [] });
    const after = await get(base, '/groups/at-group');
    expect(after.body.pendingTransactionalOffsets).toEqual([]);
    expect(after.body.offsets).toEqual([expect.objectContaining({ topic: 'at-in', partition: 0, committedOffset: 5 })]);

    expect(await get(base, '/transactions/nope')).toEqual({ status: 404, body: { statusCode: 404, error: 'Not Found', message: 'unknown transactional id "nope"' } });
  });
});
