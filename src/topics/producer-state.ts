/**
 * Per-partition producer state, as Kafka's `ProducerStateManager`, `ProducerStateEntry` and
 * `ProducerAppendInfo` (storage module): for each producer id the current epoch, the sequence
 * ranges and offsets of its last 5 batches (so a retried batch is answered with its original
 * offset instead of being appended twice), the coordinator epoch of its last end-transaction
 * marker, and the first offset of its ongoing transaction. Transactions in flight are listed in
 * offset order (Kafka's `ongoingTxns`), which gives the partition's first unstable offset.
 */
import { ErrorCode } from '../protocol/errors.js';
import type { ActiveProducers, ProducerLastRecord } from '../storage/cleaner-producers.js';
import { owned, SharedEmptyMap } from '../util/shared-empty.js';

/** Kafka keeps this many batches per producer (`ProducerStateEntry.NUM_BATCHES_TO_RETAIN`). */
export const NUM_BATCHES_TO_RETAIN = 5;
const INT32_MAX = 2147483647;
/** `RecordBatch.NO_SEQUENCE`. */
const NO_SEQUENCE = -1;

/** What an appended batch of a producer covered. */
export interface ProducerBatch {
  firstSeq: number;
  lastSeq: number;
  baseOffset: bigint;
  lastOffset: bigint;
  /** The batch's max timestamp as stored (ms; Kafka's `BatchMetadata.timestamp`): what a duplicate of it answers as its log append time. */
  timestamp: bigint;
  /**
   * Resolves once the batch is durable (rejects if its write failed); absent for batches replayed
   * from the log. A retry answered as a duplicate waits for it, as Kafka's answer to a duplicate
   * waits for the original batch to be replicated (acks=all).
   */
  durable?: Promise<void>;
}

/** A producer's state in one partition (Kafka's `ProducerStateEntry`). */
export interface ProducerEntry {
  epoch: number;
  batches: ProducerBatch[];
  /** Coordinator epoch of the last end-transaction marker (-1: none). */
  coordinatorEpoch: number;
  /** First offset of the producer's ongoing transaction here, null when none is open. */
  currentTxnFirstOffset: bigint | null;
  /** Timestamp (ms) of the producer's last batch or marker. */
  lastTimestamp: bigint;
  /**
   * Last offset of the producer's last data batch at its current epoch, with or without a sequence
   * (Kafka's `ProducerStateEntry.lastDataOffset`); -1 when none (a new epoch forgets it). The log
   * cleaner keeps that batch.
   */
  lastDataOffset: bigint;
}

/** The producer fields of a batch header. */
export interface ProducerBatchInfo {
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  lastOffsetDelta: number;
  /** Batch attributes (transactional bit 0x10); absent: not transactional. */
  attributes?: number;
  maxTimestamp?: bigint;
}

export type SequenceCheck =
  | { kind: 'append' }
  | { kind: 'duplicate'; batch: ProducerBatch }
  | { kind: 'error'; errorCode: number; message: string };

/** A transaction that an end marker closed (Kafka's `CompletedTxn`); only non-empty ones are reported. */
export interface CompletedTxn {
  producerId: bigint;
  firstOffset: bigint;
  /** Offset of the marker. */
  lastOffset: bigint;
  isAborted: boolean;
}

/** The marker fields the producer state checks (Kafka's `ProducerAppendInfo.appendEndTxnMarker`). */
export interface MarkerInfo {
  producerId: bigint;
  producerEpoch: number;
  coordinatorEpoch: number;
  commit: boolean;
  /** 0/1 legacy, 2 TV2 (the marker's epoch must be newer), -1 unknown (replayed from the log: legacy rules). */
  transactionVersion: number;
}

const TRANSACTIONAL = 0x10;

/** Kafka's `DefaultRecordBatch.incrementSequence`: sequences wrap from INT32_MAX to 0. */
export function incrementSequence(sequence: number, increment: number): number {
  return sequence > INT32_MAX - increment ? increment - (INT32_MAX - sequence) - 1 : sequence + increment;
}

function inSequence(lastSeq: number, nextSeq: number): boolean {
  return nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === INT32_MAX);
}

/** Whether the batch carries idempotence fields (producer id and sequence set). */
export function isIdempotent(info: ProducerBatchInfo): boolean {
  return info.producerId >= 0n && info.baseSequence >= 0;
}

function isTransactional(info: ProducerBatchInfo): boolean {
  return ((info.attributes ?? 0) & TRANSACTIONAL) !== 0;
}

