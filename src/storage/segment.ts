/**
 * One log segment (Kafka's `LogSegment`): the `<20-digit base offset>.log` file holding
 * RecordBatch v2 bytes back to back, plus an in-memory table of its batches (batch-index.ts, 20
 * bytes a batch). Kafka's `.index`/`.timeindex` files are not written; the table is rebuilt by
 * recovery on open.
 *
 * Appended batches are first queued in memory and written by the owning PartitionLog's
 * flush; until the write is done reads are served from the queued bytes. In in-memory mode (no
 * file) the batches' bytes are copied into chunks the segment owns (packed-bytes.ts).
 *
 * The file's descriptor comes from a FileHandleCache (fd-cache.ts): opened on first use, closed by
 * the cache when others are used more recently (under flush 'always', after an fdatasync of bytes
 * written since the last one), reopened on the next use.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readExactlySync } from './file-io.js';
import { CachedFile, type FileHandleCache, type FileOwner } from './fd-cache.js';
import { BatchIndex } from './batch-index.js';
import { PackedBytes } from './packed-bytes.js';

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

/** Bytes taken from the queue for one write: `buffers` go to the file at `position`. */
export interface PendingWrite {
  segment: LogSegment;
  position: number;
  buffers: Buffer[];
  /** Offset of the first batch written. */
  baseOffset: bigint;
  /** Index of the batch after the last one written (what `markWritten` takes once the write is done). */
  end: number;
  /** Offset after the last record written. */
  endOffset: bigint;
}

export class LogSegment implements FileOwner {
  /** The segment's batches (offsets, positions, timestamps), 20 bytes each (batch-index.ts). */
  readonly batches: BatchIndex;
  /** Largest batch maxTimestamp in the segment (ms), -1 when empty. */
  maxTimestamp = -1n;
  /** Written since the last fdatasync. */
  dirty = false;
  /**
   * Bytes the segment file holds as far as this process wrote or found them: its batches, and
   * under 'always' the zeros written ahead of them (prepared-space.ts). Set by recovery for an
   * existing file; a write past it extends it.
   */
  fileEnd = 0;
  /** Writes made to the file so far: a sync clears `dirty` only when none was made while it ran. */
  writeCount = 0;
  /**
   * Whether bytes written since the last sync are fdatasync'ed before the cache closes the
   * descriptor to make room (the owning log's flush policy decides: only 'always' waits for a sync
   * of them anyway; under 'interval' the next timer sync reopens the file, under 'never' the OS
   * writes them back, as Kafka's active segment under its default flush settings).
   */
  syncOnEviction = true;
  /** The bytes of batches [unwrittenFrom, batches.count): queued or being written. Dropped once in the file. */
  private unwritten: Buffer[] = [];
  private unwrittenFrom = 0;
  /** First batch not yet taken for a write (batches.count when none is queued). */
  private pendingFrom = 0;

  /** The segment file's descriptor source, or null in in-memory mode. */
  private readonly handle: CachedFile | null;
  /** In in-memory mode, every batch's bytes (packed-bytes.ts); else null. */
  private readonly packed: PackedBytes | null;

