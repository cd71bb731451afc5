/**
 * The checks Kafka 4.3's `LogValidator` makes of each record of a produced batch, in one walk over
 * its records (`forEachProducedRecordHead`, no record objects):
 *   - the records' structure (`DefaultRecord.readFrom` / `readPartiallyFrom`): a malformed record,
 *     a count that disagrees with the records, bytes after the last one -> INVALID_RECORD (87); a
 *     record length varint past 5 bytes (uncompressed) or compressed bytes that do not decompress ->
 *     UNKNOWN_SERVER_ERROR (-1); both without a message or record errors, whatever the records
 *     before broke (Kafka's exception ends the walk before `processRecordErrors`);
 *   - the topic's configs (`validateRecord`): a compacted topic (`cleanup.policy` with `compact`)
 *     refuses records without a key; a `CreateTime` topic refuses record timestamps more than
 *     `message.timestamp.before.max.ms` before the broker's clock or `message.timestamp.after.max.ms`
 *     after it; a batch the client marked LogAppendTime is refused for each record whose timestamp
 *     is not checked that way (`validateTimestamp`: a LogAppendTime topic's, or one of -1), a
 *     record's timestamp then being the batch's max timestamp. Every failing record is listed
 *     (`recordErrors`, its index in the batch and Kafka's message); the batch fails as a whole with
 *     INVALID_TIMESTAMP when any timestamp failed, else INVALID_RECORD (`LogValidator.processRecordErrors`).
 * A batch that passes answers its records' largest timestamp (-1 when none has one), which a
 * CreateTime topic stores as the batch's max timestamp (`stampCreateTime`).
 * A snappy, lz4 or zstd batch decompressing to more than DECOMPRESS_LIMIT (records/decompress.ts)
 * is not read here, so it passes unchecked and is stored as sent.
 */
import { ErrorCode } from '../protocol/errors.js';
import {
  ATTRIBUTES_OFFSET,
  CompressionCodec,
  CorruptRecordError,
  DecompressionError,
  IllegalRecordLengthError,
  TIMESTAMP_TYPE_MASK,
  compressionCodec,
  decodeRecordsIfReadable,
  forEachProducedRecordHead,
} from '../records/record-batch.js';
import type { LogConfig } from '../configs/log-config.js';

export interface RecordRulesFailure {
  errorCode: number;
  errorMessage: string | null;
  recordErrors: Array<{ batchIndex: number; batchIndexErrorMessage: string }>;
}

/** What a batch's record checks found: its failure, or (passed) its records' largest timestamp, null when not read (a LogAppendTime topic's, or too big to decompress). */
export type RecordRulesResult = { failure: RecordRulesFailure } | { failure: null; maxTimestamp: bigint | null };

/** A record failing a rule; `logAppendTimeFlag`: refused for its batch's LogAppendTime flag, its message built once the batch is decoded. */
interface RuleError {
  batchIndex: number;
  batchIndexErrorMessage: string;
  timestamp: boolean;
  logAppendTimeFlag?: { offset: bigint; timestamp: bigint };
}

/** Java's long arithmetic (two's complement wrap-around). */
const long = (n: bigint): bigint => BigInt.asIntN(64, n);

/**
 * Checks `batch` (validated by `validateProducedRecords`) for topic-partition `partitionName` with
 * configs `config` at broker time `now` (ms). A promise when a big gzip batch is read as it
 * inflates (records/gzip-records.ts); it rejects only with errors other than the record problems
 * above.
 */