/**
 * Kafka's `VerificationStateEntry` (KIP-890): a Produce asked the transaction coordinator whether a
 * producer not yet in a transaction here may start one. Its transactional batch is appended only if
 * the guard it holds is still the producer's (`isVerified`): an end marker or another transactional
 * batch written meanwhile drops the guard, so a batch verified before an abort cannot open a
 * transaction the coordinator has already closed. Held in memory only, as Kafka's.
 */
export interface VerificationGuard {
  /** The highest producer epoch verified with this guard. */
  epoch: number;
  /** The lowest first sequence of a batch verified at that epoch: a later batch may not start above it (`checkSequence`). */
  lowestSequence: number;
  /** The producer runs transaction version 2 (Produce v12+: the epoch is bumped at each transaction end). */
  readonly supportsEpochBump: boolean;
}

/** What a table holds until a producer id writes to its partition (most partitions: none ever does). */
const NO_PRODUCERS = new SharedEmptyMap<bigint, ProducerEntry>();
const NO_VERIFICATIONS = new SharedEmptyMap<bigint, VerificationGuard>();
const NO_ONGOING = new SharedEmptyMap<bigint, bigint>();

export class ProducerStateTable {
  private producers: Map<bigint, ProducerEntry> = NO_PRODUCERS;
  /** Verifications in flight or done, by producer id (Kafka's `ProducerStateManager.verificationStates`). */
  private verifications: Map<bigint, VerificationGuard> = NO_VERIFICATIONS;
  /** Ongoing transactions: producer id -> first offset, in first-offset order (appends come in offset order). */
  private ongoing: Map<bigint, bigint> = NO_ONGOING;
  /**
   * Transactions whose marker is appended but not yet below the high watermark (Kafka's
   * `unreplicatedTxns`; here: not yet written to the log file): still unstable, so the last stable
   * offset does not pass a marker a killed process could take back.
   */
  private unreplicated: Array<{ firstOffset: bigint; lastOffset: bigint }> = [];

  /**
   * Checks a data batch about to be appended, in Kafka's order: a duplicate of one of the last 5
   * batches of the same epoch; an epoch older than the last seen (INVALID_PRODUCER_EPOCH); a new
   * epoch not starting at sequence 0 or a gap in sequences (OUT_OF_ORDER_SEQUENCE_NUMBER); a
   * non-transactional batch while the producer's transaction is open (INVALID_TXN_STATE).
   * While a transaction's verification is held here (KIP-890, `ProducerAppendInfo.checkSequence`):
   * a transaction version 2 producer with no batches here must start at sequence 0, and no batch
   * may start above the lowest sequence verified (OUT_OF_ORDER_SEQUENCE_NUMBER). Otherwise a
   * producer with no state here is accepted at any sequence, as Kafka does since KIP-360.
   * `firstOffset` is where the batch would land (for the messages).
   */
  check(info: ProducerBatchInfo, where: string, firstOffset = -1n): SequenceCheck {
    if (!isIdempotent(info)) return { kind: 'append' };
    const entry = this.producers.get(info.producerId);
    const verification = this.verifications.get(info.producerId);
    if (entry === undefined && verification === undefined) return { kind: 'append' };
    const firstSeq = info.baseSequence;
    if (entry === undefined) return this.checkVerifiedSequence(info, verification!, true, where, firstOffset) ?? { kind: 'append' };
    const lastSeq = incrementSequence(firstSeq, info.lastOffsetDelta);
    if (info.producerEpoch === entry.epoch) {
      const dup = entry.batches.find((b) => b.firstSeq === firstSeq && b.lastSeq === lastSeq);
      if (dup) return { kind: 'duplicate', batch: dup };
    }
    if (info.producerEpoch < entry.epoch) {
      return {
        kind: 'error',
        errorCode: ErrorCode.INVALID_PRODUCER_EPOCH,
        message: `Epoch of producer ${info.producerId} at offset ${firstOffset} in ${where} is ${info.producerEpoch}, which is smaller than the last seen epoch ${entry.epoch}`,
      };
    }
    const verified = verification === undefined ? null : this.checkVerifiedSequence(info, verification, entry.batches.length === 0, where, firstOffset);
    if (verified !== null) return verified;
    if (info.producerEpoch > entry.epoch) {
      if (firstSeq !== 0) {
        return {
          kind: 'error',
          errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
          message: `Invalid sequence number for new epoch of producer ${info.producerId}at offset ${firstOffset} in partition ${where}: ${info.producerEpoch} (request epoch), ${firstSeq} (seq. number), ${entry.epoch} (current producer epoch)`,
        };
      }
    } else {
      // An entry whose batches a marker's epoch bump cleared expects sequence 0 (NO_SEQUENCE + 1).
      const currentLastSeq = entry.batches[entry.batches.length - 1]?.lastSeq ?? NO_SEQUENCE;
      if (!inSequence(currentLastSeq, firstSeq)) {
        return {
          kind: 'error',
          errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
          message: `Out of order sequence number for producer ${info.producerId} at offset ${firstOffset} in partition ${where}: ${firstSeq} (incoming seq. number), ${currentLastSeq} (current end sequence number)`,
        };
      }
    }
    if (entry.currentTxnFirstOffset !== null && !isTransactional(info)) {
      return {
        kind: 'error',
        errorCode: ErrorCode.INVALID_TXN_STATE,
        message: `Expected transactional write from producer ${info.producerId} at offset (offset=${firstOffset}, segment=[-1:-1]) in partition ${where}`,
      };
    }
    return { kind: 'append' };
  }

