/**
 * One server per data directory, as Kafka's `LogManager.lockLogDirs` holds a `.lock` file in
 * each log directory: a second broker on the same directory would interleave appends with the
 * first and lose acknowledged writes (new-user trial 9: both answered, one record survived).
 *
 * Node has no advisory file lock, so the `.lock` file here names its holder: the pid and, on
 * Linux, the process's start time (field 22 of /proc/<pid>/stat), which tells a live holder from
 * a pid reused since a holder was killed. A lock whose holder is gone (kill -9, power loss) is
 * taken over. Servers in one process are told apart by the directory's real path. Not covered:
 * two containers with separate pid namespaces sharing one volume.
 */
import { closeSync, openSync, readFileSync, realpathSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = '.lock';

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

/** A process's start time from /proc (Linux), null where there is none. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from its closing ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function readHolder(file: string): Holder | null {
  try {
    const match = /^pid=(\d+)(?:\nstart=(\d+))?/.exec(readFileSync(file, 'utf8'));
    return match ? { pid: Number(match[1]), startTime: match[2] ?? null } : null;
  } catch {
    return null;
  }
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
  const now = startTimeOf(holder.pid);
  return holder.startTime === null || now === null || now === holder.startTime;
}

/**
 * Takes `dir`'s lock for this server; throws DataDirectoryInUseError (naming the holder's pid and
 * the lock file) when another live server holds it. Returns the release, which removes the file.
 */
export function lockDataDirectory(dir: string): () => void {
  const real = realpathSync(dir);
  const file = join(dir, LOCK_FILE);
  const inUse = (by: string) => new DataDirectoryInUseError(`the data directory ${dir} is in use by ${by} (${file}); one server per data directory, as Kafka's log directory lock`);
  if (lockedHere.has(real)) throw inUse('another server of this process');
  const content = `pid=${process.pid}\n${startTimeOf(process.pid) !== null ? `start=${startTimeOf(process.pid)}\n` : ''}`;
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const holder = readHolder(file);
      if (holder !== null && alive(holder)) throw inUse(`process ${holder.pid}`);
      // A holder that is gone (or a file that names none): the lock is stale.
      unlinkSync(file);
      continue;
    }
    try {
      writeSync(fd, content);
    } finally {
      closeSync(fd);
    }
    break;
  }
  lockedHere.add(real);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    lockedHere.delete(real);
    // Only our own lock: never a file a later holder wrote.
    if (readHolder(file)?.pid === process.pid) {
      try {
        unlinkSync(file);
      } catch {
        // Already gone (the directory was removed): nothing to release.
      }
    }
  };
}
