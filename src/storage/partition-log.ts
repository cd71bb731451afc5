/**
 * A partition's segmented, append-only log of RecordBatch v2 in Kafka's on-disk layout
 * (`<dir>/<20-digit base offset>.log`), as Kafka's `UnifiedLog`/`LocalLog` minus
 * replication and index files.
 *
 * Offsets: `logStartOffset` is the first offset readable (the first segment's base offset, or higher
 * once DeleteRecords moved it: `advanceLogStartOffset`), `logEndOffset` (LEO) the offset the next
 * appended record gets. With one replica the high watermark is the end of what is written to the
 * segment files (synced too, under 'always'): Kafka's leader appends to the page cache (and flushes,
 * with `flush.messages=1`) before it moves the high watermark, so no consumer ever reads a record a
 * killed process takes back. Appends of this turn wait for its write to become readable.
 * Segments wholly below the log start offset are deleted (Kafka's `deleteLogStartOffsetBreachedSegments`).
 *
 * Durability (group commit): appends made during one event-loop turn are written with one
 * positional writev per segment in a setImmediate (on the event-loop thread up to 1 MiB, else on
 * the thread pool), or, for appends made while a write's answers go out, in the next round of that
 * burst (util/burst.ts). Appends made while an earlier write step still runs (or, under 'always',
 * while MAX_SYNCS_IN_FLIGHT syncs run) all wait for the one next write step, which takes them when
 * it starts. Then, per `flushPolicy`:
 *   - 'always':   one fdatasync per segment written, pipelined (sync-pipeline.ts): the next step
 *                 writes (after this one's write) and starts its own sync while this one's runs,
 *                 once the appends that keep arriving meanwhile have joined it (`gathered`);
 *                 `durable` resolves once a sync started after the append's write completed
 *                 (`recoveryPoint` is then past its last offset), in offset order. A failed write or
 *                 sync fails every step not yet acknowledged and rolls the log back to its recovery
 *                 point. While the disk answers fast, the sync runs on the event-loop thread instead,
 *                 acknowledging in the turn that wrote (inline-sync-gate.ts), once the clients
 *                 answered a moment ago sent their next appends to join it (util/returning-clients.ts).
 *   - 'interval': `durable` resolves once written; fdatasync runs every `flushIntervalMs` (ms),
 *                 or as soon as `flushIntervalMessages` messages are waiting for one.
 *                 A non-positive interval behaves as 'always'.
 *   - 'never':    `durable` resolves once written; the OS decides when bytes reach the disk.
 * Under every policy a roll syncs the segments below the new one once written (Kafka's
 * `UnifiedLog.roll`), and `close()` writes and syncs what is queued.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from 'pino';
import type { Time, Timer } from '../util/time.js';
import {
  batchSize,
  restampBaseOffset,
  LAST_OFFSET_DELTA_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  RECORD_BATCH_OVERHEAD,
  recordOffsetsAndTimestamps,
} from '../records/record-batch.js';
import { LogSegment, parseSegmentFileName, segmentFileName, type PendingWrite } from './segment.js';
import { holdsNoBatch, recoverSegment, type RecoveredBatchListener } from './recovery.js';
import { deferred, type Deferred } from './deferred.js';
import { readInt64BE } from '../protocol/primitives.js';
import { beginBurst, burstOpen, nextRound } from '../util/burst.js';
import { writeFully, writeFullySync, fdatasync, fdatasyncSync, fsyncDirectory, ftruncate } from './file-io.js';
import { completeInterruptedCleaning } from './cleaner-files.js';
import { fetchUpperBoundOffset, OffsetIndexBuilder } from './offset-index.js';
import { DEFAULT_FILE_CACHE, type FileHandleCache } from './fd-cache.js';
import { SyncPipeline } from './sync-pipeline.js';
import { clientsClock, servingClient, whileClientsReturn } from '../util/returning-clients.js';
import { POOL_ONLY, type InlineSyncGate } from './inline-sync-gate.js';
import { zerosAfter } from './prepared-space.js';

export type FlushPolicy = 'always' | 'interval' | 'never';

export interface PartitionLogOptions {
  /** Directory of the partition's segments; null keeps everything in memory. */
  dir: string | null;
  /** Roll to a new segment before a batch would grow the active one past this (bytes). */
  segmentBytes: number;
  /** Roll to a new segment once the active one is this old (ms). */
  rollMs: number;
  flushPolicy: FlushPolicy;
  /** Period (ms) of fdatasync under the 'interval' policy. */
  flushIntervalMs: number;
  /** Under 'interval', also fdatasync once this many messages were appended since the last sync (Kafka's `log.flush.interval.messages`). */
  flushIntervalMessages?: bigint;
  log: Logger;
  time: Time;
  /** Called for every valid batch found while recovering existing segments (a transient view). */
  onRecoveredBatch?: RecoveredBatchListener;
  /** A log start offset kept from before (Kafka's `log-start-offset-checkpoint`); the first batch's offset otherwise. */
  logStartOffset?: bigint;
  /** Where segment files get their descriptors (one cache per server, `mock.max.open.files`); a process-wide default otherwise. */
  files?: FileHandleCache;
  /**
   * Under 'always', whether an fdatasync may run on the event-loop thread (inline-sync-gate.ts: one
   * per server, `mock.flush.inline.sync.max.ms`, as its logs share a disk); without one (tools and
   * tests opening a log directly) every sync runs on libuv's thread pool.
   */
  syncGate?: InlineSyncGate;
  /**
   * Under 'always', write zeros ahead of the active segment's batches so that most fdatasyncs only
   * flush data (prepared-space.ts). For the coordinators' logs (`__consumer_offsets`,
   * `__share_group_state`, `__transaction_state`), whose every commit waits for a sync; not for
   * topics, whose live segment files tools such as kafka-dump-log read as Kafka writes them.
   */
  prepareSpace?: boolean;
  /**
   * The server stopped cleanly last time (Kafka's `.kafka_cleanshutdown`): no write can be torn,
   * so a bad batch at the end of the last segment is damage that stops the open (recovery.ts).
   */
  stoppedCleanly?: boolean;
  /** True once another server took the data directory over: `close` then leaves the files as they are (directory-taken-over.ts). */
  directoryTakenOver?: () => boolean;
}

/** Result of an append: the first offset given, and when the bytes are durable. */
export interface AppendResult {
  baseOffset: bigint;
  /** Resolves per the flush policy; rejects if the write or sync failed. */
  durable: Promise<void>;
}

/** Where a turn's writes began: what a failed turn rolls the log back to. */
interface RollbackPoint {
  segment: LogSegment;
  /** Byte position of the turn's first batch in `segment`. */
  position: number;
  /** Offset of the turn's first batch: the log end offset after the rollback. */
  baseOffset: bigint;
}

/**
 * A turn's write up to this many bytes is made on the event-loop thread (a page-cache copy: some
 * 0.1-0.3 ms for 1 MiB), larger ones on libuv's thread pool, so a big produce turn never holds up the
 * loop. 1 MiB, not 64 KiB: a Produce of Kafka's default 64 KiB-or-so batches (a Java producer's
 * `batch.size` 16 KiB, librdkafka's up to 1 MB) went to the pool every time, and the hand-off, wake-up
 * and promise cost more server CPU than the copy (bench/produce-throughput.mjs, interleaved A/B: ~7.8
 * -> ~3.3 ms CPU per MB on a loaded machine); Kafka's request threads write to the page cache themselves.
 */
