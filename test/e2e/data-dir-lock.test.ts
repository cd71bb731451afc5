import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataDirectoryInUseError, startServer } from '../../src/index.js';
import { startCli, kill } from '../support/cli-process.js';
import { TEST_LOG_LEVEL, tempDataDir } from '../support/server.js';

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
});
