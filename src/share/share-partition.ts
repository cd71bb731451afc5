/**
 * One share partition: the records of a topic partition as a share group sees them (Kafka 4.3.1's
 * `SharePartition`). Offsets below the share-partition start offset (SPSO) are done; offsets from
 * the SPSO up to the last offset ever acquired (the end offset, SPEO) are in flight, each AVAILABLE,
 * ACQUIRED (by one member, under an acquisition lock), ACKNOWLEDGED or ARCHIVED, with its delivery
 * count; offsets after that were never delivered.
 *
 * - `acquire`: from the first AVAILABLE offset (else the end), whole log batches (`batch_optimized`,
 *   ShareAcquireMode 0: batches are acquired until `maxRecords` is reached, the last one whole) or
 *   exactly up to `maxRecords` (`record_limit`, 1), never more than `share.partition.max.record.locks`
 *   records in flight; each acquired offset's delivery count goes up by one and it gets a lock of
 *   `share.record.lock.duration.ms` on the share partition's clock.
 * - `acknowledge`: ACCEPT (1) -> ACKNOWLEDGED, RELEASE (2) -> AVAILABLE, REJECT (3) and GAP (0) ->
 *   ARCHIVED, RENEW (4) restarts the lock (when `share.renew.acknowledge.enable`, else
 *   INVALID_RECORD_STATE `Renewing acquisition locks is not enabled for the group.`). Offsets must be
 *   ACQUIRED by the member: else INVALID_RECORD_STATE (`The offset cannot be acknowledged. The
 *   offset is not acquired.`, `Member is not the owner of offset`), offsets not in flight
 *   INVALID_RECORD_STATE `Batch record not found. ...` / INVALID_REQUEST past the acquired records.
 * - A released or timed-out record whose delivery count reached `share.delivery.count.limit` is
 *   ARCHIVED instead (a poison record).
 * - `share.isolation.level=read_committed`: records are acquired only below the last stable offset,
 *   and the batches of aborted transactions are ARCHIVED instead of acquired
 *   (`filterAbortedTransactionalAcquiredRecords`, from the aborted transactions of the read).
 * - Every change is written to the share coordinator (WriteShareGroupState) before it is answered;
 *   then the SPSO moves past ACKNOWLEDGED/ARCHIVED records (`maybeUpdateCachedStateAndOffsets`).
 *   A failed write puts the offsets back as they were and answers the persister's error. Until its
 *   write ends an offset's change is "in transition" (Kafka's `hasOngoingStateTransition`): it is
 *   not acquired, and the SPSO does not move past it, so another write succeeding meanwhile cannot
 *   take away what a failed one puts back (adversarial trial 17: a failed ACCEPT lost its records).
 *
 * - The log start offset moving past the SPSO (DeleteRecords, retention): a fetch from below it
 *   (Kafka's OFFSET_OUT_OF_RANGE) calls `updateCacheAndOffsets`, which archives the AVAILABLE
 *   records below the new log start, forgets the settled ones and moves the SPSO there; records
 *   still ACQUIRED below it stay with their member until released or timed out, then are ARCHIVED.
 *   The new SPSO is written with the next change, not at once (as Kafka).
 *
 * The state is kept as Kafka keeps it, per run of offsets in one state (in-flight-runs.ts; Kafka's
 * in-flight batches, split per offset where a change needs it), so the work of a request follows
 * the runs it touches, never the offsets; `AcquiredRecords` are the runs acquired, adjacent ones
 * with one delivery count joined, so a batch acquired whole is one range as on Kafka. Acquisitions
 * are not written: after a restart, records that were acquired are AVAILABLE again with their last
 * written delivery count.
 */
import type { Partition } from '../topics/partition.js';
import type { Time, Timer } from '../util/time.js';
import { ErrorCode } from '../protocol/errors.js';
import { RecordState, type StateBatch } from './state/state-batches.js';
import { BASE_OFFSET_OFFSET, decodeRecordsIfReadable, LAST_OFFSET_DELTA_OFFSET, PRODUCER_ID_OFFSET } from '../records/record-batch.js';
import { ControlRecordType, controlRecordType, isControlBatch, isTransactionalBatch } from '../records/control-batch.js';
import type { PersisterReadResult, PersisterWriteEntry } from './state/share-coordinator.js';
import type { PersisterPartitionResult } from './persister.js';
import { InFlightRuns, runLength, stateOf, type LockTask, type Run, type RunState } from './in-flight-runs.js';

