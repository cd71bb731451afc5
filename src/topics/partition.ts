/**
 * One partition of a topic: its log, its producer state (idempotence and open transactions), its
 * aborted transactions and its leader epochs (the current one is the latest in its cache; the
 * cluster simulation bumps it on every leader change). The high watermark equals the log-end
 * offset (the replicas share one log); the last stable offset is the first offset of the oldest
 * open transaction, else the high watermark (Kafka's `UnifiedLog.lastStableOffset`).
 */
import { ErrorCode } from '../protocol/errors.js';
import { readBatchHeader, setPartitionLeaderEpoch, TRANSACTIONAL_FLAG_MASK } from '../records/record-batch.js';
import { encodeEndTxnMarkerBatch, isControlBatch, readEndTxnMarker } from '../records/control-batch.js';
import type { PartitionLog } from '../storage/partition-log.js';
import { ProducerStateTable, type CompletedTxn, type MarkerInfo, type VerificationGuard } from './producer-state.js';
import { AbortedTransactionIndex } from './aborted-transactions.js';
import { LeaderEpochCache } from './leader-epochs.js';

/** Outcome of writing an end-transaction marker to one partition. */
export type MarkerAppendResult =
  | { errorCode: typeof ErrorCode.NONE; offset: bigint; durable: Promise<void> }
  | { errorCode: number; errorMessage: string };

/** Outcome of a produce to one partition. */
export type PartitionAppendResult =
  | {
      errorCode: typeof ErrorCode.NONE;
      baseOffset: bigint;
      durable: Promise<void>;
      /** A duplicate's: its original batch's max timestamp, answered as the log append time (Kafka's `UnifiedLog.append` sets it so, whatever the topic's timestamp type); null for a batch appended now. */
      duplicateTimestamp: bigint | null;
    }
  | { errorCode: number; errorMessage: string };

export class Partition {
  readonly producers = new ProducerStateTable();
  /** The aborted transactions (Kafka's transaction index), for read_committed fetches. */
  readonly abortedTxns = new AbortedTransactionIndex();
  /** The leader epochs (Kafka's leader epoch cache); in memory unless the store gives a persisted one. */
  readonly epochs: LeaderEpochCache;

  constructor(
    readonly topicName: string,
    readonly index: number,
    readonly log: PartitionLog,
    /** Called when the high watermark moves up: what a waiting fetch may read grew. */
    onHighWatermark: (partition: Partition) => void,
    epochs?: LeaderEpochCache,
  ) {
    this.epochs = epochs ?? LeaderEpochCache.open(null, [], log.logEndOffset, false);
    log.onHighWatermark(() => {
      this.producers.onHighWatermarkUpdated(log.highWatermark);
      onHighWatermark(this);
    });
  }

  /** The current leader epoch (0 for a partition that never changed leader). */
  get leaderEpoch(): number {
    return this.epochs.latestEpoch;
  }

  /**
   * Broker `leader` took the partition: the next epoch, starting at the log-end offset. Batches
   * appended from now on carry it; Metadata and the epoch checks answer it once it is durable,
   * when this resolves (Kafka's `LeaderEpochFileCache.assign` flushes before the broker leads).
   */
  bumpLeaderEpoch(leader: number, now = false): Promise<void> {
    return now ? this.epochs.bumpNow(this.log.logEndOffset, leader) : this.epochs.bump(this.log.logEndOffset, leader);
  }

  /** The log start offset moved (DeleteRecords, retention): epochs wholly below it and the aborted transactions of deleted segments are forgotten. */
  onLogStartOffsetMoved(): void {
    this.epochs.truncateFromStart(this.log.logStartOffset);
    // Kafka's transaction index goes with its segment.
    this.abortedTxns.dropBelow(this.log.firstSegmentBaseOffset);
  }

  get logStartOffset(): bigint {
    return this.log.logStartOffset;
  }

  get logEndOffset(): bigint {
    return this.log.logEndOffset;
  }

  /**
   * With one replica, every record written is replicated: the high watermark is the end of what
   * the log wrote to its files (see `PartitionLog.highWatermark`), never past what a killed process
   * keeps. What Fetch (read_uncommitted), ListOffsets latest and DeleteRecords -1 see.
   */
  get highWatermark(): bigint {
    return this.log.highWatermark;
  }

  /** A consumer's read_uncommitted read: whole batches from `fetchOffset` below the high watermark. */
  readUncommitted(fetchOffset: bigint, maxBytes: number, minOneBatch: boolean): Buffer[] {
    return this.log.read(fetchOffset, maxBytes, minOneBatch, this.highWatermark);
  }

