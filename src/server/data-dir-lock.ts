/**
 * One server per data directory, as Kafka's `LogManager.lockLogDirs` holds a `.lock` file in
 * each log directory: a second broker on the same directory would interleave appends with the
 * first and lose acknowledged writes (new-user trial 9: both answered, one record survived).
 *
 * Node has no advisory file lock, so the `.lock` file here names its holder: the pid and, on
 * Linux, the process's start time (field 22 of /proc/<pid>/stat), which tells a live holder from
 * a pid reused since a holder was killed; a zombie (killed, not yet reaped) is gone too. A lock
 * whose holder is gone (kill -9, power loss) is taken over. Servers in one process are told apart
 * by the directory's real path. Not covered: two containers with separate pid namespaces sharing
 * one volume.
 *
 * Races between servers starting at once (adversarial trial 10 saw two holders): the lock file is
 * written in full under a private name and then hard-linked to `.lock`, so it never exists half
 * written and exactly one link wins; a stale lock is removed only by the one server holding
 * `.lock.takeover` (taken the same way), after checking under it that `.lock` is still the stale
 * file it judged, so a fresh holder's lock is never removed.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, readdirSync, realpathSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = '.lock';
const TAKEOVER_FILE = '.lock.takeover';
/** How long a start waits for another server's takeover of a stale lock to finish (ms). */
const TAKEOVER_WAIT_MS = 2000;

/** Directories (real paths) locked by servers of this process. */
const lockedHere = new Set<string>();

/** Thrown when another server holds the data directory. */
export class DataDirectoryInUseError extends Error {
  override readonly name = 'DataDirectoryInUseError';
}

interface Holder {
  pid: number;
  /** The holder's start time in clock ticks since boot (Linux), null where unknown. */
  startTime: string | null;
}

/** A lock file as read: its exact text (to tell it from a later one) and the holder it names. */
interface LockFileContent {
  text: string;
  holder: Holder | null;
}

/** Fields 3 (state) and 22 (start time) of /proc/<pid>/stat (Linux), null where there is none. */
function procStat(pid: number): { state: string; startTime: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from its closing ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] === undefined ? null : { state: fields[0]!, startTime: fields[19] };
  } catch {
    return null;
  }
}

/** The lock file's content; null when there is none (released meanwhile). */
function readLockFile(file: string): LockFileContent | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`the data directory lock ${file} cannot be read (${(err as Error).message}); remove it if no server uses the directory`);
  }
  const match = /^pid=(\d+)(?:\nstart=(\d+))?/.exec(text);
  return { text, holder: match ? { pid: Number(match[1]), startTime: match[2] ?? null } : null };
}

/** Whether `holder` is a live process other than this one and not a later process that reuses its pid. */
function alive(holder: Holder): boolean {
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // EPERM: it exists, owned by another user.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(holder.pid);
  if (stat === null) return true;
  // A zombie (Z) or dead (X) process answers kill(pid, 0) but holds nothing.
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return holder.startTime === null || stat.startTime === holder.startTime;
}

/** Hard-links `staged` (complete) to `file`; false when `file` exists. */
function linkIfAbsent(staged: string, file: string): boolean {
  try {
    linkSync(staged, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

function unlinkIfPresent(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Removes the lock file `stale` (judged stale) if it is still that file, under the takeover
 * lock. False when another server is taking over (the caller tries again).
 */
function removeStaleLock(dir: string, staged: string, stale: LockFileContent): boolean {
  const file = join(dir, LOCK_FILE);
  const guard = join(dir, TAKEOVER_FILE);
  if (!linkIfAbsent(staged, guard)) {
    const taker = readLockFile(guard);
    // A takeover whose server died inside it (a few system calls) is stale too. Two servers
    // removing that one at once could both take over: it needs a crash in that window first.
    if (taker !== null && (taker.holder === null || !alive(taker.holder))) unlinkIfPresent(guard);
    return false;
  }
  try {
    if (readLockFile(file)?.text === stale.text) unlinkIfPresent(file);
  } finally {
    unlinkIfPresent(guard);
  }
  return true;
}

/** A staged lock file's name: `.lock.<pid>.<8 hex digits>`. */
const STAGED_NAME = /^\.lock\.(\d+)\.[0-9a-f]{8}$/;

/**
 * Removes staged lock files whose writer is gone: a server killed between writing its staged file
 * and removing it (a few system calls) leaves one behind. Called under the lock. A live writer's
 * file (a server racing for the lock right now, perhaps not done writing it) is left to it; the
 * pid in the name tells who wrote it, the start time in the content (when written) a reused pid.
 */
function removeOrphanedStagedFiles(dir: string): void {
  for (const name of readdirSync(dir)) {
    const match = STAGED_NAME.exec(name);
    if (match === null) continue;
    const path = join(dir, name);
    let holder: Holder;
    try {
      holder = readLockFile(path)?.holder ?? { pid: Number(match[1]), startTime: null };
    } catch {
      continue; // not a readable file: not ours to judge
    }
    if (!alive(holder)) unlinkIfPresent(path);
  }
}

/**
 * Takes `dir`'s lock for this server; throws DataDirectoryInUseError (naming the holder's pid and
 * the lock file) when another live server holds it. Returns the release, which removes the file.
 */
export function lockDataDirectory(dir: string): () => void {
  const real = realpathSync(dir);
  const file = join(dir, LOCK_FILE);
  const inUse = (by: string) => new DataDirectoryInUseError(`the data directory ${dir} is in use by ${by} (${file}); one server per data directory, as Kafka's log directory lock: give this one another (--data-dir, dataDir) or none (--in-memory, inMemory)`);
  if (lockedHere.has(real)) throw inUse('another server of this process');
  const startTime = procStat(process.pid)?.startTime;
  const staged = join(dir, `${LOCK_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
  try {
    try {
      writeFileSync(staged, `pid=${process.pid}\n${startTime !== undefined ? `start=${startTime}\n` : ''}`, { flag: 'wx' });
    } catch (err) {
      // A full disk fails here first (the lock is the first file a start writes): name the file
      // and the operation, as Kafka's LogManager does ("Disk error while locking directory <dir>").
      const failure = new Error(`disk error while locking the data directory ${dir}: cannot write ${staged} (${(err as Error).message})`, { cause: err });
      throw Object.assign(failure, { code: (err as NodeJS.ErrnoException).code });
    }
    const deadline = Date.now() + TAKEOVER_WAIT_MS;
    while (!linkIfAbsent(staged, file)) {
      const current = readLockFile(file);
      if (current === null) continue; // released meanwhile: try again
      if (current.holder !== null && alive(current.holder)) throw inUse(`process ${current.holder.pid}`);
      // A holder that is gone (or a file that names none: lock files are written whole): stale.
      if (!removeStaleLock(dir, staged, current)) {
        if (Date.now() > deadline) throw inUse('another server taking over its stale lock');
        Atomics.wait(pause, 0, 0, 1);
      }
    }
  } finally {
    unlinkIfPresent(staged);
  }
  removeOrphanedStagedFiles(dir);
  lockedHere.add(real);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    lockedHere.delete(real);
    try {
      // Only our own lock: never a file a later holder wrote.
      if (readLockFile(file)?.holder?.pid === process.pid) unlinkSync(file);
    } catch {
      // Gone or unreadable (the directory was removed): nothing to release.
    }
  };
}
