import { describe, it, expect } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataDirectoryInUseError, startServer } from '../../src/index.js';
import { startCli, kill } from '../support/cli-process.js';
import { TEST_LOG_LEVEL, tempDataDir } from '../support/server.js';
import { LOCK_STALE_MS, lockDataDirectory } from '../../src/server/data-dir-lock.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** Kafka's LogManager locks each log directory: a second broker on it would lose acknowledged writes. */
describe('one server per data directory (.lock)', () => {
  it('refuses a second in-process server on the directory until the first is closed', async () => {
    const data = tempDataDir();
    try {
      const first = await startServer({ port: 0, dataDir: data.dir, logLevel: TEST_LOG_LEVEL });
      const lock = join(data.dir, '.lock');
      expect(readFileSync(lock, 'utf8')).toMatch(new RegExp(`^pid=${process.pid}\\n`));
      await expect(startServer({ port: 0, dataDir: data.dir, logLevel: TEST_LOG_LEVEL })).rejects.toThrow(
        new DataDirectoryInUseError(`the data directory ${data.dir} is in use by another server of this process (${lock}); one server per data directory, as Kafka's log directory lock: give this one another (--data-dir, dataDir) or none (--in-memory, inMemory)`),
      );
      await first.close();
      expect(existsSync(lock)).toBe(false);
      const second = await startServer({ port: 0, dataDir: data.dir, logLevel: TEST_LOG_LEVEL });
      await second.close();
    } finally {
      data.remove();
    }
  });

  it('makes a second command line exit 2 naming the holder, and takes over the lock of a killed one', async () => {
    const data = tempDataDir();
    const first = await startCli(['--port', '0', '--data-dir', data.dir]);
    try {
      const lock = join(data.dir, '.lock');
      const second = spawnSync(process.execPath, [CLI, '--no-admin', '--port', '0', '--data-dir', data.dir], { encoding: 'utf8', timeout: 60_000 });
      expect({ status: second.status, stderr: second.stderr }).toEqual({
        status: 2,
        stderr: `kafka-mock-coordinator: the data directory ${data.dir} is in use by process ${first.process.pid} (${lock}); one server per data directory, as Kafka's log directory lock: give this one another (--data-dir, dataDir) or none (--in-memory, inMemory)\n`,
      });
      // kill -9 leaves the file; its holder is gone, so the next server takes the lock.
      await kill(first, 'SIGKILL');
      expect(existsSync(lock)).toBe(true);
      const third = await startCli(['--port', '0', '--data-dir', data.dir]);
      expect(readFileSync(lock, 'utf8')).toMatch(new RegExp(`^pid=${third.process.pid}\\n`));
      expect(await kill(third, 'SIGTERM')).toBe(0);
      expect(existsSync(lock)).toBe(false);
    } finally {
      await kill(first, 'SIGKILL');
      data.remove();
    }
  });

  it('judges a holder of another pid namespace by its touches: stale once untouched for LOCK_STALE_MS, taken over then', () => {
    const data = tempDataDir();
    try {
      const lock = join(data.dir, '.lock');
      // A container's server that was killed (pid 1 of its namespace) long ago: taken over at once.
      writeFileSync(lock, 'pid=1\nstart=5\nns=pid:[1]\n');
      const old = new Date(Date.now() - 2 * LOCK_STALE_MS);
      utimesSync(lock, old, old);
      lockDataDirectory(data.dir)();
      // One killed just now (its container started again, in a new namespace): taken over once the
      // file has gone LOCK_STALE_MS untouched (here 200 ms from now).
      writeFileSync(lock, 'pid=1\nstart=5\nns=pid:[1]\n');
      const recent = new Date(Date.now() - LOCK_STALE_MS + 200);
      utimesSync(lock, recent, recent);
      const release = lockDataDirectory(data.dir);
      expect(readFileSync(lock, 'utf8')).toBe(`pid=${process.pid}\nstart=${readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[19]}\nns=${readlinkSync('/proc/self/ns/pid')}\n`);
      release();
      expect(existsSync(lock)).toBe(false);
    } finally {
      data.remove();
    }
  });

  // A container beside the host on one volume (new-user trial, session 31: the container took the
  // host server's directory over, and one of two acknowledged records was lost): `unshare --pid`
  // gives the second server a pid namespace of its own, as a container's.
  const unshare = ['--pid', '--fork', '--mount-proc', '--kill-child'];
  const hasUnshare = process.platform === 'linux' && spawnSync('unshare', [...unshare, 'true'], { stdio: 'ignore' }).status === 0;
  it.skipIf(!hasUnshare)('refuses a server of another pid namespace while the holder lives, and takes over once it is killed', async () => {
    const data = tempDataDir();
    const first = await startCli(['--port', '0', '--data-dir', data.dir]);
    const args = [...unshare, process.execPath, CLI, '--no-admin', '--port', '0', '--data-dir', data.dir];
    let third: ReturnType<typeof spawn> | null = null;
    try {
      const lock = join(data.dir, '.lock');
      const second = spawnSync('unshare', args, { encoding: 'utf8', timeout: 60_000 });
      expect({ status: second.status, stderr: second.stderr }).toEqual({
        status: 2,
        stderr: `kafka-mock-coordinator: the data directory ${data.dir} is in use by process ${first.process.pid} of another pid namespace (${readlinkSync('/proc/self/ns/pid')}: a container, or the host beside one) (${lock}); one server per data directory, as Kafka's log directory lock: give this one another (--data-dir, dataDir) or none (--in-memory, inMemory)\n`,
      });
      // Killed: its file goes untouched, and a server in a new namespace takes the lock (pid 1 there).
      await kill(first, 'SIGKILL');
      third = spawn('unshare', args, { stdio: ['ignore', 'pipe', 'inherit'] });
      const ready = await new Promise<boolean>((resolve) => {
        createInterface({ input: third!.stdout! }).on('line', (line) => line.includes('ready on') && resolve(true));
        third!.once('exit', () => resolve(false));
      });
      expect(ready).toBe(true);
      expect(readFileSync(lock, 'utf8')).toMatch(/^pid=1\nstart=\d+\nns=pid:\[\d+\]\n$/);
      expect(readFileSync(lock, 'utf8')).not.toContain(readlinkSync('/proc/self/ns/pid'));
    } finally {
      await kill(first, 'SIGKILL');
      if (third !== null && third.exitCode === null) {
        third.kill('SIGKILL');
        await new Promise((resolve) => third!.once('exit', resolve));
      }
      data.remove();
    }
  });
});
