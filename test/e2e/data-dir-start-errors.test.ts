/**
 * A start that fails on the data directory's files exits 2 with a message naming the directory,
 * the file and the operation (adversarial trial 12: a restart on a still-full disk said only
 * "ENOSPC: no space left on device, write").
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../src/index.js';
import { tempDataDir } from '../support/server.js';
import { canMountTmpfs, mountTmpfs, TMPFS_SKIP_REASON } from '../support/tmpfs.js';

const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));

function startCliOnce(dataDir: string): { status: number | null; stderr: string } {
  const res = spawnSync(process.execPath, [CLI, '--port', '0', '--no-admin', '--data-dir', dataDir], { encoding: 'utf8', timeout: 60_000 });
  return { status: res.status, stderr: res.stderr };
}

describe('a start that fails on the data directory', () => {
  it.skipIf(!canMountTmpfs)(`on a full disk names the directory and the lock file it could not write, exit 2 (${TMPFS_SKIP_REASON})`, async () => {
    const fs = mountTmpfs(1 << 20)!;
    try {
      const dataDir = join(fs.dir, 'data');
      // A first start lays the directory out (and frees its lock on close); then the disk fills.
      const first = await startServer({ port: 0, dataDir, logLevel: 'silent' });
      await first.close();
      fs.fill();
      const res = startCliOnce(dataDir);
      expect(res.status).toBe(2);
      expect(res.stderr).toMatch(new RegExp(`^kafka-mock-coordinator: disk error while locking the data directory ${dataDir}: cannot write ${dataDir}/\\.lock\\.\\d+\\.[0-9a-f]{8} \\(ENOSPC: no space left on device, write\\)\\n$`));
      // The failed start leaves no staged lock file behind.
      expect(readdirSync(dataDir).filter((name) => name.startsWith('.lock'))).toEqual([]);
    } finally {
      fs.unmount();
    }
  });

  it.each([
    {
      what: 'a file where a partition directory must be (the failed mkdir)',
      path: '__consumer_offsets-0',
      breakIt: (path: string) => {
        rmSync(path, { recursive: true });
        writeFileSync(path, 'not a directory');
      },
      errno: (path: string) => `EEXIST: file already exists, mkdir '${path}'`,
    },
    {
      what: 'a directory where a segment file must be (the failed open)',
      path: '__consumer_offsets-0/00000000000000000000.log',
      breakIt: (path: string) => {
        rmSync(path);
        mkdirSync(path);
      },
      errno: (path: string) => `EISDIR: illegal operation on a directory, open '${path}'`,
    },
  ])('with $what names the data directory and the operation, exit 2', async ({ path, breakIt, errno }) => {
    const data = tempDataDir();
    try {
      const first = await startServer({ port: 0, dataDir: data.dir, logLevel: 'silent' });
      await first.close();
      const broken = join(data.dir, path);
      breakIt(broken);
      const res = startCliOnce(data.dir);
      expect(res.status).toBe(2);
      expect(res.stderr).toBe(`kafka-mock-coordinator: disk error while loading the data directory ${data.dir}: ${errno(broken)}\n`);
      // In process: the same message, and the errno code kept for a caller that tests it.
      await expect(startServer({ port: 0, dataDir: data.dir, logLevel: 'silent' })).rejects.toMatchObject({ code: errno(broken).slice(0, errno(broken).indexOf(':')), message: `disk error while loading the data directory ${data.dir}: ${errno(broken)}` });
    } finally {
      data.remove();
    }
  });
});
