import { describe, it, expect } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataDirectoryInUseError, startServer } from '../../src/index.js';
import { startCli, kill } from '../support/cli-process.js';
import { TEST_LOG_LEVEL, tempDataDir } from '../support/server.js';
import { lockDataDirectory } from '../../src/server/data-dir-lock.js';

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

  it('takes over the lock of a holder of another pid namespace once it goes LOCK_STALE_MS untouched, by its own clock (a file dated ahead too)', () => {
    const data = tempDataDir();
    try {
      const lock = join(data.dir, '.lock');
      // A container's server (pid 1 of its namespace) killed under a clock an hour ahead of ours:
      // judged by no touch for LOCK_STALE_MS while this start waits, never by the file's date.
      writeFileSync(lock, 'pid=1\nstart=5\nns=pid:[1]\n');
      const ahead = new Date(Date.now() + 3_600_000);
      utimesSync(lock, ahead, ahead);
      const release = lockDataDirectory(data.dir);
      expect(readFileSync(lock, 'utf8')).toMatch(new RegExp(`^pid=${process.pid}\\nstart=\\d+\\nns=${readlinkSync('/proc/self/ns/pid').replace(/[[\]]/g, '\\$&')}\\ntoken=[0-9a-f]{16}\\n$`));
      release();
      expect(existsSync(lock)).toBe(false);
    } finally {
      data.remove();
    }
  });

  it('tells a holder whose lock another server took over, touches it no more, and leaves it at release', async () => {
    const data = tempDataDir();
    try {
      const lock = join(data.dir, '.lock');
      let lostWith = '';
      const told = new Promise<void>((resolve) => {
        const release = lockDataDirectory(data.dir, (message) => {
          lostWith = message;
          release();
          resolve();
        });
      });
      // What a server of another namespace writes when it takes a frozen holder's lock over.
      const theirs = 'pid=1\nstart=7\nns=pid:[2]\ntoken=0123456789abcdef\n';
      writeFileSync(lock, theirs);
      const old = new Date(Date.now() - 60_000);
      utimesSync(lock, old, old);
      await told;
      expect(lostWith).toBe(`the data directory lock ${lock} is now held by process 1 of pid namespace pid:[2]: another server took the data directory over while this one was frozen (for more than 5000 ms) or the file was removed`);
      expect(readFileSync(lock, 'utf8')).toBe(theirs);
      // Untouched since (mtime read back within the file system's sub-millisecond rounding).
      expect(Math.abs(statSync(lock).mtimeMs - old.getTime())).toBeLessThan(1);
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
      expect(readFileSync(lock, 'utf8')).toMatch(/^pid=1\nstart=\d+\nns=pid:\[\d+\]\ntoken=[0-9a-f]{16}\n$/);
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

  it.skipIf(!hasUnshare)('stops a holder frozen while a server of another pid namespace took its directory over: exit 1, nothing acknowledged after', async () => {
    const data = tempDataDir();
    const first = await startCli(['--port', '0', '--data-dir', data.dir]);
    let second: ReturnType<typeof spawn> | null = null;
    try {
      // Frozen (docker pause, SIGSTOP, a debugger): it touches its lock no more.
      process.kill(first.process.pid!, 'SIGSTOP');
      second = spawn('unshare', [...unshare, process.execPath, CLI, '--no-admin', '--port', '0', '--data-dir', data.dir], { stdio: ['ignore', 'pipe', 'inherit'] });
      const ready = await new Promise<boolean>((resolve) => {
        createInterface({ input: second!.stdout! }).on('line', (line) => line.includes('ready on') && resolve(true));
        second!.once('exit', () => resolve(false));
      });
      expect(ready).toBe(true);
      const taken = readFileSync(join(data.dir, '.lock'), 'utf8');
      expect(taken).toMatch(/^pid=1\n/);
      // Thawed: it finds the lock another's at its next touch and stops, exit 1.
      process.kill(first.process.pid!, 'SIGCONT');
      // Once its output is read to the end: its last lines may come after its exit.
      expect(await first.ended).toBe(1);
      expect(first.lines.some((l) => l.includes('is now held by process 1 of pid namespace') && l.includes('stopping'))).toBe(true);
      // Its shutdown left the other's lock in place.
      expect(readFileSync(join(data.dir, '.lock'), 'utf8')).toBe(taken);
    } finally {
      if (first.process.exitCode === null && first.process.signalCode === null) {
        process.kill(first.process.pid!, 'SIGCONT');
        await kill(first, 'SIGKILL');
      }
      if (second !== null && second.exitCode === null) {
        second.kill('SIGKILL');
        await new Promise((resolve) => second!.once('exit', resolve));
      }
      data.remove();
    }
  });
});
