/**
 * Recovery of segment files on open (Kafka's `LogLoader` / `LogSegment.recover`): every
 * batch is checked (size, magic 2, CRC-32C, offsets increasing) and indexed. In a log that writes
 * zeros ahead of its appends (the coordinators' logs: prepared-space.ts), a tail of zeros after a
 * segment's batches is that space and is cut at debug level, in any segment (zeros from its first
 * byte are damage, as any bad batch); in a topic's log such zeros are writes a crash lost. A bad
 * tail of the last segment is a write torn by a crash and is truncated with one warning; a bad
 * batch anywhere else, or one that a valid batch follows, or any after a clean shutdown
 * (clean-shutdown.ts), means the log is damaged, and opening it fails (Kafka's recovery would
 * truncate there, dropping every later batch: acknowledged ones a flipped byte should not cost; a
 * crash leaves the bad bytes at the end).
 */
import * as fs from 'node:fs';
import type { Logger } from 'pino';
import {
  LOG_OVERHEAD,
  BATCH_LENGTH_OFFSET,
  LAST_OFFSET_DELTA_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  RECORD_BATCH_OVERHEAD,
  validateBatch,
} from '../records/record-batch.js';
import type { LogSegment } from './segment.js';
import { MAX_RELATIVE_OFFSET } from './batch-index.js';
import { allZero } from './prepared-space.js';
import { CLEAN_SHUTDOWN_FILE } from './clean-shutdown.js';

/** Reads segment files in chunks of this many bytes (a larger batch gets its own read). */
const CHUNK_BYTES = 1 << 20;

/** A segment file that cannot be recovered (a bad batch before the last segment's tail). */
export class CorruptLogError extends Error {
  constructor(readonly file: string, readonly position: number, reason: string) {
    super(`corrupt log segment ${file} at byte ${position}: ${reason}`);
  }
}

/** Called with each valid batch found; `batch` is a view valid only during the call. */
export type RecoveredBatchListener = (batch: Buffer) => void;

interface Problem {
  position: number;
  reason: string;
}

/**
 * True when the segment file at `file` holds no batch a recovery could keep: it is empty, or its
 * first batch header is zeros (a new segment whose first write never reached the disk). The open
 * path takes the last segment holding batches as the log's tail.
 */
export function holdsNoBatch(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(LOG_OVERHEAD);
    return fs.readSync(fd, head, 0, LOG_OVERHEAD, 0) < LOG_OVERHEAD || allZero(head);
  } finally {
    fs.closeSync(fd);
  }
}

/** True when bytes [from, to) of the segment's file are all zero (read in chunks). */
function zeroTail(segment: LogSegment, from: number, to: number): boolean {
  const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, to - from));
  for (let at = from; at < to; ) {
    const read = fs.readSync(segment.fd(), chunk, 0, Math.min(chunk.length, to - at), at);
    if (read === 0 || !allZero(chunk.subarray(0, read))) return false;
    at += read;
  }
  return true;
}

/** What recovery may take a bad batch of a segment for. */
export interface RecoveryRules {
  /** The segment is the log's tail (no later segment holds batches): a crash may have torn its end. */
  isLast: boolean;
  /** The server stopped cleanly last time (clean-shutdown.ts): no write can be torn. */
  stoppedCleanly: boolean;
  /** The log writes zeros ahead of its appends (prepared-space.ts): zeros after its batches are that space. */
  zerosAhead: boolean;
}

/**
 * Indexes the batches of `segment`'s file into it. `afterOffset` is the last offset of the
 * previous segment (-1 for the first): batches must start after it and after the segment's base
 * offset. A tail of zeros after batches is cut quietly when `rules.zerosAhead`. On a bad batch
 * of the last segment that no valid batch follows, unless the server stopped cleanly: truncate
 * the file there and warn; otherwise throw CorruptLogError naming the file. Returns whether a torn
 * tail was truncated (not a tail of zeros).
 */