const SYNC_WRITE_MAX_BYTES = 1024 * 1024;

/** Largest offset distance inside one segment (Kafka keeps relative offsets in an int32). */
const MAX_RELATIVE_OFFSET = 2147483647n;
/** The I/O chain of a log that has done none: one settled promise for every log (most partitions never write). */
const RESOLVED: Promise<void> = Promise.resolve();

export class PartitionLog {
  private readonly segments: LogSegment[];
  private nextOffset: bigint;
  /**
   * How many times the log start or end offset moved (appends, roll-backs, DeleteRecords,
   * retention): a number that only grows, so a reader looking at thousands of partitions every
   * second (the console's group watch) sees which changed without reading their offsets.
   */
  offsetMoves = 0;
  /** The log start offset DeleteRecords set (-1: none), effective while above the first batch's offset. */
  private startOffset: bigint;
  /** Waiters for the current turn's write (+ sync under 'always'). */
  private turnWaiter: Deferred | null = null;
  private turnScheduled = false;
  /** Base offset of the newest segment rolled since the last turn step started (null: none): the segments below are synced after that step's writes. */
  private rolledAt: bigint | null = null;
  /** Segments rolled under 'always' whose files may hold zeros past their batches, cut once written (`trimSealed`). */
  private toTrim: LogSegment[] = [];
  /** Whether this log writes zeros ahead of its active segment's batches (`prepareSpace` under 'always'). */
  private readonly preparesSpace: boolean;
  /** A turn step is queued in the I/O chain and has not started: appends made until it starts join it. */
  private turnQueued = false;
  private syncTimer: Timer | null = null;
  /** Messages appended since the last 'interval' sync was scheduled to run. */
  private unflushedMessages = 0n;
  /** All file I/O runs in this chain, one step after another. */
  private ioChain: Promise<void> = RESOLVED;
  /** A step of `ioChain` is queued or running (see `setChain`); a turn's write may run at once only when none is. */
  private chainBusy = false;
  private directoryDirty = false;
  /** The directory fsync running now, which syncs started meanwhile wait for too (its entries may be theirs). */
  private directorySync: Promise<void> | null = null;
  /** Under 'always': the written steps waiting for a covering fdatasync, and the syncs in flight. */
  private readonly pipeline = new SyncPipeline<RollbackPoint | null>();
  /** Under 'always': whether the next fdatasync may run on the event-loop thread. */
  private readonly syncGate: InlineSyncGate;
  /** Under 'always' with `mock.flush.inline.sync.wait.ms`: whether an inline sync first waits for the clients the last one answered. */
  private readonly waitsForClients: boolean;
  /** The connections whose appends the forming step holds (util/returning-clients.ts); null: none. */
  private turnClients: Set<object> | null = null;
  /** Whether the forming step holds an append made outside any request (a transaction's markers): it does not wait. */
  private turnHasUnserved = false;
  /** The connections the last inline sync acknowledged, whose next appends the next one waits for; null: none. */
  private answeredClients: Set<object> | null = null;
  /** When (`clientsClock`) the last inline sync acknowledged `answeredClients`. */
  private answeredSince = 0;
  /** The write or sync failure that appends are refused with until `recover` has run. */
  private failure: Error | null = null;
  private recovering = false;
  private closing: Promise<void> | null = null;
  private readonly policy: FlushPolicy;
  /** Kafka's offset index of each segment a read_committed fetch read (see offset-index.ts). */
  private offsetIndexes: WeakMap<LogSegment, OffsetIndexBuilder> | null = null;
  /** Offset after the last batch written to its file (what an fdatasync started now covers). */
  private writtenEnd: bigint;
  /** Told when the high watermark moves up (`onHighWatermark`). */
  private highWatermarkListener: (() => void) | null = null;
  /** See `recoveryPoint`. */
  private syncedEnd: bigint;
  /** Counters for tests and metrics: positional writes and fdatasync calls made. */
  readonly stats = { writes: 0, syncs: 0 };
  /**
   * The owner's appends let linger until the next write step (`setLingering`): called before every
   * step takes the queued appends; null when nothing lingers.
   */
  private lingering: (() => void) | null = null;
  /** Set while `lingering` runs: its appends join the step starting, which is arranged already. */
  private takingLingered = false;

  private constructor(private readonly options: PartitionLogOptions, segments: LogSegment[]) {
    // The recovery listener is for `open` only: kept, its closure held what the opener gathered
    // (TopicStore.openPartition's copies of every recovered batch header) for the process's life.
    const { onRecoveredBatch: _recoveryOnly, ...kept } = options;
    this.options = kept;
    this.segments = segments;
    this.policy = options.flushPolicy === 'interval' && options.flushIntervalMs <= 0 ? 'always' : options.flushPolicy;
    this.syncGate = options.syncGate ?? POOL_ONLY;
    this.waitsForClients = this.policy === 'always' && this.syncGate.returnWaitMs > 0;
    this.preparesSpace = this.policy === 'always' && options.prepareSpace === true;
    for (const s of segments) this.adopt(s);
    const last = segments[segments.length - 1]!;
    this.nextOffset = last.nextOffset ?? last.baseOffset;
    this.writtenEnd = this.nextOffset;
    this.syncedEnd = this.nextOffset;
    this.startOffset = -1n;
  }

  /** A segment joins this log: the descriptor cache syncs it before closing only when the policy waits for syncs anyway. */
  private adopt(segment: LogSegment): LogSegment {
    segment.syncOnEviction = this.policy === 'always';
    return segment;
  }

  /**
   * Opens (creating `dir` if needed) and recovers the log. Throws CorruptLogError when a
   * segment other than the last holds a bad batch, or the last one that a valid batch follows or
   * after a clean shutdown; a bad tail of the last is truncated.
   */
  static open(options: PartitionLogOptions): PartitionLog {
    const now = options.time.now();
    if (options.dir === null) return new PartitionLog(options, [LogSegment.inMemory(0n, now)]);
    fs.mkdirSync(options.dir, { recursive: true });
    completeInterruptedCleaning(options.dir, options.log);
    const bases = fs
      .readdirSync(options.dir)
      .map(parseSegmentFileName)
      .filter((b): b is bigint => b !== null)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const files = options.files ?? DEFAULT_FILE_CACHE;
    if (bases.length === 0) return new PartitionLog(options, [LogSegment.create(options.dir, 0n, now, files)]);
    const segments: LogSegment[] = [];
    try {
      // The tail is the last segment holding batches: a crash can leave a torn write in it even when
      // a roll already created the next segment file, still empty or (power lost) only zeros.
      const paths = bases.map((base) => path.join(options.dir!, segmentFileName(base)));
      let tail = paths.length - 1;
      while (tail > 0 && holdsNoBatch(paths[tail]!)) tail--;
      let afterOffset = -1n;
      for (let i = 0; i < paths.length; i++) {
        const segment = LogSegment.openExisting(paths[i]!, bases[i]!, now, files);
        segments.push(segment);
        const rules = { isLast: i >= tail, stoppedCleanly: options.stoppedCleanly === true, zerosAhead: options.prepareSpace === true };
        const truncated = recoverSegment(segment, afterOffset, rules, options.log, options.onRecoveredBatch);
        afterOffset = segment.nextOffset !== null ? segment.nextOffset - 1n : afterOffset;
        if (truncated && i < paths.length - 1) {
          // Empty segments after a truncated tail start past the new log end: drop them, as
          // Kafka's LogLoader deletes the segments after the one it truncates.
          for (const file of paths.slice(i + 1)) fs.rmSync(file, { force: true });
          break;
        }
      }
    } catch (err) {
      for (const s of segments) s.closeSync();
      throw err;
    }
    for (const s of segments.slice(0, -1)) s.sealed();
    const log = new PartitionLog(options, segments);
    if (options.logStartOffset !== undefined) log.advanceLogStartOffset(options.logStartOffset < log.nextOffset ? options.logStartOffset : log.nextOffset);
    return log;
  }

