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
      message: string | null;
      /** Answered with the partition's log start offset: an unexpected exception of Kafka's log append (`unknownLogAppendInfoWithLogStartOffset`). */
      withLogStartOffset?: true;
    };

function refuse(errorCode: number, message: string | null): ProducedRecordsCheck {
  return { ok: false, errorCode, message };
}

/** Validates `records` of a Produce request at `apiVersion` (>= 3) against `maxMessageBytes`. */
export function validateProducedRecords(records: Buffer | null, apiVersion: number, maxMessageBytes: number): ProducedRecordsCheck {
  const one = `Produce requests with version ${apiVersion} must have exactly one record batch per partition`;
  if (records === null || records.length < LOG_OVERHEAD) return refuse(ErrorCode.INVALID_RECORD, one);
  const size = records.readInt32BE(BATCH_LENGTH_OFFSET) + LOG_OVERHEAD;
  if (size < RECORD_BATCH_OVERHEAD) return refuse(ErrorCode.CORRUPT_MESSAGE, `Record batch size ${size} is less than the minimum batch overhead`);
  if (size > records.length) return refuse(ErrorCode.INVALID_RECORD, `${one}; the batch declares ${size} bytes but ${records.length} were sent`);
  const magic = records.readInt8(MAGIC_OFFSET);
  if (magic !== MAGIC_V2) {
    return refuse(ErrorCode.INVALID_RECORD, `Produce requests with version ${apiVersion} are only allowed to contain record batches with magic version 2`);
  }
  const header = readBatchHeader(records);
  const codec = compressionCodec(header.attributes);
  if (apiVersion < 7 && codec === CompressionCodec.ZSTD) {
    return refuse(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `Produce requests with version ${apiVersion} are not allowed to use ZStandard compression`);
  }
  if (size < records.length) return refuse(ErrorCode.INVALID_RECORD, one);
  if (size > maxMessageBytes) {
    return refuse(ErrorCode.MESSAGE_TOO_LARGE, `The record batch of ${size} bytes is larger than the maximum allowed (message.max.bytes = ${maxMessageBytes})`);
  }
  const check = validateBatch(records);
  if (!check.ok) return refuse(ErrorCode.CORRUPT_MESSAGE, `Record batch is corrupt: ${check.message}`);
  // CompressionType.forId throws an IllegalArgumentException for codecs 5-7: UNKNOWN_SERVER_ERROR, no message.
  if (codec > CompressionCodec.ZSTD) return { ok: false, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, message: null, withLogStartOffset: true };
  if ((header.attributes & CONTROL_FLAG_MASK) !== 0) return refuse(ErrorCode.INVALID_RECORD, 'Clients are not allowed to write control records');
  // LogValidator.validateBatch: a batch with a producer id (idempotent or transactional) must carry a sequence.
  if (header.producerId > -1n && header.baseSequence < 0) {
    return refuse(ErrorCode.INVALID_RECORD, `Invalid sequence number ${header.baseSequence} in record batch with producerId ${header.producerId}`);
  }
  if (header.recordCount <= 0) return refuse(ErrorCode.INVALID_RECORD, `Invalid reported count for record batch: ${header.recordCount}`);
  if (header.lastOffsetDelta + 1 !== header.recordCount) {
    return refuse(
      ErrorCode.INVALID_RECORD,
      `Inconsistent batch offset range [0, ${header.lastOffsetDelta}] and count of records ${header.recordCount}`,
    );
  }
  return { ok: true, batch: records };
}
