#!/usr/bin/env node
// Bundles tsc's output into the package's program, once: src/index.ts's exports and the command
// line's runCli (src/cli-program.ts), as CommonJS in dist/program-<hash>.cjs, with the parts loaded
// on demand (admin API, tools, codecs) as chunks in dist/chunks/*.cjs. dist/program-loader.cjs runs
// it from a V8 code cache, and the entry points take it from there: dist/cli.cjs (the bin),
// dist/cli.js (the same, for `node dist/cli.js`), dist/index.js (the package's ES module entry,
// re-exporting the program's exports by name) and dist/index.cjs (the same for require(), typed by
// dist/index.d.cts: scripts/cjs-types.mjs)
// (code-cache.mjs says why). Why a bundle: Node resolves, reads and compiles every module separately, and the ~340 small modules of tsc's output cost more at start than the code
// in them (import went from about 250 to 130 ms of CPU on a loaded 2-core machine). The same holds
// for the CommonJS packages every start loads, pino (about 30 files with its dependencies) and
// commander: Node's CommonJS loader resolves, stats and wraps each file, and bundled they cost
// about half as much CPU to load (issue #16's start-up target). Every other dependency (the admin
// API's fastify and prom-client, pino-pretty, the native hashes, re2js: all loaded on first use)
// stays a require from node_modules. The other files of tsc's output stay as they are (their .d.ts
// describe the package's types; benchmarks import single modules).
//
// Paths relative to import.meta.url keep working: the program stays at dist/, and a chunk sits
// in dist/chunks/, as deep as the dist/<folder>/ file it came from (console-routes.ts finds the
// web console at ../../dist/console/; checked below).
import { chmodSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';
import { lazyCodecs } from './lazy-codecs-plugin.mjs';
import { indexCommonJsTypes } from './cjs-types.mjs';
import { LOADER_FILE, cliModuleSource, cliSource, indexCommonJsSource, indexSource, programLoaderSource, writeCliCodeCache } from './code-cache.mjs';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const chunks = join(dist, 'chunks');
if (readFileSync(join(dist, 'index.js'), 'utf8').includes(LOADER_FILE)) throw new Error('dist/index.js is bundled already: run tsc (npm run build) first');
rmSync(chunks, { recursive: true, force: true });
for (const f of readdirSync(dist).filter((f) => /^(cli-)?program-.*\.cjs/.test(f))) rmSync(join(dist, f));
// The ES module loader of builds before dist/program-loader.cjs.
rmSync(join(dist, 'program-loader.js'), { force: true });

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
  // Each chunk's exports under their own names, not the same one-letter ones in every chunk: V8
  // gives the exports objects of all chunks one starting shape, and a chunk defining "A" with
  // another getter than the first chunk's "A" had its exports object turned into a dictionary,
  // each cross-chunk reference a slow lookup and a call (issue #16: ErrorCode.NONE on every commit).
  minifyInternalExports: false,
};

/** Bundles `entries` (name -> module id) with the codecs, each loaded on first use (lazy-codecs-plugin.mjs), as CommonJS. */
async function bundle(entries, plugins, fileNames) {
  const codecs = await lazyCodecs(dist);
  const build = await rolldown({ input: { ...entries, ...codecs.inputs }, plugins: [...plugins, codecs.plugin], platform: 'node', external, logLevel: 'warn' });
  const { output: written } = await build.write({ ...output, format: 'cjs', ...fileNames });
  await build.close();
  return written;
}

// The package's value exports, as tsc compiled src/index.ts: what dist/index.js re-exports.
const apiNames = Object.keys(await import(pathToFileURL(join(dist, 'index.js')).href));
// The program's entry: src/index.ts's exports and the command line's runCli.
const PROGRAM_ENTRY = '\0kmc-program';
const programEntry = {
  name: 'kmc-program-entry',
  resolveId: (id) => (id === PROGRAM_ENTRY ? id : null),
  load: (id) => (id === PROGRAM_ENTRY ? `export * from ${JSON.stringify(join(dist, 'index.js'))};\nexport { runCli } from ${JSON.stringify(join(dist, 'cli-program.js'))};\n` : null),
};
// Its file name carries its content's hash (the code cache's key).
const program = 'program';
const written = await bundle({ [program]: PROGRAM_ENTRY }, [programEntry], {
  entryFileNames: (chunk) => (chunk.name === program ? '[name]-[hash].cjs' : '[name].cjs'),
  chunkFileNames: 'chunks/[name]-[hash].cjs',
});
const entry = written.find((chunk) => chunk.type === 'chunk' && chunk.isEntry && chunk.name === program);
const missing = [...apiNames, 'runCli'].filter((name) => !entry.exports.includes(name));
if (missing.length > 0) throw new Error(`the program bundle does not export ${missing.join(', ')}`);
writeFileSync(join(dist, LOADER_FILE), programLoaderSource(entry.fileName));
writeFileSync(join(dist, 'index.js'), indexSource(apiNames));
writeFileSync(join(dist, 'index.cjs'), indexCommonJsSource(apiNames));
writeFileSync(join(dist, 'index.d.cts'), indexCommonJsTypes(join(dist, 'index.d.ts'), apiNames));
writeFileSync(join(dist, 'cli.cjs'), cliSource());
writeFileSync(join(dist, 'cli.js'), cliModuleSource());
// tsc's maps of the files replaced: they describe what is no longer there.
for (const f of ['index.js.map', 'cli.js.map']) rmSync(join(dist, f), { force: true });
// The package's bin: executable, so that `npx kafka-mock-coordinator` also runs in a clone (npm sets
// the bit on install from a tarball, not for the project's own bin); dist/cli.js as it was.
for (const f of ['cli.cjs', 'cli.js']) chmodSync(join(dist, f), 0o755);

// The loader reads the bundle's files as latin1 (code-cache.mjs): right only for ASCII, which the
// output options above ask for (asciiOnly, no comments).
const notAscii = [entry.fileName, ...written.filter((chunk) => chunk.type === 'chunk' && chunk !== entry).map((chunk) => chunk.fileName)].filter((f) => /[^\x00-\x7f]/.test(readFileSync(join(dist, f), 'latin1')));
if (notAscii.length > 0) throw new Error(`bundle: not ASCII, which dist/${LOADER_FILE} reads as latin1: ${notAscii.join(', ')}`);

// The web console's directory is computed from the chunk's own URL: it must be two levels down.
const consoleChunk = readdirSync(chunks).filter((f) => f.endsWith('.cjs') && readFileSync(join(chunks, f), 'utf8').includes('../../dist/console/'));
if (consoleChunk.length !== 1) throw new Error(`expected the web console's routes in one chunk under dist/chunks, found ${consoleChunk.length}`);

// Last: the cache is written by a run of the finished dist/cli.cjs. Without it the command line
// works the same, compiling from source (slower to start): a machine where that run cannot
// happen (no loopback, a sandbox) still builds.
try {
  await writeCliCodeCache(dist, entry.fileName);
} catch (err) {
  process.stderr.write(`bundle: no code cache (the package and its command line start from source, slower): ${err.message}\n`);
}
