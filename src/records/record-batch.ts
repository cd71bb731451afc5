/**
 * RecordBatch v2 (magic 2): header access, validation, base-offset restamping, and the
 * encoding/decoding of uncompressed records. Follows Kafka's `DefaultRecordBatch` and
 * `DefaultRecord` (`clients/.../common/record/`).
 *
 * Batch layout (byte offset: field):
 *   0 baseOffset int64 | 8 batchLength int32 (= total size - 12) | 12 partitionLeaderEpoch int32
 *   16 magic int8 (2) | 17 crc uint32 (CRC-32C of bytes 21..end) | 21 attributes int16
 *   23 lastOffsetDelta int32 | 27 baseTimestamp int64 | 35 maxTimestamp int64
 *   43 producerId int64 | 51 producerEpoch int16 | 53 baseSequence int32 | 57 recordCount int32
 *   61 records
 * baseOffset and partitionLeaderEpoch lie outside the CRC, so a log can restamp them in place.
 */
import { crc32c } from './crc32c.js';
import { RecordHeadStream } from './record-head-stream.js';
import { checkGzipRecords, nodeZlib } from './gzip-records.js';
import { TooLargeToRead, decompress, decompresses } from './decompress.js';
import { readInt64BE, writeInt64BE } from '../protocol/primitives.js';
import {
  readRecords,
  forEachRecordSpan,
  forEachRecordHead,
  writeRecords,
  encodedRecordsSize,
  recordTimestamps,
  CorruptRecordError,
  type RecordInput,
  type DecodedRecord,
} from './record-codec.js';

export { CorruptRecordError, IllegalRecordLengthError } from './record-codec.js';
export { DecompressionError } from './gzip-records.js';
export type { RecordInput, RecordHeader, DecodedRecord } from './record-codec.js';

/** Bytes before `batchLength`'s payload: baseOffset (8) + batchLength (4). Kafka's `LOG_OVERHEAD`. */
export const LOG_OVERHEAD = 12;
/** Size of the fixed v2 header; the first record starts here. Kafka's `RECORD_BATCH_OVERHEAD`. */
export const RECORD_BATCH_OVERHEAD = 61;
export const MAGIC_V2 = 2;

export const BASE_OFFSET_OFFSET = 0;
export const BATCH_LENGTH_OFFSET = 8;
export const PARTITION_LEADER_EPOCH_OFFSET = 12;
export const MAGIC_OFFSET = 16;
export const CRC_OFFSET = 17;
export const ATTRIBUTES_OFFSET = 21;
export const LAST_OFFSET_DELTA_OFFSET = 23;
export const BASE_TIMESTAMP_OFFSET = 27;
export const MAX_TIMESTAMP_OFFSET = 35;
export const PRODUCER_ID_OFFSET = 43;
export const PRODUCER_EPOCH_OFFSET = 51;
export const BASE_SEQUENCE_OFFSET = 53;
export const RECORD_COUNT_OFFSET = 57;

/** Attribute bits (Kafka's `DefaultRecordBatch` masks). */
export const COMPRESSION_CODEC_MASK = 0x07;
export const TIMESTAMP_TYPE_MASK = 0x08;
export const TRANSACTIONAL_FLAG_MASK = 0x10;
export const CONTROL_FLAG_MASK = 0x20;
export const DELETE_HORIZON_FLAG_MASK = 0x40;

/** Compression codecs by attribute value (Kafka's `CompressionType` ids). */
export const CompressionCodec = { NONE: 0, GZIP: 1, SNAPPY: 2, LZ4: 3, ZSTD: 4 } as const;

/** Every field of a v2 batch header. int64 fields are bigint; `crc` is unsigned. */
export interface RecordBatchHeader {
  baseOffset: bigint;
  /** Size of the batch minus LOG_OVERHEAD (12) bytes. */
  batchLength: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  lastOffsetDelta: number;
  /** Milliseconds since the epoch (CreateTime or LogAppendTime, see attributes bit 3). */
  baseTimestamp: bigint;
  maxTimestamp: bigint;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
}

/**
 * Reads the fixed header of the batch starting at `offset`. Does not check magic or CRC
 * (see validateBatch); throws RangeError if fewer than 61 bytes remain.
 */
