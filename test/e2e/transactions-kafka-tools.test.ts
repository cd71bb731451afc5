/**
 * Kafka 4.3.1's `kafka-transactions` tool (`org.apache.kafka.tools.TransactionsCommand`) against
 * the server: `list` and `describe` of a kafkajs transaction left open, and `describe` of an
 * unknown id; `describe-producers`, `find-hanging` and `abort` of a transaction its coordinator does
 * not know (a hanging transaction: a transactional batch written without the coordinator), and
 * `forceTerminateTransaction` of an open kafkajs transaction. Needs Kafka's jars
 * (test/support/provision.ts; skipped without java and mvn).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { clients } from '../support/clients.js';
import { startTestServer } from '../support/server.js';
import { kafkaClient } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { batchOf, createTopic, logOnly, produce } from '../support/raw-transactions.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { txnStateName } from '../../src/transactions/transaction-state.js';

const LIBS = clients().kafkaLibs;
const run = promisify(execFile);

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Runs the tool (asynchronously: the server shares this event loop); its exit code and output lines, columns joined by one space. */
async function transactionsTool(bootstrap: string, args: string[]): Promise<{ code: number; lines: string[] }> {
  const result = await run('java', ['-cp', `${LIBS!}/*`, 'org.apache.kafka.tools.TransactionsCommand', '--bootstrap-server', bootstrap, ...args], { encoding: 'utf8', timeout: 120_000 }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
  const lines = result.out.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('SLF4J')).map((l) => l.replace(/\s+/g, ' ').trim());
  return { code: result.code, lines };
}

/** Several JVM starts per test: minutes on a loaded 2-core machine (a backstop for a hang, not a speed limit). */
const TOOLS_TEST_MS = 480_000;

