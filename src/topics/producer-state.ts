/**
 * Per-partition idempotent producer state, as Kafka's `ProducerStateManager` and
 * `ProducerAppendInfo`: for each producer id the current epoch and the sequence ranges
 * and offsets of its last 5 batches, so a retried batch is recognised and answered with
 * its original offset instead of being appended twice.
 */
import { ErrorCode } from '../protocol/errors.js';

/** Kafka keeps this many batches per producer (`ProducerStateEntry.NUM_BATCHES_TO_RETAIN`). */
export const NUM_BATCHES_TO_RETAIN = 5;
const INT32_MAX = 2147483647;

/** What an appended batch of a producer covered. */
export interface ProducerBatch {
  firstSeq: number;
  lastSeq: number;
  baseOffset: bigint;
  lastOffset: bigint;
}

interface ProducerEntry {
  epoch: number;
  batches: ProducerBatch[];
}

/** The producer fields of a batch header. */
export interface ProducerBatchInfo {
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  lastOffsetDelta: number;
}

export type SequenceCheck =
  | { kind: 'append' }
  | { kind: 'duplicate'; batch: ProducerBatch }
  | { kind: 'error'; errorCode: number; message: string };

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

export class ProducerStateTable {
  private readonly producers = new Map<bigint, ProducerEntry>();

  /**
   * Checks a batch about to be appended: a duplicate of one of the last 5 batches of the
   * same epoch; an epoch older than the last seen (INVALID_PRODUCER_EPOCH); a new epoch
   * not starting at sequence 0 or a gap in sequences (OUT_OF_ORDER_SEQUENCE_NUMBER).
   * A producer with no state here is accepted at any sequence, as Kafka does since KIP-360.
   */
  check(info: ProducerBatchInfo, where: string): SequenceCheck {
    if (!isIdempotent(info)) return { kind: 'append' };
    const entry = this.producers.get(info.producerId);
    if (entry === undefined) return { kind: 'append' };
    const firstSeq = info.baseSequence;
    const lastSeq = incrementSequence(firstSeq, info.lastOffsetDelta);
    if (info.producerEpoch === entry.epoch) {
      const dup = entry.batches.find((b) => b.firstSeq === firstSeq && b.lastSeq === lastSeq);
      if (dup) return { kind: 'duplicate', batch: dup };
    }
    if (info.producerEpoch < entry.epoch) {
      return {
        kind: 'error',
        errorCode: ErrorCode.INVALID_PRODUCER_EPOCH,
        message: `Epoch of producer ${info.producerId} in ${where} is ${info.producerEpoch}, which is smaller than the last seen epoch ${entry.epoch}`,
      };
    }
    if (info.producerEpoch > entry.epoch) {
      if (firstSeq !== 0) {
        return {
          kind: 'error',
          errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
          message: `Invalid sequence number for new epoch of producer ${info.producerId} in ${where}: ${info.producerEpoch} (request epoch), ${firstSeq} (seq. number), ${entry.epoch} (current producer epoch)`,
        };
      }
      return { kind: 'append' };
    }
    const last = entry.batches[entry.batches.length - 1];
    if (last !== undefined && !inSequence(last.lastSeq, firstSeq)) {
      return {
        kind: 'error',
        errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
        message: `Out of order sequence number for producer ${info.producerId} in ${where}: ${firstSeq} (incoming seq. number), ${last.lastSeq} (current end sequence number)`,
      };
    }
    return { kind: 'append' };
  }

  /** Records an appended batch at [baseOffset, baseOffset + lastOffsetDelta]. */
  update(info: ProducerBatchInfo, baseOffset: bigint): void {
    if (!isIdempotent(info)) return;
    let entry = this.producers.get(info.producerId);
    if (entry === undefined || info.producerEpoch !== entry.epoch) {
      entry = { epoch: info.producerEpoch, batches: [] };
      this.producers.set(info.producerId, entry);
    }
    entry.batches.push({
      firstSeq: info.baseSequence,
      lastSeq: incrementSequence(info.baseSequence, info.lastOffsetDelta),
      baseOffset,
      lastOffset: baseOffset + BigInt(info.lastOffsetDelta),
    });
    if (entry.batches.length > NUM_BATCHES_TO_RETAIN) entry.batches.shift();
  }

  /** Forgets every producer (before a rebuild from the log). */
  clear(): void {
    this.producers.clear();
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