export function readBatchHeader(buf: Buffer, offset = 0): RecordBatchHeader {
  if (offset + RECORD_BATCH_OVERHEAD > buf.length) {
    throw new RangeError(`record batch header needs ${RECORD_BATCH_OVERHEAD} bytes at ${offset}, have ${buf.length - offset}`);
  }
  return {
    baseOffset: readInt64BE(buf, offset + BASE_OFFSET_OFFSET),
    batchLength: buf.readInt32BE(offset + BATCH_LENGTH_OFFSET),
    partitionLeaderEpoch: buf.readInt32BE(offset + PARTITION_LEADER_EPOCH_OFFSET),
    magic: buf.readInt8(offset + MAGIC_OFFSET),
    crc: buf.readUInt32BE(offset + CRC_OFFSET),
    attributes: buf.readInt16BE(offset + ATTRIBUTES_OFFSET),
    lastOffsetDelta: buf.readInt32BE(offset + LAST_OFFSET_DELTA_OFFSET),
    baseTimestamp: readInt64BE(buf, offset + BASE_TIMESTAMP_OFFSET),
    maxTimestamp: readInt64BE(buf, offset + MAX_TIMESTAMP_OFFSET),
    producerId: readInt64BE(buf, offset + PRODUCER_ID_OFFSET),
    producerEpoch: buf.readInt16BE(offset + PRODUCER_EPOCH_OFFSET),
    baseSequence: buf.readInt32BE(offset + BASE_SEQUENCE_OFFSET),
    recordCount: buf.readInt32BE(offset + RECORD_COUNT_OFFSET),
  };
}

/** Why a batch was refused by validateBatch. */
export type BatchProblem = 'truncated' | 'invalid-length' | 'invalid-magic' | 'crc-mismatch';

export type BatchValidation =
  | { ok: true; /** Total bytes of the batch (batchLength + 12). */ size: number }
  | { ok: false; problem: BatchProblem; message: string };

/**
 * Checks the batch starting at `offset` (and ending at or before `end`): enough bytes for
 * its declared size, a batchLength covering at least the v2 header, magic 2, and the
 * CRC-32C over bytes 21..end of the batch. As Kafka's `DefaultRecordBatch.ensureValid`.
 */
export function validateBatch(buf: Buffer, offset = 0, end = buf.length): BatchValidation {
  const available = end - offset;
  if (available < LOG_OVERHEAD) {
    return { ok: false, problem: 'truncated', message: `only ${available} bytes left, a batch needs at least ${RECORD_BATCH_OVERHEAD}` };
  }
  const batchLength = buf.readInt32BE(offset + BATCH_LENGTH_OFFSET);
  if (batchLength < RECORD_BATCH_OVERHEAD - LOG_OVERHEAD) {
    return { ok: false, problem: 'invalid-length', message: `batch length ${batchLength} is smaller than the v2 header` };
  }
  const size = batchLength + LOG_OVERHEAD;
  if (available < RECORD_BATCH_OVERHEAD || size > available) {
    return { ok: false, problem: 'truncated', message: `batch of ${size} bytes but only ${available} bytes left` };
  }
  const magic = buf.readInt8(offset + MAGIC_OFFSET);
  if (magic !== MAGIC_V2) {
    return { ok: false, problem: 'invalid-magic', message: `magic ${magic}, expected ${MAGIC_V2}` };
  }
  const stored = buf.readUInt32BE(offset + CRC_OFFSET);
  const computed = crc32c(buf.subarray(offset + ATTRIBUTES_OFFSET, offset + size));
  if (stored !== computed) {
    return { ok: false, problem: 'crc-mismatch', message: `stored CRC ${hex(stored)} but computed ${hex(computed)}` };
  }
  return { ok: true, size };
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}

/** Total size in bytes of the batch at `offset` (batchLength + 12), without validation. */
export function batchSize(buf: Buffer, offset = 0): number {
  return buf.readInt32BE(offset + BATCH_LENGTH_OFFSET) + LOG_OVERHEAD;
}

/** The batch's base offset. */
export function batchBaseOffset(buf: Buffer, offset = 0): bigint {
  return readInt64BE(buf, offset + BASE_OFFSET_OFFSET);
}

