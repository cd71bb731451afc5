/**
 * What the built package loads at start (issue #16): `import('kafka-mock-coordinator')` and the
 * command line serving `--no-admin` load the broker and nothing optional: no fastify, prom-client
 * or web console (the admin API's, loaded with its first HTTP request), no pino-pretty (only on a
 * terminal, and then in the main thread: no worker), no log tools, no native bindings or re2js
 * (loaded at their first use, util/lazy-module.ts); and our own code arrives bundled
 * (scripts/bundle.mjs), a handful of files rather than tsc's ~340 modules, with pino and commander
 * in them (no file of theirs read from node_modules); each API's message codecs and each
 * coordinator record schema are files of their own (dist/chunks/messages/, dist/chunks/records/),
 * loaded at first use (scripts/lazy-codecs-plugin.mjs). The modules are listed
 * by a module hook in a fresh `node` on dist/ (`npm run build` first), so the counts are of files
 * loaded, not of time.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * A module hook (written to a temporary file) that appends `LOADED <url>` to the file named by
 * KMC_LOADED_LOG for each module resolved: ES modules through the resolve hook (in the hooks
 * thread, which gets the file's name as `register`'s data), CommonJS ones (pino's own files, our
 * codec chunks, which the bundle `require`s) through Module._load, the bundle's files that
 * dist/program-loader.cjs compiles from their code caches through vm.Script; and `LOADED worker:<file>` for
 * each worker thread started (pino's `transport` would run pino-pretty in one). A file, written
 * synchronously before the module loads, not stderr: the test reads it when the child has answered
 * (a ready line, a response), and whatever the child loaded before answering is in it by then.
 * Lines on stderr reach the test through a pipe of their own, which a loaded machine may read
 * after the answer's socket.
 */
const HOOK_DIR = mkdtempSync(join(tmpdir(), 'kmc-lazy-'));
const HOOK = join(HOOK_DIR, 'hook.mjs');
writeFileSync(
  join(HOOK_DIR, 'resolve.mjs'),
  [
    "import { appendFileSync } from 'node:fs';",
    'let log;',
    'export function initialize(data) { log = data.log; }',
    'export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(log, `LOADED ${r.url}\n`); return r; }',
  ].join('\n'),
);
writeFileSync(
  HOOK,
  [
    "import Module, { register } from 'node:module';",
    "import { appendFileSync } from 'node:fs';",
    'const log = process.env.KMC_LOADED_LOG;',
    'const note = (what) => appendFileSync(log, `LOADED ${what}\n`);',
    `register(${JSON.stringify(pathToFileURL(join(HOOK_DIR, 'resolve.mjs')).href)}, { data: { log } });`,
    'const load = Module._load;',
    'Module._load = function (request, parent, isMain) {',
    '  try { note(Module._resolveFilename(request, parent, isMain)); } catch {}',
    '  return load.apply(this, arguments);',
    '};',
    // The package's own files compiled by dist/program-loader.cjs from their code caches (scripts/code-cache.mjs).
    "const vm = Module.createRequire(import.meta.url)('node:vm');",
    'const Script = vm.Script;',
    'vm.Script = class extends Script { constructor(source, options) { if (options?.filename) note(options.filename); super(source, options); } };',
    "const threads = Module.createRequire(import.meta.url)('node:worker_threads');",
    'const Worker = threads.Worker;',
    'threads.Worker = class extends Worker { constructor(file, ...rest) { note(`worker:${file}`); super(file, ...rest); } };',
  ].join('\n'),
);
let runs = 0;
/** Preloaded to take the command line's terminal path with stdout a pipe: it prints pretty lines then. */
const AS_TTY = join(HOOK_DIR, 'as-tty.mjs');
// The command line asks tty.isatty(1) (it never creates process.stdout, which would make fd 1 non-blocking).
writeFileSync(
  AS_TTY,
  "import tty from 'node:tty'; import { syncBuiltinESMExports } from 'node:module'; const isatty = tty.isatty; tty.isatty = (fd) => fd === 1 || isatty(fd); syncBuiltinESMExports();\n",
);
afterAll(() => rmSync(HOOK_DIR, { recursive: true, force: true }));