describe.skipIf(LIBS === null)("Kafka's kafka-transactions tool", () => {
  it('lists and describes an open transaction; an unknown id is not found', async () => {
    // The manual clock: three JVM starts may outlast the transaction's 60 s timeout on a loaded
    // machine, and the transaction must stay open (Ongoing) throughout.
    const server = await startTestServer({ clock: 'manual' });
    cleanups.push(() => server.stop());
    const kafka = kafkaClient(server.bootstrap, 'kmc-txn-tool');
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(() => admin.disconnect());
    await admin.createTopics({ topics: [{ topic: 'tool-out', numPartitions: 2 }] });
    const producer = kafka.producer({ transactionalId: 'tool-tx', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    cleanups.push(() => producer.disconnect());
    const txn = await producer.transaction();
    await txn.send({ topic: 'tool-out', messages: [{ value: 'x', partition: 1 }] });
    const state = server.broker.transactions.get('tool-tx')!;
    const pid = state.producerId.toString();

    expect(await transactionsTool(server.bootstrap, ['list'])).toEqual({
      code: 0,
      lines: ['TransactionalId Coordinator ProducerId TransactionState', `tool-tx 1 ${pid} Ongoing`],
    });
    const described = await transactionsTool(server.bootstrap, ['describe', '--transactional-id', 'tool-tx']);
    expect(described.code).toBe(0);
    expect(described.lines[0]).toBe('CoordinatorId TransactionalId ProducerId ProducerEpoch TransactionState TransactionTimeoutMs CurrentTransactionStartTimeMs TransactionDurationMs TopicPartitions');
    const [coordinator, id, producerId, epoch, txnState, timeout, start, , partitions] = described.lines[1]!.split(' ');
    expect([coordinator, id, producerId, epoch, txnState, timeout, start, partitions]).toEqual(['1', 'tool-tx', pid, '0', 'Ongoing', '60000', String(state.fields.txnStartTimestamp), 'tool-out-1']);
    expect(await transactionsTool(server.bootstrap, ['describe', '--transactional-id', 'nope'])).toEqual({
      code: 1,
      lines: ["Failed to describe transaction state of transactional-id `nope`: DescribeTransactions request for transactionalId `nope` failed because the ID could not be found. Enable debug logging for additional detail."],
    });
    await txn.commit();
  }, TOOLS_TEST_MS);

  it('describe-producers, find-hanging and abort a hanging transaction; forceTerminateTransaction aborts an open one', async () => {
    // The Produce path's check against the coordinator is off: the raw batch below opens a
    // transaction on the partition that no coordinator knows, as a hanging transaction does.
    const server = logOnly(await startTestServer());
    cleanups.push(() => server.stop());
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    await createTopic(raw, 'hang-out');
    // Its batch timestamp (2023) makes it older than find-hanging's 15 minutes.
    const appended = await produce(raw, 'hang-out', 'ghost', batchOf({ producerId: 4242n, producerEpoch: 3, baseSequence: 0, count: 3, transactional: true }));
    expect(appended.errorCode).toBe(ErrorCode.NONE);

    const producers = await transactionsTool(server.bootstrap, ['describe-producers', '--topic', 'hang-out', '--partition', '0']);
    expect(producers).toEqual({
      code: 0,
      lines: ['ProducerId ProducerEpoch LatestCoordinatorEpoch LastSequence LastTimestamp CurrentTransactionStartOffset', '4242 3 -1 2 1700000000000 0'],
    });
    const hanging = await transactionsTool(server.bootstrap, ['find-hanging', '--topic', 'hang-out']);
    expect(hanging.code).toBe(0);
    expect(hanging.lines[0]).toBe('Topic Partition ProducerId ProducerEpoch CoordinatorEpoch StartOffset LastTimestamp Duration(min)');
    expect(hanging.lines.slice(1).map((l) => l.split(' ').slice(0, 7))).toEqual([['hang-out', '0', '4242', '3', '-1', '0', '1700000000000']]);

    const partition = server.broker.topics.get('hang-out')!.partition(0)!;
    expect(partition.lastStableOffset).toBe(0n);
    expect(await transactionsTool(server.bootstrap, ['abort', '--topic', 'hang-out', '--partition', '0', '--start-offset', '0'])).toEqual({ code: 0, lines: [] });
    // The ABORT marker at offset 3: the last stable offset moves to the end of the log.
    expect([partition.lastStableOffset, partition.highWatermark]).toEqual([4n, 4n]);
    // Nothing hangs now: the table's header and no row.
    expect((await transactionsTool(server.bootstrap, ['find-hanging', '--topic', 'hang-out'])).lines).toEqual([hanging.lines[0]]);

    // forceTerminateTransaction (Admin.forceTerminateTransaction: InitProducerId for the id): the
    // open kafkajs transaction is aborted (its ABORT marker written), the id left Empty with a
    // newer epoch, and the producer fenced.
    const kafka = kafkaClient(server.bootstrap, 'kmc-txn-tool');
    const producer = kafka.producer({ transactionalId: 'tool-ft', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    cleanups.push(() => producer.disconnect());
    const txn = await producer.transaction();
    await txn.send({ topic: 'hang-out', messages: [{ value: 'open' }] });
    const open = server.broker.transactions.get('tool-ft')!;
    const before = open.producerEpoch;
    expect(txnStateName(open.state)).toBe('Ongoing');
    expect(await transactionsTool(server.bootstrap, ['forceTerminateTransaction', '--transactionalId', 'tool-ft'])).toEqual({ code: 0, lines: [] });
    await server.broker.transactions.flush();
    const after = server.broker.transactions.get('tool-ft')!;
    expect([txnStateName(after.state), after.producerEpoch > before]).toEqual(['Empty', true]);
    expect([partition.lastStableOffset, partition.highWatermark]).toEqual([6n, 6n]);
    await expect(txn.send({ topic: 'hang-out', messages: [{ value: 'late' }] })).rejects.toThrow();
  }, TOOLS_TEST_MS);
});
