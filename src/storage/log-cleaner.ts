/**
 * Log compaction for `cleanup.policy=compact` logs, as Kafka's `LogCleaner` / `Cleaner`
 * (storage/src/main/java/org/apache/kafka/storage/internals/log/Cleaner.java) and
 * `LogCleanerManager` (dirty ratio, uncleanable partitions):
 *
 *   - Only closed segments are cleaned: the cleanable range ends at the active segment's
 *     base offset (the first uncleanable offset); the active segment is never touched.
 *   - An offset map (full key bytes -> latest offset) is built over the dirty range
 *     [firstDirtyOffset, firstUncleanableOffset) (`Cleaner.buildOffsetMap`). Unlike Kafka's
 *     fixed-size dedupe buffer it is unbounded, so one pass always covers the whole range.
 *   - Every closed segment (already-clean ones too) is then rewritten keeping a record when
 *     its offset >= the map's offset for its key (or its key is not in the map) and it has a
 *     value, or it is a tombstone whose batch has no delete horizon yet or one not yet passed
 *     (`Cleaner.shouldRetainRecord`). Records without a key are dropped. Records keep their
 *     offsets; batches are rewritten by `cleaner-batch.ts` (`MemoryRecords.filterTo`).
 *   - Closed segments are grouped up to `maxSegmentBytes` (and an int32 offset span) and
 *     each group is cleaned into one segment (`Cleaner.groupSegmentsBySize`), swapped in
 *     crash-safely (`cleaner-files.ts`, `LocalLog.replaceSegments`). The last batch of each
 *     group is kept, empty if need be (`BatchRetention.RETAIN_EMPTY`), so a cleaned segment
 *     covers exactly its group's offset range.
 *   - Work is chunked: the cleaner yields to the event loop after every chunk of batches,
 *     so appends and reads go on; appends only touch the active segment, and a segment
 *     rolled during a clean is simply not part of it.
 *
 *   - Transactions (`cleaner-transactions.ts`, Kafka's `CleanedTransactionMetadata`): the
 *     cleanable range also ends at the first offset of the oldest open transaction (the first
 *     unstable offset); batches at or above it are kept as they are. Batches of aborted
 *     transactions are discarded (and left out of the offset map); committed transactional
 *     records are compacted like others. An end-transaction marker is kept while a batch of its
 *     transaction is met in the pass; once none is, its batch gets a delete horizon (now +
 *     delete.retention.ms) and goes at the first clean after it. The aborted transactions and
 *     the first unstable offset are read from the whole log (`TransactionScan`).
 *   - Producers (`cleaner-producers.ts`, Kafka's `lastRecordsOfActiveProducers` in `cleanInto`):
 *     the last batch of each active producer (the one ending at its last data offset, or its
 *     last marker when a marker of a newer epoch followed its data) is kept, emptied if all its
 *     records go (aborted, shadowed, or a marker past its horizon), so the producer state rebuilt
 *     from the log at a start keeps the producer's last sequence and epoch. An emptied data batch
 *     of a transaction so kept keeps that transaction's marker (it is still met in each pass).
 *     User topics give their partition's producer state; `__consumer_offsets` and
 *     `__transaction_state` have none, so their producers are read from the log itself. No
 *     producer expires here (`producer.id.expiration.ms` is not applied), so a producer's last
 *     batch stays until the producer writes again.
 *
 *   - compressed batches are read decompressed (gzip with node:zlib, snappy, lz4 and zstd by
 *     records/decompress.ts, as the produce checks read them); one that loses records is rewritten
 *     uncompressed (Kafka's `filterTo` rebuilds it with its own codec).
 *
 * Not done: a snappy, lz4 or zstd batch decompressing to more than DECOMPRESS_LIMIT whose records
 * must be read (a data batch in the cleaned range, not of an aborted transaction) makes a partition
 * uncleanable (a warning naming the codec, `CompressedBatchError`; at each start, when the
 * partition is looked at again), as Kafka marks a
 * partition uncleanable when cleaning it fails; aborted ones go whole and those at or above the
 * first uncleanable offset stay whole, unread. The firstDirtyOffset is kept in memory only
 * (Kafka's `cleaner-offset-checkpoint`): after a restart the whole log counts as dirty once.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from 'pino';
import type { Time } from '../util/time.js';
import {
  ATTRIBUTES_OFFSET,
  CompressionCodec,
  compressionCodec,
  decodeRecords,
  decodeRecordsIfReadable,
  forEachRecordSpanOfBatch,
  LAST_OFFSET_DELTA_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_COUNT_OFFSET,
  type DecodedRecord,
} from '../records/record-batch.js';
import { DECOMPRESS_LIMIT } from '../records/decompress.js';
import { readInt64BE } from '../protocol/primitives.js';
import { decodeEndTxnMarker } from '../records/control-batch.js';
import { LogSegment, segmentFileName } from './segment.js';
import { DEFAULT_FILE_CACHE } from './fd-cache.js';
import type { PartitionLog } from './partition-log.js';
import { writeFully, fdatasync, fsyncDirectory } from './file-io.js';
import { batchDeleteHorizon, emptyBatchLike, rebuildBatch } from './cleaner-batch.js';
import { CLEANED_FILE_SUFFIX, DELETED_FILE_SUFFIX, SWAP_FILE_SUFFIX, cleanerFile } from './cleaner-files.js';
import { CleanedTransactions, TransactionScan, batchTxnInfo, type AbortedRange } from './cleaner-transactions.js';
import { ProducerScan, isProducersLastBatch, type ActiveProducers } from './cleaner-producers.js';

/** Steps of a group's swap, reported to `onStep` (tests throw there to simulate a crash). */
export type CleanerStep =
  /** Part of `<base>.log.cleaned` written (after its first chunk). */
  | 'cleaned-partial'
  /** `.cleaned` complete and synced; nothing renamed yet. */
  | 'cleaned-written'
  /** `.cleaned` renamed to `.swap`; originals untouched. */
  | 'swap-renamed'
  /** The first original segment renamed to `.deleted` (others may not be yet). */
  | 'old-renamed'
  /** `.swap` renamed to `.log`; `.deleted` files not yet removed. */
  | 'swap-installed';

