import { afterEach, describe, expect, it } from 'vitest';
import { BatchIndex, BYTES_PER_BATCH } from '../../src/storage/batch-index.js';
import { LogSegment } from '../../src/storage/segment.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { FileHandleCache } from '../../src/storage/fd-cache.js';
import { writeFullySync } from '../../src/storage/file-io.js';
import { readBatchHeader, restampBaseOffset } from '../../src/records/record-batch.js';
import { ManualTime, batchOf, captureLog, removeTempDirs, tempDir } from './helpers.js';

afterEach(() => removeTempDirs());

describe('BatchIndex, the in-memory table of a segment\'s batches', () => {
  it('keeps offsets relative to the segment, positions, sizes and int64 timestamps exactly', () => {
    const table = new BatchIndex(1_000_000_000_000n);
    const timestamps = [-1n, 0n, 1_700_000_000_123n, 2n ** 63n - 1n, -(2n ** 63n), 4_294_967_296n, 4_294_967_295n];
    let position = 0;
    timestamps.forEach((ts, i) => {
      const base = 1_000_000_000_000n + BigInt(i * 10);
      table.push(base, base + 4n, position, 100 + i, ts);
      position += 100 + i;
    });
    expect(table.count).toBe(7);
    expect(table.end).toBe(position);
    expect(timestamps.map((_, i) => table.maxTimestampAt(i))).toEqual(timestamps);
    expect(table.baseOffsetAt(3)).toBe(1_000_000_000_030n);
    expect(table.lastOffsetAt(3)).toBe(1_000_000_000_034n);
    expect([0, 1, 6].map((i) => [table.position(i), table.size(i)])).toEqual([[0, 100], [100, 101], [615, 106]]);
    // Searches: the batch holding an offset, the first starting at or after one, by byte position.
    expect(table.firstEndingAtOrAfter(0n)).toBe(0);
    expect(table.firstEndingAtOrAfter(1_000_000_000_035n)).toBe(4);
    expect(table.firstEndingAtOrAfter(1_000_000_000_064n)).toBe(6);
    expect(table.firstEndingAtOrAfter(1_000_000_000_065n)).toBe(7);
    expect(table.firstEndingAtOrAfter(2n ** 62n)).toBe(7);
    expect(table.firstStartingAtOrAfter(1_000_000_000_031n)).toBe(4);
    expect(table.firstAtOrAfterPosition(101)).toBe(2);
    expect(table.firstAtOrAfterPosition(position)).toBe(7);
    table.truncate(2);
    expect([table.count, table.end, table.truncations]).toEqual([2, 201, 1]);
  });

  it('grows in chunks, searches across them, and trims to its batches', () => {
    const table = new BatchIndex(0n);
    for (let i = 0; i < 10_000; i++) table.push(BigInt(2 * i), BigInt(2 * i + 1), i * 80, 80, BigInt(i));
    expect(table.allocatedBytes).toBe(3 * 4096 * BYTES_PER_BATCH);
    expect([4095, 4096, 9999].map((i) => [table.lastOffsetAt(i), table.position(i), table.maxTimestampAt(i)])).toEqual([
      [8191n, 327_600, 4095n],
      [8193n, 327_680, 4096n],
      [19_999n, 799_920, 9999n],
    ]);
    expect(table.firstEndingAtOrAfter(8192n)).toBe(4096);
    expect(table.firstStartingAtOrAfter(8193n)).toBe(4097);
    table.truncate(4097);
    table.trim();
    expect(table.allocatedBytes).toBe(4097 * BYTES_PER_BATCH);
    table.push(8194n, 8194n, 4097 * 80, 80, 7n);
    expect([table.count, table.lastOffsetAt(4097), table.maxTimestampAt(4097)]).toEqual([4098, 8194n, 7n]);
  });

  it('refuses a batch that does not follow the last one or lies outside the segment\'s int32 offset range', () => {
    const table = new BatchIndex(100n);
    expect(() => table.push(99n, 99n, 0, 70, 0n)).toThrow(RangeError);
    expect(() => table.push(100n, 100n + 2n ** 31n, 0, 70, 0n)).toThrow(RangeError);
    table.push(100n, 100n + 2n ** 31n - 1n, 0, 70, 0n);
    expect(() => table.push(2n ** 40n, 2n ** 40n, 70, 70, 0n)).toThrow(RangeError);
    expect(() => table.push(100n + 2n ** 31n, 100n + 2n ** 31n, 71, 70, 0n)).toThrow(/does not follow/);
    expect(table.count).toBe(1);
  });

  it('keeps offsets beyond 2^53 exact and refuses them out of range as below it (int64 offsets, not doubles)', () => {
    const base = 2n ** 62n + 3n;
    const table = new BatchIndex(base);
    table.push(base, base + 1n, 0, 70, 2n ** 53n + 1n);
    table.push(base + 2n, base + 2n ** 31n - 1n, 70, 70, -(2n ** 53n) - 1n);
    expect([table.baseOffsetAt(0), table.lastOffsetAt(0), table.baseOffsetAt(1), table.lastOffsetAt(1)]).toEqual([base, base + 1n, base + 2n, base + 2n ** 31n - 1n]);
    expect([table.maxTimestampAt(0), table.maxTimestampAt(1)]).toEqual([2n ** 53n + 1n, -(2n ** 53n) - 1n]);
    expect(table.firstEndingAtOrAfter(base + 2n)).toBe(1);
    expect(() => table.push(base + 2n ** 31n, base + 2n ** 31n, 140, 70, 0n)).toThrow(RangeError);
    expect(() => table.push(base - 1n, base, 140, 70, 0n)).toThrow(RangeError);
    // A segment just below 2^53 whose batch ends beyond it.
    const edge = new BatchIndex(2n ** 53n - 2n);
    edge.push(2n ** 53n - 2n, 2n ** 53n + 5n, 0, 70, 0n);
    expect([edge.baseOffsetAt(0), edge.lastOffsetAt(0)]).toEqual([2n ** 53n - 2n, 2n ** 53n + 5n]);
  });
});

