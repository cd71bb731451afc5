/**
 * A small real tmpfs for disk-full tests: `mount -t tmpfs` needs root (CI runs as root); where it
 * cannot be mounted, `mountTmpfs` returns null and the caller skips with `TMPFS_SKIP_REASON`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TMPFS_SKIP_REASON = 'needs root to mount a tmpfs (mount -t tmpfs)';

export interface Tmpfs {
  dir: string;
  /** Fills the file system up to its last `leaveBytes` with a filler file (again: tops it up). */
  fill(leaveBytes?: number): void;
  /** Removes the filler: the space is back. */
  free(): void;
  /** Unmounts and removes the mount point. */
  unmount(): void;
}

/** Mounts a tmpfs of `sizeBytes` (rounded up to pages) on a new temporary directory, or null. */
export function mountTmpfs(sizeBytes: number): Tmpfs | null {
  const dir = mkdtempSync(join(tmpdir(), 'kmc-tmpfs-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    fill(leaveBytes = 0) {
      const { bavail, bsize } = statfsSync(dir);
      // Appending tops up space freed since the last fill (a rolled-back write gives pages back).
      appendFileSync(filler, Buffer.alloc(Math.max(0, bavail * bsize - leaveBytes)));
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether this process may mount a tmpfs (tries once). */
export const canMountTmpfs: boolean = (() => {
  const probe = mountTmpfs(4096);
  probe?.unmount();
  return probe !== null;
})();
