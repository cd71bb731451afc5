/**
 * Transactions as the log cleaner sees them, derived from the log itself (producer ids, the
 * transactional and control flags, end-transaction markers) rather than from a transaction
 * index, which this server does not keep per log:
 *
 *   - `TransactionScan` reads batch headers in log order and finds the aborted transactions
 *     (what Kafka's `UnifiedLog.collectAbortedTransactions` reads from the `.txnindex`) and the
 *     first offset of the oldest transaction still open (`ProducerStateManager.firstUnstableOffset`),
 *     below which the cleaner stays (`LogCleanerManager.cleanableOffsets`).
 *   - `CleanedTransactions` follows Kafka's `CleanedTransactionMetadata` during one cleaning pass:
 *     batches of aborted transactions are discarded; a marker may go once no batch of its
 *     transaction was met in the pass (then after delete.retention.ms, through the batch's
 *     KIP-534 delete horizon, as tombstones).
 *
 * Unlike Kafka, which starts a `CleanedTransactionMetadata` per group of segments, one instance
 * covers the whole pass: a transaction whose records lie in an earlier group keeps its marker,
 * so a replay never finds committed records without their COMMIT.
 */
import {
  ATTRIBUTES_OFFSET,
  BASE_OFFSET_OFFSET,
  CONTROL_FLAG_MASK,
  LAST_OFFSET_DELTA_OFFSET,
  PRODUCER_ID_OFFSET,
  TRANSACTIONAL_FLAG_MASK,
} from '../records/record-batch.js';
import { readEndTxnMarker } from '../records/control-batch.js';

/** An aborted transaction: its producer and the offsets of its first batch and of its ABORT marker. */
export interface AbortedRange {
  producerId: bigint;
  firstOffset: bigint;
  markerOffset: bigint;
}

/** What kind of batch `batch` is, with the header fields the transaction logic needs. */
export interface BatchTxnInfo {
  control: boolean;
  /**
   * The transactional flag. A data batch the cleaner emptied (kept to end its segment, or as its
   * producer's last) has it too and keeps its transaction's marker: a producer-state rebuild
   * (`Partition.replayBatches`) would take it without its marker for a transaction still open.
   */
  transactional: boolean;
  producerId: bigint;
  baseOffset: bigint;
  lastOffset: bigint;
}

export function batchTxnInfo(batch: Buffer): BatchTxnInfo {
  const attributes = batch.readInt16BE(ATTRIBUTES_OFFSET);
  const baseOffset = batch.readBigInt64BE(BASE_OFFSET_OFFSET);
  return {
    control: (attributes & CONTROL_FLAG_MASK) !== 0,
    transactional: (attributes & TRANSACTIONAL_FLAG_MASK) !== 0,
    producerId: batch.readBigInt64BE(PRODUCER_ID_OFFSET),
    baseOffset,
    lastOffset: baseOffset + BigInt(batch.readInt32BE(LAST_OFFSET_DELTA_OFFSET)),
  };
}

/** Reads batches in log order; see the module comment. */
export class TransactionScan {
  /** Producer id -> first offset of its transaction not yet ended by a marker. */
  private readonly open = new Map<bigint, bigint>();
  /** Aborted transactions, in the order of their markers. */
  private readonly abortedByMarker: AbortedRange[] = [];

  add(batch: Buffer): void {
    const info = batchTxnInfo(batch);
    if (!info.transactional) return;
    if (!info.control) {
      if (!this.open.has(info.producerId)) this.open.set(info.producerId, info.baseOffset);
      return;
    }
    const first = this.open.get(info.producerId);
    // A control batch the cleaner emptied has no marker left; its transaction's records are gone.
    const marker = readEndTxnMarker(batch);
    if (first === undefined || marker === null) return;
    this.open.delete(info.producerId);
    if (!marker.commit) this.abortedByMarker.push({ producerId: info.producerId, firstOffset: first, markerOffset: info.baseOffset });
  }

  /** The aborted transactions seen, by first offset (the order `CleanedTransactions` consumes them in). */
  aborted(): AbortedRange[] {
    return [...this.abortedByMarker].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
  }

  /** First offset of the oldest transaction without a marker so far, or null. */
  firstUnstableOffset(): bigint | null {
    let min: bigint | null = null;
    for (const first of this.open.values()) if (min === null || first < min) min = first;
    return min;
  }
}

/** One cleaning pass's view of transactions (Kafka's `CleanedTransactionMetadata`); batches go in log order. */
export class CleanedTransactions {
  private next = 0;
  /** Producer id -> whether a batch of its aborted transaction was met in this pass. */
  private readonly ongoingAborted = new Map<bigint, boolean>();
  /** Producers whose committed (not aborted) transaction had a batch met in this pass. */
  private readonly ongoingCommitted = new Set<bigint>();

  constructor(private readonly abortedTxns: readonly AbortedRange[]) {}

  /** Starts the aborted transactions beginning at or before `offset` (`consumeAbortedTxnsUpTo`). */
  private consumeUpTo(offset: bigint): void {
    while (this.next < this.abortedTxns.length && this.abortedTxns[this.next]!.firstOffset <= offset) {
      this.ongoingAborted.set(this.abortedTxns[this.next]!.producerId, false);
      this.next++;
    }
  }

  /** For a data batch: whether its records belong to an aborted transaction and are discarded (`onBatchRead`). */
  discardDataBatch(info: BatchTxnInfo): boolean {
    this.consumeUpTo(info.lastOffset);
    if (!info.transactional) return false;
    if (this.ongoingAborted.has(info.producerId)) {
      this.ongoingAborted.set(info.producerId, true);
      return true;
    }
    this.ongoingCommitted.add(info.producerId);
    return false;
  }

  /**
   * For an end-transaction marker (COMMIT: `commit` true): whether its transaction has no batch
   * left, so the marker may go once its delete horizon passes (`onControlBatchRead`).
   */
  markerRemovable(info: BatchTxnInfo, commit: boolean): boolean {
    this.consumeUpTo(info.lastOffset);
    if (!commit) {
      const observed = this.ongoingAborted.get(info.producerId);
      this.ongoingAborted.delete(info.producerId);
      // An aborted transaction's marker stays until all its batches are removed.
      return observed !== true;
    }
    return !this.ongoingCommitted.delete(info.producerId);
  }
}