  get dir(): string | null {
    return this.options.dir;
  }

  /** New segment limits (a topic's `segment.bytes` / `segment.ms` changed); the active segment rolls by them from now on. */
  setSegmentLimits(segmentBytes: number, rollMs: number): void {
    this.options.segmentBytes = segmentBytes;
    this.options.rollMs = rollMs;
  }

  /**
   * The log start offset: the first segment's base offset, or the higher offset DeleteRecords set.
   * Compaction never moves it (Kafka's `Cleaner` keeps each cleaned segment's base offset and only
   * retention and DeleteRecords call `maybeIncrementLogStartOffset`): a Fetch from it returns the
   * first batch the cleaner kept, whatever its offset. After a restart it is
   * max(log-start-offset-checkpoint, first segment's base offset), as Kafka's `LogLoader`.
   */
  get logStartOffset(): bigint {
    const held = this.segments[0]!.baseOffset;
    return this.startOffset > held ? this.startOffset : held;
  }

  /** Base offset of the oldest segment still held (what a segment deletion moves). */
  get firstSegmentBaseOffset(): bigint {
    return this.segments[0]!.baseOffset;
  }

  /**
   * The log start offset worth keeping in `log-start-offset-checkpoint` (Kafka writes those above
   * the first segment's base offset), or null.
   */
  get checkpointLogStartOffset(): bigint | null {
    return this.startOffset > this.segments[0]!.baseOffset ? this.startOffset : null;
  }

  /**
   * Moves the log start offset up to `offset` (at most the LEO; the caller checks the bounds Kafka
   * checks) and deletes the segments wholly below it, never the active one (Kafka's
   * `maybeIncrementLogStartOffset` then `deleteLogStartOffsetBreachedSegments`; the files go at once,
   * not after `file.delete.delay.ms`). Returns false when `offset` is not above the current one.
   */
  advanceLogStartOffset(offset: bigint): boolean {
    if (offset <= this.logStartOffset) return false;
    this.startOffset = offset > this.nextOffset ? this.nextOffset : offset;
    this.offsetMoves++;
    let drop = 0;
    while (drop + 1 < this.segments.length && this.segments[drop + 1]!.baseOffset <= this.startOffset) drop++;
    if (drop > 0) this.removeSegments(this.segments.splice(0, drop));
    return true;
  }

  /**
   * Retention (Kafka's `UnifiedLog.deleteOldSegments` / `deletableSegments`): deletes segments from
   * the oldest while `predicate` holds (never an empty active segment). When every segment goes, a
   * new empty one is rolled at the LEO first, so the log stays appendable. The log start offset
   * follows the first remaining segment. Returns the number of segments deleted.
   */
  deleteOldestSegments(predicate: (segment: LogSegment) => boolean): number {
    let n = 0;
    while (n < this.segments.length) {
      const segment = this.segments[n]!;
      if (n === this.segments.length - 1 && segment.isEmpty) break;
      if (!predicate(segment)) break;
      n++;
    }
    if (n === 0) return 0;
    if (n === this.segments.length) this.roll();
    const dropped = this.segments.splice(0, n);
    const first = this.segments[0]!.baseOffset;
    if (this.startOffset < first) this.startOffset = first;
    this.offsetMoves++;
    this.removeSegments(dropped);
    return n;
  }

  /**
   * Segments deleted by `retention.ms` (`deleteRetentionMsBreachedSegments`): those whose largest
   * timestamp (their creation time when they hold none) is more than `retentionMs` before `now`;
   * and by `retention.bytes` (`deleteRetentionSizeBreachedSegments`): the oldest, while the log
   * stays at least that large without them. Negative values disable each. Returns segments deleted.
   */
  deleteRetentionBreachedSegments(retentionMs: bigint, retentionBytes: bigint, now: number): number {
    let deleted = 0;
    if (retentionMs >= 0n) {
      deleted += this.deleteOldestSegments((s) => BigInt(now) - (s.maxTimestamp >= 0n ? s.maxTimestamp : BigInt(s.createdMs)) > retentionMs);
    }
    if (retentionBytes >= 0n && BigInt(this.sizeInBytes) >= retentionBytes) {
      let diff = BigInt(this.sizeInBytes) - retentionBytes;
      deleted += this.deleteOldestSegments((s) => {
        if (diff - BigInt(s.size) < 0n) return false;
        diff -= BigInt(s.size);
        return true;
      });
    }
    return deleted;
  }

  /** Closes and deletes segments already taken out of the log, after the I/O queued so far; a failure is logged. */
  private removeSegments(dropped: readonly LogSegment[]): void {
    for (const s of dropped) s.discardPending();
    this.setChain(this.ioChain.then(async () => {
      await this.pipeline.idle(); // a sync in flight may hold one of them
      try {
        for (const s of dropped) {
          s.closeSync();
          if (s.file !== null) await fs.promises.rm(s.file, { force: true });
        }
        if (this.options.dir !== null && dropped.some((s) => s.file !== null)) await fsyncDirectory(this.options.dir);
      } catch (err) {
        this.options.log.warn({ err, dir: this.options.dir }, 'could not delete log segments below the log start offset');
      }
    }));
  }

  /**
   * Kafka's `UnifiedLog.recoveryPoint`: the first offset not yet known to be on disk, i.e. every
   * record below it was written and covered by a completed fdatasync (the log end offset for a log
   * in memory, and at open, as Kafka's `LogLoader` after recovery). Under 'always' an append's
   * `durable` resolves only once this is past its last offset.
   */
  get recoveryPoint(): bigint {
    return this.options.dir === null ? this.nextOffset : this.syncedEnd;
  }

  /** Log-end offset (LEO): the offset the next appended record gets. */
  get logEndOffset(): bigint {
    return this.nextOffset;
  }

  /**
   * The high watermark of this one-replica log: the first offset not yet written to its file (not
   * yet synced, under 'always'); the log end offset in memory. What consumers may read.
   */
  get highWatermark(): bigint {
    if (this.options.dir === null) return this.nextOffset;
    return this.policy === 'always' ? this.syncedEnd : this.writtenEnd;
  }

  /** Calls `listener` whenever the high watermark moves up (fetches waiting on this partition wake then). */
  onHighWatermark(listener: () => void): void {
    this.highWatermarkListener = listener;
  }

  /** The high watermark moved up (a write, under 'always' a sync, completed). */
  private highWatermarkMoved(): void {
    this.highWatermarkListener?.();
  }

  /** Total bytes of all segments (written or queued). */
  get sizeInBytes(): number {
    return this.segments.reduce((n, s) => n + s.size, 0);
  }

