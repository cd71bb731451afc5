/**
 * A start that fails on the data directory's files exits 2 with a message naming the directory,
 * the file and the operation (adversarial trial 12: a restart on a still-full disk said only
 * "ENOSPC: no space left on device, write").
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
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
      first.broker.ensureOffsetsTopic(); // as the first group lookup does
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

/** A port held by another listener for the length of a test. */
async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

/** Every file and directory under `dir`, with each file's size: what a failed start must leave as it was. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => {
      const stat = statSync(join(dir, name));
      return stat.isDirectory() ? `${name}/` : `${name} ${stat.size}`;
    })
    .sort();
}

describe('a start that fails once the storage is open (a port in use) leaves the data directory as it found it', () => {
  it('from the command line, on a directory that did not exist: not created, nor its new parent, exit 2', async () => {
    const data = tempDataDir();
    const taken = await takenPort();
    try {
      const dir = join(data.dir, 'new', 'data');
      const res = spawnSync(process.execPath, [CLI, '--port', String(taken.port), '--no-admin', '--data-dir', dir], { encoding: 'utf8', timeout: 60_000 });
      expect(res.status).toBe(2);
      expect(res.stderr).toBe(`kafka-mock-coordinator: listen EADDRINUSE: address already in use :::${taken.port} (a Kafka port: pass --port with another, 0 for a free one, or stop what holds it)\n`);
      expect(existsSync(join(data.dir, 'new'))).toBe(false);
      expect(readdirSync(data.dir)).toEqual([]);
    } finally {
      taken.server.close();
      data.remove();
    }
  });

  it.each(['Kafka', 'admin'] as const)('in process, on an empty directory, the %s port in use: still empty, and the next start lays it out', async (which) => {
    const data = tempDataDir();
    const taken = await takenPort();
    try {
      const ports = which === 'Kafka' ? { port: taken.port } : { port: 0, adminPort: taken.port };
      await expect(startServer({ ...ports, dataDir: data.dir, logLevel: 'silent' })).rejects.toMatchObject({ code: 'EADDRINUSE', port: taken.port });
      expect(readdirSync(data.dir)).toEqual([]);
      // The lock went with the failed start: a start on the same directory runs.
      const server = await startServer({ port: 0, dataDir: data.dir, logLevel: 'silent' });
      server.broker.ensureOffsetsTopic(); // as the first group lookup does
      await server.close();
      expect(readdirSync(data.dir).filter((name) => name.startsWith('__consumer_offsets-'))).toHaveLength(50);
    } finally {
      taken.server.close();
      data.remove();
    }
  });

  it('on a directory in use before: what it held is kept, file for file; what the start added is gone', async () => {
    const data = tempDataDir();
    const taken = await takenPort();
    try {
      const first = await startServer({ port: 0, dataDir: data.dir, logLevel: 'silent' });
      first.broker.ensureOffsetsTopic(); // as the first group lookup does
      await first.close();
      // A partition missing from the directory: the failed start recreates it, then removes it again.
      rmSync(join(data.dir, '__consumer_offsets-7'), { recursive: true });
      const before = tree(data.dir);
      expect(before).toContain('meta.properties ' + String(statSync(join(data.dir, 'meta.properties')).size));
      expect(before.filter((entry) => /^__consumer_offsets-\d+\/$/.test(entry))).toHaveLength(49);
      await expect(startServer({ port: taken.port, dataDir: data.dir, logLevel: 'silent' })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      expect(tree(data.dir)).toEqual(before);
      expect(existsSync(join(data.dir, '__consumer_offsets-7'))).toBe(false);
    } finally {
      taken.server.close();
      data.remove();
    }
  });
});