/** The offset of the batch's last record: baseOffset + lastOffsetDelta. */
export function batchLastOffset(buf: Buffer, offset = 0): bigint {
  return readInt64BE(buf, offset + BASE_OFFSET_OFFSET) + BigInt(buf.readInt32BE(offset + LAST_OFFSET_DELTA_OFFSET));
}

/** Overwrites the base offset in place (outside the CRC, so the batch stays valid). */
export function restampBaseOffset(buf: Buffer, baseOffset: bigint, offset = 0): void {
  writeInt64BE(buf, baseOffset, offset + BASE_OFFSET_OFFSET);
}

/** Overwrites the partition leader epoch in place (outside the CRC). */
export function setPartitionLeaderEpoch(buf: Buffer, epoch: number, offset = 0): void {
  buf.writeInt32BE(epoch, offset + PARTITION_LEADER_EPOCH_OFFSET);
}

/**
 * Stamps a batch with LogAppendTime in place (Kafka's `setMaxTimestamp(LOG_APPEND_TIME, now)`): the
 * timestamp-type attribute bit, maxTimestamp = `now` (ms), and a new CRC. The records keep their
 * create-time deltas; readers take maxTimestamp for every record of such a batch.
 */
export function stampLogAppendTime(buf: Buffer, now: bigint, offset = 0): void {
  buf.writeInt16BE(buf.readInt16BE(offset + ATTRIBUTES_OFFSET) | TIMESTAMP_TYPE_MASK, offset + ATTRIBUTES_OFFSET);
  writeInt64BE(buf, now, offset + MAX_TIMESTAMP_OFFSET);
  const size = batchSize(buf, offset);
  buf.writeUInt32BE(crc32c(buf.subarray(offset + ATTRIBUTES_OFFSET, offset + size)), offset + CRC_OFFSET);
}

/**
 * A CreateTime topic's restamp of a client's batch (Kafka's `DefaultRecordBatch.setMaxTimestamp`
 * with CREATE_TIME, from `LogValidator`): the timestamp type cleared and the max timestamp set to
 * `maxTimestamp` (its records' largest, -1 when none has one); the CRC recomputed only when either
 * changed, as Kafka's.
 */
export function stampCreateTime(buf: Buffer, maxTimestamp: bigint, offset = 0): void {
  const attributes = buf.readInt16BE(offset + ATTRIBUTES_OFFSET);
  if ((attributes & TIMESTAMP_TYPE_MASK) === 0 && readInt64BE(buf, offset + MAX_TIMESTAMP_OFFSET) === maxTimestamp) return;
  buf.writeInt16BE(attributes & ~TIMESTAMP_TYPE_MASK, offset + ATTRIBUTES_OFFSET);
  writeInt64BE(buf, maxTimestamp, offset + MAX_TIMESTAMP_OFFSET);
  const size = batchSize(buf, offset);
  buf.writeUInt32BE(crc32c(buf.subarray(offset + ATTRIBUTES_OFFSET, offset + size)), offset + CRC_OFFSET);
}

/** The compression codec id of an attributes value (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd). */
export function compressionCodec(attributes: number): number {
  return attributes & COMPRESSION_CODEC_MASK;
}

export interface EncodeBatchOptions {
  baseOffset: bigint;
  /** Timestamp (ms) of every record that does not carry its own; the batch's base timestamp. */
  timestamp: bigint;
  records: readonly RecordInput[];
  producerId?: bigint;
  producerEpoch?: number;
  baseSequence?: number;
  /** Batch attributes without compression bits (timestamp type, transactional, control). */
  attributes?: number;
  partitionLeaderEpoch?: number;
}

/**
 * Encodes an uncompressed v2 batch (as Kafka's `MemoryRecordsBuilder` with
 * `CompressionType.NONE`): offset deltas 0..n-1, timestamp deltas against `timestamp`,
 * maxTimestamp the largest record timestamp, CRC-32C filled in. Throws RangeError for an
 * empty record list or compression bits in `attributes`.
 */
