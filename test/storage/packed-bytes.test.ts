import { describe, expect, it } from 'vitest';
import { PackedBytes } from '../../src/storage/packed-bytes.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { readBatchHeader } from '../../src/records/record-batch.js';
import { ManualTime, batchOf, captureLog } from './helpers.js';

/** `n` bytes, each (seed + i) & 0xff. */
const bytes = (n: number, seed: number): Buffer => Buffer.from(Array.from({ length: n }, (_, i) => (seed + i) & 0xff));

describe('PackedBytes, the bytes of an in-memory segment', () => {
  it('packs batches back to back in chunks of 256 bytes doubling to 1 MiB, and gives them back as views', () => {
    const packed = new PackedBytes();
    const batches: Buffer[] = [];
    let position = 0;
    for (let i = 0; i < 20_000; i++) {
      const b = bytes(100 + (i % 100), i);
      packed.append(position, b);
      batches.push(b);
      position += b.length;
    }
    // 2,990,000 bytes in chunks of 256 bytes, 512, ... 512 KiB, then 1 MiB: less than one chunk to spare.
    expect(position).toBe(2_990_000);
    expect(packed.allocatedBytes).toBeLessThan(position + (1 << 20));
    let at = 0;
    for (const b of batches) {
      expect(packed.view(at, b.length).equals(b)).toBe(true);
      at += b.length;
    }
    packed.trim();
    // Once trimmed, only the ends of full chunks that the next batch did not fit stay unused (14 chunks).
    expect(packed.allocatedBytes).toBeGreaterThanOrEqual(position);
    expect(packed.allocatedBytes).toBeLessThan(position + 14 * 200);
    expect(packed.view(position - 199, 199).equals(batches[19_999]!)).toBe(true);
  });

  it('truncates mid-chunk and at a chunk boundary, and appends after', () => {
    const packed = new PackedBytes();
    packed.append(0, bytes(100, 1)); // the first chunk: 256 bytes
    packed.append(100, bytes(100, 2));
    packed.append(200, bytes(3000, 3)); // does not fit: a second chunk (of the batch's size) starts at 200
    packed.append(3200, bytes(100, 4)); // a third (6,000 bytes, twice the second) at 3200
    expect(packed.allocatedBytes).toBe(256 + 3000 + 6000);
    packed.truncate(3200);
    packed.append(3200, bytes(50, 5));
    expect(packed.view(200, 3000).equals(bytes(3000, 3))).toBe(true);
    expect(packed.view(3200, 50).equals(bytes(50, 5))).toBe(true);
    packed.truncate(200); // the second and third chunks go
    packed.append(200, bytes(50, 6)); // fits the first chunk's end
    expect(packed.view(0, 100).equals(bytes(100, 1))).toBe(true);
    expect(packed.view(100, 100).equals(bytes(100, 2))).toBe(true);
    expect(packed.view(200, 50).equals(bytes(50, 6))).toBe(true);
    expect(packed.allocatedBytes).toBe(256);
  });

  it('an in-memory PartitionLog keeps a copy: the caller may reuse its buffer, and reads are unchanged', async () => {
    const log = PartitionLog.open({ dir: null, segmentBytes: 1 << 20, rollMs: 3_600_000, flushPolicy: 'never', flushIntervalMs: 1000, log: captureLog().log, time: new ManualTime() });
    const batch = batchOf(2, 7000n);
    await log.append([batch]).durable;
    batch.fill(0);
    const [read] = log.read(0n, 1 << 20);
    expect(readBatchHeader(read!)).toMatchObject({ baseOffset: 0n, maxTimestamp: 7000n, recordCount: 2 });
    expect(log.closedSegments()).toEqual([]);
    await log.close();
  });
});
