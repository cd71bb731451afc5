/**
 * The one data directory: read from `log.dirs` (a list in Kafka) and made ready before anything
 * opens, so that a path that cannot be a directory is a start-up error naming the key (exit 2),
 * not an errno from deep inside the storage code.
 */
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../config.js';

/**
 * The directory of `log.dirs`, parsed as Kafka parses a LIST config (`ConfigDef.parseType`:
 * trimmed, split on commas with the spaces around them; empty entries dropped as `Csv.parseCsvList`
 * does). Throws a ConfigError for no entry or more than one: we keep one data directory.
 */
export function singleLogDir(value: string): string {
  const entries = value.trim().split(/\s*,\s*/).filter((e) => e !== '');
  if (entries.length === 0) throw new ConfigError('log.dirs', 'no directory given (one data directory is supported)');
  if (entries.length > 1) {
    throw new ConfigError('log.dirs', `${entries.length} directories given (${entries.join(', ')}); one data directory is supported`);
  }
  return entries[0]!;
}

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/**
 * Creates `dir` (and its missing parents, level by level) unless it is there; throws a ConfigError
 * under `key` (`log.dirs` or `--data-dir`) saying why it cannot be the data directory: an ancestor
 * that is not a directory, a level that cannot be created, or a directory we may not write.
 * Not `mkdirSync(..., { recursive: true })`: under /proc it loops forever (Node 20) on a path
 * that cannot be created. Returns the levels it created, deepest first (a failed start removes them).
 */
export function prepareDataDirectory(dir: string, key: string): string[] {
  const full = resolve(dir);
  const missing: string[] = [];
  for (let current = full; ; ) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(current).isDirectory();
    } catch (err) {
      const code = errnoOf(err);
      if ((code === 'ENOENT' || code === 'ENOTDIR') && dirname(current) !== current) {
        missing.push(current);
        current = dirname(current);
        continue;
      }
      throw new ConfigError(key, `cannot use ${dir} as the data directory: ${(err as Error).message}`);
    }
    if (!isDirectory) throw new ConfigError(key, `cannot use ${dir} as the data directory: ${current} is not a directory`);
    break;
  }
  const created: string[] = [];
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level);
    } catch (err) {
      // Another process may have created it meanwhile.
      if (errnoOf(err) === 'EEXIST' && statSync(level).isDirectory()) continue;
      throw new ConfigError(key, `cannot create the data directory ${dir}: ${(err as Error).message}`);
    }
    created.unshift(level);
  }
  try {
    accessSync(full, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new ConfigError(key, `cannot write in the data directory ${dir}: ${(err as Error).message}`);
  }
  return created;
}

/**
 * A file-system error raised while the data directory is loaded at start (a full disk, a file
 * where a partition directory must be, a segment that cannot be opened), as one that names the
 * data directory and the operation: Kafka's LogDirFailureChannel messages name the log dir
 * ("Error while loading log dir <dir>"), where Node's errno message names only a system call
 * and, at best, a file. The errno `code` is kept; other errors pass unchanged.
 */
export function storageStartError(err: unknown, dir: string): unknown {
  const code = errnoOf(err);
  if (typeof code !== 'string' || !code.startsWith('E')) return err;
  const message = (err as Error).message;
  if (message.startsWith('disk error while')) return err;
  return Object.assign(new Error(`disk error while loading the data directory ${dir}: ${message}`, { cause: err }), { code });
}
