/**
 * The built package runs from a V8 code cache (scripts/code-cache.mjs, issue #16): its one program
 * bundle serves both the command line and `import`; the cache the build wrote fits the Node that
 * built it, and a cache that does not fit (another Node, a damaged file) costs only the compile it
 * would have saved: the command line still serves and `import` still starts a server.
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
const PROGRAM = readdirSync(DIST).find((f) => /^program-.*\.cjs$/.test(f) && f !== 'program-loader.cjs')!;
const TMP = mkdtempSync(join(tmpdir(), 'kmc-code-cache-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

describe("the package's V8 code cache", () => {
  it('the command line and the package entry run the same program, and the package holds no second copy of it', () => {
    expect(readFileSync(join(DIST, 'program-loader.cjs'), 'utf8')).toContain(`"${PROGRAM}"`);
    // The bin is CommonJS, as the loader (no ES module loader at its start); the ES module entries import the loader.
    expect(readFileSync(join(DIST, 'cli.cjs'), 'utf8')).toContain("require('./program-loader.cjs').runCli();");
    for (const entry of ['cli.js', 'index.js']) expect(readFileSync(join(DIST, entry), 'utf8')).toContain("import program from './program-loader.cjs';");
    // No ES module bundle beside the CommonJS one: every chunk (codecs included) is .cjs.
    const chunkFiles = readdirSync(join(DIST, 'chunks'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.c?js$/.test(f));
    expect(chunkFiles.length).toBeGreaterThan(100);
    expect(chunkFiles.filter((f) => !f.endsWith('.cjs'))).toEqual([]);
    const files = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    expect(files).toContain('dist/program-loader.cjs');
    expect((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin).toEqual({ 'kafka-mock-coordinator': 'dist/cli.cjs' });
    expect(files.filter((f) => f.startsWith('dist/chunks/') && f.endsWith('.js'))).toEqual([]);
  });

  it('require() of the package (jest, CommonJS projects) gets the same program as import, and starts a server', () => {
    const script = [
      "const viaRequire = require('kafka-mock-coordinator');",
      "import('kafka-mock-coordinator').then(async (viaImport) => {",
      '  const s = await viaRequire.startServer({ port: 0, inMemory: true });',
      '  console.log(JSON.stringify({ same: viaRequire.startServer === viaImport.startServer && viaRequire.ConfigError === viaImport.ConfigError, names: Object.keys(viaRequire).sort().join() === Object.keys(viaImport).sort().join(), port: s.port > 0 }));',
      '  await s.close();',
      '});',
    ].join('\n');
    // From the project's own directory, where the package resolves to itself through its "exports";
    // without Node's require() of ES modules (as jest's require, and Node 20 before 20.19, have none).
    const run = spawnSync(process.execPath, ['--no-experimental-require-module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ same: true, names: true, port: true });
  });

  it("in a module sandbox of its own (as jest runs every module), require() runs the program there: its errors are that sandbox's Errors", () => {
    // Compiled in Node's main context instead, `err instanceof Error` was false in jest (adversarial trial 17).
    const run = spawnSync(process.execPath, [join(ROOT, 'test', 'support', 'module-sandbox.cjs'), ROOT], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ sandboxError: true, mainError: false, name: 'ConfigError', port: true });
  });

  it('is written by the build beside the program and each chunk a start loads, and V8 takes each', () => {
    const caches = readdirSync(DIST, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.cjs.v8-cache'));
    // The program, and chunks of what a start runs (the admin listener's among them); not the tools'.
    expect(caches).toContain(`${PROGRAM}.v8-cache`);
    expect(caches.some((f) => /^chunks\/listener-.*\.cjs\.v8-cache$/.test(f))).toBe(true);
    expect(caches.filter((f) => /^chunks\/(dump-log|consumer-groups|share-groups)-/.test(f))).toEqual([]);
    // Each compiled as dist/program-loader.cjs compiles it (the same wrapper, file name and cache).
    const script = [
      "const vm = require('node:vm'); const { readFileSync } = require('node:fs');",
      `const files = ${JSON.stringify(caches.map((f) => join(DIST, f.slice(0, -'.v8-cache'.length))))};`,
      "const rejected = files.filter((file) => new vm.Script('(function (exports, require, module, __filename, __dirname) {' + readFileSync(file, 'utf8') + '\\n})', { filename: file, cachedData: readFileSync(file + '.v8-cache') }).cachedDataRejected);",
      'process.stdout.write(JSON.stringify(rejected));',
    ].join('\n');
    const env = { ...process.env };
    delete env['NODE_OPTIONS'];
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('[]');
  });

  it('a damaged cache is rejected: the command line serves and import starts a server as without one', async () => {
    // A copy of the package whose dist/ links to the built files, with its own cache file.
    const dist = join(TMP, 'dist');
    mkdirSync(dist);
    // The entry points and the loader copied, not linked: Node runs a linked module from its real
    // path, and the loader would read the real cache beside it.
    for (const f of ['cli.cjs', 'cli.js', 'index.js', 'program-loader.cjs']) copyFileSync(join(DIST, f), join(dist, f));
    for (const f of [PROGRAM, 'chunks']) symlinkSync(join(DIST, f), join(dist, f));
    symlinkSync(join(ROOT, 'package.json'), join(TMP, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(TMP, 'node_modules'));
    writeFileSync(join(dist, `${PROGRAM}.v8-cache`), Buffer.alloc(4096, 7));

    for (const cli of ['cli.cjs', 'cli.js']) {
      const version = spawnSync(process.execPath, [join(dist, cli), '--version'], { encoding: 'utf8' });
      expect(version.stdout).toBe(`${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`);
    }

    const child = spawn(process.execPath, [join(dist, 'cli.cjs'), '--in-memory', '--port', '0', '--no-admin'], { stdio: ['ignore', 'pipe', 'inherit'] });
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

    const imported = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `const { startServer } = await import(${JSON.stringify(join(dist, 'index.js'))}); const s = await startServer({ port: 0, inMemory: true }); console.log(s.port > 0); await s.close();`],
      { encoding: 'utf8' },
    );
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toBe('true\n');
  });
});
