/**
 * The error that stops start-up when a stored coordinator record (`__consumer_offsets`,
 * `__transaction_state`, `__share_group_state`) passes its batch's CRC but its key or value cannot
 * be decoded: it names the topic-partition, the record's offset, its segment file and its record type
 * when the key says one, so that whoever reads it knows which bytes to look at (Kafka's
 * `CoordinatorLoaderImpl` fails that partition's load instead: DIFFERENCES.md).
 */
import { recordTypeEntry } from './coordinator-record.js';
import type { CoordinatorLog } from './schemas/record-types.js';

export class UndecodableCoordinatorRecordError extends Error {}

/**
 * E.g. "__consumer_offsets-7: OffsetCommit record (type 1) at offset 42 (00000000000000000000.log)
 * cannot be decoded: non-nullable string is null"; without a known type, "record at offset 42 ...".
 */
export function undecodableRecord(log: CoordinatorLog, partition: number, offset: bigint, segmentFile: string, key: Buffer | null, cause: unknown): UndecodableCoordinatorRecordError {
  const type = key !== null && key.length >= 2 ? key.readInt16BE(0) : null;
  const entry = type === null ? undefined : recordTypeEntry(log, type);
  const what = entry === undefined ? 'record' : `${entry.name} record (type ${type})`;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new UndecodableCoordinatorRecordError(`${log}-${partition}: ${what} at offset ${offset} (${segmentFile}) cannot be decoded: ${reason}`, { cause });
}