  get segmentCount(): number {
    return this.segments.length;
  }

  /**
   * Appends whole v2 batches (validated by the caller), restamping each base offset in
   * place to consecutive offsets. Batches are held (not copied) until written; in in-memory mode
   * the segment copies them (packed-bytes.ts). Throws if
   * the log is closed, or while a failed write is being rolled back (each such call retries the
   * rollback's file truncation, so appends resume once the disk takes writes again).
   */
  append(batches: Buffer[]): AppendResult {
    if (this.closing) throw new Error(`log ${this.describe()} is closed`);
    if (this.failure) {
      const failure = this.failure;
      this.recover();
      throw failure;
    }
    const baseOffset = this.nextOffset;
    for (const batch of batches) {
      const size = batchSize(batch);
      if (size !== batch.length) throw new RangeError(`batch declares ${size} bytes but holds ${batch.length}`);
      const lastDelta = batch.readInt32BE(LAST_OFFSET_DELTA_OFFSET);
      if (lastDelta < 0) throw new RangeError(`batch has a negative last offset delta ${lastDelta}`);
      const first = this.nextOffset;
      // One record per batch (a commit's) is the usual case: no BigInt arithmetic for it.
      const last = lastDelta === 0 ? first : first + BigInt(lastDelta);
      restampBaseOffset(batch, first);
      this.maybeRoll(size, last);
      this.active.append(batch, first, last, readInt64BE(batch, MAX_TIMESTAMP_OFFSET));
      this.nextOffset = last + 1n;
      // Counted for 'interval' only (its `flushIntervalMessages`): a BigInt addition per batch otherwise spent for nothing.
      if (this.policy === 'interval') this.unflushedMessages += lastDelta === 0 ? 1n : BigInt(lastDelta) + 1n;
    }
    this.offsetMoves++;
    // In memory the high watermark is the log end offset: it moved with this append.
    if (this.options.dir === null) this.highWatermarkMoved();
    return { baseOffset, durable: this.durability() };
  }

  /**
   * Whole batches whose lastOffset >= fromOffset, starting with the batch holding
   * fromOffset (which may start before it), while their total stays within maxBytes;
   * with `minOneBatch` the first batch is returned even if larger; only batches below `below` (a
   * batch boundary: the high watermark for a consumer's read, default the log end offset). Empty
   * when fromOffset is outside [logStartOffset, below).
   */
  read(fromOffset: bigint, maxBytes: number, minOneBatch = true, below = this.nextOffset): Buffer[] {
    if (fromOffset >= below || fromOffset < this.logStartOffset) return [];
    const out: Buffer[] = [];
    let total = 0;
    for (let s = this.segmentIndexFor(fromOffset); s < this.segments.length; s++) {
      const segment = this.segments[s]!;
      const from = segment.indexOf(fromOffset);
      const count = segment.batches.count;
      let to = from;
      while (to < count && segment.batches.baseOffsetAt(to) < below) {
        const size = segment.batches.size(to);
        if (total + size > maxBytes && !(minOneBatch && out.length === 0 && to === from)) break;
        total += size;
        to++;
      }
      if (to > from) out.push(...segment.read(from, to));
      if (to < count) break;
    }
    return out;
  }

  /**
   * A bounded read as Kafka's `LocalLog.read` serves a read_committed fetch: whole batches from the
   * one holding `fromOffset`, all below `maxOffset` (the last stable offset, a batch boundary), from
   * ONE segment (Kafka reads a single segment per partition per fetch), within `maxBytes` (the first
   * batch regardless with `minOneBatch`). Also what `addAbortedTransactions` searches with: the base
   * offset of the segment read and Kafka's upper bound offset of the fetched range
   * (`LogSegment.fetchUpperBoundOffset` over the offset index Kafka would have written, see
   * offset-index.ts; else the next segment's base offset; else the log end offset). Null when nothing
   * lies in [fromOffset, maxOffset).
   */
  readBelow(
    fromOffset: bigint,
    maxOffset: bigint,
    maxBytes: number,
    minOneBatch: boolean,
    indexIntervalBytes: number,
  ): { batches: Buffer[]; segmentBaseOffset: bigint; upperBoundOffset: bigint } | null {
    if (fromOffset >= maxOffset || fromOffset >= this.nextOffset || fromOffset < this.logStartOffset) return null;
    for (let s = this.segmentIndexFor(fromOffset); s < this.segments.length; s++) {
      const segment = this.segments[s]!;
      const table = segment.batches;
      let from = segment.indexOf(fromOffset);
      // Batches the cleaner emptied (header only): Kafka's cleaner drops them, so a Kafka read finds
      // no data there and goes on (a consumer could not move past them).
      while (from < table.count && table.size(from) <= RECORD_BATCH_OVERHEAD) from++;
      if (from >= table.count) continue;
      if (table.baseOffsetAt(from) >= maxOffset) return null;
      const firstPosition = table.position(from);
      // Kafka slices min(maxPosition - start, max(maxBytes, first batch with minOneMessage)) bytes.
      const bound = table.firstStartingAtOrAfter(maxOffset);
      const maxPosition = bound < table.count ? table.position(bound) : segment.size;
      const sliceBytes = Math.min(maxPosition - firstPosition, minOneBatch ? Math.max(maxBytes, table.size(from)) : maxBytes);
      let to = from;
      while (to < table.count && table.position(to) + table.size(to) <= firstPosition + sliceBytes) to++;
      const indexes = (this.offsetIndexes ??= new WeakMap());
      let index = indexes.get(segment);
      if (index === undefined || index.indexIntervalBytes !== indexIntervalBytes) indexes.set(segment, (index = new OffsetIndexBuilder(indexIntervalBytes)));
      let upperBoundOffset = fetchUpperBoundOffset(index.extend(table), firstPosition, sliceBytes);
      upperBoundOffset ??= this.segments[s + 1]?.baseOffset ?? this.nextOffset;
      return { batches: to > from ? segment.read(from, to) : [], segmentBaseOffset: segment.baseOffset, upperBoundOffset };
    }
    return null;
  }

  /** The file name of the segment holding `offset` (the first segment's for an offset before it), for messages naming a record's place. */
  segmentFileOf(offset: bigint): string {
    let base = this.segments[0]!.baseOffset;
    for (const segment of this.segments) if (segment.baseOffset <= offset) base = segment.baseOffset;
    return segmentFileName(base);
  }

  /** Every batch in offset order (reads each segment in large sequential chunks). */
  *batches(): Iterable<Buffer> {
    const CHUNK = 4 << 20;
    for (const segment of this.segments) {
      const table = segment.batches;
      let i = 0;
      while (i < table.count) {
        let j = i;
        let bytes = 0;
        while (j < table.count && (j === i || bytes + table.size(j) <= CHUNK)) bytes += table.size(j++);
        yield* segment.read(i, j);
        i = j;
      }
    }
  }

  /**
   * ListOffsets by timestamp (Kafka's `fetchOffsetByTimestamp`): the first offset in log
   * order whose record timestamp >= ts (ms), with that timestamp; null if there is none.
   * For a batch whose records are not read (a snappy, lz4 or zstd batch decompressing to more
   * than DECOMPRESS_LIMIT) the batch's base offset and max timestamp are answered.
   */
  offsetForTimestamp(ts: bigint): { offset: bigint; timestamp: bigint } | null {
    const start = this.logStartOffset;
    for (const segment of this.segments) {
      if (segment.maxTimestamp < ts) continue;
      const table = segment.batches;
      for (let i = table.firstEndingAtOrAfter(start); i < table.count; i++) {
        if (table.maxTimestampAt(i) < ts) continue;
        // Records below the log start offset (DeleteRecords) are not found (UnifiedLog searches from it).
        const found = this.findInBatch(segment, i, (t, offset) => t >= ts && offset >= start);
        if (found) return found;
      }
    }
    return null;
  }

