/**
 * The log cleaner's files and how an interrupted clean is finished on open, as Kafka's
 * `LocalLog.replaceSegments` and `LogLoader.load` / `removeTempFilesAndCollectSwapFiles`:
 *
 * Swap protocol for a group of closed segments [b1, b2, ..., bk] cleaned into one:
 *   1. write `<b1>.log.cleaned`, fdatasync it;
 *   2. rename it to `<b1>.log.swap`, fsync the directory;
 *   3. rename every original `<bi>.log` to `<bi>.log.deleted`, fsync the directory;
 *   4. rename `<b1>.log.swap` to `<b1>.log`, fsync the directory;
 *   5. unlink the `.deleted` files.
 * The cleaned segment always ends with the group's last batch (kept empty if need be), so
 * its offset range [b1, next offset) is exactly the group's.
 *
 * On open: `.cleaned` files (step 1 not finished: originals intact) and `.deleted` files
 * (their swap already done, or a `.swap` holds their records) are deleted; each `.swap`
 * file is completed: every `.log` whose base offset lies in the swap's offset range is
 * deleted and the swap is renamed to `.log`. So a start after a crash at any step finds
 * either the original segments or the cleaned one, never both and never neither.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from 'pino';
import { LOG_OVERHEAD, BATCH_LENGTH_OFFSET, LAST_OFFSET_DELTA_OFFSET, validateBatch } from '../records/record-batch.js';
import { parseSegmentFileName, segmentFileName } from './segment.js';
import { fsyncDirectorySync } from './file-io.js';

export const CLEANED_FILE_SUFFIX = '.cleaned';
export const SWAP_FILE_SUFFIX = '.swap';
export const DELETED_FILE_SUFFIX = '.deleted';

/** The base offset of `<20 digits>.log<suffix>`, or null. */
function parseWithSuffix(name: string, suffix: string): bigint | null {
  return name.endsWith(suffix) ? parseSegmentFileName(name.slice(0, -suffix.length)) : null;
}

/** `<dir>/<base>.log<suffix>`. */
export function cleanerFile(dir: string, baseOffset: bigint, suffix: string): string {
  return path.join(dir, segmentFileName(baseOffset) + suffix);
}

/** Offset after the last valid batch of `file`, or `baseOffset` when it holds none. */
function nextOffsetOfFile(file: string, baseOffset: bigint): bigint {
  const bytes = fs.readFileSync(file);
  let position = 0;
  let next = baseOffset;
  while (position + LOG_OVERHEAD <= bytes.length) {
    const size = bytes.readInt32BE(position + BATCH_LENGTH_OFFSET) + LOG_OVERHEAD;
    if (!validateBatch(bytes, position, Math.min(bytes.length, position + Math.max(size, LOG_OVERHEAD))).ok) break;
    next = bytes.readBigInt64BE(position) + BigInt(bytes.readInt32BE(position + LAST_OFFSET_DELTA_OFFSET)) + 1n;
    position += size;
  }
  return next;
}

/**
 * Removes the cleaner's temporary files from `dir` and completes interrupted swaps (see
 * the module comment). Runs before the segments are loaded.
 */
export function completeInterruptedCleaning(dir: string, log: Logger): void {
  const names = fs.readdirSync(dir);
  let changed = false;
  const swaps: Array<{ name: string; base: bigint }> = [];
  for (const name of names) {
    if (parseWithSuffix(name, CLEANED_FILE_SUFFIX) !== null || parseWithSuffix(name, DELETED_FILE_SUFFIX) !== null) {
      log.info({ dir, file: name }, 'deleting leftover log cleaner file');
      fs.rmSync(path.join(dir, name), { force: true });
      changed = true;
      continue;
    }
    const base = parseWithSuffix(name, SWAP_FILE_SUFFIX);
    if (base !== null) swaps.push({ name, base });
  }
  for (const swap of swaps) {
    const swapFile = path.join(dir, swap.name);
    const next = nextOffsetOfFile(swapFile, swap.base);
    for (const name of fs.readdirSync(dir)) {
      const base = parseSegmentFileName(name);
      if (base === null || base < swap.base || (base >= next && base !== swap.base)) continue;
      log.info({ dir, file: name, swap: swap.name }, 'deleting segment replaced by an interrupted log clean');
      fs.rmSync(path.join(dir, name), { force: true });
    }
    fs.renameSync(swapFile, path.join(dir, segmentFileName(swap.base)));
    log.info({ dir, file: swap.name }, 'completed interrupted log cleaner swap');
    changed = true;
  }
  if (changed) fsyncDirectorySync(dir);
}