  /**
   * Records an appended data batch at [baseOffset, baseOffset + lastOffsetDelta] (`durable`: when
   * it is on disk, for a live append); a transactional one may open a transaction.
   */
  update(info: ProducerBatchInfo, baseOffset: bigint, durable?: Promise<void>): void {
    if (info.producerId < 0n) return;
    let entry = this.producers.get(info.producerId);
    if (entry === undefined) {
      entry = { epoch: info.producerEpoch, batches: [], coordinatorEpoch: -1, currentTxnFirstOffset: null, lastTimestamp: -1n, lastDataOffset: -1n };
      (this.producers = owned(this.producers)).set(info.producerId, entry);
    } else if (info.producerEpoch !== entry.epoch) {
      entry.epoch = info.producerEpoch;
      entry.batches = [];
    }
    entry.lastDataOffset = baseOffset + BigInt(info.lastOffsetDelta);
    if (info.baseSequence >= 0) {
      entry.batches.push({
        firstSeq: info.baseSequence,
        lastSeq: incrementSequence(info.baseSequence, info.lastOffsetDelta),
        baseOffset,
        lastOffset: baseOffset + BigInt(info.lastOffsetDelta),
        timestamp: info.maxTimestamp ?? -1n,
        ...(durable !== undefined ? { durable } : {}),
      });
      if (entry.batches.length > NUM_BATCHES_TO_RETAIN) entry.batches.shift();
    }
    if (info.maxTimestamp !== undefined) entry.lastTimestamp = info.maxTimestamp;
    if (entry.currentTxnFirstOffset === null && isTransactional(info)) {
      entry.currentTxnFirstOffset = baseOffset;
      (this.ongoing = owned(this.ongoing)).set(info.producerId, baseOffset);
    }
    // The transaction has its first offset here now: the verification has done its job.
    if (isTransactional(info)) this.verifications.delete(info.producerId);
  }

  /** The KIP-890 part of `checkSequence` (see `check`): an error, or null when `info` passes it. */
  private checkVerifiedSequence(info: ProducerBatchInfo, verification: VerificationGuard, noBatches: boolean, where: string, firstOffset: bigint): SequenceCheck | null {
    const firstSeq = info.baseSequence;
    if (verification.supportsEpochBump && firstSeq !== 0 && noBatches) {
      return {
        kind: 'error',
        errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
        message: `Invalid sequence number for producer ${info.producerId} at offset ${firstOffset} in partition ${where}: ${firstSeq} (incoming seq. number). Expected sequence 0 for transactions v2 idempotent producer with no existing state.`,
      };
    }
    if (firstSeq > verification.lowestSequence) {
      return {
        kind: 'error',
        errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
        message: `Out of order sequence number for producer ${info.producerId} at offset ${firstOffset} in partition ${where}: ${firstSeq} (incoming seq. number), ${verification.lowestSequence} (earliest seen sequence)`,
      };
    }
    return null;
  }

  /**
   * Kafka's `maybeCreateVerificationStateEntry`: the guard a Produce verifying `producerId`'s first
   * transactional batch here holds while it asks the coordinator (the one already held, if any,
   * raised to `producerEpoch`).
   */
  startVerification(producerId: bigint, producerEpoch: number, supportsEpochBump: boolean, baseSequence: number): VerificationGuard {
    const held = this.verifications.get(producerId);
    if (held === undefined) {
      const guard: VerificationGuard = { epoch: producerEpoch, lowestSequence: baseSequence, supportsEpochBump };
      (this.verifications = owned(this.verifications)).set(producerId, guard);
      return guard;
    }
    // VerificationStateEntry.maybeUpdateLowestSequenceAndEpoch.
    if (producerEpoch > held.epoch) {
      held.epoch = producerEpoch;
      held.lowestSequence = baseSequence;
    } else if (producerEpoch === held.epoch) {
      held.lowestSequence = Math.min(held.lowestSequence, baseSequence);
    }
    return held;
  }

