/**
 * Rewriting of one RecordBatch v2 by the log cleaner, as Kafka's `MemoryRecords.filterTo`
 * with `buildRetainedRecordsInto` (clients/.../common/record/MemoryRecords.java):
 *   - all records kept and no delete horizon to stamp -> the original bytes, untouched;
 *   - some records kept -> a new uncompressed batch with the same base offset, last offset
 *     delta (`overrideLastOffset`), partition leader epoch, producer id/epoch/base sequence
 *     and attributes; each record keeps its offset delta (so its absolute offset) and its
 *     absolute timestamp; the CRC is recomputed;
 *   - no records kept -> dropped, or an empty header-only batch when the caller must keep
 *     the batch's offsets (Kafka's `BatchRetention.RETAIN_EMPTY`).
 *
 * Delete horizon (KIP-534): when a kept batch holds a tombstone and has no horizon yet, the
 * horizon (cleaning time + delete.retention.ms) is stamped: attribute bit 6 is set and the
 * batch's base timestamp becomes the horizon, record timestamp deltas being rewritten
 * against it (`MemoryRecordsBuilder` sets `baseTimestamp = deleteHorizonMs`). A batch that
 * already has a horizon keeps it. Without a horizon the base timestamp is the first kept
 * record's timestamp, as the builder does.
 */
import {
  RECORD_BATCH_OVERHEAD,
  LOG_OVERHEAD,
  BASE_OFFSET_OFFSET,
  BATCH_LENGTH_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  MAGIC_OFFSET,
  CRC_OFFSET,
  ATTRIBUTES_OFFSET,
  LAST_OFFSET_DELTA_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  PRODUCER_ID_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  BASE_SEQUENCE_OFFSET,
  RECORD_COUNT_OFFSET,
  MAGIC_V2,
  COMPRESSION_CODEC_MASK,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
  CONTROL_FLAG_MASK,
  DELETE_HORIZON_FLAG_MASK,
  type DecodedRecord,
} from '../records/record-batch.js';
import { crc32c } from '../records/crc32c.js';

/** The delete horizon (ms) of a batch, or null when bit 6 of its attributes is clear. */
export function batchDeleteHorizon(batch: Buffer): bigint | null {
  const attributes = batch.readInt16BE(ATTRIBUTES_OFFSET);
  return (attributes & DELETE_HORIZON_FLAG_MASK) !== 0 ? batch.readBigInt64BE(BASE_TIMESTAMP_OFFSET) : null;
}

/**
 * A batch holding `records` (a subset of `original`'s, in order), with `deleteHorizon`
 * stamped when not null. Every other header field is carried over from `original`.
 */
export function rebuildBatch(original: Buffer, records: readonly DecodedRecord[], deleteHorizon: bigint | null): Buffer {
  if (records.length === 0) throw new RangeError('rebuildBatch needs at least one record; use emptyBatchLike');
  const baseOffset = original.readBigInt64BE(BASE_OFFSET_OFFSET);
  const originalAttributes = original.readInt16BE(ATTRIBUTES_OFFSET);
  const logAppendTime = (originalAttributes & TIMESTAMP_TYPE_MASK) !== 0;
  let attributes = originalAttributes & ~COMPRESSION_CODEC_MASK & ~DELETE_HORIZON_FLAG_MASK;
  if (deleteHorizon !== null) attributes |= DELETE_HORIZON_FLAG_MASK;
  const baseTimestamp = deleteHorizon ?? records[0]!.timestamp;
  let maxTimestamp = logAppendTime ? original.readBigInt64BE(MAX_TIMESTAMP_OFFSET) : records[0]!.timestamp;
  if (!logAppendTime) for (const r of records) if (r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;

  const bodies = records.map((r) => encodeRecordBody(r, Number(r.offset - baseOffset), r.timestamp - baseTimestamp));
  let size = RECORD_BATCH_OVERHEAD;
  for (const b of bodies) size += varintBytes(zigzag32(b.length)).length + b.length;
  const buf = Buffer.allocUnsafe(size);
  writeHeader(buf, original, size, attributes, baseTimestamp, maxTimestamp, records.length);
  let at = RECORD_BATCH_OVERHEAD;
  for (const b of bodies) {
    const len = varintBytes(zigzag32(b.length));
    len.copy(buf, at);
    at += len.length;
    b.copy(buf, at);
    at += b.length;
  }
  buf.writeUInt32BE(crc32c(buf.subarray(ATTRIBUTES_OFFSET)), CRC_OFFSET);
  return buf;
}

/**
 * A header-only batch with no records that keeps `original`'s offsets, producer fields and
 * max timestamp (Kafka's `DefaultRecordBatch.writeEmptyHeader` under RETAIN_EMPTY).
 */
export function emptyBatchLike(original: Buffer): Buffer {
  const buf = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD);
  const attributes = original.readInt16BE(ATTRIBUTES_OFFSET) & (TIMESTAMP_TYPE_MASK | TRANSACTIONAL_FLAG_MASK | CONTROL_FLAG_MASK);
  const maxTimestamp = original.readBigInt64BE(MAX_TIMESTAMP_OFFSET);
  writeHeader(buf, original, RECORD_BATCH_OVERHEAD, attributes, maxTimestamp, maxTimestamp, 0);
  buf.writeUInt32BE(crc32c(buf.subarray(ATTRIBUTES_OFFSET)), CRC_OFFSET);
  return buf;
}

