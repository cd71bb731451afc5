/**
 * Control batches carrying an end-transaction marker (Kafka's `MemoryRecords.withEndTransactionMarker`,
 * `EndTransactionMarker`, `ControlRecordType`): one record whose key is the version-prefixed
 * `ControlRecordTypeSchema` (int16 version 0, int16 type: 0 ABORT, 1 COMMIT) and whose value is the
 * version-prefixed `EndTxnMarker` (int16 version 0, int32 coordinator epoch). The batch is
 * transactional and control (attributes 0x30), CreateTime, uncompressed, baseSequence -1.
 */
import { Reader, Writer } from '../protocol/primitives.js';
import * as ControlRecordTypeSchema from './schemas/ControlRecordTypeSchema.js';
import * as EndTxnMarkerSchema from './schemas/EndTxnMarker.js';
import {
  ATTRIBUTES_OFFSET,
  CONTROL_FLAG_MASK,
  TRANSACTIONAL_FLAG_MASK,
  decodeRecordsIfReadable,
  encodeRecordBatch,
} from './record-batch.js';

/** Kafka's `ControlRecordType` ids. */
export const ControlRecordType = { ABORT: 0, COMMIT: 1 } as const;

/** The marker an end-transaction control record carries. */
export interface EndTxnMarker {
  /** COMMIT (true) or ABORT (false). */
  commit: boolean;
  coordinatorEpoch: number;
}

/** What a control record's key says: its type id (0 ABORT, 1 COMMIT, others unknown to Kafka too). */
export function controlRecordType(key: Buffer | null): number | null {
  if (key === null || key.length < 4) return null;
  return key.readInt16BE(2);
}

/** Whether the batch at the start of `batch` is a control batch. */
export function isControlBatch(batch: Buffer): boolean {
  return (batch.readInt16BE(ATTRIBUTES_OFFSET) & CONTROL_FLAG_MASK) !== 0;
}

/** Whether the batch at the start of `batch` is transactional (data or control). */
export function isTransactionalBatch(batch: Buffer): boolean {
  return (batch.readInt16BE(ATTRIBUTES_OFFSET) & TRANSACTIONAL_FLAG_MASK) !== 0;
}

/**
 * The end-transaction marker of a control batch; null when the batch holds no record (the cleaner
 * emptied it, as Kafka's), the key is not COMMIT/ABORT, or the records cannot be read.
 */
export function readEndTxnMarker(batch: Buffer): EndTxnMarker | null {
  const first = decodeRecordsIfReadable(batch)?.[0];
  return first === undefined ? null : decodeEndTxnMarker(first.key, first.value);
}

/** The end-transaction marker of a control record's key and value; null when it is not COMMIT/ABORT or too short. */
export function decodeEndTxnMarker(key: Buffer | null, value: Buffer | null): EndTxnMarker | null {
  const type = controlRecordType(key);
  if (type !== ControlRecordType.ABORT && type !== ControlRecordType.COMMIT) return null;
  if (value === null || value.length < 6) return null;
  const r = new Reader(value, 2);
  return { commit: type === ControlRecordType.COMMIT, coordinatorEpoch: EndTxnMarkerSchema.decode(r, 0).coordinatorEpoch };
}

/** Kafka's `ControlRecordType` names by id (for tools). */
export const CONTROL_TYPE_NAMES: Readonly<Record<number, string>> = {
  0: 'ABORT',
  1: 'COMMIT',
  2: 'LEADER_CHANGE',
  3: 'SNAPSHOT_HEADER',
  4: 'SNAPSHOT_FOOTER',
  5: 'KRAFT_VERSION',
  6: 'KRAFT_VOTERS',
};

export interface EndTxnMarkerBatchOptions {
  producerId: bigint;
  producerEpoch: number;
  marker: EndTxnMarker;
  /** Record and batch timestamp (ms): Kafka stamps the writing broker's clock. */
  timestamp: bigint;
  baseOffset?: bigint;
  partitionLeaderEpoch?: number;
}

/** Encodes the control batch of one end-transaction marker. */
export function encodeEndTxnMarkerBatch(options: EndTxnMarkerBatchOptions): Buffer {
  const key = new Writer(8);
  key.int16(0);
  ControlRecordTypeSchema.encode(key, 0, { type: options.marker.commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT });
  const value = new Writer(8);
  value.int16(0);
  EndTxnMarkerSchema.encode(value, 0, { coordinatorEpoch: options.marker.coordinatorEpoch });
  return encodeRecordBatch({
    baseOffset: options.baseOffset ?? 0n,
    timestamp: options.timestamp,
    records: [{ key: Buffer.from(key.finish()), value: Buffer.from(value.finish()) }],
    producerId: options.producerId,
    producerEpoch: options.producerEpoch,
    baseSequence: -1,
    attributes: TRANSACTIONAL_FLAG_MASK | CONTROL_FLAG_MASK,
    partitionLeaderEpoch: options.partitionLeaderEpoch ?? -1,
  });
}