/** ShareAcquireMode (KIP-1206). */
export const ShareAcquireMode = { BATCH_OPTIMIZED: 0, RECORD_LIMIT: 1 } as const;

/** AcknowledgeType ids: GAP (0, archive an offset holding no record), ACCEPT, RELEASE, REJECT, RENEW. */
export const AcknowledgeType = { GAP: 0, ACCEPT: 1, RELEASE: 2, REJECT: 3, RENEW: 4 } as const;

/** A Kafka error raised by a share partition: code and message. */
export class SharePartitionError extends Error {
  constructor(readonly errorCode: number, message: string) {
    super(message);
    this.name = 'SharePartitionError';
  }
}

/** The group configs a share partition reads at each use (Kafka's `ShareGroupConfigProvider`). */
export interface SharePartitionConfig {
  recordLockDurationMs(): number;
  deliveryCountLimit(): number;
  maxInFlightRecords(): number;
  renewAcknowledgeEnabled(): boolean;
  /** `share.auto.offset.reset`: `latest`, `earliest` or `by_duration:<ISO-8601 duration>`. */
  autoOffsetReset(): string;
  /** `share.isolation.level`: `read_uncommitted` or `read_committed`. */
  isolationLevel(): string;
}

/** An aborted transaction of a read_committed read (FetchResponse's `AbortedTransaction`). */
export interface AbortedTransaction {
  producerId: bigint;
  firstOffset: bigint;
}

/** What a share partition needs from the share coordinator. */
export interface ShareStateAccess {
  readState(groupId: string, p: { topicId: string; partition: number; leaderEpoch: number }): Promise<PersisterReadResult>;
  writeState(groupId: string, p: PersisterWriteEntry): Promise<PersisterPartitionResult>;
}

/** One `AcquiredRecords` entry. */
export interface AcquiredRange {
  firstOffset: bigint;
  lastOffset: bigint;
  deliveryCount: number;
}

export interface AcknowledgementBatch {
  firstOffset: bigint;
  lastOffset: bigint;
  acknowledgeTypes: number[];
}

/** The parsed header of a stored RecordBatch. */
interface BatchSpan {
  bytes: Buffer;
  baseOffset: bigint;
  lastOffset: bigint;
  /** A data batch of an aborted transaction (read_committed): archived, never acquired. */
  aborted: boolean;
}

/**
 * The batches' spans; with `aborted` (a read_committed read), those of aborted transactions marked
 * as Kafka's `fetchAbortedTransactionRecordBatches` finds them: a producer's transactional data
 * batches from the first offset of one of its aborted transactions up to its ABORT marker.
 */
function batchSpans(batches: readonly Buffer[], aborted: readonly AbortedTransaction[] | null): BatchSpan[] {
  const pending = [...(aborted ?? [])].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
  const abortedProducers = new Set<bigint>();
  return batches.map((bytes) => {
    const baseOffset = bytes.readBigInt64BE(BASE_OFFSET_OFFSET);
    const lastOffset = baseOffset + BigInt(bytes.readInt32BE(LAST_OFFSET_DELTA_OFFSET));
    const span = { bytes, baseOffset, lastOffset, aborted: false };
    const producerId = bytes.readBigInt64BE(PRODUCER_ID_OFFSET);
    if (aborted === null || producerId < 0n) return span;
    while (pending.length > 0 && pending[0]!.firstOffset <= lastOffset) abortedProducers.add(pending.shift()!.producerId);
    if (isControlBatch(bytes)) {
      // The ABORT marker ends the producer's aborted transaction (the marker itself is acquired, a client acknowledges it as a gap).
      if (controlTypeOf(bytes) === ControlRecordType.ABORT) abortedProducers.delete(producerId);
    } else if (isTransactionalBatch(bytes) && abortedProducers.has(producerId)) {
      span.aborted = true;
    }
    return span;
  });
}

/** The control record type of a control batch's first record (null when it holds none). */
function controlTypeOf(batch: Buffer): number | null {
  const first = decodeRecordsIfReadable(batch)?.[0];
  return first === undefined ? null : controlRecordType(first.key);
}

const TERMINAL = new Set<number>([RecordState.ACKNOWLEDGED, RecordState.ARCHIVED]);

