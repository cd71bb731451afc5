/**
 * The offset index Kafka would hold for a segment (`OffsetIndex`, `.index` files), computed from the
 * segment's batches instead of kept on disk, and Kafka's search in it. Kafka adds an entry each time
 * more than `index.interval.bytes` were appended since the last one (`LogSegment.append`, per batch):
 * the batch's last offset and start position. Only read_committed fetches need it: the upper bound of
 * the aborted transactions answered (`OffsetIndex.fetchUpperBoundOffset`) comes from it.
 */

/** One index entry: an offset and the file position of the batch holding it. */
export interface IndexEntry {
  offset: bigint;
  position: number;
}

/** Kafka's `AbstractIndex.warmEntries()` for the offset index (8192 bytes / 8-byte entries). */
const WARM_ENTRIES = 1024;

/** A segment's batches as the index reads them (batch-index.ts's BatchIndex), in order. */
export interface BatchTable {
  readonly count: number;
  /** Times batches were cut from the end (a rolled-back write); an index built before is stale. */
  readonly truncations?: number;
  lastOffsetAt(i: number): bigint;
  position(i: number): number;
  size(i: number): number;
}

type Batch = { lastOffset: bigint; position: number; size: number };

/** A table over batch objects (tests). */
export function batchTable(batches: readonly Batch[]): BatchTable {
  return {
    count: batches.length,
    lastOffsetAt: (i) => batches[i]!.lastOffset,
    position: (i) => batches[i]!.position,
    size: (i) => batches[i]!.size,
  };
}

/** The entries Kafka's `LogSegment.append` writes for batches of these positions and sizes (in order). */
export function offsetIndexEntries(batches: readonly Batch[], indexIntervalBytes: number): IndexEntry[] {
  return new OffsetIndexBuilder(indexIntervalBytes).extend(batchTable(batches));
}

/**
 * The offset index of one growing segment, extended with the batches appended since the last call
 * (a read_committed consumer asks at every fetch); started over when the batches shrink (a failed
 * write rolled the segment back) or the interval changes.
 */
export class OffsetIndexBuilder {
  private entries: IndexEntry[] = [];
  private seen = 0;
  private sinceLastEntry = 0;
  /** Last offset, position and size of the last batch seen: a rolled-back table no longer has it. */
  private lastSeen: Batch | null = null;
  private truncations: number | undefined;

  constructor(readonly indexIntervalBytes: number) {}

  extend(batches: BatchTable): IndexEntry[] {
    if (batches.count < this.seen || batches.truncations !== this.truncations || (this.lastSeen !== null && !sameBatch(batches, this.seen - 1, this.lastSeen))) {
      this.entries = [];
      this.seen = 0;
      this.sinceLastEntry = 0;
      this.lastSeen = null;
      this.truncations = batches.truncations;
    }
    for (; this.seen < batches.count; this.seen++) {
      const position = batches.position(this.seen);
      if (this.sinceLastEntry > this.indexIntervalBytes) {
        this.entries.push({ offset: batches.lastOffsetAt(this.seen), position });
        this.sinceLastEntry = 0;
      }
      this.sinceLastEntry += batches.size(this.seen);
    }
    if (this.seen > 0) {
      const i = this.seen - 1;
      this.lastSeen = { lastOffset: batches.lastOffsetAt(i), position: batches.position(i), size: batches.size(i) };
    }
    return this.entries;
  }
}

/**
 * Kafka's `AbstractIndex.smallestUpperBoundSlotFor(idx, position, VALUE)`, search quirks included
 * (`indexSlotRangeFor` + `binarySearch`: a target equal to the entry a search ends on without probing
 * it yields the next slot). -1 when none is found.
 */
export function smallestUpperBoundSlotByPosition(entries: readonly IndexEntry[], target: number): number {
  const n = entries.length;
  if (n === 0) return -1;
  const compare = (slot: number): number => Math.sign(entries[slot]!.position - target);
  const firstHotEntry = Math.max(0, n - 1 - WARM_ENTRIES);
  if (compare(firstHotEntry) < 0) return binarySearch(firstHotEntry, n - 1);
  if (compare(0) > 0) return 0;
  return binarySearch(0, firstHotEntry);

  function binarySearch(begin: number, end: number): number {
    let lo = begin;
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      const c = compare(mid);
      if (c > 0) hi = mid - 1;
      else if (c < 0) lo = mid;
      else return mid;
    }
    return lo === n - 1 ? -1 : lo + 1;
  }
}

/** Kafka's `OffsetIndex.fetchUpperBoundOffset`: the offset of that slot, or null when none. */
export function fetchUpperBoundOffset(entries: readonly IndexEntry[], startPosition: number, fetchSize: number): bigint | null {
  const slot = smallestUpperBoundSlotByPosition(entries, startPosition + fetchSize);
  return slot < 0 ? null : entries[slot]!.offset;
}

function sameBatch(batches: BatchTable, i: number, b: Batch): boolean {
  return batches.lastOffsetAt(i) === b.lastOffset && batches.position(i) === b.position && batches.size(i) === b.size;
}
