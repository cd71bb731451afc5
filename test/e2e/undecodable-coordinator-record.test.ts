/**
 * A coordinator record that passes its batch's CRC but cannot be decoded (adversarial trial 14:
 * start-up stopped with "non-nullable string is null", naming nothing): the start fails with a
 * message naming the topic-partition, the record's type and offset and its segment file. The
 * record is written by hand at the tail of the partition a real server wrote; the CLI exits 2, as
 * for other start failures.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../src/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { defaultInitProducerIdRequest } from '../../src/protocol/messages/InitProducerIdRequest.js';
import { encodeRecordBatch, readBatchHeader } from '../../src/records/record-batch.js';
import { offsetsPartitionFor } from '../../src/util/java-hash.js';
import { RawClient } from '../support/raw-client.js';
import { createTopics, offsetCommit, topic } from '../support/big-requests.js';
import { tempDataDir } from '../support/server.js';

const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
const SEGMENT = '00000000000000000000.log';

/** Appends one CRC-valid batch of the record `key`/`value` after the last batch of `file`; returns its offset. */
function appendRecord(file: string, key: Buffer, value: Buffer): bigint {
  const bytes = readFileSync(file);
  let next = 0n;
  for (let at = 0; at < bytes.length; ) {
    const h = readBatchHeader(bytes, at);
    next = h.baseOffset + BigInt(h.lastOffsetDelta) + 1n;
    at += 12 + h.batchLength;
  }
  expect(next).toBeGreaterThan(0n);
  appendFileSync(file, encodeRecordBatch({ baseOffset: next, timestamp: 1_700_000_000_000n, records: [{ key, value }] }));
  return next;
}

/** The CLI's start on `dataDir` (exit status, stderr) and the in-process start's rejection message. */
async function startBoth(dataDir: string): Promise<{ status: number | null; stderr: string; message: string }> {
  const res = spawnSync(process.execPath, [CLI, '--port', '0', '--no-admin', '--data-dir', dataDir], { encoding: 'utf8', timeout: 60_000 });
  const message = await startServer({ port: 0, dataDir, logLevel: 'silent' }).then(
    async (s) => {
      await s.close();
      return 'started';
    },
    (err: Error) => err.message,
  );
  return { status: res.status, stderr: res.stderr, message };
}

describe('an undecodable coordinator record at start-up', () => {
  it('in __consumer_offsets: the message names the partition, the record type, its offset and segment file', async () => {
    const data = tempDataDir();
    try {
      const first = await startServer({ port: 0, dataDir: data.dir, logLevel: 'silent' });
      const c = await RawClient.connect(first.port);
      expect((await c.send(19, 7, createTopics([topic('t', 1)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
      const committed = await c.send(8, 8, offsetCommit('g-bad', [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 3n, committedLeaderEpoch: -1, committedMetadata: '' }] }]));
      expect(committed.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
      c.close();
      await first.close();
      const partition = offsetsPartitionFor('g-bad', 50);
      // An OffsetCommit key (type 1) whose group id has length -1: null where Kafka's schema forbids it.
      const offset = appendRecord(join(data.dir, `__consumer_offsets-${partition}`, SEGMENT), Buffer.from([0, 1, 0xff, 0xff]), Buffer.from([0, 3, 1, 2]));
      const message = `__consumer_offsets-${partition}: OffsetCommit record (type 1) at offset ${offset} (${SEGMENT}) cannot be decoded: non-nullable string is null`;
      const res = await startBoth(data.dir);
      expect(res).toEqual({ status: 2, stderr: `kafka-mock-coordinator: ${message}\n`, message });
    } finally {
      data.remove();
    }
  });

  it('in __transaction_state: the message names the partition, the record type, its offset and segment file', async () => {
    const data = tempDataDir();
    try {
      const first = await startServer({ port: 0, dataDir: data.dir, logLevel: 'silent' });
      const c = await RawClient.connect(first.port);
      const init = await c.send(22, 4, { ...defaultInitProducerIdRequest(), transactionalId: 'tx-bad', transactionTimeoutMs: 60000 });
      expect(init.errorCode).toBe(ErrorCode.NONE);
      c.close();
      await first.close();
      const partition = offsetsPartitionFor('tx-bad', 50);
      // A TransactionLog key (type 0) for "tx-bad" with a value of version 1 cut short after one byte.
      const key = Buffer.concat([Buffer.from([0, 0, 0, 6]), Buffer.from('tx-bad')]);
      const offset = appendRecord(join(data.dir, `__transaction_state-${partition}`, SEGMENT), key, Buffer.from([0, 1, 0xff]));
      const res = await startBoth(data.dir);
      const message = `__transaction_state-${partition}: TransactionLog record (type 0) at offset ${offset} (${SEGMENT}) cannot be decoded: read of 8 bytes at 2 runs past end 3`;
      expect(res).toEqual({ status: 2, stderr: `kafka-mock-coordinator: ${message}\n`, message });
    } finally {
      data.remove();
    }
  });
});
