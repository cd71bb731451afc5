/**
 * One server per data directory, as Kafka's `LogManager.lockLogDirs` holds a `.lock` file in
 * each log directory: a second broker on the same directory would interleave appends with the
 * first and lose acknowledged writes (new-user trial 9: both answered, one record survived).
 *
 * Node has no advisory file lock, so the `.lock` file here names its holder: the pid and, on
 * Linux, the process's start time (field 22 of /proc/<pid>/stat), which tells a live holder from
 * a pid reused since a holder was killed; a zombie (killed, not yet reaped) is gone too. A lock
 * whose holder is gone (kill -9, power loss) is taken over. Servers in one process are told apart
 * by the directory's real path.
 *
 * A pid means nothing in another pid namespace (a container beside the host, or another container,
 * on one volume: new-user trial, session 31, where a container took the host server's directory
 * over and one of two acknowledged records was lost). So the file also names its holder's pid
 * namespace (/proc/self/ns/pid) and a token, and the holder touches the file every
 * LOCK_REFRESH_MS: a server in another namespace waits for that touch (held) or for LOCK_STALE_MS
 * of its own waiting without one (stale: its holder is gone, e.g. a container killed and started
 * again, which comes back in a new namespace). A holder frozen longer than that can be taken over:
 * at its next touch it finds the file not its own (the token) and is told (`onLost`), and its
 * release leaves the other's file.
 *
 * Races between servers starting at once (adversarial trial 10 saw two holders): the lock file is
 * written in full under a private name and then hard-linked to `.lock`, so it never exists half
 * written and exactly one link wins; a stale lock is removed only by the one server holding
 * `.lock.takeover` (taken the same way), after checking under it that `.lock` is still the stale
 * file it judged, so a fresh holder's lock is never removed.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, readdirSync, readlinkSync, realpathSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = '.lock';
const TAKEOVER_FILE = '.lock.takeover';
/** How long a start waits for another server's takeover of a stale lock to finish (ms). */
const TAKEOVER_WAIT_MS = 2000;

/** How often a holder touches its lock file (ms), for servers in other pid namespaces. */
export const LOCK_REFRESH_MS = 1000;
/** A lock file of another pid namespace untouched this long (ms) is stale. */
export const LOCK_STALE_MS = 5000;

const pause = new Int32Array(new SharedArrayBuffer(4));

/** This process's pid namespace (Linux: `pid:[4026531836]`), null where there is none to read. */
const OWN_NAMESPACE = ((): string | null => {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
})();

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
  /** The holder's pid namespace, null where unknown (another OS, or a lock written by an older build). */
  namespace: string | null;
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
  const namespace = /^ns=(.+)$/m.exec(text)?.[1] ?? null;
  return { text, holder: match ? { pid: Number(match[1]), startTime: match[2] ?? null, namespace } : null };
}

/** Whether `holder` is of another pid namespace than this process, where its pid cannot be looked up. */
function elsewhere(holder: Holder): boolean {
  return holder.namespace !== null && OWN_NAMESPACE !== null && holder.namespace !== OWN_NAMESPACE;
}

/** The file's modification time (ms), null when it is gone. */
function modifiedAt(file: string): number | null {
  try {
    return statSync(file).mtimeMs;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Whether the lock file of a holder in another pid namespace is kept by a live holder: waits
 * (blocking: this is a start) until its holder touches it (true), or it goes away or stays
 * untouched for LOCK_STALE_MS of this process's own monotonic time (false). Never the file's age
 * against this process's clock: a holder whose clock is behind (NTP, another host over NFS) would
 * look stale at once, one ahead would hold a dead lock for as long (adversarial trial, session 31).
 */
function touchedByHolder(file: string): boolean {
  const seen = modifiedAt(file);
  const until = performance.now() + LOCK_STALE_MS;
  for (;;) {
    const now = modifiedAt(file);
    if (now === null) return false;
    if (now !== seen) return true;
    if (performance.now() >= until) return false;
    Atomics.wait(pause, 0, 0, 50);
  }
}

/**
 * Whether the writer of a staged or takeover file (written in the same system calls as it tries
 * the lock, never touched after) is gone: by its pid in this pid namespace, by the file's age
 * (LOCK_STALE_MS) in another.
 */
function writerGone(holder: Holder, file: string): boolean {
  if (!elsewhere(holder)) return !alive(holder);
  const at = modifiedAt(file);
  return at !== null && Date.now() - at > LOCK_STALE_MS;
}

/** Whether `holder` is a live process other than this one and not a later process that reuses its pid (of this pid namespace). */
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
    if (taker !== null && (taker.holder === null || writerGone(taker.holder, guard))) unlinkIfPresent(guard);
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
      holder = readLockFile(path)?.holder ?? { pid: Number(match[1]), startTime: null, namespace: null };
    } catch {
      continue; // not a readable file: not ours to judge
    }
    if (writerGone(holder, path)) unlinkIfPresent(path);
  }
}

