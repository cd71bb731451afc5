/**
 * Compaction of compressed batches. gzip, snappy, lz4 and zstd batches are read decompressed and
 * compacted like others; when some of their records go, the rest are written uncompressed (Kafka
 * recompresses them with the batch's codec; DIFFERENCES.md). A batch decompressing to more than
 * this server reads (DECOMPRESS_LIMIT) leaves the partition uncompacted with one warning naming the
 * codec, not an error with a stack that reads like a corruption (new-user trial, session 20:
 * "forEachRecordSpanOfBatch reads uncompressed batches only; ... codec 3", then "log cleaning
 * failed; ... until restart", and no gzip or lz4 topic compacted).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { CompressedBatchError, LogCleaner } from '../../src/storage/log-cleaner.js';
import { compressionCodec, decodeRecordsIfReadable, readBatchHeader } from '../../src/records/record-batch.js';
import { ManualTime, captureLog, removeTempDirs, tempDir } from './helpers.js';
import { createRequire } from 'node:module';
import { DECOMPRESS_LIMIT } from '../../src/records/decompress.js';
import { rawBatch, record, recordBody } from '../support/raw-records.js';

afterEach(() => removeTempDirs());

const require = createRequire(import.meta.url);
const lz4 = require('lz4-napi') as typeof import('lz4-napi');
const snappy = require('snappy') as typeof import('snappy');

/** Record bytes compressed with codec 2 (a raw snappy block) or 3 (an LZ4 frame); gzip is rawBatch's. */
const COMPRESSORS: Record<number, (records: Buffer) => Buffer> = { 2: (r) => snappy.compressSync(r), 3: (r) => lz4.compressFrameSync(r) };

/** A batch of `entries` ([key, value]) in order, compressed with `codec` (1 gzip, 2 snappy, 3 lz4). */
function keyed(entries: Array<[string, string]>, codec = 0): Buffer {
  const records = Buffer.concat(entries.map(([k, v], i) => record(recordBody({ offsetDelta: i, key: Buffer.from(k), value: Buffer.from(v) }))));
  return rawBatch(records, entries.length, { codec, timestamp: 1_700_000_000_000n, payload: COMPRESSORS[codec]?.(records) });
}

function openLog(captured: ReturnType<typeof captureLog>, time: ManualTime): PartitionLog {
  return PartitionLog.open({ dir: tempDir('kmc-cleaner-compressed-'), segmentBytes: 200, rollMs: 1e12, flushPolicy: 'never', flushIntervalMs: 1000, log: captured.log, time });
}

describe('LogCleaner on compressed batches', () => {
  it.each([['gzip', 1], ['snappy', 2], ['lz4', 3]])('compacts %s batches: a superseded record goes, the rest of its batch stays, uncompressed', async (_name, codec) => {
    const time = new ManualTime();
    const captured = captureLog();
    const log = openLog(captured, time);
    try {
      await log.append([keyed([['k1', 'old'], ['k2', 'kept']], codec)]).durable;
      await log.append([keyed([['k1', 'new']], codec)]).durable;
      for (let i = 0; i < 6; i++) await log.append([keyed([['filler', String(i)]])]).durable;
      expect(log.closedSegments().length).toBeGreaterThan(1);
      const cleaner = new LogCleaner({ time, log: captured.log, deleteRetentionMs: 0, minCleanableRatio: 0, maxSegmentBytes: 1 << 20 });
      expect(await cleaner.clean(log)).not.toBeNull();
      const batches = [...log.batches()];
      const first = readBatchHeader(batches[0]!);
      // The first batch rebuilt without k1's old value: offsets 0-1 still, k2 at 1, no codec; the
      // second kept as it was.
      expect([first.baseOffset, first.lastOffsetDelta, first.recordCount, compressionCodec(first.attributes)]).toEqual([0n, 1, 1, 0]);
      expect(compressionCodec(readBatchHeader(batches[1]!).attributes)).toBe(codec);
      const kept = batches.flatMap((b) => decodeRecordsIfReadable(b)!.map((r) => [r.offset, r.key!.toString(), r.value!.toString()]));
      expect(kept.filter(([, key]) => key !== 'filler')).toEqual([[1n, 'k2', 'kept'], [2n, 'k1', 'new']]);
      expect(captured.lines.filter((l) => (l.level as number) >= 40)).toEqual([]);
    } finally {
      await log.close();
    }
  });

  it('leaves a log with an lz4 batch too large to decompress uncleaned, with one warning naming the codec', async () => {
    const time = new ManualTime();
    const captured = captureLog();
    const log = openLog(captured, time);
    try {
      // An LZ4 frame of more zeros than DECOMPRESS_LIMIT (its records are never reached).
      await log.append([rawBatch(Buffer.alloc(0), 1, { codec: 3, timestamp: 1_700_000_000_000n, payload: lz4.compressFrameSync(Buffer.alloc(DECOMPRESS_LIMIT + 1)) })]).durable;
      for (let i = 0; i < 6; i++) await log.append([keyed([['k', `v${i + 2}`]])]).durable;
      expect(log.closedSegments().length).toBeGreaterThan(0);
      const cleaner = new LogCleaner({ time, log: captured.log, deleteRetentionMs: 0, minCleanableRatio: 0, maxSegmentBytes: 1 << 20 });
      await expect(cleaner.clean(log)).rejects.toThrow(CompressedBatchError);
      expect(cleaner.isUncleanable(log)).toBe(true);
      expect(captured.lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
      expect(captured.warnings().map((w) => [w.codec, w.baseOffset, w.msg])).toEqual([
        ['lz4', '0', `compacted partition not compacted: an lz4-compressed batch at offset 0 decompresses to more than ${DECOMPRESS_LIMIT} bytes, more than this server reads (DIFFERENCES.md)`],
      ]);
      expect([...log.batches()]).toHaveLength(7);
    } finally {
      await log.close();
    }
  });
});