  /**
   * The first offset of the oldest open transaction, else the high watermark. Kafka 4.3.1 leaves it
   * below the log start offset when DeleteRecords passed an open transaction's first offset (checked
   * by conformance), and so do we.
   */
  get lastStableOffset(): bigint {
    const hw = this.highWatermark;
    const unstable = this.producers.firstUnstableOffset(hw);
    return unstable !== null && unstable < hw ? unstable : hw;
  }

  /**
   * A read_committed fetch (Kafka's `UnifiedLog.read` with `FetchIsolation.TXN_COMMITTED` and
   * `LocalLog.addAbortedTransactions`): whole batches below the last stable offset from one segment,
   * and the aborted transactions overlapping the fetched range (producer id and first offset each),
   * which a consumer drops. Nothing to read: no batches, no aborted transactions.
   */
  readCommitted(
    fetchOffset: bigint,
    maxBytes: number,
    minOneBatch: boolean,
    indexIntervalBytes: number,
  ): { batches: Buffer[]; abortedTransactions: Array<{ producerId: bigint; firstOffset: bigint }> } {
    const read = this.log.readBelow(fetchOffset, this.lastStableOffset, maxBytes, minOneBatch, indexIntervalBytes);
    if (read === null) return { batches: [], abortedTransactions: [] };
    const aborted = this.abortedTxns.collect(read.segmentBaseOffset, fetchOffset, read.upperBoundOffset);
    return { batches: read.batches, abortedTransactions: aborted.map((a) => ({ producerId: a.producerId, firstOffset: a.firstOffset })) };
  }

  get name(): string {
    return `${this.topicName}-${this.index}`;
  }

  /**
   * Appends one produced batch (already validated: magic 2, CRC, size) after the
   * idempotence checks, stamping this node's leader epoch and the next offset into it.
   * A duplicate of a recent batch is not appended and answers its original base offset once the
   * original is durable (a retry sent while the original is still being written must not be
   * acknowledged before it: a crash then would lose an acknowledged batch).
   * `verification`: for a Produce, the guard of its transaction verification (null: none was made,
   * the transaction was open when the request was checked); a transactional batch whose transaction
   * is not open here and whose guard is not the producer's any more (an end marker came in between)
   * is refused INVALID_TXN_STATE, as Kafka's `UnifiedLog` does. Omitted: no such check (in-process
   * callers that write batches directly).
   */
  appendProduced(batch: Buffer, verification?: VerificationGuard | null): PartitionAppendResult {
    const header = readBatchHeader(batch);
    const check = this.producers.check(header, this.name, this.log.logEndOffset);
    if (check.kind === 'duplicate') {
      return { errorCode: ErrorCode.NONE, baseOffset: check.batch.baseOffset, durable: check.batch.durable ?? Promise.resolve(), duplicateTimestamp: check.batch.timestamp };
    }
    if (verification !== undefined && (header.attributes & TRANSACTIONAL_FLAG_MASK) !== 0 && !this.producers.mayAppendTransactional(header.producerId, header.producerEpoch, verification)) {
      return { errorCode: ErrorCode.INVALID_TXN_STATE, errorMessage: 'Record was not part of an ongoing transaction' };
    }
    if (check.kind === 'error') return { errorCode: check.errorCode, errorMessage: check.message };
    const epoch = this.epochs.stampEpoch;
    setPartitionLeaderEpoch(batch, epoch);
    const { baseOffset, durable: logDurable } = this.log.append([batch]);
    // A batch stamped with a new epoch not yet durable is acknowledged once that epoch is.
    const durable = epoch === this.leaderEpoch ? logDurable : Promise.all([logDurable, this.epochs.whenDurable()]).then(() => undefined);
    // A failed write rolls the log back (PartitionLog): the producer state must forget the lost
    // batches too, or the producer's retry would be answered as a duplicate of nothing.
    const written = durable.catch((err: unknown) => {
      this.rebuildProducerState();
      throw err;
    });
    this.producers.update(header, baseOffset, written);
    return { errorCode: ErrorCode.NONE, baseOffset, durable: written, duplicateTimestamp: null };
  }

