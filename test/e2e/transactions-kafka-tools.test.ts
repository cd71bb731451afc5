/**
 * Kafka 4.3.1's `kafka-transactions` tool (`org.apache.kafka.tools.TransactionsCommand`) against
 * the server: `list` and `describe` of a kafkajs transaction left open, and `describe` of an
 * unknown id. Needs Kafka's jars (test/support/provision.ts; skipped without java and mvn).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { clients } from '../support/clients.js';
import { startTestServer } from '../support/server.js';
import { kafkaClient } from '../support/kafkajs.js';

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

describe.skipIf(LIBS === null)("Kafka's kafka-transactions tool", () => {
  it('lists and describes an open transaction; an unknown id is not found', async () => {
    const server = await startTestServer();
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
  });
});