describe('segment memory: 20 bytes a batch, no batch bytes once written', () => {
  it('a segment of 20,000 one-record batches holds a table of 20 bytes a batch (plus less than 80 KiB while growing) and lets written bytes go', async () => {
    const time = new ManualTime();
    const segment = LogSegment.create(tempDir(), 0n, time.now(), new FileHandleCache(4));
    try {
      const batches = 20_000;
      let size = 0;
      for (let i = 0; i < batches; i++) {
        const batch = batchOf(1, 1000n + BigInt(i));
        restampBaseOffset(batch, BigInt(i));
        segment.append(batch, BigInt(i), BigInt(i), 1000n + BigInt(i));
        size += batch.length;
        if (i % 1000 === 999) {
          // Written in turns, as PartitionLog's flush does.
          const write = segment.takePending()!;
          writeFullySync(segment.fd(), write.buffers, write.position);
          segment.markWritten(write.end);
          expect(segment.bufferedBatches).toBe(0);
        }
      }
      expect(segment.size).toBe(size);
      expect(segment.batches.count).toBe(batches);
      expect(segment.batches.allocatedBytes).toBeGreaterThanOrEqual(batches * BYTES_PER_BATCH);
      expect(segment.batches.allocatedBytes).toBeLessThan((batches + 4096) * BYTES_PER_BATCH); // less than one chunk of 4,096 rows to spare
      segment.sealed();
      expect(segment.batches.allocatedBytes).toBe(batches * BYTES_PER_BATCH);
      // Read back from the file, one pread for the range.
      const read = segment.read(segment.indexOf(12_345n), segment.indexOf(12_348n));
      expect(read.map((b) => readBatchHeader(b).baseOffset)).toEqual([12_345n, 12_346n, 12_347n]);
      expect(read.map((b) => readBatchHeader(b).maxTimestamp)).toEqual([13_345n, 13_346n, 13_347n]);
    } finally {
      segment.closeSync();
    }
  });

  it('reads across written and queued batches, and a rolled segment of a PartitionLog is trimmed to 20 bytes a batch', async () => {
    const time = new ManualTime();
    const one = batchOf(1).length;
    const log = PartitionLog.open({
      dir: tempDir(),
      segmentBytes: one * 5000,
      rollMs: 7 * 24 * 3600 * 1000,
      flushPolicy: 'never',
      flushIntervalMs: 1000,
      log: captureLog().log,
      time,
    });
    try {
      let durable: Promise<void> = Promise.resolve();
      for (let i = 0; i < 12_000; i++) durable = log.append([batchOf(1, 5000n + BigInt(i))]).durable;
      await durable;
      const queued = log.append([batchOf(1, 99_999n)]); // not yet written: served from memory
      expect(log.segmentCount).toBe(3);
      for (const s of log.closedSegments()) {
        expect(s.batches.count).toBe(5000);
        expect(s.batches.allocatedBytes).toBe(5000 * BYTES_PER_BATCH);
        expect(s.bufferedBatches).toBe(0);
      }
      const tail = log.read(11_998n, 1 << 20);
      expect(tail.map((b) => readBatchHeader(b).baseOffset)).toEqual([11_998n, 11_999n, 12_000n]);
      expect(log.offsetForTimestamp(9_000n)).toEqual({ offset: 4000n, timestamp: 9000n });
      expect(log.maxTimestamp()).toEqual({ offset: 12_000n, timestamp: 99_999n, leaderEpoch: -1 });
      await queued.durable;
    } finally {
      await log.close();
    }
  });
});