function writeHeader(
  buf: Buffer,
  original: Buffer,
  size: number,
  attributes: number,
  baseTimestamp: bigint,
  maxTimestamp: bigint,
  recordCount: number,
): void {
  buf.writeBigInt64BE(original.readBigInt64BE(BASE_OFFSET_OFFSET), BASE_OFFSET_OFFSET);
  buf.writeInt32BE(size - LOG_OVERHEAD, BATCH_LENGTH_OFFSET);
  buf.writeInt32BE(original.readInt32BE(PARTITION_LEADER_EPOCH_OFFSET), PARTITION_LEADER_EPOCH_OFFSET);
  buf.writeInt8(MAGIC_V2, MAGIC_OFFSET);
  buf.writeUInt32BE(0, CRC_OFFSET);
  buf.writeInt16BE(attributes, ATTRIBUTES_OFFSET);
  buf.writeInt32BE(original.readInt32BE(LAST_OFFSET_DELTA_OFFSET), LAST_OFFSET_DELTA_OFFSET);
  buf.writeBigInt64BE(baseTimestamp, BASE_TIMESTAMP_OFFSET);
  buf.writeBigInt64BE(maxTimestamp, MAX_TIMESTAMP_OFFSET);
  buf.writeBigInt64BE(original.readBigInt64BE(PRODUCER_ID_OFFSET), PRODUCER_ID_OFFSET);
  buf.writeInt16BE(original.readInt16BE(PRODUCER_EPOCH_OFFSET), PRODUCER_EPOCH_OFFSET);
  buf.writeInt32BE(original.readInt32BE(BASE_SEQUENCE_OFFSET), BASE_SEQUENCE_OFFSET);
  buf.writeInt32BE(recordCount, RECORD_COUNT_OFFSET);
}

/** One record's body (everything after its length varint), as Kafka's `DefaultRecord.writeTo`. */
function encodeRecordBody(r: DecodedRecord, offsetDelta: number, timestampDelta: bigint): Buffer {
  const parts: Buffer[] = [Buffer.of(r.attributes & 0xff), varintBytes(zigzag64(timestampDelta)), varintBytes(zigzag32(offsetDelta))];
  pushBytesField(parts, r.key);
  pushBytesField(parts, r.value);
  parts.push(varintBytes(zigzag32(r.headers.length)));
  for (const h of r.headers) {
    pushBytesField(parts, Buffer.from(h.key, 'utf8'));
    pushBytesField(parts, h.value);
  }
  return Buffer.concat(parts);
}

function pushBytesField(parts: Buffer[], b: Buffer | null): void {
  if (b === null) {
    parts.push(varintBytes(zigzag32(-1)));
    return;
  }
  parts.push(varintBytes(zigzag32(b.length)), b);
}

function zigzag32(v: number): bigint {
  return BigInt(v >= 0 ? v * 2 : -v * 2 - 1);
}

function zigzag64(v: bigint): bigint {
  return BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
}

/** Unsigned LEB128 bytes of `u` (u >= 0). */
function varintBytes(u: bigint): Buffer {
  const out: number[] = [];
  while (u >= 0x80n) {
    out.push(Number(u & 0x7fn) | 0x80);
    u >>= 7n;
  }
  out.push(Number(u));
  return Buffer.from(out);
}
