#!/usr/bin/env node
// Bundles the two entry points tsc wrote, dist/index.js (the package, ES modules, in place) and
// dist/cli-program.js (the command line, as CommonJS in dist/cli-program-<hash>.cjs, which
// dist/cli.js then runs from a V8 code cache: cli-code-cache.mjs), each into one file with the
// parts loaded on demand (admin API, tools, codecs) as chunks in dist/chunks/ (.js and .cjs). Why: Node resolves, reads and compiles every ES
// module separately, and the ~340 small modules of tsc's output cost more at start than the code
// in them (import went from about 250 to 130 ms of CPU on a loaded 2-core machine). The same holds
// for the CommonJS packages every start loads, pino (about 30 files with its dependencies) and
// commander: Node's CommonJS loader resolves, stats and wraps each file, and bundled they cost
// about half as much CPU to load (issue #16's start-up target). Every other dependency (the admin
// API's fastify and prom-client, pino-pretty, the native hashes, re2js: all loaded on first use)
// stays an import from node_modules. The other files of tsc's output stay as they are (their .d.ts
// describe the package's types; benchmarks import single modules).
//
// Paths relative to import.meta.url keep working: the entries stay at dist/, and a chunk sits
// in dist/chunks/, as deep as the dist/<folder>/ file it came from (console-routes.ts finds the
// web console at ../../dist/console/; checked below).
import { chmodSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { lazyCodecs } from './lazy-codecs-plugin.mjs';
import { cliLoaderSource, writeCliCodeCache } from './cli-code-cache.mjs';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const chunks = join(dist, 'chunks');
if (readFileSync(join(dist, 'index.js'), 'utf8').includes('./chunks/')) throw new Error('dist/index.js is bundled already: run tsc (npm run build) first');
rmSync(chunks, { recursive: true, force: true });
for (const f of readdirSync(dist).filter((f) => /^cli-program-.*\.cjs/.test(f))) rmSync(join(dist, f));

/** The dependencies bundled in (with everything they require), as the comment above says why. */
const BUNDLED_PACKAGES = new Set(['pino', 'commander']);
const BUILTINS = new Set(builtinModules);
const SHARED_AT_START = [/^\0rolldown\/runtime/, /^\0kmc-codec/, /dist\/protocol\/(primitives|codec-loading)\.js$/, /dist\/records\/schemas\/ConsumerProtocol(Assignment|Subscription)\.js$/];
const bare = (id) => !/^[./]/.test(id) && !id.startsWith('\0');
const packageName = (id) => id.split('/').slice(0, id.startsWith('@') ? 2 : 1).join('/');

const external = (id, importer) => {
  // Bare specifiers stay imports (node: builtins, and packages loaded on demand), except the
  // bundled packages and what they themselves require.
  if (!bare(id)) return false;
  if (id.startsWith('node:') || BUILTINS.has(id)) return true;
  const fromBundledPackage = importer !== undefined && importer.includes('/node_modules/');
  return !fromBundledPackage && !BUNDLED_PACKAGES.has(packageName(id));
};
const output = {
  dir: dist,
  // The small modules that both the start and the codec files import (wire primitives, the codec
  // loader, the bundler's runtime helpers, the consumer protocol's schemas) in one file, not five.
  manualChunks: (id) => (SHARED_AT_START.some((re) => re.test(id)) ? 'protocol' : null),
  sourcemap: true,
  // Without comments, and with non-ASCII characters escaped: V8 keeps each module's source text in
  // memory for as long as the process runs (functions compile lazily from it), and a source with
  // one character outside Latin-1 is kept at two bytes per character. Names, layout and line
  // structure stay as tsc wrote them (no compression or mangling); the declarations keep the docs.
  minify: { compress: false, mangle: false, codegen: { removeWhitespace: false, asciiOnly: true } },
  comments: false,
};

/** Bundles `entries` (name -> tsc's file) with the codecs, each loaded on first use (lazy-codecs-plugin.mjs), in `format`. */
async function bundle(entries, format, fileNames) {
  const codecs = await lazyCodecs(dist);
  const build = await rolldown({ input: { ...entries, ...codecs.inputs }, plugins: [codecs.plugin], platform: 'node', external, logLevel: 'warn' });
  const { output: written } = await build.write({ ...output, format, ...fileNames });
  await build.close();
  return written;
}

// The command line: src/cli-program.ts as CommonJS, which dist/cli.js runs with a V8 code cache
// (cli-code-cache.mjs says why). Its file name carries its content's hash (the cache's key).
const program = 'cli-program';
const written = await bundle({ [program]: join(dist, `${program}.js`) }, 'cjs', {
  entryFileNames: (chunk) => (chunk.name === program ? '[name]-[hash].cjs' : '[name].cjs'),
  chunkFileNames: 'chunks/[name]-[hash].cjs',
});
const programFile = written.find((chunk) => chunk.type === 'chunk' && chunk.isEntry && chunk.name === program).fileName;
// The package: dist/index.js, ES modules. After the command line, whose bundle reads tsc's index.js.
await bundle({ index: join(dist, 'index.js') }, 'esm', { entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' });
writeFileSync(join(dist, 'cli.js'), cliLoaderSource(programFile));
// The package's bin: executable, so that `npx kafka-mock-coordinator` also runs in a clone (npm sets
// the bit on install from a tarball, not for the project's own bin).
chmodSync(join(dist, 'cli.js'), 0o755);

// The web console's directory is computed from the chunk's own URL: it must be two levels down.
for (const extension of ['.js', '.cjs']) {
  const consoleChunk = readdirSync(chunks).filter((f) => f.endsWith(extension) && readFileSync(join(chunks, f), 'utf8').includes('../../dist/console/'));
  if (consoleChunk.length !== 1) throw new Error(`expected the web console's routes in one ${extension} chunk under dist/chunks, found ${consoleChunk.length}`);
}

// Last: the cache is written by a run of the finished dist/cli.js. Without it the command line
// works the same, compiling from source (slower to start): a machine where that run cannot
// happen (no loopback, a sandbox) still builds.
try {
  await writeCliCodeCache(dist, programFile);
} catch (err) {
  process.stderr.write(`bundle: no code cache for the command line (it starts from source, slower): ${err.message}\n`);
}
