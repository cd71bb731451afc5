/**
 * snappy, lz4 and zstd batches from librdkafka (confluent-kafka), read as Kafka 4.3 reads them
 * (records/decompress.ts): a compacted topic refuses a record without a key inside such a batch
 * (INVALID_RECORD), ListOffsets by timestamp finds the record inside a batch, not the batch, and the
 * log cleaner compacts them (the batch that loses a record rewritten uncompressed), with the records
 * read back by librdkafka. They were stored unchecked and left uncompacted (DIFFERENCES.md before).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../support/server.js';
import { kafkaClient } from '../support/kafkajs.js';
import { python, runPythonClient, type PythonClientResult } from '../support/python.js';
import { compressionCodec, readBatchHeader } from '../../src/records/record-batch.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'clients', 'librdkafka_compressed.py');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Produced extends PythonClientResult {
  deliveries: Array<{ key: string | null; offset: number | null; error: string | null }>;
}
interface Read extends PythonClientResult {
  records: Array<{ offset: number; key: string | null; value: string; timestamp: number }>;
  offsetForTime: number;
}

const CODECS = { snappy: 2, lz4: 3, zstd: 4 } as const;

describe.skipIf(python === null)('snappy, lz4 and zstd batches (librdkafka)', () => {
  it.each(Object.entries(CODECS))('%s: records checked, found by timestamp and compacted', async (codec, codecId) => {
    // Every batch in its own segment, the cleaner on the manual clock.
    const server = await startTestServer({ clock: 'manual', config: { 'log.segment.bytes': 1, 'log.cleaner.backoff.ms': 1000 } });
    cleanups.push(() => server.stop());
    const admin = kafkaClient(server.bootstrap, 'cz').admin();
    await admin.connect();
    cleanups.push(() => admin.disconnect());
    const topic = `cz-${codec}`;
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }] });

    const client = (args: string[]) => ['--bootstrap', server.bootstrap, '--topic', topic, '--codec', codec, ...args];
    // Values long enough to compress: librdkafka sends a batch uncompressed when that is smaller.
    const v = (s: string) => s.repeat(400);
    const batches = [
      [['k1', v('a'), 1000], ['k2', v('b'), 2000], ['k3', v('c'), 3000]],
      [['k1', v('d'), 4000]],
      [[null, v('n'), 5000]],
      [['k4', v('e'), 6000]],
    ];
    const produced = await runPythonClient<Produced>('librdkafka', [SCRIPT, ...client(['--mode', 'produce', '--batches', JSON.stringify(batches)])], 60_000);
    expect(produced.deliveries).toEqual([
      { key: 'k1', offset: 0, error: null },
      { key: 'k2', offset: 1, error: null },
      { key: 'k3', offset: 2, error: null },
      { key: 'k1', offset: 3, error: null },
      { key: null, offset: null, error: 'INVALID_RECORD' },
      { key: 'k4', offset: 4, error: null },
    ]);
    const log = server.broker.topics.get(topic)!.partition(0)!.log;
    expect([...log.batches()].map((b) => [readBatchHeader(b).recordCount, compressionCodec(readBatchHeader(b).attributes)])).toEqual([[3, codecId], [1, codecId], [1, codecId]]);

    const before = await runPythonClient<Read>('librdkafka', [SCRIPT, ...client(['--mode', 'read', '--at', '1500'])], 60_000);
    expect(before.records.map((r) => [r.offset, r.key, r.value, r.timestamp])).toEqual([[0, 'k1', v('a'), 1000], [1, 'k2', v('b'), 2000], [2, 'k3', v('c'), 3000], [3, 'k1', v('d'), 4000], [4, 'k4', v('e'), 6000]]);
    // The record at 2000 inside the first batch, not the batch's base offset.
    expect(before.offsetForTime).toBe(1);

    server.clock.advance(1000);
    await server.broker.logMaintenance.cleanerPass();
    const after = await runPythonClient<Read>('librdkafka', [SCRIPT, ...client(['--mode', 'read'])], 60_000);
    expect(after.records.map((r) => [r.offset, r.key, r.value])).toEqual([[1, 'k2', v('b')], [2, 'k3', v('c')], [3, 'k1', v('d')], [4, 'k4', v('e')]]);
    // The first batch lost k1's old value and was rewritten uncompressed; the others are as produced.
    expect([...log.batches()].map((b) => [readBatchHeader(b).recordCount, compressionCodec(readBatchHeader(b).attributes)])).toEqual([[2, 0], [1, codecId], [1, codecId]]);
  });
});
