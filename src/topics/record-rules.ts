/**
 * The record checks a topic's configs impose on a produced batch, as Kafka 4.3's
 * `LogValidator.validateRecord` makes them, record by record: a compacted topic (`cleanup.policy`
 * with `compact`) refuses records without a key; a `CreateTime` topic refuses record timestamps
 * more than `message.timestamp.before.max.ms` before the broker's clock or
 * `message.timestamp.after.max.ms` after it. Every failing record is listed (`recordErrors`, its
 * index in the batch and Kafka's message); the batch fails as a whole with INVALID_TIMESTAMP when
 * any timestamp failed, else INVALID_RECORD (`LogValidator.processRecordErrors`). Records of
 * snappy, lz4 and zstd batches are not read here, so those batches pass unchecked.
 */
import { ErrorCode } from '../protocol/errors.js';
import { CorruptRecordError, forEachRecordHeadIfReadable } from '../records/record-batch.js';
import type { LogConfig } from '../configs/log-config.js';

export interface RecordRulesFailure {
  errorCode: number;
  errorMessage: string;
  recordErrors: Array<{ batchIndex: number; batchIndexErrorMessage: string }>;
}

/** Java's long arithmetic (two's complement wrap-around). */
const long = (n: bigint): bigint => BigInt.asIntN(64, n);

/** Checks `batch` for topic-partition `partitionName` with configs `config` at broker time `now` (ms); null when it passes. */
export function checkRecordRules(batch: Buffer, config: LogConfig, partitionName: string, now: bigint): RecordRulesFailure | null {
  if (!config.compactPolicy && config.logAppendTime) return null;
  const errors: Array<{ batchIndex: number; batchIndexErrorMessage: string; timestamp: boolean }> = [];
  try {
    forEachRecordHeadIfReadable(batch, (batchIndex, offset, timestamp, keyNull) => {
      if (config.compactPolicy && keyNull) {
        errors.push({ batchIndex, batchIndexErrorMessage: `Compacted topic cannot accept message without key in topic partition ${partitionName}`, timestamp: false });
        return;
      }
      if (config.logAppendTime || timestamp === -1n) return;
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
    if (err instanceof CorruptRecordError) return null; // produce-validation.ts answers CORRUPT_MESSAGE first
    throw err;
  }
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
