import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BrokerConfig } from '../config.js';
import type { Time, Timer } from '../util/time.js';
import { PartitionLog } from '../storage/partition-log.js';
import { LogCleaner, CleanerAbortedError, type CleanerStep } from '../storage/log-cleaner.js';
import { undecodableRecord } from '../records/undecodable-record.js';
import type { CoordinatorLog } from '../records/schemas/record-types.js';
import { forEachRecordSpanOfBatch, readBatchHeader, setPartitionLeaderEpoch, TRANSACTIONAL_FLAG_MASK, type RecordBatchHeader } from '../records/record-batch.js';
import { encodeEndTxnMarkerBatch, isControlBatch, readEndTxnMarker } from '../records/control-batch.js';
import type { TransactionalWriter } from './runtime.js';
import { offsetsPartitionFor } from '../util/java-hash.js';
import { ErrorCode } from '../protocol/errors.js';
import { decodeRecord, encodeKey, encodeValue, type CoordinatorRecord } from './records.js';
import { OffsetCommitSpanDecoder } from './offsets/offset-commit-span.js';
import { logFlushOptions } from '../storage/log-flush-options.js';
import { KeyValueBatchBuilder } from '../records/key-value-batch.js';
import { deferred, type Deferred } from '../storage/deferred.js';

export const OFFSETS_TOPIC = '__consumer_offsets';

/**
 * What makes a coordinator log of one kind: its topic, partition count and segment size, which
 * partition a record goes to and how records are encoded and decoded. The default is
 * `__consumer_offsets` (`OFFSETS_LAYOUT`); the share coordinator's `__share_group_state` passes its own.
 */
export interface CoordinatorLogLayout<R> {
  topic: CoordinatorLog;
  partitionCount: number;
  segmentBytes: number;
  partitionOf(record: R): number;
  encodeKey(record: R): Buffer;
  /** The value's bytes (null: a tombstone); may be a view of shared memory that stays unchanged: the batch copies it at the turn's end. */
  encodeValue(record: R): Buffer | null;
  /** The record, or null for a record type replay skips. */
  decode(key: Buffer, value: Buffer | null): R | null;
  /**
   * `decode` of the key `buf[keyStart, keyEnd)` and value `buf[valueStart, valueEnd)`
   * (`valueStart` -1: null), for replay, which reads batches in place; without it replay
   * calls `decode` with views of those bytes.
   */
  decodeSpan?(buf: Buffer, keyStart: number, keyEnd: number, valueStart: number, valueEnd: number): R | null;
}

/**
 * The partitions of `topic` a data directory already holds (the highest `<topic>-<p>` directory
 * plus one), or null for none: an existing topic keeps its partition count whatever the config
 * says now, as Kafka's group coordinator takes `__consumer_offsets`' count from the topic once it
 * exists (`offsets.topic.num.partitions` only creates it).
 */
export function existingPartitionCount(dataDir: string | null, topic: string): number | null {
  if (dataDir === null || !existsSync(dataDir)) return null;
  let highest = -1;
  const prefix = `${topic}-`;
  for (const name of readdirSync(dataDir)) {
    if (!name.startsWith(prefix)) continue;
    const p = name.slice(prefix.length);
    if (/^(0|[1-9]\d{0,8})$/.test(p)) highest = Math.max(highest, Number(p));
  }
  return highest < 0 ? null : highest + 1;
}

function offsetsLayout(config: BrokerConfig, partitionCount: number): CoordinatorLogLayout<CoordinatorRecord> {
  const offsetCommits = new OffsetCommitSpanDecoder();
  const decode = (key: Buffer, value: Buffer | null): CoordinatorRecord | null => {
    const record = decodeRecord(key, value);
    return record.kind === 'unknown' ? null : record;
  };
  return {
    topic: OFFSETS_TOPIC,
    partitionCount,
    segmentBytes: config.int('offsets.topic.segment.bytes'),
    partitionOf: (record) => offsetsPartitionFor(record.groupId, partitionCount),
    encodeKey,
    encodeValue,
    decode,
    // Nearly every stored record is an offset commit: those are read in place, the rest as `decode` reads them.
    decodeSpan: (buf, keyStart, keyEnd, valueStart, valueEnd) =>
      offsetCommits.decode(buf, keyStart, keyEnd, valueStart, valueEnd) ?? decode(buf.subarray(keyStart, keyEnd), valueStart < 0 ? null : buf.subarray(valueStart, valueEnd)),
  };
}

