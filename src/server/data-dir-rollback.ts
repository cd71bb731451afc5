/**
 * What a failed start leaves in the data directory: nothing it did not find. The storage opens
 * before the listeners bind (they serve the broker it loads), so a start whose port is in use has
 * by then laid out a new directory (`meta.properties`, 50 `__consumer_offsets-*` partitions); a
 * user who then fixes the port should start on the directory as it was, not on one that looks
 * used.
 *
 * The undo is by name, at the directory's top level: entries the start added are removed; entries
 * it found are kept whole, whatever recovery wrote inside them. Directory levels the start created
 * are removed again when empty.
 */
import { readdirSync, rmSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { LOCK_FILE } from './data-dir-lock.js';

/** The data directory as a start found it. */
export interface DataDirectorySnapshot {
  /**
   * Puts the directory back after a failed start, while this start still holds the data directory
   * lock: removes the top-level entries it added, calls `releaseLock`, then removes the levels it
   * created (only when empty: a server that took the path meanwhile keeps it). Best effort: the
   * start's own error is the one the caller reports.
   */
  undo(releaseLock: () => void): void;
}

/**
 * Notes `dir`'s top-level entries; called once this start holds the directory's lock, so that no
 * other server adds or removes entries from then on. `createdLevels`: what `prepareDataDirectory`
 * created, deepest first.
 */
export function noteDataDirectory(dir: string, createdLevels: readonly string[]): DataDirectorySnapshot {
  const found = new Set(readdirSync(dir));
  return {
    undo(releaseLock) {
      try {
        for (const name of readdirSync(dir)) {
          // The lock files are the lock's own to remove (releaseLock).
          if (found.has(name) || name.startsWith(LOCK_FILE)) continue;
          rmSync(join(dir, name), { recursive: true, force: true });
        }
      } catch {
        // Left as it is: the start's error says what went wrong.
      }
      releaseLock();
      removeEmptyLevels(createdLevels);
    },
  };
}

/** Removes `levels` (deepest first) while they are empty directories. */
export function removeEmptyLevels(levels: readonly string[]): void {
  for (const level of levels) {
    try {
      rmdirSync(level);
    } catch {
      return;
    }
  }
}