export function recoverSegment(segment: LogSegment, afterOffset: bigint, rules: RecoveryRules, log: Logger, onBatch?: RecoveredBatchListener): boolean {
  const { isLast, stoppedCleanly, zerosAhead } = rules;
  const file = segment.file!;
  const fileBytes = fs.fstatSync(segment.fd()).size;
  let lastOffset = afterOffset < segment.baseOffset - 1n ? segment.baseOffset - 1n : afterOffset;
  let chunk = Buffer.alloc(0);
  let chunkStart = 0;
  let position = 0;
  let problem: Problem | null = null;

  /** Makes [position, position + n) available in `chunk`; false if the file is shorter. */
  const ensure = (n: number): boolean => {
    if (position + n > fileBytes) return false;
    if (position >= chunkStart && position + n <= chunkStart + chunk.length) return true;
    const want = Math.min(Math.max(n, CHUNK_BYTES), fileBytes - position);
    chunk = Buffer.allocUnsafe(want);
    let done = 0;
    while (done < want) {
      const read = fs.readSync(segment.fd(), chunk, done, want - done, position + done);
      if (read === 0) break;
      done += read;
    }
    chunk = chunk.subarray(0, done);
    chunkStart = position;
    return done >= n;
  };

  while (position < fileBytes) {
    if (!ensure(LOG_OVERHEAD)) {
      problem = { position, reason: `${fileBytes - position} trailing bytes are too few for a batch` };
      break;
    }
    const at = position - chunkStart;
    const size = chunk.readInt32BE(at + BATCH_LENGTH_OFFSET) + LOG_OVERHEAD;
    if (size > LOG_OVERHEAD && !ensure(size)) {
      problem = { position, reason: `batch of ${size} bytes runs past the end of the file (${fileBytes - position} bytes left)` };
      break;
    }
    const start = position - chunkStart;
    const check = validateBatch(chunk, start, Math.min(chunk.length, start + Math.max(size, LOG_OVERHEAD)));
    if (!check.ok) {
      problem = { position, reason: check.message };
      break;
    }
    const baseOffset = chunk.readBigInt64BE(start);
    const lastDelta = chunk.readInt32BE(start + LAST_OFFSET_DELTA_OFFSET);
    if (baseOffset <= lastOffset || lastDelta < 0) {
      problem = { position, reason: `batch offsets ${baseOffset}..${baseOffset + BigInt(lastDelta)} do not follow offset ${lastOffset}` };
      break;
    }
    if (baseOffset + BigInt(lastDelta) - segment.baseOffset > MAX_RELATIVE_OFFSET) {
      // Kafka's LogSegment.ensureOffsetInRange: a segment spans at most 2^31 - 1 offsets.
      problem = { position, reason: `batch offsets ${baseOffset}..${baseOffset + BigInt(lastDelta)} are more than 2^31 - 1 past the segment's base offset` };
      break;
    }
    const batch = chunk.subarray(start, start + check.size);
    segment.restore(baseOffset, baseOffset + BigInt(lastDelta), position, check.size, batch.readBigInt64BE(MAX_TIMESTAMP_OFFSET));
    onBatch?.(batch);
    lastOffset = baseOffset + BigInt(lastDelta);
    position += check.size;
  }

  segment.fileEnd = fileBytes;
  if (problem === null) return false;
  if (zerosAhead && problem.position > 0 && zeroTail(segment, problem.position, fileBytes)) {
    segment.truncateFile(problem.position);
    log.debug({ file, position: problem.position, bytes: fileBytes - problem.position }, 'cut the zeros written ahead of a log segment\'s batches');
    return false; // not a torn write: the segment holds every batch written to it, and later segments stay
  }
  if (!isLast) throw new CorruptLogError(file, problem.position, problem.reason);
  const next = validBatchAfter(segment, problem.position, fileBytes, lastOffset);
  if (next !== null || stoppedCleanly) {
    const why = next !== null
      ? `a valid batch follows it at byte ${next.position} (offsets ${next.baseOffset}..${next.lastOffset})`
      : `the server stopped cleanly last time (${CLEAN_SHUTDOWN_FILE})`;
    throw new CorruptLogError(
      file,
      problem.position,
      `${problem.reason}; ${why}, so this is damage, not a write torn by a crash, and nothing was truncated: ` +
        `restore the file, or truncate it to ${problem.position} bytes to drop offset ${lastOffset + 1n} onwards`,
    );
  }
  segment.truncateFile(problem.position);
  log.warn(
    { file, position: problem.position, offset: String(lastOffset + 1n), bytesDropped: fileBytes - problem.position, reason: problem.reason },
    `truncated torn tail of log segment ${file}: dropped ${fileBytes - problem.position} bytes from byte ${problem.position} (offset ${lastOffset + 1n})`,
  );
  return true;
}

/**
 * The batch after the bad one at `position`, found through the bad one's own length field, when
 * it is whole, valid and follows `lastOffset`: a byte flipped inside a batch keeps its length, so
 * the batches after it are still where they were. Null when there is none (a torn write is the
 * last thing in the file) or the length itself is damaged.
 */
function validBatchAfter(segment: LogSegment, position: number, fileBytes: number, lastOffset: bigint): { position: number; baseOffset: bigint; lastOffset: bigint } | null {
  const read = (at: number, n: number): Buffer => {
    const b = Buffer.alloc(n);
    fs.readSync(segment.fd(), b, 0, n, at);
    return b;
  };
  if (position + LOG_OVERHEAD > fileBytes) return null;
  const badSize = read(position, LOG_OVERHEAD).readInt32BE(BATCH_LENGTH_OFFSET) + LOG_OVERHEAD;
  const next = position + badSize;
  if (badSize < RECORD_BATCH_OVERHEAD || next + RECORD_BATCH_OVERHEAD > fileBytes) return null;
  const size = read(next, LOG_OVERHEAD).readInt32BE(BATCH_LENGTH_OFFSET) + LOG_OVERHEAD;
  if (size < RECORD_BATCH_OVERHEAD || next + size > fileBytes) return null;
  const batch = read(next, size);
  if (!validateBatch(batch).ok) return null;
  const baseOffset = batch.readBigInt64BE(0);
  return baseOffset > lastOffset ? { position: next, baseOffset, lastOffset: baseOffset + BigInt(batch.readInt32BE(LAST_OFFSET_DELTA_OFFSET)) } : null;
}
