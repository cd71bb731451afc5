import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCli, kill } from '../support/cli-process.js';
import { tempDataDir } from '../support/server.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** The built command line, expected to refuse to start; its exit status and stderr. */
function refused(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stderr: string } {
  // The timeout is a backstop for a start that never ends (the /proc case used to spin forever).
  const res = spawnSync(process.execPath, [CLI, '--no-admin', '--port', '0', ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: res.status, stderr: res.stderr };
}

describe('command line: the data directory (log.dirs, --data-dir)', () => {
  it('refuses a log.dirs list of two directories, from KAFKA_LOG_DIRS or --config, creating neither', () => {
    const data = tempDataDir();
    try {
      const a = join(data.dir, 'a');
      const b = join(data.dir, 'b');
      expect(refused([], { KAFKA_LOG_DIRS: `${a},${b}` })).toEqual({
        status: 2,
        stderr: `kafka-mock-coordinator: invalid config log.dirs: 2 directories given (${a}, ${b}); one data directory is supported (from KAFKA_LOG_DIRS)\n`,
      });
      expect(refused(['--config', `log.dirs=${a} , ${b}`])).toEqual({
        status: 2,
        stderr: `kafka-mock-coordinator: invalid config log.dirs: 2 directories given (${a}, ${b}); one data directory is supported\n`,
      });
      expect(refused(['--config', 'log.dirs= , '])).toEqual({
        status: 2,
        stderr: 'kafka-mock-coordinator: invalid config log.dirs: no directory given (one data directory is supported)\n',
      });
      expect(readdirSync(data.dir)).toEqual([]);
    } finally {
      data.remove();
    }
  });

  it('takes a log.dirs of one entry with spaces and a trailing comma, as Kafka trims a list', async () => {
    const data = tempDataDir();
    const dir = join(data.dir, 'nested', 'logs');
    const server = await startCli(['--port', '0'], { KAFKA_LOG_DIRS: ` ${dir} , ` });
    try {
      expect(JSON.parse(server.lines[0]!)).toMatchObject({ dataDir: dir });
      expect(existsSync(join(dir, 'meta.properties'))).toBe(true);
      expect(await kill(server, 'SIGTERM')).toBe(0);
    } finally {
      await kill(server, 'SIGKILL');
      data.remove();
    }
  });

  it('exits 2 naming the key and the reason for a path that cannot be a directory', () => {
    const data = tempDataDir();
    try {
      const file = join(data.dir, 'plain-file');
      writeFileSync(file, 'x');
      expect(refused([], { KAFKA_LOG_DIRS: file })).toEqual({
        status: 2,
        stderr: `kafka-mock-coordinator: invalid config log.dirs: cannot use ${file} as the data directory: ${file} is not a directory (from KAFKA_LOG_DIRS)\n`,
      });
      expect(refused(['--data-dir', join(file, 'below', 'it')])).toEqual({
        status: 2,
        stderr: `kafka-mock-coordinator: invalid config --data-dir: cannot use ${join(file, 'below', 'it')} as the data directory: ${file} is not a directory\n`,
      });
      // Node's recursive mkdir never returns on this path (100% CPU); created level by level it fails at once.
      expect(refused(['--data-dir', '/proc/nope/data'])).toEqual({
        status: 2,
        stderr: "kafka-mock-coordinator: invalid config --data-dir: cannot create the data directory /proc/nope/data: ENOENT: no such file or directory, mkdir '/proc/nope'\n",
      });
    } finally {
      data.remove();
    }
  });
});