  /**
   * ListOffsets MAX_TIMESTAMP (-3): the first record carrying the largest timestamp in the
   * log, with that timestamp and its batch's partition leader epoch (-1 when the batch has none),
   * as Kafka 4.3's `UnifiedLog.fetchOffsetByTimestamp` answers it from the batch, not from the
   * leader epoch cache (which DeleteRecords truncates); null for an empty log.
   */
  maxTimestamp(): { offset: bigint; timestamp: bigint; leaderEpoch: number } | null {
    let bestSegment: LogSegment | null = null;
    let bestIndex = -1;
    let bestTimestamp = 0n;
    for (const segment of this.segments) {
      if (bestSegment !== null && segment.maxTimestamp <= bestTimestamp) continue;
      const table = segment.batches;
      for (let i = 0; i < table.count; i++) {
        const ts = table.maxTimestampAt(i);
        if (bestSegment === null || ts > bestTimestamp) {
          bestSegment = segment;
          bestIndex = i;
          bestTimestamp = ts;
        }
      }
    }
    if (bestSegment === null) return null;
    const [batch] = bestSegment.read(bestIndex, bestIndex + 1);
    const epoch = batch!.readInt32BE(PARTITION_LEADER_EPOCH_OFFSET);
    const leaderEpoch = epoch >= 0 ? epoch : -1;
    const found = this.findInBatch(bestSegment, bestIndex, (t) => t === bestTimestamp, batch);
    return { ...(found ?? { offset: bestSegment.batches.baseOffsetAt(bestIndex), timestamp: bestTimestamp }), leaderEpoch };
  }