export interface GroupLogOptions<R = CoordinatorRecord> {
  /** Default: `__consumer_offsets` with `offsets.topic.*`. */
  layout?: CoordinatorLogLayout<R>;
  dataDir: string | null;
  config: BrokerConfig;
  log: Logger;
  time: Time;
  /** Test hook passed to the log cleaner (see `LogCleanerOptions.onStep`). */
  onCleanerStep?: (step: CleanerStep, file: string) => void;
  /**
   * Opens the partitions (creating their directories) at the first append or `ensureOpen()`, not at
   * start, unless a partition's directory already exists: for a topic Kafka creates on first use.
   */
  createOnFirstUse?: boolean;
}

/** What `GroupLog.compact()` did, summed over the partitions. */
export interface CompactionSummary {
  /** Partitions that had closed segments and were cleaned. */
  partitionsCleaned: number;
  /** Records in the closed segments before cleaning. */
  recordsBefore: number;
  /** Records left in them after cleaning. */
  recordsAfter: number;
}

/**
 * The `__consumer_offsets` topic: `offsets.topic.num.partitions` partition logs under
 * `<data-dir>/__consumer_offsets-<p>/`, a group's records going to
 * `Utils.abs(groupId.hashCode()) % partitions` (Kafka's `GroupCoordinatorService.partitionFor`).
 * On disk, the records a turn of the event loop appends to a partition share one RecordBatch (a
 * new one once `message.max.bytes` or a clock tick would be passed), written at the turn's end:
 * Kafka's `CoordinatorRuntime` accumulates the writes of the operations it runs back to back in
 * its current batch with `group.coordinator.append.linger.ms` -1 (the default, "adaptive": flushed
 * once no more operations wait). Transactional writes are not accumulated (nor are they in Kafka):
 * a TxnOffsetCommit's records are a batch of their own, as is a marker. In memory (no data
 * directory) each append is a batch.
 */
export class GroupLog<R = CoordinatorRecord> {
  readonly partitionCount: number;
  readonly layout: CoordinatorLogLayout<R>;
  private partitions: PartitionLog[] = [];
  private opened = false;
  /** Called once the partitions are open (`onOpened`): the broker lists the topic from then on. */
  private readonly openedListeners: Array<(logs: readonly PartitionLog[]) => void> = [];
  private readonly options: GroupLogOptions<R>;
  private readonly time: Time;
  private readonly log: Logger;
  /** The log cleaner of the topic (`cleanup.policy=compact`). */
  readonly cleaner: LogCleaner;
  private readonly cleanerEnabled: boolean;
  private readonly cleanerBackoffMs: number;
  /**
   * The largest batch one write may make (Kafka's runtime `maxBatchSize`: the topic's
   * `max.message.bytes`, the broker's `message.max.bytes`, which the broker keeps current here
   * when it changes dynamically, `setMaxBatchBytes`).
   */
  private maxBatchBytes: number;
  private cleanerTimer: Timer | null = null;
  /** Builds the batches written at once (transactional ones, in memory, multi-partition writes). */
  private readonly builder = new KeyValueBatchBuilder();
  /** Each partition's batch being filled by this turn's writes (`appendLingering`); null slots: none yet. */
  private readonly open: Array<OpenBatch | null> = [];
  /** Each partition's latest write handed out, while unsettled (`inOrder`). */
  private readonly lastWrite: Array<Promise<void> | null> = [];
  /**
   * The leader epoch of each partition, stamped on every batch appended (the broker binds it to the
   * internal topic's partitions, whose epochs the cluster simulation bumps); 0 until bound, as a
   * single broker's.
   */
  private leaderEpochOf: (partition: number) => number = () => 0;
  /** The background pass in progress, if any. */
  private cleanerPass: Promise<void> | null = null;
  private closed = false;