  /**
   * Whether a transactional batch of `producerId` may be appended (`UnifiedLog.analyzeAndValidateProducerState`):
   * its transaction is open here at `producerEpoch`, or `guard` (the Produce's verification) is still
   * the producer's. Otherwise Kafka refuses it with INVALID_TXN_STATE.
   */
  mayAppendTransactional(producerId: bigint, producerEpoch: number, guard: VerificationGuard | null): boolean {
    if (this.hasOngoingTransaction(producerId, producerEpoch)) return true;
    return guard !== null && this.verifications.get(producerId) === guard;
  }

  /**
   * Checks an end-transaction marker (Kafka's `ProducerAppendInfo.appendEndTxnMarker` with origin
   * COORDINATOR): an epoch older than the producer's (TV2: not newer, unless it repeats a marker
   * already written for a closed transaction, KAFKA-19999) -> INVALID_PRODUCER_EPOCH; a coordinator
   * epoch older than the last marker's -> TRANSACTION_COORDINATOR_FENCED. Null when it may be written.
   */
  checkMarker(marker: MarkerInfo, where: string, offset: bigint): { errorCode: number; message: string } | null {
    const entry = this.producers.get(marker.producerId);
    if (entry !== undefined) {
      const tv2 = marker.transactionVersion >= 2;
      const invalid = tv2 ? marker.producerEpoch <= entry.epoch : marker.producerEpoch < entry.epoch;
      const idempotentRetry = tv2 && marker.producerEpoch === entry.epoch && entry.currentTxnFirstOffset === null;
      if (invalid && !idempotentRetry) {
        return {
          errorCode: ErrorCode.INVALID_PRODUCER_EPOCH,
          message:
            `Epoch of producer ${marker.producerId} at offset ${offset} in ${where} is ${marker.producerEpoch}, ` +
            `which is ${tv2 ? '<=' : '<'} the last seen epoch ${entry.epoch} (TV${marker.transactionVersion})`,
        };
      }
      if (entry.coordinatorEpoch > marker.coordinatorEpoch) {
        return {
          errorCode: ErrorCode.TRANSACTION_COORDINATOR_FENCED,
          message:
            `Invalid coordinator epoch for producerId ${marker.producerId} at offset ${offset} in partition ${where}: ` +
            `${marker.coordinatorEpoch} (zombie), ${entry.coordinatorEpoch} (current)`,
        };
      }
    }
    return null;
  }

  /**
   * Records a marker written at `offset` (checked, or replayed from the log): the producer takes the
   * marker's epoch (a new epoch forgets the batches), its transaction closes. Returns the completed
   * transaction when one was open here.
   */
  completeTxn(marker: MarkerInfo, offset: bigint, timestamp: bigint): CompletedTxn | null {
    let entry = this.producers.get(marker.producerId);
    if (entry === undefined) {
      entry = { epoch: marker.producerEpoch, batches: [], coordinatorEpoch: -1, currentTxnFirstOffset: null, lastTimestamp: -1n, lastDataOffset: -1n };
      (this.producers = owned(this.producers)).set(marker.producerId, entry);
    }
    const completed: CompletedTxn | null =
      entry.currentTxnFirstOffset === null
        ? null
        : { producerId: marker.producerId, firstOffset: entry.currentTxnFirstOffset, lastOffset: offset, isAborted: !marker.commit };
    if (entry.epoch !== marker.producerEpoch) {
      entry.epoch = marker.producerEpoch;
      entry.batches = [];
      entry.lastDataOffset = -1n;
    }
    entry.coordinatorEpoch = marker.coordinatorEpoch;
    entry.currentTxnFirstOffset = null;
    entry.lastTimestamp = timestamp;
    this.ongoing.delete(marker.producerId);
    if (completed !== null) this.unreplicated.push({ firstOffset: completed.firstOffset, lastOffset: offset });
    // The transaction ended: a verification made for it is void. Under transaction version 2 a
    // verification at the marker's (bumped) epoch is the next transaction's and stays (Kafka's
    // `isV2NextTransactionStarted`).
    const verification = this.verifications.get(marker.producerId);
    if (verification !== undefined && !(verification.supportsEpochBump && verification.epoch === marker.producerEpoch)) {
      this.verifications.delete(marker.producerId);
    }
    return completed;
  }