export function encodeRecordBatch(options: EncodeBatchOptions): Buffer {
  const { baseOffset, timestamp, records } = options;
  const attributes = options.attributes ?? 0;
  if (records.length === 0) throw new RangeError('a record batch needs at least one record');
  if ((attributes & COMPRESSION_CODEC_MASK) !== 0) throw new RangeError('encodeRecordBatch writes uncompressed batches only');
  let maxTimestamp = timestamp;
  for (const r of records) if (r.timestamp !== undefined && r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;
  const recordsSize = encodedRecordsSize(records, timestamp);
  const size = RECORD_BATCH_OVERHEAD + recordsSize;
  const buf = Buffer.allocUnsafe(size);
  writeInt64BE(buf, baseOffset, BASE_OFFSET_OFFSET);
  buf.writeInt32BE(size - LOG_OVERHEAD, BATCH_LENGTH_OFFSET);
  buf.writeInt32BE(options.partitionLeaderEpoch ?? -1, PARTITION_LEADER_EPOCH_OFFSET);
  buf.writeInt8(MAGIC_V2, MAGIC_OFFSET);
  buf.writeInt16BE(attributes, ATTRIBUTES_OFFSET);
  buf.writeInt32BE(records.length - 1, LAST_OFFSET_DELTA_OFFSET);
  writeInt64BE(buf, timestamp, BASE_TIMESTAMP_OFFSET);
  writeInt64BE(buf, maxTimestamp, MAX_TIMESTAMP_OFFSET);
  writeInt64BE(buf, options.producerId ?? -1n, PRODUCER_ID_OFFSET);
  buf.writeInt16BE(options.producerEpoch ?? -1, PRODUCER_EPOCH_OFFSET);
  buf.writeInt32BE(options.baseSequence ?? -1, BASE_SEQUENCE_OFFSET);
  buf.writeInt32BE(records.length, RECORD_COUNT_OFFSET);
  const end = writeRecords(buf, RECORD_BATCH_OVERHEAD, records, timestamp);
  if (end !== size) throw new Error(`record batch encoder wrote ${end} bytes, expected ${size}`);
  buf.writeUInt32BE(crc32c(buf.subarray(ATTRIBUTES_OFFSET)), CRC_OFFSET);
  return buf;
}

/**
 * Decodes the records of an uncompressed v2 batch (the first batch in `batch`). Keys,
 * values and header values are views into `batch`, not copies. Offsets are absolute
 * (baseOffset + offsetDelta); timestamps are absolute, and for a LogAppendTime batch
 * every record gets the batch's maxTimestamp. Throws CorruptRecordError for a
 * compressed batch or records that do not parse.
 */
export function decodeRecords(batch: Buffer): DecodedRecord[] {
  const header = readBatchHeader(batch);
  const end = uncompressedRecordsEnd(batch, header.attributes, header.batchLength, 'decodeRecords');
  const logAppendTime = (header.attributes & TIMESTAMP_TYPE_MASK) !== 0 ? header.maxTimestamp : null;
  try {
    return readRecords(batch, RECORD_BATCH_OVERHEAD, end, header.recordCount, header.baseOffset, header.baseTimestamp, logAppendTime);
  } catch (err) {
    if (err instanceof CorruptRecordError) throw err;
    throw new CorruptRecordError(`records of batch at offset ${header.baseOffset} do not parse: ${(err as Error).message}`);
  }
}

/** Where the records of an uncompressed batch end; throws CorruptRecordError for a compressed or cut batch. */
function uncompressedRecordsEnd(batch: Buffer, attributes: number, batchLength: number, reader: string): number {
  const codec = compressionCodec(attributes);
  if (codec !== CompressionCodec.NONE) {
    throw new CorruptRecordError(`${reader} reads uncompressed batches only; this batch uses compression codec ${codec}`);
  }
  const end = batchLength + LOG_OVERHEAD;
  if (end > batch.length) throw new CorruptRecordError(`batch of ${end} bytes is cut short at ${batch.length}`);
  return end;
}

/**
 * The keys and values of an uncompressed v2 batch as byte ranges of `batch` (see
 * `forEachRecordSpan`), for readers that decode fields in place (coordinator log replay, the log
 * cleaner's passes); the batches and CorruptRecordError cases `decodeRecords` accepts and throws.
 * Reads only the header fields it needs (no BigInt).
 */
export function forEachRecordSpanOfBatch(
  batch: Buffer,
  visit: (keyStart: number, keyEnd: number, valueStart: number, valueEnd: number, offsetDelta: number) => void,
): void {
  if (batch.length < RECORD_BATCH_OVERHEAD) throw new CorruptRecordError(`batch of ${batch.length} bytes is shorter than its header`);
  const end = uncompressedRecordsEnd(batch, batch.readInt16BE(ATTRIBUTES_OFFSET), batch.readInt32BE(BATCH_LENGTH_OFFSET), 'forEachRecordSpanOfBatch');
  forEachRecordSpan(batch, RECORD_BATCH_OVERHEAD, end, batch.readInt32BE(RECORD_COUNT_OFFSET), visit);
}

/**
 * Inflated bytes up to which the readers below gunzip a stored batch whole (ListOffsets by
 * timestamp, control records); a batch inflating to more reads as one they cannot decompress.
 */
export const READ_INFLATE_LIMIT = 64 * 1024 * 1024;

/**
 * The record bytes of an uncompressed batch (a range of `batch`), a gzip one (decompressed with
 * node:zlib, at most READ_INFLATE_LIMIT bytes: more throws CorruptRecordError) or a snappy, lz4 or
 * zstd one (decompress.ts, at most its DECOMPRESS_LIMIT; bytes that do not decompress throw
 * CorruptRecordError); null for a snappy, lz4 or zstd batch decompressing to more, or an unknown codec.
 */
function readableRecordBytes(batch: Buffer, header: RecordBatchHeader): { body: Buffer; start: number; end: number } | null {
  const end = header.batchLength + LOG_OVERHEAD;
  const codec = compressionCodec(header.attributes);
  switch (codec) {
    case CompressionCodec.NONE:
      // A batch cut short is read as far as it goes.
      return { body: batch, start: RECORD_BATCH_OVERHEAD, end: Math.min(end, batch.length) };
    case CompressionCodec.GZIP: {
      let body: Buffer;
      try {
        body = nodeZlib().gunzipSync(batch.subarray(RECORD_BATCH_OVERHEAD, end), { maxOutputLength: READ_INFLATE_LIMIT });
      } catch (err) {
        throw new CorruptRecordError(`gzip records of batch at offset ${header.baseOffset} do not inflate within ${READ_INFLATE_LIMIT} bytes: ${(err as Error).message}`);
      }
      return { body, start: 0, end: body.length };
    }
    default: {
      let body: Buffer | null;
      try {
        body = decompressedRecords(batch, codec, end);
      } catch (err) {
        throw new CorruptRecordError(`records of batch at offset ${header.baseOffset}: ${(err as Error).message}`);
      }
      return body === null ? null : { body, start: 0, end: body.length };
    }
  }
}

/**
 * The decompressed records of a snappy, lz4 or zstd batch (decompress.ts); null for one
 * decompressing to more than DECOMPRESS_LIMIT and for codecs not read. Throws DecompressionError.
 */
function decompressedRecords(batch: Buffer, codec: number, end: number): Buffer | null {
  if (!decompresses(codec)) return null;
  try {
    return decompress(codec, batch.subarray(RECORD_BATCH_OVERHEAD, end));
  } catch (err) {
    if (err instanceof TooLargeToRead) return null;
    throw err;
  }
}

/**
 * The records of a batch (decompressed as `readableRecordBytes` reads it), as `decodeRecords`
 * gives them; null for one it does not read (a snappy, lz4 or zstd batch decompressing to more
 * than DECOMPRESS_LIMIT). Throws CorruptRecordError for records that do not parse.
 */
export function decodeRecordsIfReadable(batch: Buffer): DecodedRecord[] | null {
  const header = readBatchHeader(batch);
  if (compressionCodec(header.attributes) === CompressionCodec.NONE) return decodeRecords(batch);
  const readable = readableRecordBytes(batch, header);
  if (readable === null) return null;
  const logAppendTime = (header.attributes & TIMESTAMP_TYPE_MASK) !== 0 ? header.maxTimestamp : null;
  return readRecords(readable.body, readable.start, readable.end, header.recordCount, header.baseOffset, header.baseTimestamp, logAppendTime);
}

/**
 * Visits every record of a produced batch (validated by `validateBatch`) with its
 * index, offset, timestamp (ms; a LogAppendTime batch's maxTimestamp for each; the create time only
 * when `withTimestamps`, else the base timestamp) and whether its key is null, making no record
 * objects or views, and checks the records' structure as Kafka 4.3's `LogValidator` reads them:
 *   uncompressed: `DefaultRecord.readFrom` (`forEachRecordHead`): a malformed record throws
 *     CorruptRecordError (Kafka's InvalidRecordException, INVALID_RECORD), a record length varint past
 *     5 bytes IllegalRecordLengthError (UNKNOWN_SERVER_ERROR);
 *   gzip: `DefaultRecord.readPartiallyFrom` over the inflating stream (RecordHeadStream,
 *     checkGzipRecords: record lengths are not checked against the fields), CorruptRecordError as
 *     above, DecompressionError (UNKNOWN_SERVER_ERROR) when the bytes do not inflate;
 *   snappy, lz4, zstd: the same over the bytes decompress.ts gives (DecompressionError for bytes
 *     that do not decompress).
 * Records before a malformed one are visited. Returns false, visiting nothing, for a snappy, lz4 or
 * zstd batch decompressing to more than DECOMPRESS_LIMIT (stored unchecked) and unknown codecs;
 * true when done synchronously; a promise of true when a big gzip batch streams (see
 * gzip-records.ts), rejecting as above.
 */
export function forEachProducedRecordHead(
  batch: Buffer,
  withTimestamps: boolean,
  visit: (index: number, offset: () => bigint, timestamp: bigint, keyNull: boolean) => void,
): boolean | Promise<boolean> {
  const header = readBatchHeader(batch);
  const logAppendTime = (header.attributes & TIMESTAMP_TYPE_MASK) !== 0 ? header.maxTimestamp : null;
  const { baseOffset, baseTimestamp } = header;
  const head = (i: number, timestampDelta: bigint, offsetDelta: number, keyNull: boolean): void =>
    visit(i, () => baseOffset + BigInt(offsetDelta), logAppendTime ?? (timestampDelta === 0n ? baseTimestamp : baseTimestamp + timestampDelta), keyNull);
  const end = header.batchLength + LOG_OVERHEAD;
  switch (compressionCodec(header.attributes)) {
    case CompressionCodec.NONE:
      forEachRecordHead(batch, RECORD_BATCH_OVERHEAD, end, header.recordCount, withTimestamps && logAppendTime === null, head);
      return true;
    case CompressionCodec.GZIP: {
      const records = new RecordHeadStream(header.recordCount, withTimestamps && logAppendTime === null, head);
      const done = checkGzipRecords(batch.subarray(RECORD_BATCH_OVERHEAD, end), records);
      return done === undefined ? true : done.then(() => true);
    }
    default: {
      const body = decompressedRecords(batch, compressionCodec(header.attributes), end);
      if (body === null) return false;
      // As Kafka reads a compressed batch (`readPartiallyFrom`, like gzip's): record heads only.
      const records = new RecordHeadStream(header.recordCount, withTimestamps && logAppendTime === null, head);
      records.push(body);
      records.finish();
      return true;
    }
  }
}

/**
 * Offset and timestamp (ms) of every record of the batch, in order, without decoding keys
 * and values; null for a batch `readableRecordBytes` does not read.
 */
export function recordOffsetsAndTimestamps(batch: Buffer): Array<{ offset: bigint; timestamp: bigint }> | null {
  const header = readBatchHeader(batch);
  const readable = readableRecordBytes(batch, header);
  if (readable === null) return null;
  const logAppendTime = (header.attributes & TIMESTAMP_TYPE_MASK) !== 0;
  const out: Array<{ offset: bigint; timestamp: bigint }> = [];
  for (const r of recordTimestamps(readable.body, readable.start, readable.end, header.recordCount, header.baseOffset, header.baseTimestamp)) {
    out.push(logAppendTime ? { offset: r.offset, timestamp: header.maxTimestamp } : r);
  }
  return out;
}
