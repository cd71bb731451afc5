/**
 * Exactly-once across an application crash (issue #13's must-show): Java kafka-clients 4.3.1 runs
 * consume-transform-produce (kmc.TransformLoop: one transaction per polled batch, with
 * `sendOffsetsToTransaction(offsets, consumer.groupMetadata())`), is SIGKILLed while a transaction
 * is open with its records written and its offsets sent, and is restarted with the same
 * transactional id (which fences the dead instance and aborts its transaction). At the end a
 * read_committed reader sees every input record transformed exactly once, a read_uncommitted one
 * also sees the crashed transaction's records, and the group's committed offsets are the input's
 * end offsets. The producer runs transaction version 2 (no AddPartitionsToTxn/AddOffsetsToTxn,
 * EndTxn v5).
 */
import { expect, it } from 'vitest';
import { describeJava, expectOk, javaClasspath, runJava } from '../support/java.js';
import { startTestServer } from '../support/server.js';
import { kafkaClient } from '../support/kafkajs.js';

const classpath = javaClasspath!;
const INPUT = 200;
const PARTITIONS = 2;
/** The transaction left open at the crash (0-based: three commit first). */
const CRASH_AT = 3;

describeJava('Java consume-transform-produce killed mid-transaction (transaction version 2)', () => {
  it('after a SIGKILL and a restart with the same transactional id, every input is transformed exactly once', { timeout: 240_000 }, async () => {
    const server = await startTestServer();
    const kafka = kafkaClient(server.bootstrap, 'kmc-eos-crash');
    const admin = kafka.admin();
    try {
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: 'eos-in', numPartitions: PARTITIONS }, { topic: 'eos-out', numPartitions: PARTITIONS }] });
      const producer = kafka.producer();
      await producer.connect();
      const values = Array.from({ length: INPUT }, (_, i) => `v${i}`);
      await producer.send({ topic: 'eos-in', messages: values.map((value, i) => ({ key: `k${i}`, value, partition: i % PARTITIONS })) });
      await producer.disconnect();
      const args = (crashAt: number): string[] => ['run', server.bootstrap, 'eos-in', 'eos-out', String(PARTITIONS), 'eos-app', 'eos-txn', String(crashAt)];

      const crashed = await runJava(classpath, 'TransformLoop', args(CRASH_AT), { killOn: (e) => e['event'] === 'open' });
      const open = crashed.events.find((e) => e['event'] === 'open');
      expect(open, crashed.stderr.slice(-4000)).toMatchObject({ transactions: CRASH_AT });
      expect(crashed.signal).toBe('SIGKILL');
      const inFlight = open!['records'] as number;
      expect(inFlight).toBeGreaterThan(0);
      // The killed instance's transaction is still open: its partitions hold the last stable offset back.
      expect(server.broker.transactions.get('eos-txn')!.fields.state).toBe(1 /* Ongoing */);

      const restarted = expectOk(await runJava(classpath, 'TransformLoop', args(-1)));
      expect(restarted.events.find((e) => e['event'] === 'done')!['positions']).toEqual({ 0: INPUT / PARTITIONS, 1: INPUT / PARTITIONS });
      await server.broker.transactions.flush();

      const read = async (isolation: string): Promise<string[]> =>
        expectOk(await runJava(classpath, 'TransformLoop', ['read', server.bootstrap, 'eos-out', String(PARTITIONS), isolation])).events.find((e) => e['event'] === 'read')!['values'] as string[];
      const expected = values.map((v) => v.toUpperCase()).sort();
      expect((await read('read_committed')).sort()).toEqual(expected);
      // The crashed transaction's records are in the log (aborted): read_uncommitted sees them twice.
      const uncommitted = await read('read_uncommitted');
      expect(uncommitted.length).toBe(INPUT + inFlight);
      expect([...new Set(uncommitted)].sort()).toEqual(expected);

      expect(await admin.fetchOffsets({ groupId: 'eos-app', topics: ['eos-in'] })).toEqual([
        { topic: 'eos-in', partitions: [0, 1].map((partition) => ({ partition, offset: String(INPUT / PARTITIONS), metadata: null })) },
      ]);
      // Transaction version 2: partitions and offsets join the transaction without the version 1 APIs.
      const apis = new Map<string, Set<number>>();
      for (const e of server.faults.requests()) (apis.get(e.api) ?? apis.set(e.api, new Set()).get(e.api)!).add(e.version);
      expect(apis.has('AddPartitionsToTxn')).toBe(false);
      expect(apis.has('AddOffsetsToTxn')).toBe(false);
      expect([...apis.get('EndTxn')!]).toEqual([5]);
      expect([...apis.get('TxnOffsetCommit')!]).toEqual([5]);
    } finally {
      await admin.disconnect();
      await server.stop();
    }
  });
});