export function checkRecordRules(batch: Buffer, config: LogConfig, partitionName: string, now: bigint): RecordRulesResult | Promise<RecordRulesResult> {
  const withTimestamps = !config.logAppendTime;
  const flaggedLogAppendTime = (batch.readInt16BE(ATTRIBUTES_OFFSET) & TIMESTAMP_TYPE_MASK) !== 0;
  const errors: RuleError[] = [];
  // LogValidator's maxBatchTimestamp: RecordBatch.NO_TIMESTAMP until a record has a larger one.
  let maxTimestamp = -1n;
  let walked: boolean | Promise<boolean>;
  try {
    walked = forEachProducedRecordHead(batch, withTimestamps, (batchIndex, offset, timestamp, keyNull) => {
      if (timestamp > maxTimestamp) maxTimestamp = timestamp;
      if (config.compactPolicy && keyNull) {
        errors.push({ batchIndex, batchIndexErrorMessage: `Compacted topic cannot accept message without key in topic partition ${partitionName}`, timestamp: false });
        return;
      }
      if (withTimestamps && timestamp !== -1n) {
        const diff = long(now - timestamp);
        if (diff > config.timestampBeforeMaxMs || long(-diff) > config.timestampAfterMaxMs) {
          errors.push({
            batchIndex,
            batchIndexErrorMessage:
              `Timestamp ${timestamp} of message with offset ${offset()} is out of range. ` +
              `The timestamp should be within [${long(now - config.timestampBeforeMaxMs)}, ${long(now + config.timestampAfterMaxMs)}]`,
            timestamp: true,
          });
        }
      } else if (flaggedLogAppendTime) {
        errors.push({ batchIndex, batchIndexErrorMessage: '', timestamp: true, logAppendTimeFlag: { offset: offset(), timestamp } });
      }
    });
  } catch (err) {
    return { failure: structureFailure(err) };
  }
  const result = (read: boolean): RecordRulesResult => {
    const failure = rulesFailure(batch, errors);
    return failure ? { failure } : { failure: null, maxTimestamp: read && withTimestamps ? maxTimestamp : null };
  };
  if (walked instanceof Promise) return walked.then(result, (err: unknown) => ({ failure: structureFailure(err) }));
  return result(walked);
}

/** The answer to records that do not parse (see above); rethrows anything else. */
function structureFailure(err: unknown): RecordRulesFailure {
  if (err instanceof IllegalRecordLengthError || err instanceof DecompressionError) return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null, recordErrors: [] };
  if (err instanceof CorruptRecordError) return { errorCode: ErrorCode.INVALID_RECORD, errorMessage: null, recordErrors: [] };
  throw err;
}

/** The answer to the records' rule errors of `batch` (`processRecordErrors`); null when there is none. */
function rulesFailure(batch: Buffer, errors: readonly RuleError[]): RecordRulesFailure | null {
  if (errors.length === 0) return null;
  // Kafka names the record as DefaultRecord.toString does: its key and value sizes are read here, for this rare refusal only.
  const records = errors.some((e) => e.logAppendTimeFlag) ? decodeRecordsIfReadable(batch) : null;
  const recordErrors = errors.map(({ batchIndex, batchIndexErrorMessage, logAppendTimeFlag }) => {
    if (!logAppendTimeFlag) return { batchIndex, batchIndexErrorMessage };
    const record = records?.[batchIndex];
    // A compressed batch's records are read partially (PartialDefaultRecord), an uncompressed one's whole.
    const kind = compressionCodec(batch.readInt16BE(ATTRIBUTES_OFFSET)) === CompressionCodec.NONE ? 'DefaultRecord' : 'PartialDefaultRecord';
    const described = `${kind}(offset=${logAppendTimeFlag.offset}, timestamp=${logAppendTimeFlag.timestamp}, key=${record?.key?.length ?? 0} bytes, value=${record?.value?.length ?? 0} bytes)`;
    return { batchIndex, batchIndexErrorMessage: `Invalid timestamp type in message ${described}. Producer should not set timestamp type to LogAppendTime.` };
  });
  if (errors.some((e) => e.timestamp)) {
    return { errorCode: ErrorCode.INVALID_TIMESTAMP, errorMessage: 'One or more records have been rejected due to invalid timestamp', recordErrors };
  }
  const shown = recordErrors.slice(0, 3).map((e) => `RecordError(batchIndex=${e.batchIndex}, message='${e.batchIndexErrorMessage}')`);
  return {
    errorCode: ErrorCode.INVALID_RECORD,
    errorMessage: `One or more records have been rejected due to ${errors.length} record errors in total, and only showing the first three errors at most: [${shown.join(', ')}]`,
    recordErrors,
  };
}