  /**
   * DeleteRecords on this partition (Kafka's `Partition.deleteRecordsOnLeader`): `offset` -1 means
   * the high watermark; the log start offset moves up to it (never down) and segments wholly below
   * go. Returns the new low watermark (the log start offset), or the error Kafka answers:
   * OFFSET_OUT_OF_RANGE for a negative offset or one above the high watermark.
   */
  deleteRecordsBefore(offset: bigint): { errorCode: number; lowWatermark: bigint; message?: string } {
    const checked = this.deleteRecordsTarget(offset);
    if (checked.errorCode !== ErrorCode.NONE) return checked;
    if (this.log.advanceLogStartOffset(checked.lowWatermark)) this.onLogStartOffsetMoved();
    return { errorCode: ErrorCode.NONE, lowWatermark: this.logStartOffset };
  }

  /**
   * DeleteRecords' checks without the change: the log start offset `offset` would move to (in
   * `lowWatermark`; at most the current one when it would not move), or the error.
   */
  deleteRecordsTarget(offset: bigint): { errorCode: number; lowWatermark: bigint; message?: string } {
    const target = offset === -1n ? this.highWatermark : offset;
    if (target < 0n) return { errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, lowWatermark: -1n, message: `The offset ${target} for partition ${this.name} is not valid` };
    if (target > this.highWatermark) {
      return {
        errorCode: ErrorCode.OFFSET_OUT_OF_RANGE,
        lowWatermark: -1n,
        message: `Cannot increment the log start offset to ${target} of partition ${this.name} since it is larger than the high watermark ${this.highWatermark}`,
      };
    }
    return { errorCode: ErrorCode.NONE, lowWatermark: target > this.logStartOffset ? target : this.logStartOffset };
  }

  /**
   * Writes an end-transaction marker (Kafka's `UnifiedLog.appendAsLeader` of a control batch with
   * origin COORDINATOR): checked against the producer's state (INVALID_PRODUCER_EPOCH,
   * TRANSACTION_COORDINATOR_FENCED: see `ProducerStateTable.checkMarker`), then appended with this
   * node's leader epoch and `timestamp` (ms). It closes the producer's open transaction here; an
   * aborted one joins the aborted transactions index. `durable` per the flush policy.
   */
  appendEndTxnMarker(marker: MarkerInfo, timestamp: bigint): MarkerAppendResult {
    const offset = this.log.logEndOffset;
    const refused = this.producers.checkMarker(marker, this.name, offset);
    if (refused) return { errorCode: refused.errorCode, errorMessage: refused.message };
    const batch = encodeEndTxnMarkerBatch({
      producerId: marker.producerId,
      producerEpoch: marker.producerEpoch,
      marker: { commit: marker.commit, coordinatorEpoch: marker.coordinatorEpoch },
      timestamp,
      partitionLeaderEpoch: this.leaderEpoch,
    });
    const { baseOffset, durable } = this.log.append([batch]);
    this.applyMarker(marker, baseOffset, timestamp);
    const written = durable.catch((err: unknown) => {
      this.rebuildProducerState();
      throw err;
    });
    return { errorCode: ErrorCode.NONE, offset: baseOffset, durable: written };
  }

  /** The producer state and aborted index after a marker at `offset` (written or replayed). */
  private applyMarker(marker: MarkerInfo, offset: bigint, timestamp: bigint): CompletedTxn | null {
    const completed = this.producers.completeTxn(marker, offset, timestamp);
    if (completed?.isAborted) {
      this.abortedTxns.append({ ...completed, lastStableOffset: this.producers.lastStableOffsetAfter(completed) });
    }
    return completed;
  }

  /**
   * Replays stored batches into the producer state and aborted index (Kafka's
   * `LogSegment.updateProducerState` at recovery): data batches may be headers only; control
   * batches must be whole (their marker is read).
   */
  replayBatches(batches: Iterable<Buffer>): void {
    for (const batch of batches) {
      const header = readBatchHeader(batch);
      if (header.producerId < 0n) continue;
      if (isControlBatch(batch)) {
        const marker = readEndTxnMarker(batch);
        if (marker === null) continue;
        // Markers from the log are not checked again (Kafka's REPLICATION origin).
        this.applyMarker(
          { producerId: header.producerId, producerEpoch: header.producerEpoch, coordinatorEpoch: marker.coordinatorEpoch, commit: marker.commit, transactionVersion: -1 },
          header.baseOffset,
          header.maxTimestamp,
        );
      } else {
        this.producers.update(header, header.baseOffset);
      }
    }
  }

  /** The producer state and aborted index anew from the batches the log holds (as at start). */
  private rebuildProducerState(): void {
    this.producers.clear();
    this.abortedTxns.clear();
    this.replayBatches(this.log.batches());
  }
}