export interface LogCleanerOptions {
  time: Time;
  log: Logger;
  /** `log.cleaner.delete.retention.ms`: how long a cleaned tombstone is kept (ms). */
  deleteRetentionMs: number;
  /** `log.cleaner.min.cleanable.ratio`. */
  minCleanableRatio: number;
  /** Largest segment made by merging closed segments (the log's segment.bytes). */
  maxSegmentBytes: number;
  /**
   * `min.compaction.lag.ms`: segments holding a record newer than this (ms before now) and those
   * after them are not cleaned yet (`LogCleanerManager.cleanableOffsets`). Default 0.
   */
  minCompactionLagMs?: number;
  /** Test hook, called at each swap step with the file concerned. */
  onStep?: (step: CleanerStep, file: string) => void;
}

export interface CleanResult {
  /** Closed segments read and replaced. */
  segmentsCleaned: number;
  /** Segments they were replaced by. */
  segmentsWritten: number;
  recordsBefore: number;
  recordsAfter: number;
  bytesBefore: number;
  bytesAfter: number;
  /**
   * Where the dirty range now starts: the active segment's base offset at the clean, or an
   * earlier segment's (min.compaction.lag.ms), or the first unstable offset.
   */
  firstDirtyOffset: bigint;
}

/** Thrown when a clean stops because the cleaner is shut down or the log closed. */
export class CleanerAbortedError extends Error {}

/** Kafka's names of the compression codecs (`CompressionType.name`), by attribute value. */
const CODEC_NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

/**
 * A batch whose records the clean must read is compressed with snappy, lz4 or zstd and
 * decompresses to more than this server reads (DECOMPRESS_LIMIT, DIFFERENCES.md), so the partition
 * is not compacted. Not a corruption: logged once per partition as a warning naming the codec,
 * without a stack.
 */
