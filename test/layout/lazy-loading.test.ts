/**
 * What the built package loads at start (issue #16): `import('kafka-mock-coordinator')` and the
 * command line serving `--no-admin` load the broker and nothing optional: no fastify, prom-client
 * or web console (the admin API, loaded when it starts), no pino-pretty (only on a terminal), no
 * log tools; and our own code arrives bundled (scripts/bundle.mjs), a handful of files rather
 * than tsc's ~340 modules. The modules are listed by a module hook in a fresh `node` on dist/
 * (`npm run build` first), so the counts are of files loaded, not of time.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * A module hook (written to a temporary file) that prints `LOADED <url>` on stderr for each module
 * resolved: ES modules through the resolve hook, CommonJS ones (pino's own files) through Module._load.
 */
const HOOK_DIR = mkdtempSync(join(tmpdir(), 'kmc-lazy-'));
const HOOK = join(HOOK_DIR, 'hook.mjs');
writeFileSync(join(HOOK_DIR, 'resolve.mjs'), 'export async function resolve(s, c, next) { const r = await next(s, c); process.stderr.write(`LOADED ${r.url}\\n`); return r; }\n');
writeFileSync(
  HOOK,
  [
    "import Module, { register } from 'node:module';",
    `register(${JSON.stringify(pathToFileURL(join(HOOK_DIR, 'resolve.mjs')).href)});`,
    'const load = Module._load;',
    'Module._load = function (request, parent, isMain) {',
    '  try { process.stderr.write(`LOADED ${Module._resolveFilename(request, parent, isMain)}\\n`); } catch {}',
    '  return load.apply(this, arguments);',
    '};',
  ].join('\n'),
);
afterAll(() => rmSync(HOOK_DIR, { recursive: true, force: true }));

/** Runs node with the hook on `args` until `until` matches a stdout line (or it exits); the modules it loaded, relative to the repository. */
async function loadedModules(args: string[], until?: RegExp): Promise<string[]> {
  const child = spawn(process.execPath, ['--import', HOOK, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const loaded = new Set<string>();
  createInterface({ input: child.stderr! }).on('line', (line) => {
    if (line.startsWith('LOADED ')) loaded.add(line.slice(7).replace(/^file:\/\//, '').replace(ROOT + '/', ''));
  });
  if (until) {
    await new Promise<void>((done, fail) => {
      createInterface({ input: child.stdout! }).on('line', (line) => until.test(line) && done());
      child.once('exit', (code) => fail(new Error(`exited ${code} before ${until}`)));
    });
    child.kill('SIGTERM');
  }
  if (child.exitCode === null) await once(child, 'exit');
  return [...loaded].filter((m) => !m.startsWith('node:') && !m.startsWith('data:'));
}

const OPTIONAL = /node_modules\/(fastify|@fastify|prom-client|pino-pretty|light-my-request|avvio)\/|dist\/(console|admin)\/|chunks\/(server|dump-log|consumer-groups)-/;

describe('start-up loads only what serving needs', () => {
  it("import('kafka-mock-coordinator'): no admin stack, pretty printer or tools, our code in at most 8 files", async () => {
    const loaded = await loadedModules(['--input-type=module', '-e', "await import('kafka-mock-coordinator'); console.log('imported')"]);
    expect(loaded).toContain('dist/index.js');
    expect(loaded.filter((m) => OPTIONAL.test(m))).toEqual([]);
    const ours = loaded.filter((m) => m.startsWith('dist/'));
    expect(ours.length).toBeGreaterThan(1);
    expect(ours.length).toBeLessThanOrEqual(8);
  });

  it('the command line serving --no-admin: the same, up to its ready line', async () => {
    const loaded = await loadedModules(['dist/cli.js', '--in-memory', '--port', '0', '--no-admin'], /kafka-mock-coordinator ready on/);
    expect(loaded).toContain('dist/cli.js');
    expect(loaded.some((m) => m.includes('node_modules/commander/'))).toBe(true);
    expect(loaded.filter((m) => OPTIONAL.test(m))).toEqual([]);
    expect(loaded.filter((m) => m.startsWith('dist/')).length).toBeLessThanOrEqual(8);
  });

  it('with the admin API, fastify and prom-client arrive', async () => {
    const loaded = await loadedModules(['dist/cli.js', '--in-memory', '--port', '0', '--admin-port', '0'], /kafka-mock-coordinator ready on/);
    expect(loaded.some((m) => m.includes('node_modules/fastify/'))).toBe(true);
    expect(loaded.some((m) => m.includes('node_modules/prom-client/'))).toBe(true);
  });
});