  private constructor(options: GroupLogOptions<R>) {
    const { config, dataDir } = options;
    this.layout = options.layout ?? (this.offsetsLayoutFor(config, dataDir, options.log) as unknown as CoordinatorLogLayout<R>);
    this.time = options.time;
    this.log = options.log;
    this.cleaner = new LogCleaner({
      time: options.time,
      log: options.log,
      deleteRetentionMs: Number(config.long('log.cleaner.delete.retention.ms')),
      minCleanableRatio: config.double('log.cleaner.min.cleanable.ratio'),
      maxSegmentBytes: this.layout.segmentBytes,
      ...(options.onCleanerStep ? { onStep: options.onCleanerStep } : {}),
    });
    this.cleanerEnabled = config.bool('log.cleaner.enable');
    this.cleanerBackoffMs = Number(config.long('log.cleaner.backoff.ms'));
    this.maxBatchBytes = config.int('message.max.bytes');
    this.partitionCount = this.layout.partitionCount;
    this.options = options;
    if (!options.createOnFirstUse || (dataDir !== null && this.anyPartitionDirectoryIn(dataDir))) this.ensureOpen();
  }

  /** `__consumer_offsets`' layout: the partitions it has in `dataDir`, else `offsets.topic.num.partitions`. */
  private offsetsLayoutFor(config: BrokerConfig, dataDir: string | null, log: Logger): CoordinatorLogLayout<CoordinatorRecord> {
    const configured = config.int('offsets.topic.num.partitions');
    const existing = existingPartitionCount(dataDir, OFFSETS_TOPIC);
    if (existing !== null && existing !== configured) {
      log.warn({ partitions: existing, configured }, `${OFFSETS_TOPIC} keeps the ${existing} partitions it has in the data directory: offsets.topic.num.partitions (${configured}) only sets the count of a new one, as in Kafka`);
    }
    return offsetsLayout(config, existing ?? configured);
  }

  /** Whether `dataDir` holds a directory of one of the partitions (the topic was created before; one may be missing). */
  private anyPartitionDirectoryIn(dataDir: string): boolean {
    for (let p = 0; p < this.partitionCount; p++) if (existsSync(join(dataDir, `${this.layout.topic}-${p}`))) return true;
    return false;
  }

  /** A new largest batch (bytes) for the writes from now on (a dynamic `message.max.bytes`). */
  setMaxBatchBytes(bytes: number): void {
    this.maxBatchBytes = bytes;
  }

  /**
   * Opens (creating when missing) every partition; a no-op once open, but for `onOpened` listeners
   * that threw (a full disk while the broker listed the topic), which run again. Returns the
   * partition logs.
   */
  ensureOpen(): readonly PartitionLog[] {
    if (this.opened) {
      if (this.openedListeners.length > 0) this.runOpenedListeners();
      return this.partitions;
    }
    const { config, dataDir } = this.options;
    const partitions: PartitionLog[] = [];
    for (let p = 0; p < this.partitionCount; p++) {
      partitions.push(
        PartitionLog.open({
          dir: dataDir === null ? null : join(dataDir, `${this.layout.topic}-${p}`),
          segmentBytes: this.layout.segmentBytes,
          rollMs: config.logRollMs(),
          ...logFlushOptions(config),
          prepareSpace: true, // every commit waits for a sync under always: zeros ahead spare the journal (prepared-space.ts)
          log: this.options.log,
          time: this.options.time,
        }),
      );
    }
    this.partitions = partitions;
    partitions.forEach((partition, p) => partition.setLingering(() => this.closeOpenBatch(p)));
    this.opened = true;
    this.runOpenedListeners();
    return partitions;
  }

  /** Runs the `onOpened` listeners in turn; one that throws stays (with those after it) for the next `ensureOpen`. */
  private runOpenedListeners(): void {
    while (this.openedListeners.length > 0) {
      this.openedListeners[0]!(this.partitions);
      this.openedListeners.shift();
    }
  }

  /**
   * Runs `listener` with the partition logs once they are open: now when they are, else at the
   * first append or `ensureOpen()` (with `createOnFirstUse`), before that call goes on.
   */
  onOpened(listener: (logs: readonly PartitionLog[]) => void): void {
    if (this.opened) listener(this.partitions);
    else this.openedListeners.push(listener);
  }

  /** Opens the partitions; with `log.cleaner.enable` the background cleaner is scheduled. */
  static open<R = CoordinatorRecord>(options: GroupLogOptions<R>): GroupLog<R> {
    const groupLog = new GroupLog<R>(options);
    groupLog.scheduleCleaner();
    return groupLog;
  }

  /** The partition logs (index = partition), for tests and admin views; none before `ensureOpen` with `createOnFirstUse`. */
  partitionLogs(): readonly PartitionLog[] {
    return this.partitions;
  }