  private constructor(
    readonly baseOffset: bigint,
    /** The segment file, or null in in-memory mode. */
    readonly file: string | null,
    files: FileHandleCache | null,
    flags: string,
    /** When the segment was created or recovered (ms, from the injected clock); drives log.roll.ms. */
    readonly createdMs: number,
  ) {
    this.handle = file !== null && files !== null ? new CachedFile(files, file, flags, this) : null;
    this.batches = new BatchIndex(baseOffset);
    this.packed = this.handle === null ? new PackedBytes() : null;
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
  beforeClose(fd: number): void {
    if (!this.hasWorkBeforeClose()) return;
    fs.fdatasyncSync(fd);
    this.dirty = false;
  }

  /** Whether `beforeClose` would sync (the cache closes clean files first). */
  hasWorkBeforeClose(): boolean {
    return this.dirty && this.syncOnEviction;
  }

  get isEmpty(): boolean {
    return this.batches.count === 0;
  }

  /** Bytes of all batches, written or queued. */
  get size(): number {
    return this.batches.end;
  }

  /** Offset after the segment's last batch, or null when empty. */
  get nextOffset(): bigint | null {
    const n = this.batches.count;
    return n > 0 ? this.batches.lastOffsetAt(n - 1) + 1n : null;
  }

  /** Records a batch found in the file by recovery (or written by the cleaner). */
  restore(baseOffset: bigint, lastOffset: bigint, position: number, size: number, maxTimestamp: bigint): void {
    this.batches.push(baseOffset, lastOffset, position, size, maxTimestamp);
    this.pendingFrom = this.unwrittenFrom = this.batches.count;
    if (maxTimestamp > this.maxTimestamp) this.maxTimestamp = maxTimestamp;
  }

  /**
   * Adds a batch (already restamped) at the end; it is queued for the next write, held as it is
   * until then. In in-memory mode its bytes are copied: the caller may reuse `batch`.
   */
  append(batch: Buffer, baseOffset: bigint, lastOffset: bigint, maxTimestamp: bigint): void {
    const position = this.batches.end;
    this.batches.push(baseOffset, lastOffset, position, batch.length, maxTimestamp);
    if (this.packed !== null) {
      this.packed.append(position, batch);
      this.pendingFrom = this.unwrittenFrom = this.batches.count;
    } else {
      this.unwritten.push(batch);
    }
    if (maxTimestamp > this.maxTimestamp) this.maxTimestamp = maxTimestamp;
  }

  /** Bytes up to the first queued batch: what the file holds once every taken write has run. */
  get writtenSize(): number {
    return this.pendingFrom < this.batches.count ? this.batches.position(this.pendingFrom) : this.size;
  }

  /** True while batches are queued for the next write. */
  get hasPending(): boolean {
    return this.pendingFrom < this.batches.count;
  }

  /** Bytes queued for the next write. */
  get pendingBytes(): number {
    return this.hasPending ? this.size - this.batches.position(this.pendingFrom) : 0;
  }

  /** Takes the queued bytes for one positional write, or null if nothing is queued. */
  takePending(): PendingWrite | null {
    const from = this.pendingFrom;
    const end = this.batches.count;
    if (from >= end) return null;
    this.pendingFrom = end;
    const buffers = this.unwritten.slice(from - this.unwrittenFrom);
    return { segment: this, position: this.batches.position(from), buffers, baseOffset: this.batches.baseOffsetAt(from), end, endOffset: this.batches.lastOffsetAt(end - 1) + 1n };
  }

  /** After a write: batches before `end` are read from the file from now on, their bytes let go. */
  markWritten(end: number): void {
    this.writeCount++;
    const n = Math.min(end, this.batches.count) - this.unwrittenFrom;
    if (this.handle === null || n <= 0) return;
    this.unwritten.splice(0, n);
    this.unwrittenFrom += n;
  }

  /** Batches whose bytes the segment holds in memory (queued or being written; all of them in in-memory mode). */
  get bufferedBatches(): number {
    return this.packed !== null ? this.batches.count : this.unwritten.length;
  }

  /** Drops queued bytes (the log is being deleted); batches already queued stay readable. */
  discardPending(): void {
    this.pendingFrom = this.batches.count;
  }

  /** A segment that takes no more batches (rolled, cleaned, recovered before the last): its table shrinks to fit. */
  sealed(): void {
    this.batches.trim();
    this.packed?.trim();
  }

  /** Index of the first batch whose lastOffset >= offset, or the batch count if none. */
  indexOf(offset: bigint): number {
    return this.batches.firstEndingAtOrAfter(offset);
  }

  /**
   * The bytes of batches [from, to), one buffer per batch. Consecutive batches already in
   * the file are read with one pread; the returned buffers are views into that read.
   */
  read(from: number, to: number): Buffer[] {
    const out: Buffer[] = [];
    if (this.packed !== null) {
      for (let k = from; k < to; k++) out.push(this.packed.view(this.batches.position(k), this.batches.size(k)));
      return out;
    }
    const inFile = Math.min(to, this.unwrittenFrom);
    if (from < inFile) {
      const start = this.batches.position(from);
      const end = inFile < this.batches.count ? this.batches.position(inFile) : this.batches.end;
      const bytes = readExactlySync(this.fd(), start, end - start);
      for (let k = from; k < inFile; k++) {
        const at = this.batches.position(k) - start;
        out.push(bytes.subarray(at, at + this.batches.size(k)));
      }
    }
    for (let k = Math.max(from, this.unwrittenFrom); k < to; k++) out.push(this.unwritten[k - this.unwrittenFrom]!);
    return out;
  }

  /**
   * Forgets the batches from byte `position` on (a failed write: they were never acknowledged),
   * queued ones included. The file keeps its bytes until `truncateFile`.
   */
  dropFrom(position: number): void {
    const keep = this.batches.firstAtOrAfterPosition(position);
    if (keep === this.batches.count) return;
    this.batches.truncate(keep);
    this.packed?.truncate(position);
    if (keep < this.unwrittenFrom) {
      this.unwritten = [];
      this.unwrittenFrom = keep;
    } else {
      this.unwritten.length = keep - this.unwrittenFrom;
    }
    let max = -1n;
    for (let i = 0; i < keep; i++) {
      const ts = this.batches.maxTimestampAt(i);
      if (ts > max) max = ts;
    }
    this.maxTimestamp = max;
    this.discardPending();
  }

  /** Cuts the file to `bytes` (recovery of a torn tail, zeros written ahead of the batches). */
  truncateFile(bytes: number): void {
    fs.ftruncateSync(this.fd(), bytes);
    this.fileEnd = bytes;
  }

  /** Closes the file for good (deletion, replacement, shutdown). */
  closeSync(): void {
    this.handle?.close();
  }
}
