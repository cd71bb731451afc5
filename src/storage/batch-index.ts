/**
 * The in-memory table of one segment's batches: for each batch its base and last offsets, its byte
 * position in the segment and its max timestamp, as five int32 per batch (20 bytes) in one typed
 * array that doubles as it fills. What Kafka keeps in a segment's `.index` and `.timeindex` files
 * (mmapped, one entry per `index.interval.bytes`) is computed from it (offset-index.ts); recovery
 * rebuilds it on open.
 *
 * Why columns of int32 and not an object per batch: `__consumer_offsets` takes one small batch per
 * OffsetCommit, millions in a burst, and an object with three BigInts cost about 140 bytes of heap
 * per batch, kept until the segment is cleaned or deleted (issue #16 item 6).
 *
 * Offsets are stored relative to the segment's base offset, as Kafka's indexes store them (a
 * segment spans at most 2^31 - 1 offsets: Kafka's `LogSegment.ensureOffsetInRange`); positions as
 * uint32 (a segment is at most `segment.bytes`, an int32, plus one batch); timestamps as two int32
 * halves. Batches are contiguous: each starts where the previous one ends, so sizes are differences
 * of positions. Rows live in chunks of CHUNK_ROWS (80 KiB), the first of which grows by doubling
 * from a few rows: a full table wastes less than one chunk and is never copied whole as it grows.
 */

/** int32 per row: base offset delta, last offset delta, position (as uint32), max timestamp high and low halves. */
const STRIDE = 5;
/** Memory a batch takes in the table once trimmed. */
export const BYTES_PER_BATCH = STRIDE * Int32Array.BYTES_PER_ELEMENT;
const BASE = 0;
const LAST = 1;
const POSITION = 2;
const TS_HIGH = 3;
const TS_LOW = 4;

/** Rows allocated for a table's first batch; the first chunk doubles from there up to CHUNK_ROWS. */
const INITIAL_ROWS = 4;
/** Rows of a chunk: row i is in chunk i >>> CHUNK_SHIFT, at (i & CHUNK_MASK) * STRIDE. */
const CHUNK_SHIFT = 12;
const CHUNK_ROWS = 1 << CHUNK_SHIFT;
const CHUNK_MASK = CHUNK_ROWS - 1;

/** Largest offset distance inside one segment (Kafka keeps relative offsets in an int32). */
export const MAX_RELATIVE_OFFSET = 2147483647n;
const MAX_RELATIVE_NUMBER = 2147483647;
const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);
const TWO_32 = 2 ** 32;

export class BatchIndex {
  /** Chunks of rows of STRIDE int32; none until the first batch (most segments of an idle partition hold none). */
  private chunks: Int32Array[] = [];
  /** Batches in the table. */
  count = 0;
  /** Byte position after the last batch (the segment's size). */
  end = 0;
  /** Times `truncate` cut batches (readers holding what they derived from the table start over). */
  truncations = 0;

  /** `baseOffset` as a number, and whether that is exact (within ±2^53). */
  private readonly baseNumber: number;
  private readonly baseSafe: boolean;

  constructor(readonly baseOffset: bigint) {
    this.baseNumber = Number(baseOffset);
    this.baseSafe = baseOffset <= MAX_SAFE_BIG && baseOffset >= -MAX_SAFE_BIG;
  }

  /**
   * Adds a batch at the end. Throws RangeError when it does not start at `end` or its offsets are
   * outside [baseOffset, baseOffset + 2^31 - 1] (callers roll or refuse before that).
   */
  push(baseOffset: bigint, lastOffset: bigint, position: number, size: number, maxTimestamp: bigint): void {
    if (position !== this.end) throw new RangeError(`batch at byte ${position} does not follow the segment's last batch (ending at ${this.end})`);
    // Number arithmetic where it is exact (offsets and timestamps within ±2^53, the usual case: one
    // commit per batch, no BigInt made per append), BigInt beyond.
    let base: number;
    let last: number;
    if (this.baseSafe && baseOffset <= MAX_SAFE_BIG && lastOffset <= MAX_SAFE_BIG) {
      base = Number(baseOffset) - this.baseNumber;
      last = Number(lastOffset) - this.baseNumber;
    } else {
      const b = baseOffset - this.baseOffset;
      const l = lastOffset - this.baseOffset;
      if (b < 0n || l < b || l > MAX_RELATIVE_OFFSET) throw this.outOfRange(baseOffset, lastOffset);
      base = Number(b);
      last = Number(l);
    }
    if (base < 0 || last < base || last > MAX_RELATIVE_NUMBER) throw this.outOfRange(baseOffset, lastOffset);
    const rows = this.chunkFor(this.count);
    const at = (this.count & CHUNK_MASK) * STRIDE;
    rows[at + BASE] = base;
    rows[at + LAST] = last;
    rows[at + POSITION] = position;
    const ts = Number(maxTimestamp);
    if (Number.isSafeInteger(ts)) {
      // The int64's halves: floor division keeps the sign in the high half, as `>> 32n` does.
      const high = Math.floor(ts / TWO_32);
      rows[at + TS_HIGH] = high;
      rows[at + TS_LOW] = (ts - high * TWO_32) | 0;
    } else {
      rows[at + TS_HIGH] = Number(BigInt.asIntN(32, maxTimestamp >> 32n));
      rows[at + TS_LOW] = Number(BigInt.asIntN(32, maxTimestamp));
    }
    this.count++;
    this.end = position + size;
  }

