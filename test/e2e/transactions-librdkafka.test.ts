/**
 * librdkafka's transactional producer (the Python confluent-kafka wheel, transaction version 1:
 * AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn): a committed and an aborted
 * transaction with send_offsets_to_transaction, read back by read_committed and read_uncommitted
 * consumers (test/e2e/clients/librdkafka_transactions.py). Skipped without python3.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';
import { python, runPythonClient, type PythonClientResult } from '../support/python.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'clients', 'librdkafka_transactions.py');

interface Result extends PythonClientResult {
  readCommitted: string[];
  readUncommitted: string[];
  committed: number;
}

describe.skipIf(!python)('librdkafka transactional producer', () => {
  it('commits one transaction and aborts another; read_committed sees only the committed records and offsets', async () => {
    const server = await startTestServer();
    try {
      const r = await runPythonClient<Result>('librdkafka', [SCRIPT, '--bootstrap', server.bootstrap, '--out', 'rdtx-out', '--input', 'rdtx-in', '--group', 'rdtx-app', '--txn-id', 'rdtx-1'], 120_000);
      const committed = Array.from({ length: 10 }, (_, i) => `c${i}`);
      expect(r.readCommitted).toEqual(committed);
      expect(r.readUncommitted).toEqual([...committed, ...Array.from({ length: 5 }, (_, i) => `a${i}`)]);
      expect(r.committed).toBe(10);
      const apis = new Set(server.faults.requests().map((e) => e.api));
      expect(['AddPartitionsToTxn', 'AddOffsetsToTxn', 'TxnOffsetCommit', 'EndTxn'].filter((a) => apis.has(a))).toEqual(['AddPartitionsToTxn', 'AddOffsetsToTxn', 'TxnOffsetCommit', 'EndTxn']);
    } finally {
      await server.stop();
    }
  });
});