  /**
   * Compacts every partition now, whatever its dirty ratio (closed segments only; the
   * active segment is never cleaned). Partitions are cleaned one after another, each in
   * chunks that yield to the event loop, so requests are served meanwhile.
   */
  async compact(): Promise<CompactionSummary> {
    const summary: CompactionSummary = { partitionsCleaned: 0, recordsBefore: 0, recordsAfter: 0 };
    for (const partition of this.partitions) {
      const result = await this.cleaner.clean(partition);
      if (result === null) continue;
      summary.partitionsCleaned++;
      summary.recordsBefore += result.recordsBefore;
      summary.recordsAfter += result.recordsAfter;
    }
    return summary;
  }

  /**
   * One background pass (as a Kafka cleaner thread's `tryCleanFilthiestLog`, every
   * `log.cleaner.backoff.ms`): cleans, dirtiest first, the partitions whose dirty ratio
   * is above `log.cleaner.min.cleanable.ratio` (LogCleaner.needsCleaning).
   * Resolves when done; failures are logged (the partition is marked uncleanable).
   */
  async runCleanerPass(): Promise<number> {
    const due = this.partitions
      .filter((p) => this.cleaner.needsCleaning(p))
      .sort((a, b) => this.cleaner.dirtyRatio(b) - this.cleaner.dirtyRatio(a));
    let cleaned = 0;
    for (const partition of due) {
      if (this.closed) break;
      try {
        if ((await this.cleaner.clean(partition)) !== null) cleaned++;
      } catch (err) {
        if (err instanceof CleanerAbortedError) break;
        // already logged by the cleaner
      }
    }
    return cleaned;
  }

  private scheduleCleaner(): void {
    if (!this.cleanerEnabled || this.closed) return;
    this.cleanerTimer = this.time.schedule(this.cleanerBackoffMs, () => {
      this.cleanerTimer = null;
      this.cleanerPass = this.runCleanerPass()
        .catch((err: unknown) => this.log.error({ err }, 'log cleaner pass failed'))
        .then(() => {
          this.cleanerPass = null;
          this.scheduleCleaner();
        });
      // Kafka's CleanerThread pauses the backoff after a pass (a fixed delay): coalescing on a manual clock.
    }, { coalesce: true });
  }

  /** Where each partition's current leader epoch comes from (see `leaderEpochOf`). */
  stampLeaderEpochsFrom(leaderEpochOf: (partition: number) => number): void {
    this.leaderEpochOf = leaderEpochOf;
  }

  partitionFor(groupId: string): number {
    return offsetsPartitionFor(groupId, this.partitionCount);
  }