  private outOfRange(baseOffset: bigint, lastOffset: bigint): RangeError {
    return new RangeError(`batch offsets ${baseOffset}..${lastOffset} are out of range of the segment at ${this.baseOffset}`);
  }

  /** Forgets the batches from row `n` on; `end` becomes the position of row `n`. */
  truncate(n: number): void {
    if (n >= this.count) return;
    this.end = this.position(n);
    this.count = n;
    this.truncations++;
  }

  /** The chunk that row `i` (at most `count`) goes in, allocated or grown when needed. */
  private chunkFor(i: number): Int32Array {
    const k = i >>> CHUNK_SHIFT;
    const chunk = this.chunks[k];
    const need = ((i & CHUNK_MASK) + 1) * STRIDE;
    if (chunk !== undefined && chunk.length >= need) return chunk;
    // A new chunk after the first is whole; the first, and a chunk trimmed by `trim`, grow by doubling.
    const rows = k > 0 && chunk === undefined ? CHUNK_ROWS : Math.min(CHUNK_ROWS, Math.max(INITIAL_ROWS, (chunk?.length ?? 0) / STRIDE * 2));
    const grown = new Int32Array(rows * STRIDE);
    if (chunk !== undefined) grown.set(chunk);
    this.chunks[k] = grown;
    return grown;
  }

  /** Bytes the table holds allocated: BYTES_PER_BATCH a batch, plus less than one chunk while it grows. */
  get allocatedBytes(): number {
    let bytes = 0;
    for (const c of this.chunks) bytes += c.byteLength;
    return bytes;
  }

  /** Gives back the rows allocated beyond `count` (a segment that takes no more batches). */
  trim(): void {
    const chunks = Math.ceil(this.count / CHUNK_ROWS);
    this.chunks.length = chunks;
    if (chunks === 0) return;
    const last = this.chunks[chunks - 1]!;
    const rows = this.count - (chunks - 1) * CHUNK_ROWS;
    if (last.length > rows * STRIDE) this.chunks[chunks - 1] = last.slice(0, rows * STRIDE);
  }

  /** The int32 in `column` of row `i`. */
  private cell(i: number, column: number): number {
    return this.chunks[i >>> CHUNK_SHIFT]![(i & CHUNK_MASK) * STRIDE + column]!;
  }

  baseOffsetAt(i: number): bigint {
    return this.baseOffset + BigInt(this.cell(i, BASE));
  }

  lastOffsetAt(i: number): bigint {
    return this.baseOffset + BigInt(this.cell(i, LAST));
  }

  /** Byte position of batch `i` in the segment. */
  position(i: number): number {
    return this.cell(i, POSITION) >>> 0;
  }

  /** Total bytes of batch `i`. */
  size(i: number): number {
    return (i + 1 < this.count ? this.position(i + 1) : this.end) - this.position(i);
  }

  /** The max timestamp (ms) of batch `i`. */
  maxTimestampAt(i: number): bigint {
    return (BigInt(this.cell(i, TS_HIGH)) << 32n) | BigInt(this.cell(i, TS_LOW) >>> 0);
  }

  /** Index of the first batch whose last offset >= `offset`, or `count` if none. */
  firstEndingAtOrAfter(offset: bigint): number {
    return this.search(LAST, offset);
  }

  /** Index of the first batch whose base offset >= `offset`, or `count` if none. */
  firstStartingAtOrAfter(offset: bigint): number {
    return this.search(BASE, offset);
  }

  /** Index of the first batch at byte `position` or later, or `count` if none. */
  firstAtOrAfterPosition(position: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.position(mid) < position) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Binary search on one offset column (increasing) for the first row >= `offset`. */
  private search(column: number, offset: bigint): number {
    const delta = offset - this.baseOffset;
    if (delta <= 0n) return 0;
    if (delta > MAX_RELATIVE_OFFSET) return this.count;
    const target = Number(delta);
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cell(mid, column) < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
