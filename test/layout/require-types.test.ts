/**
 * The package's types for require() (dist/index.d.cts, scripts/cjs-types.mjs): a CommonJS
 * TypeScript project compiled with `moduleResolution` node16 or nodenext gets the package's values
 * and types through `import x = require(...)` (before, TS1471: index.d.ts is an ES module), and
 * an ES module of the same project still gets index.d.ts. Compiled by the project's own tsc, the
 * package linked in as an installed one. On dist/ (`npm run build` first).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const APP = mkdtempSync(join(tmpdir(), 'kmc-require-types-'));
afterAll(() => rmSync(APP, { recursive: true, force: true }));

mkdirSync(join(APP, 'node_modules', '@types'), { recursive: true });
symlinkSync(ROOT, join(APP, 'node_modules', 'kafka-mock-coordinator'), 'dir');
symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(APP, 'node_modules', '@types', 'node'), 'dir');
writeFileSync(join(APP, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'commonjs' }));
writeFileSync(
  join(APP, 'suite.ts'),
  [
    "import kmc = require('kafka-mock-coordinator');",
    "import { startServer, ConfigError, FaultRegistry, type StartServerOptions, type FaultRuleSpec } from 'kafka-mock-coordinator';",
    "const options: StartServerOptions = { port: 0, inMemory: true };",
    "const rule: kmc.FaultRuleSpec = { match: { api: 'OffsetCommit' }, action: { type: 'error', error: 'REBALANCE_IN_PROGRESS' } };",
    'export async function run(): Promise<number> {',
    '  const server = await kmc.startServer(options);',
    '  const faults: FaultRegistry = server.faults;',
    '  faults.add(rule as FaultRuleSpec);',
    '  await server.close();',
    '  const other = await startServer({ ...options });',
    '  await other.close();',
    "  return new ConfigError('port', 'x') instanceof kmc.ConfigError ? other.port : -1;",
    '}',
    // A type error in the suite is still one (the types are not `any`).
    '// @ts-expect-error a port is a number',
    "export const wrong: kmc.StartServerOptions = { port: 'nine' };",
  ].join('\n'),
);
writeFileSync(join(APP, 'esm.mts'), "import { startServer, type StartServerOptions } from 'kafka-mock-coordinator';\nconst o: StartServerOptions = { inMemory: true };\nexport const started = startServer(o).then((s) => s.close());\n");

describe('the package typed for require()', () => {
  it.each(['node16', 'nodenext'])('a CommonJS project compiles against it with moduleResolution %s', (resolution) => {
    const run = spawnSync(process.execPath, [TSC, '--noEmit', '--strict', '--target', 'es2022', '--module', resolution, '--moduleResolution', resolution, '--types', 'node', 'suite.ts', 'esm.mts'], {
      cwd: APP,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
