/**
 * Transaction markers (Kafka's `EndTransactionMarker`, `ControlRecordType`, `ControlRecordUtils`):
 * a control batch (attributes transactional + control) of the producer holding one record whose
 * key is ControlRecordTypeSchema (int16 version 0, int16 type: 0 ABORT, 1 COMMIT) and whose value
 * is EndTxnMarker (int16 version 0, int32 coordinator epoch).
 */
import { Reader, Writer } from '../protocol/primitives.js';
import * as ControlRecordTypeSchema from './schemas/ControlRecordTypeSchema.js';
import * as EndTxnMarker from './schemas/EndTxnMarker.js';
import { CONTROL_FLAG_MASK, TRANSACTIONAL_FLAG_MASK, decodeRecords, encodeRecordBatch, readBatchHeader } from './record-batch.js';

/** `ControlRecordType` ids. */
export const ControlRecordType = { ABORT: 0, COMMIT: 1 } as const;

export interface EndTxnMarkerBatch {
  producerId: bigint;
  producerEpoch: number;
  marker: { commit: boolean; coordinatorEpoch: number };
  /** ms */
  timestamp: bigint;
  partitionLeaderEpoch?: number;
}

/** The control batch of a COMMIT or ABORT marker (base offset 0: the log stamps it). */
export function encodeEndTxnMarkerBatch(m: EndTxnMarkerBatch): Buffer {
  const key = new Writer(4);
  key.int16(0);
  ControlRecordTypeSchema.encode(key, 0, { type: m.marker.commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT });
  const value = new Writer(6);
  value.int16(0);
  EndTxnMarker.encode(value, 0, { coordinatorEpoch: m.marker.coordinatorEpoch });
  return encodeRecordBatch({
    baseOffset: 0n,
    timestamp: m.timestamp,
    records: [{ key: key.finish(), value: value.finish() }],
    producerId: m.producerId,
    producerEpoch: m.producerEpoch,
    attributes: TRANSACTIONAL_FLAG_MASK | CONTROL_FLAG_MASK,
    ...(m.partitionLeaderEpoch !== undefined ? { partitionLeaderEpoch: m.partitionLeaderEpoch } : {}),
  });
}

/** A control batch's marker: COMMIT or ABORT, or null for another control type (or no record). */
export function readEndTxnMarker(batch: Buffer): { commit: boolean; coordinatorEpoch: number } | null {
  const record = decodeRecords(batch)[0];
  if (!record?.key) return null;
  const kr = new Reader(record.key);
  kr.int16();
  const { type } = ControlRecordTypeSchema.decode(kr, 0);
  if (type !== ControlRecordType.ABORT && type !== ControlRecordType.COMMIT) return null;
  let coordinatorEpoch = -1;
  if (record.value) {
    const vr = new Reader(record.value);
    vr.int16();
    coordinatorEpoch = EndTxnMarker.decode(vr, 0).coordinatorEpoch;
  }
  return { commit: type === ControlRecordType.COMMIT, coordinatorEpoch };
}

/** Whether the batch is a control batch. */
export function isControlBatch(batch: Buffer): boolean {
  return (readBatchHeader(batch).attributes & CONTROL_FLAG_MASK) !== 0;
}
