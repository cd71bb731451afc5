/**
 * One log segment (Kafka's `LogSegment`): the `<20-digit base offset>.log` file holding
 * RecordBatch v2 bytes back to back, plus an in-memory index of its batches. Kafka's
 * `.index`/`.timeindex` files are not written; the index is rebuilt by recovery on open.
 *
 * Appended batches are first queued in memory (`pending`) and written by the owning
 * PartitionLog's flush; until then reads are served from the queued bytes. In in-memory
 * mode (no file) every batch keeps its bytes.
 *
 * The file's descriptor comes from a FileHandleCache (fd-cache.ts): opened on first use, closed by
 * the cache when others are used more recently (under flush 'always', after an fdatasync of bytes
 * written since the last one), reopened on the next use.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readExactlySync } from './file-io.js';
import { CachedFile, type FileHandleCache } from './fd-cache.js';

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
  /**
   * Whether bytes written since the last sync are fdatasync'ed before the cache closes the
   * descriptor to make room (the owning log's flush policy decides: only 'always' waits for a sync
   * of them anyway; under 'interval' the next timer sync reopens the file, under 'never' the OS
   * writes them back, as Kafka's active segment under its default flush settings).
   */
  syncOnEviction = true;
  private pendingBuffers: Buffer[] = [];
  private pendingEntries: BatchEntry[] = [];
  private pendingPosition = 0;

  /** The segment file's descriptor source, or null in in-memory mode. */
  private readonly handle: CachedFile | null;

  private constructor(
    readonly baseOffset: bigint,
    /** The segment file, or null in in-memory mode. */
    readonly file: string | null,
    files: FileHandleCache | null,
    flags: string,
    /** When the segment was created or recovered (ms, from the injected clock); drives log.roll.ms. */
    readonly createdMs: number,
  ) {
    this.handle = file !== null && files !== null ? new CachedFile(files, file, flags, this.syncBeforeClose) : null;
  }

  /** A new, empty segment file in `dir` (created now; truncated if a file of that name exists). */
  static create(dir: string, baseOffset: bigint, nowMs: number, files: FileHandleCache): LogSegment {
    const segment = new LogSegment(baseOffset, path.join(dir, segmentFileName(baseOffset)), files, 'w+', nowMs);
    segment.handle!.fd();
    return segment;
  }

  /** An existing segment file, for recovery (opened on first use); batches are added by `restore`. */
  static openExisting(file: string, baseOffset: bigint, nowMs: number, files: FileHandleCache): LogSegment {
    return new LogSegment(baseOffset, file, files, 'r+', nowMs);
  }

  static inMemory(baseOffset: bigint, nowMs: number): LogSegment {
    return new LogSegment(baseOffset, null, null, 'r', nowMs);
  }

  /** The cache holding this segment's descriptor, or null in in-memory mode. */
  get files(): FileHandleCache | null {
    return this.handle?.cache ?? null;
  }

  /** True for a segment file not yet closed (false in in-memory mode). */
  get isOpen(): boolean {
    return this.handle !== null && !this.handle.isClosed;
  }

  /** The file descriptor for synchronous use (reopened if the cache closed it); throws once closed or in memory. */
  fd(): number {
    if (this.handle === null) throw new Error(`segment ${this.baseOffset} has no file`);
    return this.handle.fd();
  }

  /** Runs an asynchronous `op` on the descriptor, which the cache keeps open until it settles. */
  withFd<T>(op: (fd: number) => Promise<T>): Promise<T> {
    if (this.handle === null) return Promise.reject(new Error(`segment ${this.baseOffset} has no file`));
    return this.handle.use(op);
  }

  /** Before the cache closes the descriptor: bytes written since the last sync reach the disk on it when `syncOnEviction` (a failure keeps it open). */
  private readonly syncBeforeClose = (fd: number): void => {
    if (!this.dirty || !this.syncOnEviction) return;
    fs.fdatasyncSync(fd);
    this.dirty = false;
  };

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
    if (this.handle !== null) {
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

  /** True while batches are queued for the next write. */
  get hasPending(): boolean {
    return this.pendingBuffers.length > 0;
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
      const bytes = readExactlySync(this.fd(), start, last.position + last.size - start);
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
    fs.ftruncateSync(this.fd(), bytes);
  }

  /** Closes the file for good (deletion, replacement, shutdown). */
  closeSync(): void {
    this.handle?.close();
  }
}
