/**
 * The built command line runs from a V8 code cache (scripts/cli-code-cache.mjs, issue #16): the
 * cache the build wrote fits the Node that built it, and a cache that does not fit (another Node,
 * a damaged file) costs only the compile it would have saved: the command line still serves.
 * On dist/ (`npm run build` first).
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIST = join(ROOT, 'dist');
const PROGRAM = readdirSync(DIST).find((f) => /^cli-program-.*\.cjs$/.test(f))!;
const TMP = mkdtempSync(join(tmpdir(), 'kmc-code-cache-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

describe("the command line's V8 code cache", () => {
  it('is written by the build beside the program dist/cli.js runs, and V8 takes it', () => {
    expect(readFileSync(join(DIST, 'cli.js'), 'utf8')).toContain(`./${PROGRAM}`);
    // Compiled as dist/cli.js compiles it (the same wrapper, file name and cache).
    const script = [
      "const vm = require('node:vm'); const { readFileSync } = require('node:fs');",
      `const file = ${JSON.stringify(join(DIST, PROGRAM))};`,
      "const s = new vm.Script('(function (exports, require, module, __filename, __dirname) {' + readFileSync(file, 'utf8') + '\\n})', { filename: file, cachedData: readFileSync(file + '.v8-cache') });",
      'process.stdout.write(String(s.cachedDataRejected));',
    ].join('\n');
    const env = { ...process.env };
    delete env['NODE_OPTIONS'];
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('false');
  });

  it('a damaged cache is rejected and the command line serves as without one', async () => {
    // A copy of the package whose dist/ links to the built files, with its own cache file.
    const dist = join(TMP, 'dist');
    mkdirSync(dist);
    // cli.js copied, not linked: Node runs a linked main module from its real path.
    copyFileSync(join(DIST, 'cli.js'), join(dist, 'cli.js'));
    for (const f of [PROGRAM, 'chunks']) symlinkSync(join(DIST, f), join(dist, f));
    symlinkSync(join(ROOT, 'package.json'), join(TMP, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(TMP, 'node_modules'));
    writeFileSync(join(dist, `${PROGRAM}.v8-cache`), Buffer.alloc(4096, 7));

    const version = spawnSync(process.execPath, [join(dist, 'cli.js'), '--version'], { encoding: 'utf8' });
    expect(version.stdout).toBe(`${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`);

    const child = spawn(process.execPath, [join(dist, 'cli.js'), '--in-memory', '--port', '0', '--no-admin'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = once(child, 'exit');
    try {
      const line = await new Promise<string>((done, fail) => {
        createInterface({ input: child.stdout! }).on('line', (l) => l.includes('ready on') && done(l));
        void exited.then(([code]) => fail(new Error(`exited ${String(code)} before ready`)));
      });
      const client = await RawClient.connect(Number(/ready on [^:]+:(\d+)/.exec(line)![1]));
      try {
        const res = await client.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1.0' });
        expect(res.errorCode).toBe(0);
        expect(res.apiKeys.find((k) => k.apiKey === 8)).toEqual({ apiKey: 8, minVersion: 2, maxVersion: 10 });
      } finally {
        client.socket.destroy();
      }
    } finally {
      child.kill('SIGTERM');
    }
    expect((await exited)[0]).toBe(0);
  });
});