export class CompressedBatchError extends Error {
  constructor(readonly codec: string, readonly baseOffset: bigint) {
    super(`${codec === 'lz4' ? 'an' : 'a'} ${codec}-compressed batch at offset ${baseOffset} decompresses to more than ${DECOMPRESS_LIMIT} bytes, more than this server reads (DIFFERENCES.md)`);
  }
}

/** Whether a batch's records are compressed (read through `inflatedRecords`, not in place). */
function compressed(batch: Buffer): boolean {
  return compressionCodec(batch.readInt16BE(ATTRIBUTES_OFFSET)) !== CompressionCodec.NONE;
}

/**
 * The records of a compressed batch the clean must read, decompressed as ListOffsets and the
 * produce checks read it; one too large to decompress throws CompressedBatchError.
 */
function inflatedRecords(batch: Buffer): DecodedRecord[] {
  const records = decodeRecordsIfReadable(batch);
  if (records !== null) return records;
  const codec = compressionCodec(batch.readInt16BE(ATTRIBUTES_OFFSET));
  throw new CompressedBatchError(CODEC_NAMES[codec] ?? `codec ${codec}`, readInt64BE(batch, 0));
}

interface LogCleanState {
  firstDirtyOffset: bigint;
  uncleanable: boolean;
  running: Promise<unknown>;
}

