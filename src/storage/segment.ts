/**
 * One log segment (Kafka's `LogSegment`): the `<20-digit base offset>.log` file holding
 * RecordBatch v2 bytes back to back, plus an in-memory index of its batches. Kafka's
 * `.index`/`.timeindex` files are not written; the index is rebuilt by recovery on open.
 *
 * Appended batches are first queued in memory (`pending`) and written by the owning
 * PartitionLog's flush; until then reads are served from the queued bytes. In in-memory
 * mode (no file) every batch keeps its bytes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readExactlySync } from './file-io.js';

/** Suffix of segment files. */
export const LOG_FILE_SUFFIX = '.log';

/** `<dir>/00000000000000000042.log` for base offset 42 (Kafka's `LogFileUtils.logFile`). */
export function segmentFileName(baseOffset: bigint): string {
  return baseOffset.toString().padStart(20, '0') + LOG_FILE_SUFFIX;
}

/** The base offset encoded in a segment file name, or null if `name` is not a segment file. */
export function parseSegmentFileName(name: string): bigint | null {
  const m = /^(\d{20})\.log$/.exec(name);
  return m ? BigInt(m[1]!) : null;
}

/** One batch of a segment: its offsets, where it lies in the file, and its max timestamp. */
export interface BatchEntry {
  baseOffset: bigint;
  /** Offset of the batch's last record (baseOffset + lastOffsetDelta). */
  lastOffset: bigint;
  /** Byte position of the batch in the segment file. */
  position: number;
  /** Total bytes of the batch. */
  size: number;
  /** The batch's maxTimestamp (ms). */
  maxTimestamp: bigint;
  /** The batch bytes while not yet in the file (always, in in-memory mode); else null. */
  data: Buffer | null;
}

/** Bytes taken from `pending` for one write: `buffers` go to the file at `position`. */
export interface PendingWrite {
  segment: LogSegment;
  position: number;
  buffers: Buffer[];
  entries: BatchEntry[];
}

export class LogSegment {
  readonly entries: BatchEntry[] = [];
  /** Bytes of all batches, written or queued. */
  size = 0;
  /** Largest batch maxTimestamp in the segment (ms), -1 when empty. */
  maxTimestamp = -1n;
  /** Written since the last fdatasync. */
  dirty = false;
  private pendingBuffers: Buffer[] = [];
  private pendingEntries: BatchEntry[] = [];
  private pendingPosition = 0;

  private constructor(
    readonly baseOffset: bigint,
    /** The segment file, or null in in-memory mode. */
    readonly file: string | null,
    /** Open read/write descriptor, or null in in-memory mode or once closed. */
    public fd: number | null,
    /** When the segment was created or recovered (ms, from the injected clock); drives log.roll.ms. */
    readonly createdMs: number,
  ) {}

  /** A new, empty segment file in `dir` (truncated if a file of that name exists). */
  static create(dir: string, baseOffset: bigint, nowMs: number): LogSegment {
    const file = path.join(dir, segmentFileName(baseOffset));
    return new LogSegment(baseOffset, file, fs.openSync(file, 'w+'), nowMs);
  }

  /** An existing segment file opened for recovery; batches are added by `restore`. */
  static openExisting(file: string, baseOffset: bigint, nowMs: number): LogSegment {
    return new LogSegment(baseOffset, file, fs.openSync(file, 'r+'), nowMs);
  }

  static inMemory(baseOffset: bigint, nowMs: number): LogSegment {
    return new LogSegment(baseOffset, null, null, nowMs);
  }

  get isEmpty(): boolean {
    return this.entries.length === 0;
  }

  /** Offset after the segment's last batch, or null when empty. */
  get nextOffset(): bigint | null {
    const last = this.entries[this.entries.length - 1];
    return last ? last.lastOffset + 1n : null;
  }

  /** Records a batch found in the file by recovery. */
  restore(baseOffset: bigint, lastOffset: bigint, position: number, size: number, maxTimestamp: bigint): void {
    this.entries.push({ baseOffset, lastOffset, position, size, maxTimestamp, data: null });
    this.size = position + size;
    if (maxTimestamp > this.maxTimestamp) this.maxTimestamp = maxTimestamp;
  }

  /** Adds a batch (already restamped) at the end; it is queued for the next write. */
  append(batch: Buffer, baseOffset: bigint, lastOffset: bigint, maxTimestamp: bigint): void {
    const entry: BatchEntry = { baseOffset, lastOffset, position: this.size, size: batch.length, maxTimestamp, data: batch };
    this.entries.push(entry);
    if (this.fd !== null) {
      if (this.pendingBuffers.length === 0) this.pendingPosition = this.size;
      this.pendingBuffers.push(batch);
      this.pendingEntries.push(entry);
    }
    this.size += batch.length;
    if (maxTimestamp > this.maxTimestamp) this.maxTimestamp = maxTimestamp;
  }

  /** Bytes up to the first queued batch: what the file holds once every taken write has run. */
  get writtenSize(): number {
    return this.pendingBuffers.length > 0 ? this.pendingPosition : this.size;
  }

  /** Takes the queued bytes for one positional write, or null if nothing is queued. */
  takePending(): PendingWrite | null {
    if (this.pendingBuffers.length === 0) return null;
    const write = { segment: this, position: this.pendingPosition, buffers: this.pendingBuffers, entries: this.pendingEntries };
    this.pendingBuffers = [];
    this.pendingEntries = [];
    return write;
  }

  /** Drops queued bytes (the log is being deleted). */
  discardPending(): void {
    this.pendingBuffers = [];
    this.pendingEntries = [];
  }

  /** Index of the first batch whose lastOffset >= offset, or entries.length if none. */
  indexOf(offset: bigint): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid]!.lastOffset < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The bytes of entries [from, to), one buffer per batch. Consecutive batches already in
   * the file are read with one pread; the returned buffers are views into that read.
   */
  read(from: number, to: number): Buffer[] {
    const out: Buffer[] = [];
    let i = from;
    while (i < to) {
      const entry = this.entries[i]!;
      if (entry.data !== null) {
        out.push(entry.data);
        i++;
        continue;
      }
      let j = i;
      while (j < to && this.entries[j]!.data === null) j++;
      const start = entry.position;
      const last = this.entries[j - 1]!;
      const bytes = readExactlySync(this.requireFd(), start, last.position + last.size - start);
      for (let k = i; k < j; k++) {
        const e = this.entries[k]!;
        out.push(bytes.subarray(e.position - start, e.position - start + e.size));
      }
      i = j;
    }
    return out;
  }

  /**
   * Forgets the batches from byte `position` on (a failed write: they were never acknowledged),
   * queued ones included. The file keeps its bytes until `truncateFile`.
   */
  dropFrom(position: number): void {
    const keep = this.entries.findIndex((e) => e.position >= position);
    if (keep === -1) return;
    this.entries.length = keep;
    this.size = position;
    this.maxTimestamp = this.entries.reduce((max, e) => (e.maxTimestamp > max ? e.maxTimestamp : max), -1n);
    this.discardPending();
  }

  /** Cuts the file to `bytes` (recovery of a torn tail). */
  truncateFile(bytes: number): void {
    fs.ftruncateSync(this.requireFd(), bytes);
  }

  closeSync(): void {
    if (this.fd !== null) {
      fs.closeSync(this.fd);
      this.fd = null;
    }
  }

  private requireFd(): number {
    if (this.fd === null) throw new Error(`segment ${this.file ?? this.baseOffset} is closed`);
    return this.fd;
  }
}