interface RunOptions {
  /** Receives the stdout lines up to the one `until` matched. */
  stdout?: string[];
  /** Runs once `until` matched, before the process is stopped; `loadedSoFar` lists what the hook reported by then. */
  whenReady?: (line: string, loadedSoFar: () => string[]) => Promise<void>;
}

/**
 * Runs node with the hook on `args` until `until` matches a stdout line (or it exits); the modules
 * it loaded, relative to the repository.
 */
async function loadedModules(args: string[], until?: RegExp, run: RunOptions = {}): Promise<string[]> {
  const log = join(HOOK_DIR, `loaded-${++runs}.txt`);
  writeFileSync(log, '');
  const child = spawn(process.execPath, ['--import', HOOK, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KMC_LOADED_LOG: log } });
  const closed = once(child, 'close');
  const ours = () => [
    ...new Set(
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('LOADED '))
        .map((line) => line.slice(7).replace(/^file:\/\//, '').replace(ROOT + '/', '')),
    ),
  ].filter((m) => !m.startsWith('data:'));
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  if (until) {
    const line = await new Promise<string>((done, fail) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        run.stdout?.push(line);
        if (until.test(line)) done(line);
      });
      child.once('exit', (code) => fail(new Error(`exited ${code} before ${until}; stderr: ${stderr}`)));
    });
    try {
      await run.whenReady?.(line, ours);
    } finally {
      child.kill('SIGTERM');
    }
  }
  await closed;
  return ours();
}

/** The packages every start needs, bundled into our files by scripts/bundle.mjs. */
const BUNDLED = /node_modules\/(pino|commander|sonic-boom|thread-stream|pino-std-serializers|@pinojs|safe-stable-stringify|quick-format-unescaped|atomic-sleep|on-exit-leak-free)\//;

const OPTIONAL = /node_modules\/(fastify|@fastify|prom-client|pino-pretty|light-my-request|avvio|@node-rs|re2js)\/|dist\/(console|admin)\/|chunks\/(server|dump-log|consumer-groups)-|^worker:/;

