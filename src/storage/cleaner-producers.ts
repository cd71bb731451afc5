/**
 * The producers whose last batch the log cleaner keeps, as Kafka's `UnifiedLog.lastRecordsOfActiveProducers`
 * and the `RecordFilter.checkBatchRetention` of `Cleaner.cleanInto`: for each active producer of the
 * partition (every producer of its producer state: producers are never expired here), the last
 * offset of its last data batch at its current epoch, or, when a marker with a newer epoch came
 * after it, that epoch. A batch of the producer is its "last" when its last offset is that offset,
 * or, without one, when it is a control batch of that epoch. Such a batch is kept even when all its
 * records go (`BatchRetention.RETAIN_EMPTY`), so that a producer state rebuilt from the log finds
 * the producer's last sequence and epoch (its next batch is then in sequence, a zombie still fenced).
 *
 * `ProducerScan` derives the same from the log itself, for logs without a partition producer state
 * (`__consumer_offsets`, `__transaction_state`), applying batches in log order as the producer state
 * does (`ProducerStateTable.update` / `completeTxn`): it matches the producer state as long as the
 * log still holds every producer's last batch, which the cleaner sees to.
 */
import { PRODUCER_EPOCH_OFFSET } from '../records/record-batch.js';
import { readEndTxnMarker } from '../records/control-batch.js';
import type { BatchTxnInfo } from './cleaner-transactions.js';

/** What the cleaner needs of one active producer (Kafka's `LastRecord`). */
export interface ProducerLastRecord {
  /** Last offset of the producer's last data batch at its current epoch; null when it has none. */
  lastDataOffset: bigint | null;
  /** The producer's current epoch. */
  epoch: number;
}

/** Active producers by producer id, at the time a group of segments is cleaned. */
export type ActiveProducers = ReadonlyMap<bigint, ProducerLastRecord>;

/** Whether `batch` is the last one of its producer, kept even if emptied (`isBatchLastRecordOfProducer`). */
export function isProducersLastBatch(producers: ActiveProducers, batch: Buffer, info: BatchTxnInfo): boolean {
  if (info.producerId < 0n) return false;
  const last = producers.get(info.producerId);
  if (last === undefined) return false;
  if (last.lastDataOffset !== null) return info.lastOffset === last.lastDataOffset;
  return info.control && batch.readInt16BE(PRODUCER_EPOCH_OFFSET) === last.epoch;
}

/** The active producers of a log read in offset order; see the module comment. */
export class ProducerScan {
  private readonly producers = new Map<bigint, ProducerLastRecord>();

  add(batch: Buffer, info: BatchTxnInfo): void {
    if (info.producerId < 0n) return;
    const epoch = batch.readInt16BE(PRODUCER_EPOCH_OFFSET);
    if (!info.control) {
      this.producers.set(info.producerId, { lastDataOffset: info.lastOffset, epoch });
      return;
    }
    // An emptied control batch is skipped, as a producer-state rebuild skips it (`Partition.replayBatches`).
    if (readEndTxnMarker(batch) === null) return;
    const known = this.producers.get(info.producerId);
    // A marker of the producer's epoch keeps its last data batch; a new epoch forgets it.
    const lastDataOffset = known !== undefined && known.epoch === epoch ? known.lastDataOffset : null;
    this.producers.set(info.producerId, { lastDataOffset, epoch });
  }

  result(): ActiveProducers {
    return this.producers;
  }
}
