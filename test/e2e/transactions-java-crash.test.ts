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
 *
 * Then the other way round: the server (`dist/cli.js`, run `npm run build` first) is SIGKILLed under a
 * Java transactional producer (kmc.TxnAcrossRestart) while its fourth transaction is open with its
 * records written, and restarted on the same port and directory; the producer then commits it and
 * goes on. Under transaction version 2 every commit bumps the producer epoch, and the partitions
 * learn the new epoch from the markers: rebuilt from the log after the restart, they take the open
 * transaction's commit and the producer's next transactions. Every transaction the producer saw
 * commit is visible to read_committed, none it aborted.
 */
import { expect, it } from 'vitest';
import { describeJava, expectOk, javaClasspath, runJava } from '../support/java.js';
import { startTestServer } from '../support/server.js';
import { kafkaClient } from '../support/kafkajs.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCli, kill, type CliServer } from '../support/cli-process.js';
import { tempDataDir } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { createTopic } from '../support/raw-transactions.js';

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

  it('a Java producer (transaction version 2) keeps committing across a SIGKILL and restart of the server', { timeout: 300_000 }, async () => {
    const data = tempDataDir('kmc-java-txn-restart-');
    const servers: CliServer[] = [];
    try {
      const start = async (port: number): Promise<CliServer> => {
        const server = await startCli(['--port', String(port), '--data-dir', data.dir]);
        servers.push(server);
        return server;
      };
      let server = await start(0);
      const port = server.port;
      const raw = await RawClient.connect(port);
      await createTopic(raw, 'restart-out', 2);
      raw.close();
      const TXNS = 8;
      const GATE = 3;
      const gateFile = join(data.dir, 'restarted');
      let restarted: Promise<void> | null = null;
      const run = await runJava(classpath, 'TxnAcrossRestart', [server.bootstrap, 'restart-out', 'restart-txn', String(TXNS), String(GATE), gateFile], {
        timeoutMs: 240_000,
        killOn: (e) => {
          // Transaction 3 is open with its records written: kill the server under the producer, bring it
          // back on the same port, then let the producer commit.
          if (e['event'] === 'open') {
            restarted = kill(server, 'SIGKILL')
              .then(() => start(port))
              .then((s) => {
                server = s;
                writeFileSync(gateFile, '');
              });
          }
          return false;
        },
      });
      expectOk(run);
      expect(restarted).not.toBe(null);
      await restarted;
      const committed = run.events.filter((e) => e['event'] === 'committed').map((e) => e['i'] as number);
      const failed = run.events.filter((e) => e['event'] === 'failed').map((e) => e['i'] as number);
      expect(committed.length + failed.length, run.stdout).toBe(TXNS);
      // The transaction open across the restart commits, and so do the ones after it.
      expect(committed, run.stdout).toEqual(expect.arrayContaining([GATE, GATE + 1, TXNS - 1]));
      const read = expectOk(await runJava(classpath, 'TransformLoop', ['read', server.bootstrap, 'restart-out', '2', 'read_committed']));
      const values = (read.events.find((e) => e['event'] === 'read')!['values'] as string[]).sort();
      const of = (i: number): string[] => [0, 1, 2].map((k) => `t${i}-${k}`);
      for (const i of committed) expect(values, `transaction ${i}`).toEqual(expect.arrayContaining(of(i)));
      // A transaction the producer saw fail was aborted: none of its records, unless its commit was in doubt
      // (the kill came between the commit's write and its answer), then all of them.
      for (const i of failed) expect([0, 3], `transaction ${i}`).toContain(of(i).filter((v) => values.includes(v)).length);
      expect(new Set(values).size).toBe(values.length);
      expect(values.length).toBe(3 * (committed.length + failed.filter((i) => values.includes(`t${i}-0`)).length));
      expect(await kill(server, 'SIGTERM')).toBe(0);
    } finally {
      for (const s of servers) await kill(s, 'SIGKILL');
      data.remove();
    }
  });
});