  /**
   * Appends records (grouped by their group's partition); resolves once they are durable. Throws,
   * writing nothing, when a record cannot be encoded or a partition's batch would be larger than
   * `message.max.bytes` (Kafka's `CoordinatorRuntime` refuses it with RecordTooLargeException).
   */
  append(records: readonly R[], txn?: TransactionalWriter): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    this.ensureOpen();
    const timestamp = BigInt(this.time.now());
    const first = this.layout.partitionOf(records[0]!);
    // The usual write: one group's (one key's) records, one partition.
    if (records.length === 1 || records.every((r) => this.layout.partitionOf(r) === first)) {
      if (txn === undefined && this.partitions[first]!.lingerUntilWrite()) return this.appendLingering(first, records, timestamp);
      const batch = this.encodeBatch(first, records, timestamp, txn);
      this.closeOpenBatch(first); // what lingers goes first: the log keeps the order of the writes
      return this.inOrder(first, this.partitions[first]!.append([batch]).durable);
    }
    const byPartition = new Map<number, R[]>();
    for (const record of records) {
      const p = this.layout.partitionOf(record);
      let list = byPartition.get(p);
      if (!list) byPartition.set(p, (list = []));
      list.push(record);
    }
    // Every batch is encoded (and may be refused) before any is appended.
    const batches = [...byPartition].map(([p, list]) => [p, this.encodeBatch(p, list, timestamp, txn)] as const);
    return Promise.all(
      batches.map(([p, batch]) => {
        this.closeOpenBatch(p);
        return this.inOrder(p, this.partitions[p]!.append([batch]).durable);
      }),
    ).then(() => undefined);
  }

  /**
   * `durable` of a write to partition `p` made now, settling only once the writes to `p` handed out
   * before it have settled (whatever their outcome). Writes of one step settle together, and the
   * coordinator applies each as it settles: a transactional write settling before the lingering
   * commits written ahead of it would be applied before them, unlike a replay of the log.
   */
  private inOrder(p: number, durable: Promise<void>): Promise<void> {
    const before = this.lastWrite[p] ?? null;
    const settled = (): Promise<void> => durable;
    const result = before === null ? durable : before.then(settled, settled);
    this.trackWrite(p, result);
    return result;
  }

  /** Notes `write` as partition `p`'s latest write until it settles. */
  private trackWrite(p: number, write: Promise<void>): void {
    this.lastWrite[p] = write;
    const clear = (): void => {
      if (this.lastWrite[p] === write) this.lastWrite[p] = null;
    };
    write.then(clear, clear);
  }

  /**
   * Adds one partition's records to its open batch (a new one when they would make it larger than
   * `message.max.bytes` or its timestamp is not theirs); resolves once that batch is durable.
   * Throws, adding nothing, when a record cannot be encoded or the records alone are too large.
   */
  private appendLingering(p: number, records: readonly R[], timestamp: bigint): Promise<void> {
    const open = this.open[p] ?? (this.open[p] = { builder: new KeyValueBatchBuilder(), timestamp, done: null, after: null });
    if (open.done !== null && open.timestamp !== timestamp) this.closeOpenBatch(p);
    const { builder } = open;
    const before = builder.records;
    this.addRecords(builder, p, records, before);
    if (builder.size > this.maxBatchBytes) {
      // Too large together with the records before them: those go in a batch of their own.
      builder.truncate(before);
      this.closeOpenBatch(p);
      this.addRecords(builder, p, records, 0);
    }
    open.timestamp = timestamp;
    if (open.done === null) {
      open.done = deferred();
      open.after = this.lastWrite[p] ?? null;
      this.trackWrite(p, open.done.promise);
    }
    return open.done.promise;
  }

  /** Adds `records` to `builder`; on a failure drops them again (keeping the first `before`) and throws. */
  private addRecords(builder: KeyValueBatchBuilder, p: number, records: readonly R[], before: number): void {
    const { layout } = this;
    try {
      for (const r of records) builder.add(layout.encodeKey(r), layout.encodeValue(r));
    } catch (err) {
      builder.truncate(before);
      throw err;
    }
    if (before === 0 && builder.size > this.maxBatchBytes) {
      const size = builder.size;
      builder.reset();
      throw batchTooLarge(size, layout.topic, p, this.maxBatchBytes);
    }
  }

  /**
   * Appends partition `p`'s open batch, if any, to its log (at the start of its write step, or
   * before a write that must follow it); its writes settle with the batch's durability, after the
   * writes handed out before the batch opened (`inOrder`).
   */
  private closeOpenBatch(p: number): void {
    const open = this.open[p];
    if (open === undefined || open === null || open.done === null) return;
    const { done, after } = open;
    open.done = null;
    open.after = null;
    let durable: Promise<void>;
    try {
      const batch = open.builder.finish(open.timestamp);
      setPartitionLeaderEpoch(batch, this.leaderEpochOf(p));
      durable = this.partitions[p]!.append([batch]).durable;
    } catch (err) {
      open.builder.reset();
      done.reject(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    if (after !== null) {
      const written = durable;
      const settled = (): Promise<void> => written;
      durable = after.then(settled, settled);
    }
    durable.then(done.resolve, done.reject);
  }

  /** One partition's records as a batch; throws when larger than `message.max.bytes`. */
  private encodeBatch(p: number, records: readonly R[], timestamp: bigint, txn: TransactionalWriter | undefined): Buffer {
    const { layout, builder } = this;
    try {
      for (const r of records) builder.add(layout.encodeKey(r), layout.encodeValue(r));
    } catch (err) {
      builder.reset();
      throw err;
    }
    const size = builder.size;
    if (size > this.maxBatchBytes) {
      builder.reset();
      throw batchTooLarge(size, layout.topic, p, this.maxBatchBytes);
    }
    // A TxnOffsetCommit's records: a transactional batch of its producer (base sequence 0, as every batch of Kafka's runtime).
    const batch = builder.finish(timestamp, txn ? { producerId: txn.producerId, producerEpoch: txn.producerEpoch, attributes: TRANSACTIONAL_FLAG_MASK } : undefined);
    // Outside the CRC: stamped as the leader's log does on append (Kafka 4.3 writes 0 on one broker, not -1).
    setPartitionLeaderEpoch(batch, this.leaderEpochOf(p));
    return batch;
  }

  /** Appends a transaction's COMMIT or ABORT marker (a control batch of its producer) to `partition`; resolves once durable. */
  appendMarker(partition: number, txn: TransactionalWriter, commit: boolean, coordinatorEpoch: number): Promise<void> {
    this.ensureOpen();
    this.closeOpenBatch(partition);
    const batch = encodeEndTxnMarkerBatch({
      producerId: txn.producerId,
      producerEpoch: txn.producerEpoch,
      marker: { commit, coordinatorEpoch },
      timestamp: BigInt(this.time.now()),
      partitionLeaderEpoch: this.leaderEpochOf(partition),
    });
    return this.inOrder(partition, this.partitions[partition]!.append([batch]).durable);
  }

  /**
   * Replays every stored record in log order, partition by partition; unknown record types are
   * skipped. Records of transactional batches go to `replay.transactional` with their producer id,
   * markers to `replay.endTransaction` (Kafka's `CoordinatorLoaderImpl`). A record whose bytes
   * cannot be decoded throws an UndecodableCoordinatorRecordError naming its partition, offset,
   * segment file and type (start-up stops with it).
   */
  replay(
    apply: (record: R) => void,
    txn?: { transactional(record: R, producerId: bigint): void; endTransaction(partition: number, producerId: bigint, commit: boolean): void },
  ): void {
    const layout = this.layout;
    const decode =
      layout.decodeSpan?.bind(layout) ??
      ((buf: Buffer, keyStart: number, keyEnd: number, valueStart: number, valueEnd: number) =>
        layout.decode(buf.subarray(keyStart, keyEnd), valueStart < 0 ? null : buf.subarray(valueStart, valueEnd)));
    // The batch being read, shared with `visit` (one closure for the whole replay, not one per batch).
    let batch: Buffer = Buffer.alloc(0);
    let header: RecordBatchHeader | null = null;
    let transactional = false;
    let partitionIndex = 0;
    const visit = (keyStart: number, keyEnd: number, valueStart: number, valueEnd: number, offsetDelta: number): void => {
      if (keyStart < 0) return;
      let record: R | null;
      try {
        record = decode(batch, keyStart, keyEnd, valueStart, valueEnd);
      } catch (err) {
        const offset = header!.baseOffset + BigInt(offsetDelta);
        const segmentFile = this.partitions[partitionIndex]!.segmentFileOf(offset);
        throw undecodableRecord(layout.topic, partitionIndex, offset, segmentFile, batch.subarray(keyStart, keyEnd), err);
      }
      if (record === null) return;
      if (transactional) txn!.transactional(record, header!.producerId);
      else apply(record);
    };
    this.partitions.forEach((partition, index) => {
      partitionIndex = index;
      for (batch of partition.batches()) {
        header = readBatchHeader(batch);
        if (isControlBatch(batch)) {
          const marker = readEndTxnMarker(batch);
          if (marker && txn) txn.endTransaction(index, header.producerId, marker.commit);
          continue;
        }
        transactional = (header.attributes & TRANSACTIONAL_FLAG_MASK) !== 0 && txn !== undefined;
        forEachRecordSpanOfBatch(batch, visit);
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cleanerTimer?.cancel();
    this.cleanerTimer = null;
    this.cleaner.shutdown();
    await this.cleanerPass;
    await Promise.all(this.partitions.map((p) => p.close()));
  }
}

/** A partition's batch being filled by the writes of a turn (Kafka's runtime `currentBatch`). */
interface OpenBatch {
  readonly builder: KeyValueBatchBuilder;
  /** The clock reading (ms) every record of the batch is stamped with. */
  timestamp: bigint;
  /** Settled with the batch's durability once appended; null while the batch holds nothing. */
  done: Deferred | null;
  /** The partition's write handed out before the batch opened, if unsettled then: the batch settles after it. */
  after: Promise<void> | null;
}

/** Kafka's runtime refuses a write larger than a batch with RecordTooLargeException (MESSAGE_TOO_LARGE). */
function batchTooLarge(size: number, topic: string, p: number, maxBatchBytes: number): Error {
  return Object.assign(new Error(`Message batch size is ${size} bytes in append to partition ${topic}-${p} which exceeds the maximum configured size of ${maxBatchBytes}.`), {
    errorCode: ErrorCode.MESSAGE_TOO_LARGE,
  });
}
