/**
 * Zero-filled space written ahead of a segment's appends under `mock.flush.policy=always`
 * (issue #16), so that most fdatasyncs only flush data.
 *
 * Why: an fdatasync after an append that grows the file must also commit the file's new size and
 * its newly allocated blocks to the filesystem's journal (ext4, xfs); one after an overwrite of
 * blocks already written and synced flushes the data pages alone. On the development machine's
 * ext4 that is ~0.24 against ~0.14 ms of wall time and ~60 against ~40 us of CPU per sync of a
 * few kilobytes (an append, then an overwrite of a zero-filled file). Under 'always' every commit
 * waits for its sync, so with 16 connections committing one at a time the sync's time is most of
 * the time between a connection's commits.
 *
 * How: a write that ends past the zeros written so far is followed by a write of zeros up to a new
 * prepared end; the fdatasync the append waits for anyway makes them durable with it, and the
 * appends that follow overwrite them. The space ahead grows with the segment, from one page
 * to PREPARED_MAX_BYTES, so a partition written rarely keeps at most a few kilobytes of zeros and
 * a busy one pays the journal once per megabyte. A segment is cut back to its batches when it is
 * rolled or the log is closed (Kafka's `FileRecords.trim` of a segment under `log.preallocate`),
 * and recovery cuts an all-zero tail without a warning (recovery.ts), even in a segment below the
 * last: the process may have died between a roll and that cut. Zeros from a segment's first byte
 * are not ours (its first write puts a batch there): recovery treats them as damage.
 *
 * Kafka's own `log.preallocate=true` sets the file's length when a segment is created (a sparse
 * file on Linux): that commits the size once, but not the blocks, so it does not spare the
 * journal. Until the cut, a segment file read by another program ends in zeros, as Kafka's
 * preallocated active segment does; Kafka's kafka-dump-log prints its batches, then fails on them.
 */

/** Alignment of a prepared end: the page size of the machines we run on. */
export const PREPARED_ALIGN_BYTES = 4096;
/** The most zero bytes written ahead of a segment's batches. */
export const PREPARED_MAX_BYTES = 1024 * 1024;

const ZEROS = Buffer.alloc(PREPARED_MAX_BYTES + PREPARED_ALIGN_BYTES);

/**
 * The zero bytes to write after a write that ended at byte `end`, past the end of its segment's
 * file. The space grows with the segment (ahead by as many bytes as it holds, at least a page, at
 * most PREPARED_MAX_BYTES) and ends on a page boundary.
 */
export function zerosAfter(end: number): Buffer {
  const ahead = Math.min(Math.max(end, PREPARED_ALIGN_BYTES), PREPARED_MAX_BYTES);
  const preparedEnd = Math.ceil((end + ahead) / PREPARED_ALIGN_BYTES) * PREPARED_ALIGN_BYTES;
  return ZEROS.subarray(0, preparedEnd - end);
}

/** True when every byte of `bytes` is zero. */
export function allZero(bytes: Buffer): boolean {
  for (let at = 0; at < bytes.length; at += ZEROS.length) {
    const part = bytes.subarray(at, at + ZEROS.length);
    if (!part.equals(ZEROS.subarray(0, part.length))) return false;
  }
  return true;
}