  /**
   * The last stable offset after `completed` closes (Kafka's `ProducerStateManager.lastStableOffset`):
   * the first offset of the oldest other open transaction, else the marker's offset + 1.
   */
  lastStableOffsetAfter(completed: CompletedTxn): bigint {
    for (const [producerId, firstOffset] of this.ongoing) if (producerId !== completed.producerId) return firstOffset;
    return completed.lastOffset + 1n;
  }

  /**
   * First offset of the oldest transaction open, or closed by a marker at or above `highWatermark`
   * (Kafka's `firstUnstableOffset` over `ongoingTxns` and `unreplicatedTxns`); null when none.
   */
  firstUnstableOffset(highWatermark: bigint): bigint | null {
    this.onHighWatermarkUpdated(highWatermark);
    let first: bigint | null = null;
    for (const firstOffset of this.ongoing.values()) {
      first = firstOffset;
      break;
    }
    for (const txn of this.unreplicated) if (first === null || txn.firstOffset < first) first = txn.firstOffset;
    return first;
  }

  /** Kafka's `onHighWatermarkUpdated`: transactions whose marker is below `highWatermark` are stable. */
  onHighWatermarkUpdated(highWatermark: bigint): void {
    if (this.unreplicated.length > 0) this.unreplicated = this.unreplicated.filter((txn) => txn.lastOffset >= highWatermark);
  }

  /** Whether `producerId` has a transaction open here at `producerEpoch` (Kafka's `hasOngoingTransaction`). */
  hasOngoingTransaction(producerId: bigint, producerEpoch: number): boolean {
    const entry = this.producers.get(producerId);
    return entry !== undefined && entry.currentTxnFirstOffset !== null && entry.epoch === producerEpoch;
  }

  /** The open transactions, oldest first (producer id, first offset). */
  ongoingTransactions(): Array<{ producerId: bigint; firstOffset: bigint }> {
    return [...this.ongoing].map(([producerId, firstOffset]) => ({ producerId, firstOffset }));
  }

  /** The state of a producer, or undefined if unknown here (a view: do not modify). */
  entry(producerId: bigint): Readonly<ProducerEntry> | undefined {
    return this.producers.get(producerId);
  }

  /** Every producer with state here (DescribeProducers). */
  entries(): IterableIterator<[bigint, Readonly<ProducerEntry>]> {
    return this.producers.entries();
  }

  /**
   * Kafka's `ProducerStateManager.removeExpiredProducers`: forgets every producer with no transaction
   * open here whose last batch or marker is timestamped `expirationMs` (`producer.id.expiration.ms`)
   * or more before `nowMs` (both ms; Kafka's `isProducerExpired` compares the batch's own timestamp,
   * so a batch with no timestamp (-1) or an old CreateTime expires at the first check). Its next batch
   * is then taken at any sequence (as for a producer never seen here), and the log cleaner may drop
   * its last batch. Returns how many were forgotten.
   */
  removeExpiredProducers(nowMs: bigint, expirationMs: bigint): number {
    let removed = 0;
    for (const [producerId, entry] of this.producers) {
      if (entry.currentTxnFirstOffset !== null || nowMs - entry.lastTimestamp < expirationMs) continue;
      this.producers.delete(producerId);
      removed++;
    }
    return removed;
  }

  /**
   * Every producer's last data offset (null: none at its epoch) and epoch, for the log cleaner
   * (Kafka's `UnifiedLog.lastRecordsOfActiveProducers`: those not expired, `removeExpiredProducers`).
   */
  lastRecordsOfActiveProducers(): ActiveProducers {
    const result = new Map<bigint, ProducerLastRecord>();
    for (const [producerId, entry] of this.producers) {
      result.set(producerId, { lastDataOffset: entry.lastDataOffset >= 0n ? entry.lastDataOffset : null, epoch: entry.epoch });
    }
    return result;
  }

  /** Forgets every producer (before a rebuild from the log). */
  clear(): void {
    this.producers.clear();
    this.ongoing.clear();
    this.unreplicated = [];
  }

  /** The current epoch of a producer, or undefined if unknown here. */
  epochOf(producerId: bigint): number | undefined {
    return this.producers.get(producerId)?.epoch;
  }

  /** Largest producer id seen, -1 if none. */
  maxProducerId(): bigint {
    let max = -1n;
    for (const id of this.producers.keys()) if (id > max) max = id;
    return max;
  }
}
