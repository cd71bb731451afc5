/**
 * Checks the batch of one partition in a Produce request before anything is appended, in Kafka's
 * order (`ProduceRequest.validateRecords` over `ByteBufferLogInputStream`, then
 * `UnifiedLog.analyzeAndValidateRecords` and `LogValidator.validateBatch`):
 *   no complete batch / a first batch of magic 0 or 1 / a second complete batch  -> INVALID_RECORD (87)
 *   a record size below 14 or a magic outside 0-2 (first batch or the next)      -> CORRUPT_MESSAGE (2)
 *   zstd below Produce v7                                                        -> UNSUPPORTED_COMPRESSION_TYPE (76)
 *   a base offset other than 0                                                   -> INVALID_RECORD (87)
 *   batch larger than message.max.bytes                                          -> MESSAGE_TOO_LARGE (10)
 *   bad batch length or CRC-32C mismatch                                         -> CORRUPT_MESSAGE (2)
 *   compression codec 5-7                                                        -> UNKNOWN_SERVER_ERROR (-1)
 *   control batch / producer id with a negative base sequence / inconsistent count -> INVALID_RECORD (87)
 * Bytes after the batch too few to be another one (under 12, or under the size they announce) are
 * dropped, as Kafka's `UnifiedLog.trimInvalidBytes` drops them. The records inside are checked
 * afterwards, with the topic's record rules, in one walk (record-rules.ts).
 *
 * Kafka answers none of these with a message (KafkaApis answers `new PartitionResponse(error)`;
 * ReplicaManager.appendToLocalLog sets `hasCustomErrorMessage` only for a `RecordValidationException`).
 * The log start offset is -1 for what KafkaApis refuses and for the log's `RecordTooLargeException`
 * and `CorruptRecordException` (`LogAppendInfo.UNKNOWN_LOG_APPEND_INFO`), and the partition's for any
 * other exception of the log append (`unknownLogAppendInfoWithLogStartOffset`): LogValidator's
 * `InvalidRecordException`s and the unknown codec's `IllegalArgumentException`. A first batch whose
 * size or magic Kafka's reader refuses fails the whole request before (`firstBatchesCorruption`).
 */
import { ErrorCode } from '../protocol/errors.js';
import {
  ATTRIBUTES_OFFSET,
  BATCH_LENGTH_OFFSET,
  CONTROL_FLAG_MASK,
  CompressionCodec,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAGIC_V2,
  RECORD_BATCH_OVERHEAD,
  TRANSACTIONAL_FLAG_MASK,
  compressionCodec,
  readBatchHeader,
  validateBatch,
} from '../records/record-batch.js';

export type ProducedRecordsCheck =
  | { ok: true; batch: Buffer }
  | {
      ok: false;
      errorCode: number;
      /** Answered with the partition's log start offset (an exception of Kafka's log append other than its size and CRC checks), else -1. */
      withLogStartOffset?: true;
    };

/** Refused before the log: by KafkaApis, or by `analyzeAndValidateRecords`' size and CRC checks. */
function refuse(errorCode: number): ProducedRecordsCheck {
  return { ok: false, errorCode };
}

/** Refused by the log append (LogValidator, an unknown codec). */
function refuseInLog(errorCode: number): ProducedRecordsCheck {
  return { ok: false, errorCode, withLogStartOffset: true };
}

/** Kafka's `Records.HEADER_SIZE_UP_TO_MAGIC`: the bytes a reader needs to see a batch's magic. */
const HEADER_SIZE_UP_TO_MAGIC = MAGIC_OFFSET + 1;
/** Kafka's `LegacyRecord.RECORD_OVERHEAD_V0`: the smallest record size its reader takes. */
const RECORD_OVERHEAD_V0 = 14;

/** What Kafka's `ByteBufferLogInputStream.nextBatch` finds at `at`: a batch, nothing more (null), or a CorruptRecordException's message. */
type NextBatch = { size: number; magic: number } | { corrupt: string } | null;