/**
 * Takes `dir`'s lock for this server; throws DataDirectoryInUseError (naming the holder's pid and
 * the lock file) when another live server holds it. Returns the release, which removes the file.
 */
export function lockDataDirectory(dir: string, onLost?: (message: string) => void): () => void {
  const real = realpathSync(dir);
  const file = join(dir, LOCK_FILE);
  const inUse = (by: string) => new DataDirectoryInUseError(`the data directory ${dir} is in use by ${by} (${file}); one server per data directory, as Kafka's log directory lock: give this one another (--data-dir, dataDir) or none (--in-memory, inMemory)`);
  if (lockedHere.has(real)) throw inUse('another server of this process');
  const startTime = procStat(process.pid)?.startTime;
  const staged = join(dir, `${LOCK_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
  // This holder's lock file, word for word: what its touches and its release check is still there
  // (another namespace's server may have the same pid: 1 in each container).
  const ownText = `pid=${process.pid}\n${startTime !== undefined ? `start=${startTime}\n` : ''}${OWN_NAMESPACE !== null ? `ns=${OWN_NAMESPACE}\n` : ''}token=${randomBytes(8).toString('hex')}\n`;
  try {
    try {
      writeFileSync(staged, ownText, { flag: 'wx' });
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
      if (current.holder !== null && elsewhere(current.holder)) {
        if (touchedByHolder(file)) throw inUse(`process ${current.holder.pid} of another pid namespace (${current.holder.namespace}: a container, or the host beside one)`);
      } else if (current.holder !== null && alive(current.holder)) {
        throw inUse(`process ${current.holder.pid}`);
      }
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
  // Touched for servers of other pid namespaces (touchedByHolder); a failed touch (the directory
  // removed, a read-only remount) is tried again at the next tick. A lock file that is no longer
  // this holder's (a server of another namespace took it over while this one was frozen past
  // LOCK_STALE_MS: SIGSTOP, `docker pause`, a debugger) is never touched: the holder is told
  // (`onLost`), and the server stops (adversarial trial, session 31).
  const refresh = setInterval(() => {
    let current: LockFileContent | null;
    try {
      current = readLockFile(file);
    } catch {
      return; // unreadable now: see above
    }
    if (current?.text !== ownText) {
      clearInterval(refresh);
      const by = current?.holder ? `process ${current.holder.pid}${current.holder.namespace !== null ? ` of pid namespace ${current.holder.namespace}` : ''}` : 'no server (the lock file is gone)';
      onLost?.(`the data directory lock ${file} is now held by ${by}: another server took the data directory over while this one was frozen (for more than ${LOCK_STALE_MS} ms) or the file was removed`);
      return;
    }
    try {
      const now = new Date();
      utimesSync(file, now, now);
    } catch {
      // see above
    }
  }, LOCK_REFRESH_MS).unref();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    clearInterval(refresh);
    lockedHere.delete(real);
    try {
      // Only our own lock: never a file a later holder wrote.
      if (readLockFile(file)?.text === ownText) unlinkSync(file);
    } catch {
      // Gone or unreadable (the directory was removed): nothing to release.
    }
  };
}