describe('start-up loads only what serving needs', () => {
  it("import('kafka-mock-coordinator'): no admin stack, pretty printer or tools, our code in at most 8 files", async () => {
    const loaded = await loadedModules(['--input-type=module', '-e', "await import('kafka-mock-coordinator'); console.log('imported')"]);
    expect(loaded).toContain('dist/index.js');
    // The program the command line runs (scripts/code-cache.mjs): its CommonJS chunks, no ES module copy.
    expect(loaded).toContain('dist/program-loader.cjs');
    expect(loaded.filter((m) => m.startsWith('dist/chunks/') && !m.endsWith('.cjs'))).toEqual([]);
    expect(loaded.filter((m) => OPTIONAL.test(m))).toEqual([]);
    expect(loaded.filter((m) => BUNDLED.test(m))).toEqual([]);
    const ours = loaded.filter((m) => m.startsWith('dist/'));
    expect(ours.length).toBeGreaterThan(1);
    expect(ours.length).toBeLessThanOrEqual(8);
  });

  it('the command line serving --no-admin: the same, up to its ready line', async () => {
    const loaded = await loadedModules(['dist/cli.cjs', '--in-memory', '--port', '0', '--no-admin'], /kafka-mock-coordinator ready on/);
    expect(loaded).toContain('dist/cli.cjs');
    expect(loaded.filter((m) => BUNDLED.test(m))).toEqual([]);
    // Node's modules for what such a start never does (gzip batches, collections after big
    // releases, host names in max.connections.per.ip.overrides): loaded at first use too.
    expect(loaded).toContain('node:net');
    expect(loaded.filter((m) => /^node:(zlib|v8|dns)/.test(m))).toEqual([]);
    expect(loaded.filter((m) => OPTIONAL.test(m))).toEqual([]);
    expect(loaded.filter((m) => m.startsWith('dist/')).length).toBeLessThanOrEqual(8);
  });

  it("no message codec or record schema at ready; the first ApiVersions loads ApiVersions' request and response codecs, and nothing else", async () => {
    let atReady: string[] = [];
    let afterApiVersions: string[] = [];
    await loadedModules(['dist/cli.cjs', '--in-memory', '--port', '0', '--no-admin'], /kafka-mock-coordinator ready on/, {
      async whenReady(line, loadedSoFar) {
        atReady = loadedSoFar();
        const port = Number(/ready on [^:]+:(\d+)/.exec(line)![1]);
        const client = await RawClient.connect(port);
        try {
          const res = await client.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1.0' });
          expect(res.errorCode).toBe(0);
          expect(res.apiKeys.find((k) => k.apiKey === 8)).toEqual({ apiKey: 8, minVersion: 2, maxVersion: 10 });
        } finally {
          client.socket.destroy();
        }
        afterApiVersions = loadedSoFar();
      },
    });
    const codecFiles = (loaded: string[]) => loaded.filter((m) => /^dist\/chunks\/(messages|records)\//.test(m)).sort();
    expect(codecFiles(atReady)).toEqual([]);
    // The package's bundle is CommonJS (scripts/code-cache.mjs), its codec files too.
    expect(codecFiles(afterApiVersions)).toEqual(['dist/chunks/messages/ApiVersionsRequest.cjs', 'dist/chunks/messages/ApiVersionsResponse.cjs']);
  });

  // Node before 20.19 cannot require() an ES module; the codec files are CommonJS, so there too they load at first use.
  it.runIf((process.features as { require_module?: boolean }).require_module === true)('on a Node without require(esm), the codec files still load at first use and serve', async () => {
    let atReady: string[] = [];
    let afterApiVersions: string[] = [];
    await loadedModules(['--no-experimental-require-module', 'dist/cli.cjs', '--in-memory', '--port', '0', '--no-admin'], /kafka-mock-coordinator ready on/, {
      async whenReady(line, loadedSoFar) {
        atReady = loadedSoFar();
        const client = await RawClient.connect(Number(/ready on [^:]+:(\d+)/.exec(line)![1]));
        try {
          expect((await client.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1.0' })).errorCode).toBe(0);
        } finally {
          client.socket.destroy();
        }
        afterApiVersions = loadedSoFar();
      },
    });
    const codecFiles = (loaded: string[]) => loaded.filter((m) => /^dist\/chunks\/(messages|records)\//.test(m)).sort();
    expect(codecFiles(atReady)).toEqual([]);
    expect(codecFiles(afterApiVersions)).toEqual(['dist/chunks/messages/ApiVersionsRequest.cjs', 'dist/chunks/messages/ApiVersionsResponse.cjs']);
  });

  it('on a terminal, pino-pretty prints the ready line from the main thread: no worker thread', async () => {
    const lines: string[] = [];
    const loaded = await loadedModules(['--import', AS_TTY, 'dist/cli.cjs', '--in-memory', '--port', '0', '--no-admin'], /kafka-mock-coordinator ready on/, { stdout: lines });
    expect(loaded.some((m) => m.includes('node_modules/pino-pretty/'))).toBe(true);
    expect(loaded.filter((m) => m.startsWith('worker:'))).toEqual([]);
    // pino-pretty's shape: [time] LEVEL (pid): message, colored; the fields on the lines under it.
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] \x1b\[32mINFO\x1b\[39m \(\d+\): \x1b\[36mkafka-mock-coordinator ready on localhost:\d+\x1b\[39m$/);
    expect(lines[1]).toMatch(/^ {4}\x1b\[35mbootstrap\x1b\[39m: "localhost:\d+"$/);
  });

  it('with the admin API: its port is open at ready, fastify and prom-client arrive with its first request', async () => {
    let atReady: string[] = [];
    const loaded = await loadedModules(['dist/cli.cjs', '--in-memory', '--port', '0', '--admin-port', '0'], /kafka-mock-coordinator ready on/, {
      async whenReady(line, loadedSoFar) {
        atReady = loadedSoFar();
        const res = await fetch(`${(JSON.parse(line) as { admin: string }).admin}/health`);
        expect(res.status).toBe(200);
        expect(((await res.json()) as { status: string }).status).toBe('ok');
      },
    });
    expect(atReady.some((m) => /^dist\/chunks\/listener-/.test(m))).toBe(true);
    expect(atReady.filter((m) => OPTIONAL.test(m))).toEqual([]);
    expect(loaded.some((m) => m.includes('node_modules/fastify/'))).toBe(true);
    expect(loaded.some((m) => m.includes('node_modules/prom-client/'))).toBe(true);
  });
});
