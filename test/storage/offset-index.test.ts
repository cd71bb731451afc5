import { describe, expect, it } from 'vitest';
import { BatchIndex } from '../../src/storage/batch-index.js';
import { batchTable, fetchUpperBoundOffset, OffsetIndexBuilder, offsetIndexEntries, smallestUpperBoundSlotByPosition } from '../../src/storage/offset-index.js';

const batches = (sizes: number[]) => {
  let position = 0;
  let offset = -1n;
  return sizes.map((size) => {
    const b = { lastOffset: (offset += 2n), position, size };
    position += size;
    return b;
  });
};

describe("Kafka's offset index, computed", () => {
  it('adds an entry (last offset, start position) at the batch after more than index.interval.bytes', () => {
    expect(offsetIndexEntries(batches([2000, 2000, 2000, 2000, 2000, 2000, 2000]), 4096)).toEqual([
      { offset: 7n, position: 6000 },
      { offset: 13n, position: 12000 },
    ]);
    // Exactly the interval is not more than it: the entry waits a batch.
    expect(offsetIndexEntries(batches([4096, 10, 10]), 4096)).toEqual([{ offset: 5n, position: 4106 }]);
    expect(offsetIndexEntries(batches([4097, 10, 10]), 4096)).toEqual([{ offset: 3n, position: 4097 }]);
  });

  it("searches as AbstractIndex.smallestUpperBoundSlotFor, quirks included", () => {
    const entries = [
      { offset: 7n, position: 100 },
      { offset: 14n, position: 200 },
      { offset: 20n, position: 300 },
    ];
    // Below the first entry: slot 0; past the last: none.
    expect(smallestUpperBoundSlotByPosition(entries, 50)).toBe(0);
    expect(smallestUpperBoundSlotByPosition(entries, 301)).toBe(-1);
    // Between entries: the next one.
    expect(smallestUpperBoundSlotByPosition(entries, 150)).toBe(1);
    // Equal to a probed entry: that one; equal to the first (never probed): the one after it.
    expect(smallestUpperBoundSlotByPosition(entries, 200)).toBe(1);
    expect(smallestUpperBoundSlotByPosition(entries, 100)).toBe(1);
    expect(fetchUpperBoundOffset(entries, 60, 40)).toBe(14n);
    expect(fetchUpperBoundOffset([{ offset: 7n, position: 100 }], 60, 40)).toBe(null);
    expect(fetchUpperBoundOffset([], 0, 10)).toBe(null);
  });

  it('extends as batches are appended and starts over when they were rolled back', () => {
    const all = batches([3000, 3000, 3000, 3000]);
    const builder = new OffsetIndexBuilder(4096);
    expect(builder.extend(batchTable(all.slice(0, 2)))).toEqual([]);
    expect(builder.extend(batchTable(all))).toEqual([{ offset: 5n, position: 6000 }]);
    const rewritten = [all[0]!, { lastOffset: 3n, position: 3000, size: 100 }, { lastOffset: 5n, position: 3100, size: 100 }];
    expect(builder.extend(batchTable(rewritten))).toEqual([]);
  });

  it("starts over after a segment's table was cut back, even when the batch it saw last is there again", () => {
    const table = new BatchIndex(0n);
    // Four batches of 3,000 bytes, offsets 0-1, 2-3, 4-5, 6-7.
    for (let i = 0; i < 4; i++) table.push(BigInt(2 * i), BigInt(2 * i + 1), i * 3000, 3000, 0n);
    const builder = new OffsetIndexBuilder(4096);
    expect(builder.extend(table)).toEqual([{ offset: 5n, position: 6000 }]);
    // Rolled back to batch 1, then written again split differently but ending as before (6-7 at 9000).
    table.truncate(1);
    table.push(2n, 2n, 3000, 1000, 0n);
    table.push(3n, 5n, 4000, 5000, 0n);
    table.push(6n, 7n, 9000, 3000, 0n);
    expect(builder.extend(table)).toEqual([{ offset: 7n, position: 9000 }]); // not the stale entry at 6000
  });
});
