/**
 * Compaction of compressed batches. gzip batches are read inflated (node:zlib) and compacted like
 * others; when some of their records go, the rest are written uncompressed (Kafka recompresses
 * them with the batch's codec; DIFFERENCES.md). snappy, lz4 and zstd batches, which this server
 * does not decompress, leave the partition uncompacted with one warning naming the codec and the
 * way out, not an error with a stack that reads like a corruption (new-user trial, session 20:
 * "forEachRecordSpanOfBatch reads uncompressed batches only; ... codec 3", then "log cleaning
 * failed; ... until restart", and no gzip or lz4 topic compacted).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { CompressedBatchError, LogCleaner } from '../../src/storage/log-cleaner.js';
import { compressionCodec, decodeRecordsIfReadable, readBatchHeader } from '../../src/records/record-batch.js';
import { ManualTime, captureLog, removeTempDirs, tempDir } from './helpers.js';
import { rawBatch, record, recordBody } from '../support/raw-records.js';

afterEach(() => removeTempDirs());

/** A batch of `entries` ([key, value]) in order, compressed with `codec` (1 gzip; 3 lz4 with the records as they are). */
function keyed(entries: Array<[string, string]>, codec = 0): Buffer {
  const records = entries.map(([k, v], i) => record(recordBody({ offsetDelta: i, key: Buffer.from(k), value: Buffer.from(v) })));
  return rawBatch(Buffer.concat(records), entries.length, { codec, timestamp: 1_700_000_000_000n });
}

function openLog(captured: ReturnType<typeof captureLog>, time: ManualTime): PartitionLog {
  return PartitionLog.open({ dir: tempDir('kmc-cleaner-compressed-'), segmentBytes: 200, rollMs: 1e12, flushPolicy: 'never', flushIntervalMs: 1000, log: captured.log, time });
}

describe('LogCleaner on compressed batches', () => {
  it('compacts gzip batches: a superseded record goes, the rest of its batch stays, uncompressed', async () => {
    const time = new ManualTime();
    const captured = captureLog();
    const log = openLog(captured, time);
    try {
      await log.append([keyed([['k1', 'old'], ['k2', 'kept']], 1)]).durable;
      await log.append([keyed([['k1', 'new']])]).durable;
      for (let i = 0; i < 6; i++) await log.append([keyed([['filler', String(i)]])]).durable;
      expect(log.closedSegments().length).toBeGreaterThan(1);
      const cleaner = new LogCleaner({ time, log: captured.log, deleteRetentionMs: 0, minCleanableRatio: 0, maxSegmentBytes: 1 << 20 });
      expect(await cleaner.clean(log)).not.toBeNull();
      const batches = [...log.batches()];
      const first = readBatchHeader(batches[0]!);
      // The gzip batch rebuilt without k1's old value: offsets 0-1 still, k2 at 1, no codec.
      expect([first.baseOffset, first.lastOffsetDelta, first.recordCount, compressionCodec(first.attributes)]).toEqual([0n, 1, 1, 0]);
      const kept = batches.flatMap((b) => decodeRecordsIfReadable(b)!.map((r) => [r.offset, r.key!.toString(), r.value!.toString()]));
      expect(kept.filter(([, key]) => key !== 'filler')).toEqual([[1n, 'k2', 'kept'], [2n, 'k1', 'new']]);
      expect(captured.lines.filter((l) => (l.level as number) >= 40)).toEqual([]);
    } finally {
      await log.close();
    }
  });

  it('leaves a log with an lz4 batch uncleaned, with one warning naming the codec and the way out', async () => {
    const time = new ManualTime();
    const captured = captureLog();
    const log = openLog(captured, time);
    try {
      await log.append([keyed([['k', 'v1']], 3)]).durable;
      for (let i = 0; i < 6; i++) await log.append([keyed([['k', `v${i + 2}`]])]).durable;
      expect(log.closedSegments().length).toBeGreaterThan(0);
      const cleaner = new LogCleaner({ time, log: captured.log, deleteRetentionMs: 0, minCleanableRatio: 0, maxSegmentBytes: 1 << 20 });
      await expect(cleaner.clean(log)).rejects.toThrow(CompressedBatchError);
      expect(cleaner.isUncleanable(log)).toBe(true);
      expect(captured.lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
      expect(captured.warnings().map((w) => [w.codec, w.baseOffset, w.msg])).toEqual([
        ['lz4', '0', 'compacted partition not compacted: an lz4-compressed batch at offset 0: this server compacts only uncompressed and gzip batches (produce to compacted topics with compression.type none or gzip; DIFFERENCES.md)'],
      ]);
      expect([...log.batches()]).toHaveLength(7);
    } finally {
      await log.close();
    }
  });
});
