/**
 * A compacted log holding a compressed batch whose records a clean must read: this server reads
 * only uncompressed batches (DIFFERENCES.md), so the partition is not compacted, and it says so as
 * a warning naming the codec and what to do, not as an error with a stack that reads like a
 * corruption (new-user trial, session 20: "forEachRecordSpanOfBatch reads uncompressed batches
 * only; ... codec 3", then "log cleaning failed; ... until restart").
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { CompressedBatchError, LogCleaner } from '../../src/storage/log-cleaner.js';
import { ManualTime, batchOf, captureLog, removeTempDirs, tempDir } from './helpers.js';
import { rawBatch, record, recordBody } from '../support/raw-records.js';

afterEach(() => removeTempDirs());

describe('LogCleaner on compressed batches', () => {
  it('leaves a log with a gzip batch uncleaned, with one warning naming the codec and the way out', async () => {
    const time = new ManualTime();
    const captured = captureLog();
    const one = batchOf(1).length;
    const log = PartitionLog.open({ dir: tempDir('kmc-cleaner-gzip-'), segmentBytes: one * 3, rollMs: 1e12, flushPolicy: 'never', flushIntervalMs: 1000, log: captured.log, time });
    try {
      const keyed = rawBatch(Buffer.concat([record(recordBody({ key: Buffer.from('k'), value: Buffer.from('v1') }))]), 1, { codec: 1 });
      await log.append([keyed]).durable;
      for (let i = 0; i < 6; i++) await log.append([batchOf(1)]).durable;
      expect(log.closedSegments().length).toBeGreaterThan(0);
      const cleaner = new LogCleaner({ time, log: captured.log, deleteRetentionMs: 0, minCleanableRatio: 0, maxSegmentBytes: 1 << 20 });
      await expect(cleaner.clean(log)).rejects.toThrow(CompressedBatchError);
      expect(cleaner.isUncleanable(log)).toBe(true);
      expect(captured.lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
      expect(captured.warnings().map((w) => [w.codec, w.baseOffset, w.msg])).toEqual([
        ['gzip', '0', 'compacted partition not compacted: a gzip-compressed batch at offset 0: this server compacts only uncompressed batches (produce to compacted topics with compression.type=none; DIFFERENCES.md)'],
      ]);
      expect(log.logStartOffset).toBe(0n);
    } finally {
      await log.close();
    }
  });
});