function nextBatchAt(records: Buffer, at: number): NextBatch {
  const remaining = records.length - at;
  if (remaining < LOG_OVERHEAD) return null;
  const recordSize = records.readInt32BE(at + BATCH_LENGTH_OFFSET);
  if (recordSize < RECORD_OVERHEAD_V0) return { corrupt: `Record size ${recordSize} is less than the minimum record overhead (${RECORD_OVERHEAD_V0})` };
  if (remaining < HEADER_SIZE_UP_TO_MAGIC) return null;
  const magic = records.readInt8(at + MAGIC_OFFSET);
  if (magic < 0 || magic > MAGIC_V2) return { corrupt: `Invalid magic found in record: ${magic}` };
  const size = recordSize + LOG_OVERHEAD;
  return remaining < size ? null : { size, magic };
}

/**
 * The message of the CorruptRecordException Kafka's first look at a Produce throws
 * (`KafkaApis.handleProduceRequest` -> `RequestUtils.hasTransactionalRecords`, which reads the first
 * batch of each partition in request order until one is transactional): the whole request then
 * fails with CORRUPT_MESSAGE and this message (`ProduceRequest.getErrorResponse`). Null otherwise.
 */
export function firstBatchesCorruption(partitions: Iterable<Buffer | null>): string | null {
  for (const records of partitions) {
    if (records === null) continue;
    const first = nextBatchAt(records, 0);
    if (first === null) continue;
    if ('corrupt' in first) return first.corrupt;
    if (first.magic === MAGIC_V2 && first.size >= ATTRIBUTES_OFFSET + 2 && (records.readInt16BE(ATTRIBUTES_OFFSET) & TRANSACTIONAL_FLAG_MASK) !== 0) return null;
  }
  return null;
}

/** Validates `records` of a Produce request at `apiVersion` (>= 3) against `maxMessageBytes`; the batch to append is the first of `records`. */
export function validateProducedRecords(records: Buffer | null, apiVersion: number, maxMessageBytes: number): ProducedRecordsCheck {
  // ProduceRequest.validateRecords: exactly one record batch per partition, of magic 2.
  if (records === null) return refuse(ErrorCode.INVALID_RECORD);
  const first = nextBatchAt(records, 0);
  if (first === null) return refuse(ErrorCode.INVALID_RECORD);
  if ('corrupt' in first) return refuse(ErrorCode.CORRUPT_MESSAGE);
  if (first.magic !== MAGIC_V2) return refuse(ErrorCode.INVALID_RECORD);
  const { size } = first;
  if (apiVersion < 7 && size >= ATTRIBUTES_OFFSET + 2 && compressionCodec(records.readInt16BE(ATTRIBUTES_OFFSET)) === CompressionCodec.ZSTD) {
    return refuse(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
  }
  const second = nextBatchAt(records, size);
  if (second !== null) return refuse('corrupt' in second ? ErrorCode.CORRUPT_MESSAGE : ErrorCode.INVALID_RECORD);
  const batch = size < records.length ? records.subarray(0, size) : records;
  // UnifiedLog.analyzeAndValidateRecords: a client's batch starts at offset 0, then the size, then
  // Batch.ensureValid (batch length, CRC-32C).
  if (batch.readBigInt64BE(0) !== 0n) return refuseInLog(ErrorCode.INVALID_RECORD);
  if (size > maxMessageBytes) return refuse(ErrorCode.MESSAGE_TOO_LARGE);
  if (size < RECORD_BATCH_OVERHEAD || !validateBatch(batch).ok) return refuse(ErrorCode.CORRUPT_MESSAGE);
  const header = readBatchHeader(batch);
  const codec = compressionCodec(header.attributes);
  // CompressionType.forId throws an IllegalArgumentException for codecs 5-7: UNKNOWN_SERVER_ERROR.
  if (codec > CompressionCodec.ZSTD) return refuseInLog(ErrorCode.UNKNOWN_SERVER_ERROR);
  // LogValidator.validateBatch (a client's batch): its offset range and count, no control batch, and a
  // sequence when it has a producer id (idempotent or transactional).
  if (header.lastOffsetDelta < 0 || header.recordCount <= 0 || header.lastOffsetDelta + 1 !== header.recordCount) return refuseInLog(ErrorCode.INVALID_RECORD);
  if ((header.attributes & CONTROL_FLAG_MASK) !== 0) return refuseInLog(ErrorCode.INVALID_RECORD);
  if (header.producerId > -1n && header.baseSequence < 0) return refuseInLog(ErrorCode.INVALID_RECORD);
  return { ok: true, batch };
}