  /** Writes and syncs everything queued, then closes the segment files. Idempotent. */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.syncTimer?.cancel();
    this.syncTimer = null;
    this.flushTurn();
    this.closing = this.chain(async () => {
      await this.pipeline.idle();
      this.trimSealed();
      // Another server writes these files now: a cut here would truncate its batches.
      if (this.options.directoryTakenOver?.() === true) return;
      this.cutZeros(this.active);
      await this.syncDirty();
    }, null).then(() => {
      for (const s of this.segments) s.closeSync();
    });
    return this.closing;
  }

  /**
   * Deletes the log's directory at once. Queued bytes are dropped, waiters resolve, and
   * the files are closed once in-flight I/O ends. The log cannot be used afterwards.
   */
  deleteFiles(): void {
    this.syncTimer?.cancel();
    this.syncTimer = null;
    for (const s of this.segments) s.discardPending();
    this.turnWaiter?.resolve();
    this.turnWaiter = null;
    const closeAll = (): void => {
      for (const s of this.segments) s.closeSync();
    };
    this.closing = this.ioChain.then(() => this.pipeline.idle()).then(closeAll, closeAll);
    if (this.options.dir !== null) fs.rmSync(this.options.dir, { recursive: true, force: true });
  }

  /** True once `close()` or `deleteFiles()` was called. */
  get isClosed(): boolean {
    return this.closing !== null;
  }

  /** Log cleaner support: the closed segments (every segment but the active one), oldest first. */
  closedSegments(): readonly LogSegment[] {
    return this.segments.slice(0, -1);
  }

  /** Base offset of the active segment: the cleaner's first uncleanable offset. */
  get activeSegmentBaseOffset(): bigint {
    return this.active.baseOffset;
  }

  /**
   * Log cleaner support (Kafka's `LocalLog.replaceSegments`): after all I/O queued so far,
   * checks that `old` are still consecutive closed segments of this log, runs `install`
   * (which swaps the files on disk and returns the segment holding the cleaned batches) and
   * puts that segment in their place in one synchronous step, then closes the old ones.
   * Readers see either the old segments or the new one. A failure rejects the returned
   * promise but does not fail the log (appends go on; the old segments stay in use).
   */
  replaceSegments(old: readonly LogSegment[], install: () => Promise<LogSegment>): Promise<void> {
    const run = this.ioChain.then(async () => {
      if (this.closing) throw new Error(`log ${this.describe()} is closed`);
      if (this.failure) throw this.failure;
      const check = (): number => {
        const start = this.segments.indexOf(old[0]!);
        const ok =
          old.length > 0 && start >= 0 && start + old.length < this.segments.length && old.every((s, i) => this.segments[start + i] === s);
        if (!ok) throw new Error(`segments to replace in ${this.describe()} are no longer closed segments of the log`);
        return start;
      };
      await this.pipeline.idle(); // a sync in flight may hold one of them
      check();
      const replacement = this.adopt(await install());
      this.segments.splice(check(), old.length, replacement);
      for (const s of old) {
        s.discardPending();
        s.closeSync();
      }
    });
    this.setChain(run.catch(() => {}));
    return run;
  }

  private get active(): LogSegment {
    return this.segments[this.segments.length - 1]!;
  }

  private describe(): string {
    return this.options.dir ?? '(in memory)';
  }

  /** Starts a new segment at the LEO if the active one is full, old, or out of offset range. */
  private maybeRoll(batchBytes: number, lastOffset: bigint): void {
    const active = this.active;
    if (active.isEmpty) return;
    const full = active.size + batchBytes > this.options.segmentBytes;
    const old = this.options.time.now() - active.createdMs >= this.options.rollMs;
    const offsetsOverflow = lastOffset - active.baseOffset > MAX_RELATIVE_OFFSET;
    if (!full && !old && !offsetsOverflow) return;
    this.roll();
  }

  /** Starts a new, empty active segment at the LEO. */
  private roll(): void {
    const now = this.options.time.now();
    this.active.sealed();
    if (this.options.dir === null) {
      this.segments.push(LogSegment.inMemory(this.nextOffset, now));
      return;
    }
    if (this.preparesSpace) this.toTrim.push(this.active);
    this.segments.push(this.adopt(LogSegment.create(this.options.dir, this.nextOffset, now, this.options.files ?? DEFAULT_FILE_CACHE)));
    this.directoryDirty = true;
    this.rolledAt = this.nextOffset;
    this.options.log.debug({ dir: this.options.dir, baseOffset: String(this.nextOffset) }, 'rolled log segment');
  }

  /** Index of the last segment whose base offset <= offset. */
  private segmentIndexFor(offset: bigint): number {
    let lo = 0;
    let hi = this.segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.segments[mid]!.baseOffset <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private findInBatch(
    segment: LogSegment,
    index: number,
    match: (timestamp: bigint, offset: bigint) => boolean,
    batch = segment.read(index, index + 1)[0],
  ): { offset: bigint; timestamp: bigint } | null {
    let records: Array<{ offset: bigint; timestamp: bigint }> | null;
    try {
      records = recordOffsetsAndTimestamps(batch!);
    } catch {
      records = null; // records we cannot read: answer at batch level, as for a batch too large to decompress
    }
    if (records === null) return { offset: segment.batches.baseOffsetAt(index), timestamp: segment.batches.maxTimestampAt(index) };
    for (const r of records) if (match(r.timestamp, r.offset)) return r;
    return null;
  }

  /** The promise an append made now gets, arranging the write (and sync) it waits for. */
  private durability(): Promise<void> {
    if (this.options.dir === null) return Promise.resolve();
    if (!this.takingLingered) this.arrangeTurn();
    // Every policy acknowledges only once the bytes are written to the file (so a process crash
    // loses nothing acknowledged); 'always' also waits for their fdatasync.
    if (this.policy === 'interval') {
      const limit = this.options.flushIntervalMessages;
      if (limit !== undefined && this.unflushedMessages >= limit) {
        // Enough messages: sync right after this turn's write instead of waiting for the timer.
        this.syncTimer?.cancel();
        this.syncTimer = this.options.time.schedule(0, () => this.syncTick());
      } else {
        this.syncTimer ??= this.options.time.schedule(this.options.flushIntervalMs, () => this.syncTick());
      }
    }
    this.turnWaiter ??= deferred();
    return this.turnWaiter.promise;
  }

  /** Arranges the write step an append made now joins, noting the connection it serves. */
  private arrangeTurn(): void {
    this.appendsArranged++;
    if (this.waitsForClients) {
      const client = servingClient();
      if (client !== null) (this.turnClients ??= new Set()).add(client);
      else this.turnHasUnserved = true;
    }
    if (!this.turnScheduled) {
      this.turnScheduled = true;
      // Appends made while the answers of a turn's write go out (muted connections taking their next
      // request) are written in the burst's next round, not a turn later (util/burst.ts).
      if (burstOpen()) nextRound(this.flushTurnNow);
      else setImmediate(this.flushTurnNow);
    }
  }

  /**
   * Lets an owner hold records back from `append` until the next write step starts: `lingering` is
   * called then (before the step takes the queued appends) and appends what the owner holds, once
   * `lingerUntilWrite` arranged that step. What Kafka's coordinator runtime does with
   * `group.coordinator.append.linger.ms` -1 (coordinator/group-log.ts): the writes of one turn
   * share a batch.
   */
  setLingering(lingering: (() => void) | null): void {
    this.lingering = lingering;
  }

  /**
   * Arranges the write step that takes what the owner lets linger (as `append` would arrange it for
   * an append made now, noting the connection served); false in memory, where there is no step:
   * the owner appends at once.
   */
  lingerUntilWrite(): boolean {
    if (this.options.dir === null) return false;
    this.arrangeTurn();
    return true;
  }

  /** Has the owner append what it let linger, into the step starting. */
  private takeLingered(): void {
    const lingering = this.lingering;
    if (lingering === null) return;
    this.takingLingered = true;
    try {
      lingering();
    } finally {
      this.takingLingered = false;
    }
  }

  private readonly flushTurnNow = (): void => this.flushTurn();

  /**
   * Queues this turn's write step in the I/O chain, unless one is queued and not yet started: that
   * one takes these appends too. So while a write or fdatasync runs, the appends of every turn until
   * it ends wait for ONE next write (+ sync under 'always'): classic group commit, at most one sync
   * in flight and one batch forming (without it each turn queued its own write and sync, and 16
   * connections committing one at a time got one fdatasync per commit).
   */
  private flushTurn(): void {
    this.takeLingered();
    this.turnScheduled = false;
    if (this.turnQueued) return;
    if (this.turnWaiter === null && !this.segments.some((s) => s.hasPending)) return;
    beginBurst();
    if (!this.chainBusy && this.policy !== 'always' && this.writeTurnNow()) return;
    this.turnQueued = true;
    this.setChain(this.ioChain.then(() => this.runTurn()));
  }

  /**
   * Sets the tail of the I/O chain; `chainBusy` until it settles, unless a later step is chained
   * by then (the chain's steps never reject, but a rejecting one would end it all the same).
   */
  private setChain(next: Promise<void>): void {
    this.ioChain = next;
    this.chainBusy = true;
    const settled = (): void => {
      if (this.ioChain === next) this.chainBusy = false;
    };
    next.then(settled, settled);
  }

  /**
   * A turn's write run at once, without the I/O chain, when nothing is queued there ('never' and
   * 'interval', whose turns only write): the same step as `runTurn`'s, synchronously. The common
   * case of a commit's turn: four promises and their reactions fewer per turn (issue #16). False
   * (nothing done) when a pending write is too large to write on the event loop's thread.
   */
  private writeTurnNow(): boolean {
    const writes: PendingWrite[] = [];
    for (const s of this.segments) if (s.hasPending && s.pendingBytes > SYNC_WRITE_MAX_BYTES) return false;
    for (const s of this.segments) {
      const w = s.takePending();
      if (w !== null) writes.push(w);
    }
    const waiter = this.turnWaiter;
    this.turnWaiter = null;
    const rolledAt = this.rolledAt;
    this.rolledAt = null;
    try {
      if (this.failure) throw this.failure;
      for (const w of writes) this.writeNow(w);
      waiter?.resolve();
    } catch (err) {
      this.stepFailed(err, waiter, rollbackPointOf(writes));
    }
    if (rolledAt !== null) void this.chain(() => this.syncDirty(rolledAt), null);
    return true;
  }

  /** The queued turn step, now at the head of the chain: takes every append queued so far and writes (and syncs) them. */
  private runTurn(): Promise<void> {
    if (this.policy === 'always') return this.runSyncedTurn();
    this.takeLingered();
    this.turnQueued = false;
    const writes = this.segments.map((s) => s.takePending()).filter((w): w is PendingWrite => w !== null);
    const waiter = this.turnWaiter;
    this.turnWaiter = null;
    const rolledAt = this.rolledAt;
    this.rolledAt = null;
    if (writes.length === 0 && waiter === null) return Promise.resolve();
    const done = this.runStep(
      async () => {
        for (const w of writes) await this.write(w);
      },
      waiter,
      rollbackPointOf(writes),
    );
    // Kafka's `UnifiedLog.roll` flushes the segments below the new one in the background whatever the
    // flush settings (`flushUptoOffsetExclusive`); under 'always' each step's sync does.
    if (rolledAt !== null) void this.chain(() => this.syncDirty(rolledAt), null);
    return done;
  }

  /**
   * What `SyncPipeline.gathered` watches: appends made or arranged (`arrangeTurn`), the lingering
   * ones included, which reach the log only when the next step starts.
   */
  private appendsArranged = 0;
  private readonly appendsSeen = (): number => this.appendsArranged;

  /**
   * The turn step under 'always', pipelined: waits until fewer than MAX_SYNCS_IN_FLIGHT syncs run
   * and, while one runs, until a turn reads no new append (`SyncPipeline.gathered`; appends keep
   * joining this step meanwhile), or before an inline sync until the clients just answered sent
   * their next request (`whileClientsReturn`, `mock.flush.inline.sync.wait.ms` at most), takes the
   * queued appends, writes them (after the
   * previous step's write: the chain runs one step at a time) and starts their fdatasync without
   * waiting for the earlier ones. The appends are acknowledged once a sync started after this write
   * completes (sync-pipeline.ts). Never rejects.
   */
  private async runSyncedTurn(): Promise<void> {
    await this.pipeline.whenSlotFree();
    await this.pipeline.gathered(this.appendsSeen);
    // An inline sync holds the loop: first let the clients the last one answered send their next
    // appends, so that this sync carries them too (util/returning-clients.ts).
    // Not for a step with an append made outside a request: the clients may be waiting for it.
    if (this.answeredClients !== null && !this.turnHasUnserved && this.maySyncInline()) {
      await whileClientsReturn(this.answeredClients, this.syncGate.returnWaitMs, this.answeredSince);
    }
    this.answeredClients = null;
    this.takeLingered();
    const clients = this.turnClients;
    this.turnClients = null;
    this.turnHasUnserved = false;
    this.turnQueued = false;
    this.rolledAt = null; // the step's sync covers the segments below a roll
    if (this.failure) return this.failUnacknowledged(this.failure);
    const writes = this.segments.map((s) => s.takePending()).filter((w): w is PendingWrite => w !== null);
    const waiter = this.turnWaiter;
    this.turnWaiter = null;
    if (writes.length === 0 && waiter === null) return;
    const end = writes.length > 0 ? writes[writes.length - 1]!.endOffset : this.writtenEnd;
    this.pipeline.add({ end, waiter, rollbackPoint: rollbackPointOf(writes) });
    try {
      for (const w of writes) await this.write(w);
      this.trimSealed();
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      this.noteFailure(error);
      this.failUnacknowledged(error);
      this.recover();
      return;
    }
    if (this.failure) return this.failUnacknowledged(this.failure); // a sync failed while this step wrote
    if (end <= this.syncedEnd) this.pipeline.acknowledge(this.syncedEnd);
    else if (this.maySyncInline()) {
      this.syncInline();
      if (!this.failure && clients !== null) {
        this.answeredClients = clients;
        this.answeredSince = clientsClock();
      }
    } else this.startSync();
  }

  /**
   * An inline sync needs the gate's leave, no sync on the pool (whose acknowledgements would come
   * after this one's, and whose segments' marks it could clear) and no directory sync pending (a
   * new segment's name must reach the disk first; that runs on the pool).
   */
  private maySyncInline(): boolean {
    return this.pipeline.inFlight === 0 && !this.directoryDirty && this.directorySync === null && this.syncGate.inline;
  }

  /**
   * `startSync`'s work on the event-loop thread (see inline-sync-gate.ts): syncs every written
   * segment, moves the recovery point up and acknowledges the steps it covers before returning, so
   * their answers leave in this turn. A failure takes the pool's failure path.
   */
  private syncInline(): void {
    const covered = this.writtenEnd;
    const startedAt = this.syncGate.clock();
    try {
      for (const s of this.segments) {
        if (!s.dirty || !s.isOpen) continue;
        fdatasyncSync(s.fd());
        this.stats.syncs++;
        s.dirty = false; // nothing can write to it while this runs
      }
    } catch (err) {
      return this.syncFailed(err instanceof Error ? err : new Error(String(err)));
    }
    this.syncGate.recordInline(startedAt);
    this.syncedUpTo(covered);
    this.pipeline.acknowledge(this.syncedEnd);
  }

  /**
   * Starts an fdatasync of every segment written since its last sync (the active one, and those below
   * a roll), after the directory when a segment was created; on success the recovery point moves up
   * to what was written when it started, and the steps it covers are acknowledged.
   */
  private startSync(): void {
    const covered = this.writtenEnd;
    const segments = this.segments.filter((s) => s.dirty);
    this.pipeline.run(
      async () => {
        await this.syncDirectory();
        for (const s of segments) {
          if (!s.isOpen) continue;
          const writes = s.writeCount;
          await s.withFd(fdatasync);
          this.stats.syncs++;
          if (s.writeCount === writes) s.dirty = false;
        }
      },
      (error) => {
        if (error !== null) return this.syncFailed(error);
        if (this.failure) return; // started before a failure, whose rollback failed the steps it covers
        this.syncedUpTo(covered);
        this.pipeline.acknowledge(this.syncedEnd);
      },
    );
  }

  /** The recovery point moves up to `covered` (synced); under 'always' the high watermark with it. */
  private syncedUpTo(covered: bigint): void {
    if (covered <= this.syncedEnd) return;
    this.syncedEnd = covered;
    if (this.policy === 'always') this.highWatermarkMoved();
  }

  /** A pipelined sync failed: its steps and every later one fail, after the write step running now (if any). */
  private syncFailed(error: Error): void {
    this.noteFailure(error);
    this.setChain(this.ioChain.then(() => this.failUnacknowledged(error)));
    this.recover();
  }

  /**
   * Fails every step not yet acknowledged (oldest first) and the appends queued after them, and
   * rolls the log back to the oldest one: to the recovery point, as if none of them was written.
   * Idempotent.
   */
  private failUnacknowledged(error: Error): void {
    const failed = this.pipeline.takeAll();
    const point = failed.find((s) => s.rollbackPoint !== null)?.rollbackPoint ?? rollbackPointOf(this.segments.map((s) => s.takePending()).filter((w): w is PendingWrite => w !== null));
    for (const step of failed) step.waiter?.reject(error);
    if (point !== null) this.rollBack(point, error);
    for (const s of this.segments) s.discardPending();
    this.turnWaiter?.reject(error);
    this.turnWaiter = null;
  }

  /**
   * Resolves once every write and sync queued so far has run (never rejects: failures reach the
   * appends that waited for them). For tests that must observe an interval sync, which no append
   * waits for, without guessing how long the disk takes.
   */
  async whenIdle(): Promise<void> {
    let chain: Promise<void>;
    do {
      chain = this.ioChain;
      await chain;
      await this.pipeline.idle(); // a failed sync queues its rollback: wait for that too
    } while (chain !== this.ioChain);
  }

  /** The 'interval' timer: syncs everything written so far, independently of acknowledgements. */
  private syncTick(): void {
    this.syncTimer = null;
    this.unflushedMessages = 0n;
    void this.chain(() => this.syncDirty(), null);
  }

  /**
   * Runs `step` after all earlier I/O; settles `waiter` with its outcome. Never rejects. A failed
   * step with a `rollbackPoint` (a turn's writes) rolls the log back to it: the turn and every
   * append after it were never acknowledged, so they fail and vanish (Kafka would take the log
   * directory offline instead; here the partition serves again once the disk does).
   */
  private chain(step: () => Promise<void>, waiter: Deferred | null, rollbackPoint: RollbackPoint | null = null): Promise<void> {
    this.setChain(this.ioChain.then(() => this.runStep(step, waiter, rollbackPoint)));
    return this.ioChain;
  }

  /** `chain`'s step, run now (at the head of the chain): settles `waiter`, rolls back on failure. Never rejects. */
  private async runStep(step: () => Promise<void>, waiter: Deferred | null, rollbackPoint: RollbackPoint | null): Promise<void> {
    try {
      if (this.failure) throw this.failure;
      await step();
      waiter?.resolve();
    } catch (err) {
      this.stepFailed(err, waiter, rollbackPoint);
    }
  }

  /** A step failed with `err`: its waiter rejects, the log rolls back to `rollbackPoint` and recovers. */
  private stepFailed(err: unknown, waiter: Deferred | null, rollbackPoint: RollbackPoint | null): void {
    const error = err instanceof Error ? err : new Error(String(err));
    this.noteFailure(error);
    waiter?.reject(error);
    if (rollbackPoint !== null) this.rollBack(rollbackPoint, error);
    this.recover();
  }

  /** The first failure refuses appends until `recover` has run (later ones, until then, are its consequences). */
  private noteFailure(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.options.log.error({ err: error, dir: this.options.dir }, 'log write failed; unacknowledged appends are rolled back and appends fail until the file is cut back');
  }

  /**
   * Forgets everything from `point` on, in memory: batches written by the failed turn or queued
   * after it (their waiters reject with `error`), and segments rolled since. Idempotent: a point
   * past the current end (a later turn of the same failure) changes nothing.
   */
  private rollBack(point: RollbackPoint, error: Error): void {
    const at = this.segments.indexOf(point.segment);
    if (at === -1 || point.baseOffset >= this.nextOffset) return;
    for (const s of this.segments) s.discardPending();
    this.turnWaiter?.reject(error);
    this.turnWaiter = null;
    for (const dropped of this.segments.splice(at + 1)) {
      dropped.closeSync();
      if (dropped.file !== null) fs.rmSync(dropped.file, { force: true });
      this.directoryDirty = true;
    }
    point.segment.dropFrom(point.position);
    this.nextOffset = point.baseOffset;
    this.offsetMoves++;
    if (this.writtenEnd > point.baseOffset) this.writtenEnd = point.baseOffset;
    if (this.syncedEnd > point.baseOffset) this.syncedEnd = point.baseOffset;
    this.unflushedMessages = 0n;
  }

  /**
   * After a failure: cuts the active segment's file back to what the log holds (the bytes of a
   * rolled-back write may be in it, and must not come back at the next start) and syncs it; then
   * appends are taken again. A failing step leaves `failure` set, and the next append retries.
   */
  private recover(): void {
    if (this.recovering || this.closing || this.options.dir === null) return;
    this.recovering = true;
    this.setChain(this.ioChain.then(async () => {
      await this.pipeline.idle(); // syncs started before the failure: none may acknowledge or clear marks after the cut
      try {
        const active = this.active;
        if (active.isOpen) {
          await active.withFd((fd) => ftruncate(fd, active.writtenSize));
          active.fileEnd = active.writtenSize;
          active.dirty = true;
        }
        await this.syncDirty();
        this.options.log.warn({ dir: this.options.dir, logEndOffset: String(this.nextOffset) }, 'log writes resumed after a failed write');
        this.failure = null;
      } catch (err) {
        this.options.log.debug({ err, dir: this.options.dir }, 'log still refuses writes');
      } finally {
        this.recovering = false;
      }
    }));
  }

  private async write(w: PendingWrite): Promise<void> {
    const segment = w.segment;
    if (!segment.isOpen) return; // deleted meanwhile
    let bytes = 0;
    for (const b of w.buffers) bytes += b.length;
    if (bytes <= SYNC_WRITE_MAX_BYTES) {
      this.writeNow(w);
      return;
    }
    await segment.withFd((fd) => writeFully(fd, w.buffers, w.position));
    this.written(w, w.position + bytes);
  }

  /** `write` of a pending write of at most SYNC_WRITE_MAX_BYTES, on the event loop's thread. */
  private writeNow(w: PendingWrite): void {
    const segment = w.segment;
    if (!segment.isOpen) return; // deleted meanwhile
    let bytes = 0;
    for (const b of w.buffers) bytes += b.length;
    writeFullySync(segment.fd(), w.buffers, w.position);
    this.written(w, w.position + bytes);
  }

  /** Bookkeeping after `w`'s bytes, up to file position `end`, are in the file. */
  private written(w: PendingWrite, end: number): void {
    const segment = w.segment;
    if (end > segment.fileEnd) {
      segment.fileEnd = end;
      if (this.preparesSpace && segment === this.active) this.prepareSpace(segment, end);
    }
    this.stats.writes++;
    w.segment.dirty = true;
    this.writtenEnd = w.endOffset;
    w.segment.markWritten(w.end);
    if (this.policy !== 'always') this.highWatermarkMoved();
  }

  /**
   * Under 'always', after a write that ended past the file's end: zeros ahead of the active
   * segment's batches, made durable by the sync the write waits for (prepared-space.ts). A failure
   * (the disk is full) costs only the speed-up: the batches are written, and a later write tries
   * again; the segment is cut back to its batches at the next roll or close, or by recovery.
   */
  private prepareSpace(segment: LogSegment, end: number): void {
    const zeros = zerosAfter(end);
    // Set first: a write cut short by a full disk may still have grown the file, which the cuts must see.
    segment.fileEnd = end + zeros.length;
    try {
      writeFullySync(segment.fd(), [zeros], end);
    } catch (err) {
      this.options.log.debug({ err, dir: this.options.dir, bytes: zeros.length }, 'could not write zeros ahead of a log segment\'s batches');
    }
  }

  /**
   * Cuts the segments rolled since the last step back to their batches (the zeros written ahead of
   * them: prepared-space.ts), once nothing is queued for them. Not synced: if the machine fails
   * before the cut reaches the disk, recovery cuts the zeros again.
   */
  private trimSealed(): void {
    if (this.toTrim.length === 0) return;
    this.toTrim = this.toTrim.filter((s) => {
      if (s.hasPending) return true;
      this.cutZeros(s);
      return false;
    });
  }

  /** Cuts a segment's file back to its written batches, unsynced; a failure is only logged (recovery cuts zeros too). */
  private cutZeros(segment: LogSegment): void {
    if (!segment.isOpen || segment.fileEnd <= segment.writtenSize) return;
    try {
      segment.truncateFile(segment.writtenSize);
    } catch (err) {
      this.options.log.debug({ err, dir: this.options.dir }, 'could not cut the zeros written ahead of a log segment\'s batches');
    }
  }

  /**
   * Syncs the directory and the written segments (only those below offset `below` when given, as
   * Kafka's `flushUptoOffsetExclusive`); the marks clear only on success (a failure retries them).
   */
  private async syncDirty(below?: bigint): Promise<void> {
    const covered = below !== undefined && below < this.writtenEnd ? below : this.writtenEnd;
    await this.syncDirectory();
    for (const s of this.segments) {
      if (below !== undefined && s.baseOffset >= below) break;
      if (!s.dirty || !s.isOpen) continue;
      await s.withFd(fdatasync);
      s.dirty = false;
      this.stats.syncs++;
    }
    this.syncedUpTo(covered);
  }

  /**
   * Syncs the directory when a segment file was created since its last sync; a sync started while
   * one runs waits for it (the mark was cleared when it started). A failure marks it again.
   */
  private syncDirectory(): Promise<void> {
    if (this.directoryDirty && this.options.dir !== null) {
      this.directoryDirty = false;
      const run: Promise<void> = fsyncDirectory(this.options.dir).then(
        () => {
          if (this.directorySync === run) this.directorySync = null;
        },
        (err: unknown) => {
          if (this.directorySync === run) this.directorySync = null;
          this.directoryDirty = true;
          throw err;
        },
      );
      this.directorySync = run;
    }
    return this.directorySync ?? Promise.resolve();
  }
}

/** Where a turn's writes began (null when it wrote nothing): what its failure rolls the log back to. */
function rollbackPointOf(writes: readonly PendingWrite[]): RollbackPoint | null {
  const first = writes[0];
  return first ? { segment: first.segment, position: first.position, baseOffset: first.baseOffset } : null;
}
