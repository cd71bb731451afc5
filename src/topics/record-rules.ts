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
 *     after it. Every failing record is listed (`recordErrors`, its index in the batch and Kafka's
 *     message); the batch fails as a whole with INVALID_TIMESTAMP when any timestamp failed, else
 *     INVALID_RECORD (`LogValidator.processRecordErrors`).
 * A snappy, lz4 or zstd batch decompressing to more than DECOMPRESS_LIMIT (records/decompress.ts)
 * is not read here, so it passes unchecked.
 */
import { ErrorCode } from '../protocol/errors.js';
import { CorruptRecordError, DecompressionError, IllegalRecordLengthError, forEachProducedRecordHead } from '../records/record-batch.js';
import type { LogConfig } from '../configs/log-config.js';

export interface RecordRulesFailure {
  errorCode: number;
  errorMessage: string | null;
  recordErrors: Array<{ batchIndex: number; batchIndexErrorMessage: string }>;
}

/** Java's long arithmetic (two's complement wrap-around). */
const long = (n: bigint): bigint => BigInt.asIntN(64, n);

/**
 * Checks `batch` (validated by `validateProducedRecords`) for topic-partition `partitionName` with
 * configs `config` at broker time `now` (ms); null when it passes. A promise when a big gzip batch
 * is read as it inflates (records/gzip-records.ts); it rejects only with errors other than the
 * record problems above.
 */
export function checkRecordRules(
  batch: Buffer,
  config: LogConfig,
  partitionName: string,
  now: bigint,
): RecordRulesFailure | null | Promise<RecordRulesFailure | null> {
  const withTimestamps = !config.logAppendTime;
  const errors: Array<{ batchIndex: number; batchIndexErrorMessage: string; timestamp: boolean }> = [];
  let walked: boolean | Promise<boolean>;
  try {
    walked = forEachProducedRecordHead(batch, withTimestamps, (batchIndex, offset, timestamp, keyNull) => {
      if (config.compactPolicy && keyNull) {
        errors.push({ batchIndex, batchIndexErrorMessage: `Compacted topic cannot accept message without key in topic partition ${partitionName}`, timestamp: false });
        return;
      }
      if (!withTimestamps || timestamp === -1n) return;
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
    });
  } catch (err) {
    return structureFailure(err);
  }
  if (walked instanceof Promise) return walked.then(() => rulesFailure(errors), structureFailure);
  return rulesFailure(errors);
}

/** The answer to records that do not parse (see above); rethrows anything else. */
function structureFailure(err: unknown): RecordRulesFailure {
  if (err instanceof IllegalRecordLengthError || err instanceof DecompressionError) return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null, recordErrors: [] };
  if (err instanceof CorruptRecordError) return { errorCode: ErrorCode.INVALID_RECORD, errorMessage: null, recordErrors: [] };
  throw err;
}

/** The answer to the records' rule errors (`processRecordErrors`); null when there is none. */
function rulesFailure(errors: ReadonlyArray<{ batchIndex: number; batchIndexErrorMessage: string; timestamp: boolean }>): RecordRulesFailure | null {
  if (errors.length === 0) return null;
  const recordErrors = errors.map(({ batchIndex, batchIndexErrorMessage }) => ({ batchIndex, batchIndexErrorMessage }));
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