/** `by_duration:PnDTnHnMn.nS` -> milliseconds (Java's `Duration.parse`, days/hours/minutes/seconds). */
function durationMs(text: string): number {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(text);
  if (!m) return 0;
  return ((Number(m[1] ?? 0) * 24 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 60_000 + Math.round(Number(m[4] ?? 0) * 1000);
}

export class SharePartition {
  private status: 'empty' | 'initializing' | 'active' | 'failed' | 'fenced' = 'empty';
  private initializing: Promise<void> | null = null;
  private startOffset = 0n;
  /** The first offset never acquired (SPEO + 1). */
  private nextNew = 0n;
  /**
   * The records from the SPSO up to the SPEO, every offset in one run; below the SPSO, runs still
   * ACQUIRED (or in transition) when the log start offset passed them (`updateCacheAndOffsets`).
   */
  private readonly runs = new InFlightRuns();
  private stateEpoch = 0;
  private deliveryCompleteCount = 0;
  /** Told when records become available again (a waiting ShareFetch may acquire them). */
  onAvailable: () => void = () => {};

  constructor(
    readonly groupId: string,
    readonly topicId: string,
    readonly partitionIndex: number,
    private readonly partition: Partition,
    private readonly time: Time,
    private readonly state: ShareStateAccess,
    private readonly config: SharePartitionConfig,
  ) {}

  /** The share-partition start offset (SPSO). */
  get spso(): bigint {
    return this.startOffset;
  }

  /** The share-partition end offset (SPEO): the last offset in flight, or SPSO - 1... as Kafka's `endOffset`. */
  get speo(): bigint {
    return this.nextNew > this.startOffset ? this.nextNew - 1n : this.startOffset;
  }

  /** In-flight record counts by state, for views. */
  counts(): { acquired: number; available: number; acknowledged: number; archived: number } {
    const c = { acquired: 0, available: 0, acknowledged: 0, archived: 0 };
    for (const run of this.runs.all()) {
      const n = runLength(run);
      if (run.state === RecordState.ACQUIRED) c.acquired += n;
      else if (run.state === RecordState.AVAILABLE) c.available += n;
      else if (run.state === RecordState.ACKNOWLEDGED) c.acknowledged += n;
      else c.archived += n;
    }
    return c;
  }

  // ---- initialization (maybeInitialize) -----------------------------------------------------

  /**
   * Loads the state from the share coordinator once. Rejects with SharePartitionError:
   * UNKNOWN_SERVER_ERROR for an uninitialized share partition (the coordinator's INVALID_REQUEST),
   * as `fetchPersisterError` maps it, LEADER_NOT_AVAILABLE while fenced.
   */
  maybeInitialize(): Promise<void> {
    if (this.status === 'active') return Promise.resolve();
    if (this.status === 'fenced') return Promise.reject(new SharePartitionError(ErrorCode.LEADER_NOT_AVAILABLE, `Share partition is fenced ${this.groupId}-${this.topicId}:${this.partitionIndex}`));
    if (this.initializing) return this.initializing;
    this.status = 'initializing';
    this.initializing = this.state
      .readState(this.groupId, { topicId: this.topicId, partition: this.partitionIndex, leaderEpoch: this.partition.leaderEpoch })
      .then((read) => {
        if (read.errorCode !== ErrorCode.NONE) throw new SharePartitionError(persisterError(read.errorCode), read.errorMessage ?? '');
        this.load(read);
        this.status = 'active';
      })
      .catch((err: unknown) => {
        this.status = 'failed';
        throw err;
      })
      .finally(() => {
        this.initializing = null;
      });
    return this.initializing;
  }

  /** Whether the last initialization failed (the manager then drops this share partition). */
  get failed(): boolean {
    return this.status === 'failed';
  }

  /**
   * Takes the state read from the share coordinator: a run per state batch (Kafka's in-flight batch
   * per state batch), from the log start offset (Kafka moves the SPSO there at the next fetch) up
   * to the log end offset (an offset not yet appended holds nothing to deliver; WriteShareGroupState
   * accepts any range from any client).
   */
  private load(read: PersisterReadResult): void {
    this.stateEpoch = read.stateEpoch;
    this.startOffset = read.startOffset === -1n ? this.resetOffset() : read.startOffset;
    if (this.startOffset < this.partition.logStartOffset) this.startOffset = this.partition.logStartOffset;
    this.nextNew = this.startOffset;
    const logEnd = this.partition.logEndOffset;
    const batches = [...read.stateBatches].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
    for (const b of batches) {
      const first = b.firstOffset < this.nextNew ? this.nextNew : b.firstOffset;
      const last = b.lastOffset < logEnd ? b.lastOffset : logEnd - 1n;
      if (first > last) continue;
      // Offsets between the batches were never written: they are delivered as new records would be.
      if (first > this.nextNew) this.runs.append(newRun(this.nextNew, first - 1n, RecordState.AVAILABLE, 0));
      const run = newRun(first, last, b.deliveryState, b.deliveryCount);
      this.runs.append(run);
      if (TERMINAL.has(run.state)) this.deliveryCompleteCount += runLength(run);
      this.nextNew = last + 1n;
    }
    this.runs.compact();
    this.advanceStartOffset();
  }

  /** `startOffsetDuringInitialization`: the offset `share.auto.offset.reset` names. */
  private resetOffset(): bigint {
    const reset = this.config.autoOffsetReset();
    if (reset === 'earliest') return this.partition.logStartOffset;
    if (reset.startsWith('by_duration:')) {
      const ts = BigInt(this.time.now() - durationMs(reset.slice('by_duration:'.length)));
      return this.partition.log.offsetForTimestamp(ts)?.offset ?? this.partition.highWatermark;
    }
    return this.partition.highWatermark;
  }

  // ---- acquisition ----------------------------------------------------------------------------

  /** Whether the group reads committed records only (`share.isolation.level=read_committed`). */
  get readCommitted(): boolean {
    return this.config.isolationLevel() === 'read_committed';
  }

  /** The first offset a fetch reads from (`nextFetchOffset`). */
  nextFetchOffset(): bigint {
    return this.firstAcquirable()?.first ?? this.nextNew;
  }

  /** The first run at or after the SPSO whose records may be acquired. */
  private firstAcquirable(): Run | null {
    for (let run = this.runs.firstFrom(this.startOffset); run !== null; run = this.runs.firstFrom(run.last + 1n)) {
      if (isAcquirable(run)) return run;
    }
    return null;
  }

  /** Whether another record may be put in flight (`canAcquireRecords`). */
  canAcquireRecords(): boolean {
    return this.runs.isEmpty || this.inFlightCount() < this.config.maxInFlightRecords() || this.firstAcquirable() !== null;
  }

  private inFlightCount(): number {
    return Number(this.nextNew - this.startOffset);
  }

  /**
   * Acquires records for `memberId` from `batches` (read from the log at `nextFetchOffset()`).
   * Returns the acquired ranges and the batches from the first holding one to the last (what the
   * response carries).
   */
  acquire(
    memberId: string,
    batches: readonly Buffer[],
    maxRecords: number,
    mode: number,
    abortedTransactions: readonly AbortedTransaction[] | null = null,
  ): { ranges: AcquiredRange[]; records: Buffer[] } {
    const committed = this.readCommitted;
    const spans = batchSpans(batches, committed ? abortedTransactions ?? [] : null);
    const ranges: AcquiredRange[] = [];
    // The spans holding the first and the last record acquired: the response carries every batch
    // from one to the other, as Kafka slices the log it read (ShareFetchUtils.maybeSliceFetchRecords),
    // batches in between that gave nothing (acknowledged, acquired elsewhere, aborted) included.
    let firstSent = -1;
    let lastSent = -1;
    const maxInFlight = this.config.maxInFlightRecords();
    const strict = mode === ShareAcquireMode.RECORD_LIMIT;
    const task = this.newLock(memberId);
    const end = committed ? this.partition.lastStableOffset : this.partition.highWatermark;
    // Records acquired, and records of aborted transactions archived: Kafka acquires both, then
    // archives the aborted ones, so both count towards MaxRecords.
    let taken = 0;
    /** Takes a run's records: the delivery count up by one, ACQUIRED under `task`, or ARCHIVED for an aborted transaction's. */
    const take = (run: Run, aborted: boolean): void => {
      const n = runLength(run);
      taken += n;
      run.deliveryCount++;
      if (aborted) {
        run.state = RecordState.ARCHIVED;
        this.deliveryCompleteCount += n;
        return;
      }
      run.state = RecordState.ACQUIRED;
      run.memberId = memberId;
      run.lock = task;
      task.held += n;
      const last = ranges[ranges.length - 1];
      if (last && last.lastOffset + 1n === run.first && last.deliveryCount === run.deliveryCount) last.lastOffset = run.last;
      else ranges.push({ firstOffset: run.first, lastOffset: run.last, deliveryCount: run.deliveryCount });
    };
    for (let i = 0; i < spans.length; i++) {
      const span = spans[i]!;
      const heldBefore = task.held;
      // A limit reached inside a span still sends the span: its records acquired so far travel in it.
      let full = false;
      const from = span.baseOffset < this.startOffset ? this.startOffset : span.baseOffset;
      const to = span.lastOffset < end ? span.lastOffset : end - 1n;
      // Records in flight already: those AVAILABLE (and not in transition) are acquired.
      const inFlightTo = to < this.nextNew ? to : this.nextNew - 1n;
      for (const run of this.runs.slice(from, inFlightTo)) {
        if (strict && taken >= maxRecords) {
          full = true;
          break;
        }
        if (!isAcquirable(run)) continue;
        if (strict && runLength(run) > maxRecords - taken) this.runs.splitAt(run.first + BigInt(maxRecords - taken));
        take(run, span.aborted);
      }
      // Records never in flight: the offsets the log skipped before them (compaction, control
      // records) are archived as Kafka archives gaps; as many as the in-flight limit allows.
      const newFrom = from > this.nextNew ? from : this.nextNew;
      if (!full && newFrom <= to) {
        if (strict && taken >= maxRecords) full = true;
        else if (this.inFlightCount() >= maxInFlight) full = true;
        else {
          if (newFrom > this.nextNew) {
            const gap = newRun(this.nextNew, newFrom - 1n, RecordState.ARCHIVED, 0);
            this.runs.append(gap);
            this.deliveryCompleteCount += runLength(gap);
            this.nextNew = newFrom;
          }
          // The first new record is taken whatever the gap before it; then up to the limits.
          let count = Math.max(1, maxInFlight - this.inFlightCount());
          if (strict) count = Math.min(count, maxRecords - taken);
          const wanted = to - newFrom + 1n;
          const last = wanted > BigInt(count) ? newFrom + BigInt(count) - 1n : to;
          if (last < to) full = true;
          const run = newRun(newFrom, last, RecordState.AVAILABLE, 0);
          this.runs.append(run);
          this.nextNew = last + 1n;
          take(run, span.aborted);
        }
      }
      if (task.held > heldBefore) {
        if (firstSent < 0) firstSent = i;
        lastSent = i;
      }
      if (full || (!strict && taken >= maxRecords)) break;
    }
    this.runs.compact();
    if (task.held > 0) this.startLock(task);
    return { ranges, records: firstSent < 0 ? [] : spans.slice(firstSent, lastSent + 1).map((span) => span.bytes) };
  }

  // ---- acknowledgement --------------------------------------------------------------------------

  /**
   * Applies acknowledgements from `memberId` (already checked for shape by the API layer), writes
   * them and moves the SPSO. Rejects with SharePartitionError; nothing changes then.
   */
  async acknowledge(memberId: string, batches: readonly AcknowledgementBatch[]): Promise<void> {
    const changes: Change[] = [];
    const written: StateBatch[] = [];
    const renewed: Array<[bigint, bigint]> = [];
    try {
      for (const batch of batches) {
        if (batch.lastOffset < this.startOffset) continue;
        this.checkInFlight(batch);
        const first = batch.firstOffset < this.startOffset ? this.startOffset : batch.firstOffset;
        // Every offset must be ACQUIRED by the member (the first one that is not answers).
        for (const run of this.runs.slice(first, batch.lastOffset)) {
          if (run.state !== RecordState.ACQUIRED) throw new SharePartitionError(ErrorCode.INVALID_RECORD_STATE, 'The offset cannot be acknowledged. The offset is not acquired.');
          if (run.memberId !== memberId) throw new SharePartitionError(ErrorCode.INVALID_RECORD_STATE, 'Member is not the owner of offset');
        }
        // One type for the batch, or one per offset: applied to each stretch of one type.
        for (const [from, to, type] of typeStretches(batch, first)) {
          if (type === AcknowledgeType.RENEW) {
            if (!this.config.renewAcknowledgeEnabled()) throw new SharePartitionError(ErrorCode.INVALID_RECORD_STATE, 'Renewing acquisition locks is not enabled for the group.');
            renewed.push([from, to]);
            continue;
          }
          const target = type === AcknowledgeType.ACCEPT ? RecordState.ACKNOWLEDGED : type === AcknowledgeType.RELEASE ? RecordState.AVAILABLE : RecordState.ARCHIVED;
          for (const run of this.runs.slice(from, to)) this.change(run, target, changes, written);
        }
      }
    } catch (err) {
      this.restore(changes);
      throw err;
    }
    if (renewed.length > 0) this.renew(memberId, renewed);
    this.runs.compact();
    await this.persist(written, changes);
  }

  /** Releases the records `memberId` holds in `ranges` (what a fetch acquired for a share session that ended before it did). */
  async releaseRanges(memberId: string, ranges: readonly AcquiredRange[]): Promise<void> {
    const changes: Change[] = [];
    const written: StateBatch[] = [];
    for (const r of ranges) {
      for (const run of this.runs.slice(r.firstOffset, r.lastOffset)) {
        if (run.state === RecordState.ACQUIRED && run.memberId === memberId) this.change(run, RecordState.AVAILABLE, changes, written);
      }
    }
    this.runs.compact();
    await this.persist(written, changes);
  }

  /** Releases every record `memberId` holds (its share session ended: `releaseAcquiredRecords`). */
  async releaseAcquiredRecords(memberId: string): Promise<void> {
    const changes: Change[] = [];
    const written: StateBatch[] = [];
    for (const run of this.runs.all()) {
      if (run.state === RecordState.ACQUIRED && run.memberId === memberId) this.change(run, RecordState.AVAILABLE, changes, written);
    }
    this.runs.compact();
    await this.persist(written, changes);
  }

  /** Stops every lock timer (the share partition is dropped or the broker stops). */
  close(): void {
    this.status = 'fenced';
    for (const run of this.runs.all()) run.lock?.timer?.cancel();
  }

  /**
   * Releases (or archives at the delivery count limit) the offsets still held under `task`, as
   * Kafka's `releaseAcquisitionLockOnTimeout`: at once and for good, whatever becomes of the state
   * write (the records may be acquired before it ends, and a failed write does not give them back
   * to the member whose lock ran out).
   */
  private onLockTimeout(task: LockTask): void {
    task.timer = null;
    if (this.status !== 'active') return;
    const changes: Change[] = [];
    const written: StateBatch[] = [];
    for (const run of this.runs.all()) {
      if (run.lock === task && run.state === RecordState.ACQUIRED) this.change(run, RecordState.AVAILABLE, changes, written);
    }
    this.runs.compact();
    if (written.length === 0) return;
    this.advanceStartOffset();
    if (written.some((b) => b.deliveryState === RecordState.AVAILABLE)) this.onAvailable();
    void this.persist(written, changes, false).catch(() => undefined);
  }

  /** Moves `run` to `target` (`settle`), noting what it was (`changes`) and what to write (`written`). */
  private change(run: Run, target: number, changes: Change[], written: StateBatch[]): void {
    changes.push({ first: run.first, last: run.last, before: stateOf(run) });
    this.settle(run, target);
    written.push({ firstOffset: run.first, lastOffset: run.last, deliveryState: run.state, deliveryCount: run.deliveryCount });
  }

  private renew(memberId: string, ranges: ReadonlyArray<[bigint, bigint]>): void {
    const task = this.newLock(memberId);
    for (const [from, to] of ranges) {
      for (const run of this.runs.slice(from, to)) {
        const n = runLength(run);
        release(run.lock, n);
        run.lock = task;
        task.held += n;
      }
    }
    this.startLock(task);
  }

  /** A lock of `share.record.lock.duration.ms` from now, not yet started. */
  private newLock(memberId: string): LockTask {
    return { memberId, timer: null, expiresAt: this.time.now() + this.config.recordLockDurationMs(), held: 0 };
  }

  /**
   * Starts (or starts again) `task`'s timer for its deadline: a change that failed puts its records
   * back under their lock as it was (Kafka's `completeStateTransition(false)` keeps the timer task),
   * ending at once when it has run out meanwhile.
   */
  private startLock(task: LockTask): void {
    task.timer = this.time.schedule(Math.max(0, task.expiresAt - this.time.now()), () => this.onLockTimeout(task));
  }

  /**
   * Moves the ACQUIRED records of `run` to `target`; a release at the delivery count limit, or of
   * records the log start offset has passed (`releaseAcquiredRecordsForPerOffsetBatch`:
   * `offset < startOffset ? ARCHIVED`), archives them. Only records at or after the SPSO count as
   * delivered (`deliveryCompleteCount`).
   */
  private settle(run: Run, target: number): void {
    const n = runLength(run);
    release(run.lock, n);
    run.lock = null;
    run.memberId = null;
    const archive = target === RecordState.AVAILABLE && (run.first < this.startOffset || run.deliveryCount >= this.config.deliveryCountLimit());
    run.state = archive ? RecordState.ARCHIVED : target;
    if (TERMINAL.has(run.state) && run.first >= this.startOffset) this.deliveryCompleteCount += n;
  }

  /** Puts `changes` back, latest first, on the offsets still in flight. */
  private restore(changes: readonly Change[]): void {
    for (let i = changes.length - 1; i >= 0; i--) {
      const { first, last, before } = changes[i]!;
      for (const run of this.runs.slice(first, last)) {
        const n = runLength(run);
        if (TERMINAL.has(run.state) && !TERMINAL.has(before.state) && run.first >= this.startOffset) this.deliveryCompleteCount -= n;
        Object.assign(run, before);
        if (run.lock && run.state === RecordState.ACQUIRED) {
          const task = run.lock;
          task.held += n;
          if (task.timer === null) this.startLock(task);
        }
      }
    }
    this.runs.compact();
  }

  /**
   * WriteShareGroupState with `written`; then the SPSO moves. `undoable`: `changes`' offsets are in
   * transition meanwhile, undone when the write fails, and records it made AVAILABLE may be acquired
   * once it succeeded (`onAvailable`); else (a lock timeout's) the change stands whatever the write.
   */
  private async persist(written: StateBatch[], changes: readonly Change[], undoable = true): Promise<void> {
    if (written.length === 0) return;
    if (undoable) this.transition(changes, 1);
    let result: PersisterPartitionResult;
    try {
      result = await this.state.writeState(this.groupId, {
        topicId: this.topicId,
        partition: this.partitionIndex,
        stateEpoch: this.stateEpoch,
        leaderEpoch: this.partition.leaderEpoch,
        startOffset: this.startOffset,
        deliveryCompleteCount: this.deliveryCompleteCount,
        stateBatches: coalesce(written),
      });
    } catch (err) {
      if (undoable) {
        this.transition(changes, -1);
        this.restore(changes);
      }
      throw err;
    }
    if (undoable) this.transition(changes, -1);
    if (result.errorCode !== ErrorCode.NONE) {
      if (undoable) this.restore(changes);
      throw new SharePartitionError(persisterError(result.errorCode), result.errorMessage ?? '');
    }
    this.advanceStartOffset();
    if (undoable && written.some((b) => b.deliveryState === RecordState.AVAILABLE)) this.onAvailable();
  }

  /** One write more (+1) or fewer (-1) carries the offsets of `changes`. */
  private transition(changes: readonly Change[], by: 1 | -1): void {
    for (const { first, last } of changes) for (const run of this.runs.slice(first, last)) run.writes += by;
    this.runs.compact();
  }

  /**
   * `maybeUpdateCachedStateAndOffsets`: the SPSO moves past the ACKNOWLEDGED/ARCHIVED prefix;
   * settled records the log start offset left behind are forgotten.
   */
  private advanceStartOffset(): void {
    // Below the SPSO a record is done once no longer ACQUIRED (settle archives a release there),
    // unless a write in flight may still put it back.
    this.runs.removeWhere((run) => run.last < this.startOffset && run.state !== RecordState.ACQUIRED && run.writes === 0);
    for (;;) {
      const run = this.runs.firstFrom(this.startOffset);
      if (run === null || run.first !== this.startOffset || !TERMINAL.has(run.state) || run.writes > 0) break;
      this.runs.remove(run);
      this.deliveryCompleteCount -= runLength(run);
      this.startOffset = run.last + 1n;
    }
  }

  /**
   * Kafka's `updateCacheAndOffsets(logStartOffset)`: the log start offset has passed the SPSO (a
   * fetch from `nextFetchOffset()` found it below the log: OFFSET_OUT_OF_RANGE). AVAILABLE records
   * below it are ARCHIVED, settled ones are forgotten (and leave `deliveryCompleteCount`), ACQUIRED
   * ones stay with their member until acknowledged, released or timed out; the SPSO becomes the
   * log start offset and the end offset at least that. Nothing is written: the new SPSO goes to the
   * share coordinator with the next acknowledgement, release or lock timeout. An offset at or
   * below the SPSO changes nothing.
   */
  updateCacheAndOffsets(logStartOffset: bigint): void {
    if (logStartOffset <= this.startOffset) return;
    const passed = this.runs.slice(this.startOffset, (logStartOffset < this.nextNew ? logStartOffset : this.nextNew) - 1n);
    const forgotten = new Set<Run>();
    for (const run of passed) {
      if (TERMINAL.has(run.state)) this.deliveryCompleteCount -= runLength(run);
      // Kept while ACQUIRED, or while a write in flight may put it back to ACQUIRED. AVAILABLE
      // records are archived (`archiveAvailableRecordsOnLsoMovement`); below the SPSO an archived
      // record is done.
      if (run.state !== RecordState.ACQUIRED && run.writes === 0) forgotten.add(run);
    }
    this.runs.removeWhere((run) => forgotten.has(run));
    this.startOffset = logStartOffset;
    if (this.nextNew < logStartOffset) this.nextNew = logStartOffset;
  }

  /** `fetchSubMapForAcknowledgementBatch`: the batch must lie within the records in flight. */
  private checkInFlight(batch: AcknowledgementBatch): void {
    const first = batch.firstOffset < this.startOffset ? this.startOffset : batch.firstOffset;
    if (this.runs.isEmpty) throw new SharePartitionError(ErrorCode.INVALID_RECORD_STATE, 'Batch record not found. The request batch offsets are not found in the cache.');
    if (first >= this.nextNew) throw new SharePartitionError(ErrorCode.INVALID_REQUEST, 'Batch record not found. The first offset in request is past acquired records.');
    if (batch.lastOffset >= this.nextNew) throw new SharePartitionError(ErrorCode.INVALID_REQUEST, 'Batch record not found. The last offset in request is past acquired records.');
  }
}

/** What a change of a run's offsets was before (a failed write puts it back). */
interface Change {
  first: bigint;
  last: bigint;
  before: RunState;
}

function newRun(first: bigint, last: bigint, state: number, deliveryCount: number): Run {
  return { first, last, state, deliveryCount, memberId: null, lock: null, writes: 0 };
}

/** AVAILABLE, and no write in flight carries its change (`hasOngoingStateTransition`). */
function isAcquirable(run: Run): boolean {
  return run.state === RecordState.AVAILABLE && run.writes === 0;
}

/** An acknowledgement batch from `first` as stretches of one type: `[from, to, type]`. */
function typeStretches(batch: AcknowledgementBatch, first: bigint): Array<[bigint, bigint, number]> {
  const types = batch.acknowledgeTypes;
  if (types.length === 1) return [[first, batch.lastOffset, types[0]!]];
  const out: Array<[bigint, bigint, number]> = [];
  for (let o = first; o <= batch.lastOffset; o++) {
    const type = types[Number(o - batch.firstOffset)]!;
    const last = out[out.length - 1];
    if (last && last[2] === type) last[1] = o;
    else out.push([o, o, type]);
  }
  return out;
}

/** `n` offsets leave `task`: its timer stops once no offset is held under it. */
function release(task: LockTask | null, n: number): void {
  if (task === null) return;
  task.held -= n;
  if (task.held <= 0 && task.timer) {
    task.timer.cancel();
    task.timer = null;
  }
}

/** The persister's error as `SharePartition.fetchPersisterError` raises it to a client. */
function persisterError(code: number): number {
  switch (code) {
    case ErrorCode.NOT_COORDINATOR:
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
    case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.GROUP_ID_NOT_FOUND:
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
      return code;
    case ErrorCode.FENCED_LEADER_EPOCH:
    case ErrorCode.FENCED_STATE_EPOCH:
      return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    default:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
  }
}

/** Joins consecutive single-offset batches with one state and count (what the write carries). */
function coalesce(batches: readonly StateBatch[]): StateBatch[] {
  const sorted = [...batches].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
  const out: StateBatch[] = [];
  for (const b of sorted) {
    const last = out[out.length - 1];
    if (last && last.lastOffset + 1n === b.firstOffset && last.deliveryState === b.deliveryState && last.deliveryCount === b.deliveryCount) last.lastOffset = b.lastOffset;
    else out.push({ ...b });
  }
  return out;
}