/** Bytes of batches read from a segment per chunk, between yields to the event loop. */
const CHUNK_BYTES = 256 << 10;
const MAX_RELATIVE_OFFSET = 2147483647n;

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Totals since start (read by the admin API's /metrics at scrape time). */
export interface CleanerStats {
  /** Cleans that completed (each cleans one partition's closed segments). */
  runs: number;
  /** Bytes of closed segments before minus after, summed over those cleans. */
  bytesRemoved: number;
}

export class LogCleaner {
  private readonly states = new WeakMap<PartitionLog, LogCleanState>();
  private stopped = false;
  readonly stats: CleanerStats = { runs: 0, bytesRemoved: 0 };

  constructor(private readonly options: LogCleanerOptions) {}

  /** Stops running cleans at their next yield (their `.cleaned` files are removed). */
  shutdown(): void {
    this.stopped = true;
  }

  /** Where the dirty range of `log` starts (its log start offset until first cleaned). */
  firstDirtyOffset(log: PartitionLog): bigint {
    return this.state(log).firstDirtyOffset;
  }

  /** Whether cleaning `log` failed and it is skipped from now on (`LogCleanerManager` uncleanable). */
  isUncleanable(log: PartitionLog): boolean {
    return this.state(log).uncleanable;
  }

  /**
   * Dirty bytes / (clean + dirty bytes) of the closed segments (`LogToClean.cleanableRatio`);
   * 0 when there is no closed segment.
   */
  dirtyRatio(log: PartitionLog): number {
    const { clean, dirty } = this.byteCounts(log);
    return clean + dirty === 0 ? 0 : dirty / (clean + dirty);
  }

  /**
   * Whether the background cleaner should clean `log` now: its dirty ratio is above
   * min.cleanable.ratio, as Kafka 4.3.1's `LogCleanerManager.grabFilthiestCompactedLog` picks a log
   * (`cleanableRatio > minCleanableRatio`; `max.compaction.lag.ms` is not modelled). Nothing else
   * starts a clean: a tombstone whose delete horizon has passed goes at the next clean the ratio
   * starts, as on Kafka (a clean here at the horizon dropped tombstones Kafka keeps until more is
   * written: adversarial trial, session 31).
   */
  needsCleaning(log: PartitionLog): boolean {
    const st = this.state(log);
    if (st.uncleanable || log.isClosed) return false;
    const { clean, dirty } = this.byteCounts(log);
    return dirty > 0 && dirty / (clean + dirty) > this.options.minCleanableRatio;
  }

  /**
   * Cleans every closed segment of `log` (whatever its dirty ratio), one clean at a time per
   * log. Resolves null when there is no closed segment or the log is uncleanable. Rejects
   * with CleanerAbortedError on shutdown, or with the failure (the log is then marked
   * uncleanable and any files already renamed are left for recovery to complete).
   * `activeProducers`: the partition's producer state, asked before each group of segments (as
   * Kafka's `Cleaner.cleanSegments`); without it the producers are read from the log itself
   * (`cleaner-producers.ts`). Each one's last batch is kept, empty if need be.
   */
  clean(log: PartitionLog, activeProducers?: () => ActiveProducers): Promise<CleanResult | null> {
    const st = this.state(log);
    const run = st.running.then(() => this.doClean(log, st, activeProducers));
    st.running = run.catch(() => {});
    return run;
  }

  private state(log: PartitionLog): LogCleanState {
    let st = this.states.get(log);
    if (!st) {
      st = { firstDirtyOffset: log.logStartOffset, uncleanable: false, running: Promise.resolve() };
      this.states.set(log, st);
    }
    return st;
  }

  private byteCounts(log: PartitionLog): { clean: number; dirty: number } {
    const firstDirty = this.state(log).firstDirtyOffset;
    let clean = 0;
    let dirty = 0;
    for (const s of this.cleanableSegments(log)) {
      if ((s.nextOffset ?? s.baseOffset) <= firstDirty) clean += s.size;
      else dirty += s.size;
    }
    return { clean, dirty };
  }

  /** The closed segments before the first one still within `min.compaction.lag.ms` of now (all of them without a lag). */
  private cleanableSegments(log: PartitionLog): LogSegment[] {
    const closed = [...log.closedSegments()];
    const lag = this.options.minCompactionLagMs ?? 0;
    if (lag <= 0) return closed;
    const limit = BigInt(this.options.time.now() - lag);
    const tooNew = closed.findIndex((s) => s.maxTimestamp > limit);
    return tooNew < 0 ? closed : closed.slice(0, tooNew);
  }

  private checkRunning(log: PartitionLog): void {
    if (this.stopped || log.isClosed) throw new CleanerAbortedError(`cleaning of ${log.dir ?? '(in memory)'} aborted`);
  }

  private async doClean(log: PartitionLog, st: LogCleanState, activeProducers: (() => ActiveProducers) | undefined): Promise<CleanResult | null> {
    if (st.uncleanable) return null;
    const lagged = this.cleanableSegments(log);
    if (lagged.length === 0) return null;
    const now = BigInt(this.options.time.now());
    const all = log.closedSegments();
    const activeBase = log.activeSegmentBaseOffset;
    const segmentBound = lagged.length < all.length ? all[lagged.length]!.baseOffset : activeBase;
    const firstDirty = st.firstDirtyOffset;
    let txns: TransactionScan;
    let producersOf: () => ActiveProducers;
    try {
      const producerScan = activeProducers === undefined ? new ProducerScan() : null;
      txns = await this.scanLog(log, all, activeBase, producerScan);
      producersOf = producerScan === null ? activeProducers! : () => producerScan.result();
    } catch (err) {
      this.failed(log, st, err);
      throw err;
    }
    const unstable = txns.firstUnstableOffset();
    // `LogCleanerManager.cleanableOffsets`: below the first unstable offset too.
    const firstUncleanable = unstable !== null && unstable < segmentBound ? unstable : segmentBound;
    const closed = lagged.filter((s) => s.baseOffset < firstUncleanable);
    if (closed.length === 0) return null;
    const aborted = txns.aborted();
    const result: CleanResult = {
      segmentsCleaned: 0,
      segmentsWritten: 0,
      recordsBefore: 0,
      recordsAfter: 0,
      bytesBefore: 0,
      bytesAfter: 0,
      firstDirtyOffset: firstUncleanable,
    };
    const startedMs = Date.now();
    try {
      const map = await this.buildOffsetMap(log, closed, firstDirty, firstUncleanable, aborted);
      // One for the whole pass: a marker stays while its transaction has a batch in any group.
      const pass = new CleanedTransactions(aborted);
      for (const group of this.groupSegments(closed)) await this.cleanGroup(log, group, map, now, result, pass, firstUncleanable, producersOf());
      st.firstDirtyOffset = firstUncleanable;
    } catch (err) {
      this.failed(log, st, err);
      throw err;
    }
    this.options.log.info(
      {
        dir: log.dir,
        segments: result.segmentsCleaned,
        recordsBefore: result.recordsBefore,
        recordsAfter: result.recordsAfter,
        bytesBefore: result.bytesBefore,
        bytesAfter: result.bytesAfter,
        ms: Date.now() - startedMs,
      },
      'cleaned log',
    );
    this.stats.runs++;
    this.stats.bytesRemoved += result.bytesBefore - result.bytesAfter;
    return result;
  }

  /** Marks `log` uncleanable after a failure (not after an abort). */
  private failed(log: PartitionLog, st: LogCleanState, err: unknown): void {
    if (err instanceof CleanerAbortedError || this.stopped || log.isClosed) return;
    st.uncleanable = true;
    if (err instanceof CompressedBatchError) {
      // As often as the partition is looked at (once per start): a known limit, not a failure.
      this.options.log.warn({ dir: log.dir, codec: err.codec, baseOffset: String(err.baseOffset) }, `compacted partition not compacted: ${err.message}`);
      return;
    }
    this.options.log.error({ err, dir: log.dir }, 'log cleaning failed; the partition is not cleaned again until restart');
  }

  /**
   * The transactions of the whole of `log` (and its producers into `producers` when given): the
   * closed segments `closed`, then whatever follows `activeBase` (read in chunks, as it may grow
   * meanwhile). The clean part is read too: a producer's last batch of an aborted transaction is
   * kept there (emptied) with its ABORT marker, and that transaction must still count as aborted
   * (Kafka's cleaned transaction index keeps it).
   */
  private async scanLog(log: PartitionLog, closed: readonly LogSegment[], activeBase: bigint, producers: ProducerScan | null): Promise<TransactionScan> {
    const scan = new TransactionScan();
    for (const segment of closed) {
      for await (const batches of this.chunks(log, segment)) {
        for (const batch of batches) this.scanBatch(batch, scan, producers);
      }
    }
    let from = activeBase;
    for (;;) {
      this.checkRunning(log);
      const batches = log.read(from, CHUNK_BYTES);
      if (batches.length === 0) break;
      for (const batch of batches) this.scanBatch(batch, scan, producers);
      from = batchTxnInfo(batches[batches.length - 1]!).lastOffset + 1n;
      await yieldToEventLoop();
    }
    return scan;
  }

  private scanBatch(batch: Buffer, scan: TransactionScan, producers: ProducerScan | null): void {
    // A batch without a producer (id -1: the high word is negative; the group coordinator's
    // writes) is neither transactional nor anyone's last: neither scan reads it. Most batches of
    // `__consumer_offsets` are such, and this skips the BigInts of reading them.
    if (batch.readInt32BE(PRODUCER_ID_OFFSET) < 0) return;
    scan.add(batch);
    producers?.add(batch, batchTxnInfo(batch));
  }

  /** Batches of `segment` in chunks of about CHUNK_BYTES, yielding to the event loop between chunks. */
  private async *chunks(log: PartitionLog, segment: LogSegment): AsyncGenerator<Buffer[]> {
    const table = segment.batches;
    let i = 0;
    while (i < table.count) {
      this.checkRunning(log);
      let j = i;
      let bytes = 0;
      while (j < table.count && (j === i || bytes + table.size(j) <= CHUNK_BYTES)) bytes += table.size(j++);
      yield segment.read(i, j);
      i = j;
      await yieldToEventLoop();
    }
  }

  /** The records of an uncompressed batch; throws for compressed batches (the log is then uncleanable). */
  private decode(batch: Buffer): DecodedRecord[] {
    return compressed(batch) ? inflatedRecords(batch) : decodeRecords(batch);
  }

  /**
   * Key bytes (as a latin1 string, one char per byte) -> latest offset in the dirty range
   * [firstDirty, firstUncleanable), records of aborted transactions and markers left out
   * (`Cleaner.buildOffsetMapForSegment`).
   */
  private async buildOffsetMap(
    log: PartitionLog,
    closed: LogSegment[],
    firstDirty: bigint,
    firstUncleanable: bigint,
    aborted: readonly AbortedRange[],
  ): Promise<Map<string, bigint>> {
    const map = new Map<string, bigint>();
    // Only the aborted transactions whose ABORT marker this pass meets, as Kafka's
    // `collectAbortedTransactions(firstDirty, firstUncleanable)`: the clean part is skipped, so one
    // whose marker lies there would stay "open" here, and its producer's later committed batches
    // (a tombstone) would be left out of the map as aborted.
    const txns = new CleanedTransactions(aborted.filter((a) => a.markerOffset >= firstDirty && a.firstOffset < firstUncleanable));
    for (const segment of closed) {
      if ((segment.nextOffset ?? segment.baseOffset) <= firstDirty) continue;
      for await (const batches of this.chunks(log, segment)) {
        for (const batch of batches) {
          const info = batchTxnInfo(batch);
          if (info.baseOffset >= firstUncleanable) return map;
          if (info.control) {
            const marker = this.markerOf(batch);
            if (marker !== null) txns.markerRemovable(info, marker);
            continue;
          }
          if (txns.discardDataBatch(info)) continue;
          // Keys read in place, no record objects: a pass reads every record of the dirty range.
          if (compressed(batch)) {
            for (const r of inflatedRecords(batch)) if (r.key !== null && r.offset >= firstDirty) map.set(r.key.toString('latin1'), r.offset);
            continue;
          }
          forEachRecordSpanOfBatch(batch, (keyStart, keyEnd, _valueStart, _valueEnd, offsetDelta) => {
            if (keyStart < 0) return;
            const offset = info.baseOffset + BigInt(offsetDelta);
            if (offset >= firstDirty) map.set(batch.toString('latin1', keyStart, keyEnd), offset);
          });
        }
      }
    }
    return map;
  }

  /** COMMIT (true) or ABORT (false) for an end-transaction marker batch; null for other or emptied control batches. */
  private markerOf(batch: Buffer): boolean | null {
    const first = this.decode(batch)[0];
    return first === undefined ? null : (decodeEndTxnMarker(first.key, first.value)?.commit ?? null);
  }

  /** Consecutive segments up to maxSegmentBytes and an int32 offset span (`Cleaner.groupSegmentsBySize`). */
  private groupSegments(closed: LogSegment[]): LogSegment[][] {
    const groups: LogSegment[][] = [];
    let i = 0;
    while (i < closed.length) {
      const group = [closed[i]!];
      let size = closed[i]!.size;
      i++;
      while (i < closed.length) {
        const next = closed[i]!;
        const lastOffset = (next.nextOffset ?? next.baseOffset + 1n) - 1n;
        if (size + next.size > this.options.maxSegmentBytes || lastOffset - group[0]!.baseOffset > MAX_RELATIVE_OFFSET) break;
        group.push(next);
        size += next.size;
        i++;
      }
      groups.push(group);
    }
    return groups;
  }

  /**
   * Cleans `group` into one segment and swaps it in. The last batch of each of `producers` is
   * kept, empty if need be (`BatchRetention.RETAIN_EMPTY` in `Cleaner.cleanInto`).
   */
  private async cleanGroup(
    log: PartitionLog,
    group: LogSegment[],
    map: Map<string, bigint>,
    now: bigint,
    result: CleanResult,
    txns: CleanedTransactions,
    firstUncleanable: bigint,
    producers: ActiveProducers,
  ): Promise<void> {
    // The group's last batch is kept (empty if need be) so the cleaned segment ends where the group did.
    const lastSegment = [...group].reverse().find((s) => !s.isEmpty);
    if (lastSegment === undefined) return;
    const lastBatchOffset = lastSegment.batches.baseOffsetAt(lastSegment.batches.count - 1);
    const base = group[0]!.baseOffset;
    const dir = log.dir;
    const retentionMs = BigInt(this.options.deleteRetentionMs);
    const entries: Array<{ baseOffset: bigint; lastOffset: bigint; position: number; size: number; maxTimestamp: bigint }> = [];
    const kept: Buffer[] = []; // in-memory logs only
    let position = 0;
    let fd: number | null = null;
    const cleanedPath = dir === null ? null : cleanerFile(dir, base, CLEANED_FILE_SUFFIX);
    if (cleanedPath !== null) fd = fs.openSync(cleanedPath, 'w+');
    try {
      let wroteChunk = false;
      for (const segment of group) {
        for await (const batches of this.chunks(log, segment)) {
          const out: Buffer[] = [];
          for (const batch of batches) {
            const recordCount = batch.readInt32BE(RECORD_COUNT_OFFSET);
            const info = batchTxnInfo(batch);
            const batchBase = info.baseOffset;
            // Kept even if emptied: it ends the group, or it holds a producer's last sequence or epoch.
            const keepEmpty = (segment === lastSegment && batchBase === lastBatchOffset) || isProducersLastBatch(producers, batch, info);
            const horizon = batchDeleteHorizon(batch);
            // How many records stay, and whether the kept batch needs (or has) a delete horizon.
            // The records themselves are decoded only when some stay and some go (`stays` picks
            // them): in a compacted log most batches go whole or stay whole.
            let retainedCount: number;
            let needsHorizon: boolean;
            let stays = (_r: DecodedRecord): boolean => true;
            /** A compressed batch's records, once inflated for the count (so not inflated twice). */
            let inflated: DecodedRecord[] | null = null;
            if (batchBase >= firstUncleanable) {
              // At or above the first unstable offset: not cleaned in this pass.
              retainedCount = recordCount;
              needsHorizon = horizon !== null;
            } else if (info.control) {
              const marker = recordCount === 0 ? null : this.markerOf(batch);
              const removable = marker !== null && txns.markerRemovable(info, marker);
              const expired = removable && horizon !== null && now >= horizon;
              retainedCount = expired ? 0 : recordCount;
              needsHorizon = removable && !expired;
            } else if (txns.discardDataBatch(info)) {
              retainedCount = 0; // a batch of an aborted transaction
              needsHorizon = false;
            } else {
              // A record stays unless it has no key, a later record of its key is in the map, or
              // it is a tombstone past its batch's delete horizon (`Cleaner.shouldRetainRecord`).
              const stay = (key: string, offset: bigint, tombstone: boolean): boolean => {
                const latest = map.get(key);
                if (latest !== undefined && offset < latest) return false;
                return !tombstone || horizon === null || now < horizon;
              };
              retainedCount = 0;
              let tombstones = 0;
              stays = (r) => r.key !== null && stay(r.key.toString('latin1'), r.offset, r.value === null);
              if (compressed(batch)) {
                // A gzip batch is read inflated; if some of its records go, the rest are written
                // uncompressed (Kafka recompresses them with the batch's codec: DIFFERENCES.md).
                inflated = inflatedRecords(batch);
                for (const r of inflated) {
                  if (!stays(r)) continue;
                  retainedCount++;
                  if (r.value === null) tombstones++;
                }
              } else {
                forEachRecordSpanOfBatch(batch, (keyStart, keyEnd, valueStart, _valueEnd, offsetDelta) => {
                  if (keyStart < 0 || !stay(batch.toString('latin1', keyStart, keyEnd), batchBase + BigInt(offsetDelta), valueStart < 0)) return;
                  retainedCount++;
                  if (valueStart < 0) tombstones++;
                });
              }
              needsHorizon = tombstones > 0;
            }
            const stampHorizon = needsHorizon && horizon === null;
            let cleaned: Buffer | null;
            if (retainedCount === recordCount && !stampHorizon) cleaned = recordCount > 0 || keepEmpty ? batch : null;
            else if (retainedCount > 0) cleaned = rebuildBatch(batch, (inflated ?? this.decode(batch)).filter(stays), stampHorizon ? now + retentionMs : horizon);
            else cleaned = keepEmpty ? emptyBatchLike(batch) : null;
            result.recordsBefore += recordCount;
            result.bytesBefore += batch.length;
            if (cleaned === null) continue;
            result.recordsAfter += retainedCount;
            result.bytesAfter += cleaned.length;
            const batchLast = batchBase + BigInt(cleaned.readInt32BE(LAST_OFFSET_DELTA_OFFSET));
            entries.push({ baseOffset: batchBase, lastOffset: batchLast, position, size: cleaned.length, maxTimestamp: cleaned.readBigInt64BE(MAX_TIMESTAMP_OFFSET) });
            position += cleaned.length;
            out.push(fd === null ? Buffer.from(cleaned) : cleaned);
          }
          if (fd === null) kept.push(...out);
          else if (out.length > 0) {
            await writeFully(fd, out, entries[entries.length - out.length]!.position);
            if (!wroteChunk) {
              wroteChunk = true;
              this.step('cleaned-partial', cleanedPath!);
            }
          }
        }
      }
      this.checkRunning(log);
      if (fd !== null) {
        await fdatasync(fd);
        fs.closeSync(fd);
        fd = null;
        this.step('cleaned-written', cleanedPath!);
      }
    } catch (err) {
      if (fd !== null) fs.closeSync(fd);
      // An abort or a failure removes the partial file; a simulated crash (onStep) leaves it.
      if (cleanedPath !== null && !this.hookErrors.has(err as object)) fs.rmSync(cleanedPath, { force: true });
      throw err;
    }

    const now2 = this.options.time.now();
    let deletedFiles: string[] = [];
    await log.replaceSegments(group, async () => {
      if (dir === null) {
        const segment = LogSegment.inMemory(base, now2);
        kept.forEach((b, i) => segment.append(b, entries[i]!.baseOffset, entries[i]!.lastOffset, entries[i]!.maxTimestamp));
        segment.sealed();
        return segment;
      }
      const swapPath = cleanerFile(dir, base, SWAP_FILE_SUFFIX);
      const finalPath = path.join(dir, segmentFileName(base));
      await fs.promises.rename(cleanedPath!, swapPath);
      await fsyncDirectory(dir);
      this.step('swap-renamed', swapPath);
      deletedFiles = [];
      for (const old of group) {
        const deleted = old.file! + DELETED_FILE_SUFFIX;
        await fs.promises.rename(old.file!, deleted);
        deletedFiles.push(deleted);
        if (deletedFiles.length === 1) this.step('old-renamed', deleted);
      }
      await fsyncDirectory(dir);
      await fs.promises.rename(swapPath, finalPath);
      await fsyncDirectory(dir);
      this.step('swap-installed', finalPath);
      const segment = LogSegment.openExisting(finalPath, base, now2, group[0]!.files ?? DEFAULT_FILE_CACHE);
      for (const e of entries) segment.restore(e.baseOffset, e.lastOffset, e.position, e.size, e.maxTimestamp);
      segment.sealed();
      return segment;
    });
    for (const f of deletedFiles) await fs.promises.rm(f, { force: true });
    result.segmentsCleaned += group.length;
    result.segmentsWritten += 1;
  }

  /** Errors thrown by the onStep hook: simulated crashes, after which files are left as they are. */
  private readonly hookErrors = new WeakSet<object>();

  private step(step: CleanerStep, file: string): void {
    try {
      this.options.onStep?.(step, file);
    } catch (err) {
      if (typeof err === 'object' && err !== null) this.hookErrors.add(err);
      throw err;
    }
  }
}
