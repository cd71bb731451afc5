/**
 * Java kafka-clients 4.3.1's transactional producer against the server. The server finalizes
 * `transaction.version` 2, so the producer runs KIP-890's protocol: no AddPartitionsToTxn (partitions
 * join the transaction by Produce v12+, verified by the partition leader) and no AddOffsetsToTxn
 * (sendOffsetsToTransaction sends TxnOffsetCommit v5 directly), EndTxn v5 bumping the epoch per
 * transaction. A committed and an aborted transaction with offsets, read_committed vs
 * read_uncommitted readers, and a second producer with the same transactional id fencing the first.
 */
import { expect, it } from 'vitest';
import { describeJava, expectOk, javaClasspath, recordApiVersions, runJava } from '../support/java.js';
import { startTestServer } from '../support/server.js';

const classpath = javaClasspath!;

describeJava('Java transactional producer (transaction version 2)', () => {
  it('commits, aborts, sends offsets without AddPartitionsToTxn/AddOffsetsToTxn, and is fenced by a new instance', async () => {
    const server = await startTestServer();
    try {
      const run = expectOk(await runJava(classpath, 'Transactions', [server.bootstrap, 'jtx-out', 'jtx-in', 'jtx-app', 'jtx-1']));
      const read = run.events.find((e) => e['event'] === 'read')!;
      const committed = Array.from({ length: 10 }, (_, i) => `c${i}`);
      expect(read['readCommitted']).toEqual(committed);
      expect(read['readUncommitted']).toEqual([...committed, ...Array.from({ length: 5 }, (_, i) => `a${i}`)]);
      expect(read['committed']).toBe(10);
      const fenced = run.events.find((e) => e['event'] === 'fenced')!;
      expect(fenced['error']).toBe('ProducerFencedException');
      expect(fenced['readCommitted']).toEqual([...committed, 'fresh']);

      const used = new Map<string, Set<number>>();
      for (const e of server.faults.requests()) {
        if (!used.has(e.api)) used.set(e.api, new Set());
        used.get(e.api)!.add(e.version);
      }
      expect(used.has('AddPartitionsToTxn')).toBe(false);
      expect(used.has('AddOffsetsToTxn')).toBe(false);
      expect([...used.get('EndTxn')!]).toEqual([5]);
      expect([...used.get('TxnOffsetCommit')!]).toEqual([5]);
      expect(Math.min(...used.get('Produce')!)).toBeGreaterThanOrEqual(12);
      recordApiVersions('transactions-tv2', server.faults.requests());
    } finally {
      await server.stop();
    }
  });
});
