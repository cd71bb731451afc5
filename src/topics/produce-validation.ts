/**
 * Checks the batch of one partition in a Produce request before anything is appended, in Kafka's
 * order (`ProduceRequest.validateRecords`, then `UnifiedLog.analyzeAndValidateRecords` and
 * `LogValidator.validateBatch`):
 *   no batch / more than one batch / magic != 2 / control batch / producer id with a negative
 *   base sequence / inconsistent count                                      -> INVALID_RECORD (87)
 *   zstd below Produce v7                                                    -> UNSUPPORTED_COMPRESSION_TYPE (76)
 *   batch larger than message.max.bytes                                      -> MESSAGE_TOO_LARGE (10)
 *   bad batch length or CRC-32C mismatch                                     -> CORRUPT_MESSAGE (2)
 *   compression codec 5-7                                                    -> UNKNOWN_SERVER_ERROR (-1)
 * The records inside are checked afterwards, with the topic's record rules, in one walk
 * (record-rules.ts: malformed records -> INVALID_RECORD, as Kafka's `LogValidator`).
 *
 * Kafka answers none of these with a message (KafkaApis answers `new PartitionResponse(error)`;
 * ReplicaManager.appendToLocalLog sets `hasCustomErrorMessage` only for a `RecordValidationException`).
 * The log start offset is -1 for what KafkaApis refuses and for the log's `RecordTooLargeException`
 * and `CorruptRecordException` (`LogAppendInfo.UNKNOWN_LOG_APPEND_INFO`), and the partition's for any
 * other exception of the log append (`unknownLogAppendInfoWithLogStartOffset`): LogValidator's
 * `InvalidRecordException`s and the unknown codec's `IllegalArgumentException`.
 */
import { ErrorCode } from '../protocol/errors.js';
import {
  BATCH_LENGTH_OFFSET,
  CONTROL_FLAG_MASK,
  CompressionCodec,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAGIC_V2,
  RECORD_BATCH_OVERHEAD,
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

/** Validates `records` of a Produce request at `apiVersion` (>= 3) against `maxMessageBytes`. */
export function validateProducedRecords(records: Buffer | null, apiVersion: number, maxMessageBytes: number): ProducedRecordsCheck {
  // ProduceRequest.validateRecords: exactly one record batch per partition, of magic 2.
  if (records === null || records.length < LOG_OVERHEAD) return refuse(ErrorCode.INVALID_RECORD);
  const size = records.readInt32BE(BATCH_LENGTH_OFFSET) + LOG_OVERHEAD;
  // ByteBufferLogInputStream.nextBatch: a size below the batch overhead.
  if (size < RECORD_BATCH_OVERHEAD) return refuse(ErrorCode.CORRUPT_MESSAGE);
  if (size > records.length) return refuse(ErrorCode.INVALID_RECORD);
  if (records.readInt8(MAGIC_OFFSET) !== MAGIC_V2) return refuse(ErrorCode.INVALID_RECORD);
  const header = readBatchHeader(records);
  const codec = compressionCodec(header.attributes);
  if (apiVersion < 7 && codec === CompressionCodec.ZSTD) return refuse(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
  if (size < records.length) return refuse(ErrorCode.INVALID_RECORD);
  // UnifiedLog.analyzeAndValidateRecords: the size, then Batch.ensureValid (batch length, CRC-32C).
  if (size > maxMessageBytes) return refuse(ErrorCode.MESSAGE_TOO_LARGE);
  if (!validateBatch(records).ok) return refuse(ErrorCode.CORRUPT_MESSAGE);
  // CompressionType.forId throws an IllegalArgumentException for codecs 5-7: UNKNOWN_SERVER_ERROR.
  if (codec > CompressionCodec.ZSTD) return refuseInLog(ErrorCode.UNKNOWN_SERVER_ERROR);
  // LogValidator.validateBatch (a client's batch): its offset range and count, no control batch, and a
  // sequence when it has a producer id (idempotent or transactional).
  if (header.lastOffsetDelta < 0 || header.recordCount <= 0 || header.lastOffsetDelta + 1 !== header.recordCount) return refuseInLog(ErrorCode.INVALID_RECORD);
  if ((header.attributes & CONTROL_FLAG_MASK) !== 0) return refuseInLog(ErrorCode.INVALID_RECORD);
  if (header.producerId > -1n && header.baseSequence < 0) return refuseInLog(ErrorCode.INVALID_RECORD);
  return { ok: true, batch: records };
}
