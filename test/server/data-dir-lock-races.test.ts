/**
 * The data directory lock against the races adversarial trial 10 found: servers starting at the
 * same instant on a stale or missing `.lock` (two held it), and a killed holder not yet reaped by
 * its parent (a zombie answers kill(pid, 0), and the restart was refused).
 */
import { describe, it, expect } from 'vitest';
import { fork, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lockDataDirectory } from '../../src/server/data-dir-lock.js';
import { tempDataDir } from '../support/server.js';

const LOCK_MODULE = fileURLToPath(new URL('../../dist/server/data-dir-lock.js', import.meta.url));
const CONTENDERS = 8;

/** A process that waits for `at` (ms since the epoch), tries the lock, reports, and holds what it got until told to exit. */
const CONTENDER = `
const { lockDataDirectory } = await import(process.argv[1]);
const at = Number(process.argv[3]);
while (Date.now() < at) {}
try { lockDataDirectory(process.argv[2]); process.send({ locked: true }); }
catch (err) { process.send({ locked: false, message: err.message }); }
process.on('message', () => process.exit(0));
`;

async function race(dir: string): Promise<Array<{ pid: number; locked: boolean; message?: string }>> {
  const at = Date.now() + 1500;
  const children = Array.from({ length: CONTENDERS }, () =>
    fork('--input-type=module', [], { execArgv: ['--input-type=module', '-e', CONTENDER, LOCK_MODULE, dir, String(at)] }),
  );
  const results = await Promise.all(
    children.map((c) => new Promise<{ pid: number; locked: boolean; message?: string }>((resolve, reject) => {
      c.once('message', (m) => resolve({ pid: c.pid!, ...(m as { locked: boolean; message?: string }) }));
      c.once('exit', (code) => reject(new Error(`contender exited ${code} before answering`)));
    })),
  );
  await Promise.all(children.map((c) => new Promise((resolve) => { c.once('exit', resolve); c.send('exit'); })));
  return results;
}

describe('data directory lock races', () => {
  for (const stale of [true, false]) {
    it(`gives the lock to exactly one of ${CONTENDERS} servers starting at once (${stale ? 'stale .lock' : 'no .lock'})`, async () => {
      const data = tempDataDir();
      try {
        for (let round = 0; round < 2; round++) {
          if (stale) writeFileSync(join(data.dir, '.lock'), 'pid=999999999\nstart=1\n');
          const results = await race(data.dir);
          const holders = results.filter((r) => r.locked);
          expect(holders.length, JSON.stringify(results)).toBe(1);
          for (const r of results.filter((x) => !x.locked)) {
            expect(r.message).toBe(`the data directory ${data.dir} is in use by process ${holders[0]!.pid} (${join(data.dir, '.lock')}); one server per data directory, as Kafka's log directory lock: give this one another (--data-dir, dataDir) or none (--in-memory, inMemory)`);
          }
          // The winner exited without releasing (as kill -9): its lock is left, naming it; nothing else is.
          expect(readFileSync(join(data.dir, '.lock'), 'utf8')).toMatch(new RegExp(`^pid=${holders[0]!.pid}\\n`));
          expect(readdirSync(data.dir).filter((n) => n.startsWith('.lock'))).toEqual(['.lock']);
        }
      } finally {
        data.remove();
      }
    });
  }

  it('takes over the lock of a holder killed but not yet reaped (a zombie)', async () => {
    const data = tempDataDir();
    // `sh` starts the holder in the background and becomes `sleep`, which never reaps it.
    const holderScript = `const { lockDataDirectory } = await import(${JSON.stringify(LOCK_MODULE)}); lockDataDirectory(${JSON.stringify(data.dir)}); console.log('locked'); setInterval(() => {}, 1000);`;
    const parent = spawn('sh', ['-c', `"${process.execPath}" --input-type=module -e "$HOLDER" & echo $!; exec sleep 120`], {
      env: { ...process.env, HOLDER: holderScript },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let out = '';
      await new Promise<void>((resolve) => parent.stdout!.on('data', (d: Buffer) => { out += d; if (out.includes('locked')) resolve(); }));
      const holderPid = Number(out.split('\n')[0]);
      expect(readFileSync(join(data.dir, '.lock'), 'utf8')).toMatch(new RegExp(`^pid=${holderPid}\\n`));
      process.kill(holderPid, 'SIGKILL');
      // Wait for the event (its state turning Z), not for time.
      while (!/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${holderPid}/stat`, 'utf8'))) await new Promise((r) => setImmediate(r));
      const release = lockDataDirectory(data.dir);
      expect(readFileSync(join(data.dir, '.lock'), 'utf8')).toMatch(new RegExp(`^pid=${process.pid}\\n`));
      release();
      expect(existsSync(join(data.dir, '.lock'))).toBe(false);
    } finally {
      parent.kill('SIGKILL');
      data.remove();
    }
  });

  it('removes staged lock files left by servers killed while taking the lock, not a live one\'s', () => {
    const data = tempDataDir();
    try {
      // Killed before writing (empty), after writing, and one of a pid reused since (start time differs).
      writeFileSync(join(data.dir, '.lock.999999999.0a1b2c3d'), '');
      writeFileSync(join(data.dir, '.lock.999999998.00000000'), 'pid=999999998\nstart=5\n');
      writeFileSync(join(data.dir, `.lock.${process.ppid}.ffffffff`), `pid=${process.ppid}\nstart=1\n`);
      // A live server's, still being written: its pid is in the name.
      writeFileSync(join(data.dir, `.lock.${process.ppid}.12345678`), '');
      const release = lockDataDirectory(data.dir);
      expect(readdirSync(data.dir).filter((n) => n.startsWith('.lock')).sort()).toEqual(['.lock', `.lock.${process.ppid}.12345678`]);
      release();
    } finally {
      data.remove();
    }
  });

  it('refuses a .lock that is not a file with a message naming it', () => {
    const data = tempDataDir();
    try {
      const lock = join(data.dir, '.lock');
      mkdirSync(lock);
      expect(() => lockDataDirectory(data.dir)).toThrow(`the data directory lock ${lock} cannot be read (EISDIR: illegal operation on a directory, read); remove it if no server uses the directory`);
      expect(readdirSync(data.dir)).toEqual(['.lock']);
    } finally {
      data.remove();
    }
  });
});
