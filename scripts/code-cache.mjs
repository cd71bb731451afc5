// The package's start from a V8 code cache, for scripts/bundle.mjs. Why: of the ~200 ms of CPU
// a `node dist/cli.cjs` takes to answer its first ApiVersions, about half is V8 parsing and
// compiling our bundled code (the module's source once, then each function the start runs), and
// Node 20 has no compile cache for ES modules (module.enableCompileCache is Node 22's). V8 does
// take a code cache for a script compiled with `vm.Script`, so the package's code is bundled once,
// as CommonJS (dist/program-<hash>.cjs: src/index.ts's exports and the command line's runCli; its
// chunks dist/chunks/*.cjs), and dist/program-loader.cjs compiles it, and each chunk it requires,
// with the cache written beside each file at build time by a run of the server (start, one
// ApiVersions, stop: the functions compiled by then are in it; the chunks a start loads, about
// 250 kB, would otherwise compile from source at every start). The entry points take the program from that loader: dist/cli.cjs (the bin) and dist/cli.js call its runCli, and
// dist/index.js (the package's ES module entry) re-exports its exports by name, so
// `import('kafka-mock-coordinator')` runs from the cache too and the package holds the code once.
// Issue #16: spawn -> first ApiVersions, about 220 -> 130 ms of CPU on the bench machine.
// Safe when the cache does not fit: V8 checks its version, flags and the source's length and
// rejects a cache that does not match (another Node, --cpu-prof, ...), and then compiles the
// source as it would without one; the file names carry the bundle's content hash, so a rebuilt
// bundle never meets an old cache.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** What the loader sets to have the cache written when the process exits (the build's run only). */
const WRITE_CACHE = 'KMC_BUILD_WRITE_CODE_CACHE';
const CACHE_SUFFIX = '.v8-cache';
/** The cache file of a bundled program file. */
export const cacheFileOf = (programFile) => programFile + CACHE_SUFFIX;

/** The loader's file in dist/, which the entry points load (CommonJS: see cliSource). */
export const LOADER_FILE = 'program-loader.cjs';

/** dist/program-loader.cjs: runs dist/<programFile> and the chunks it requires as CommonJS modules, each compiled with its code cache, and exports the program's exports. */
export function programLoaderSource(programFile) {
  return `// The package's program: ./${programFile} (src/index.ts's exports and src/cli-program.ts's runCli,
// bundled as CommonJS) and its chunks (./chunks/**/*.cjs), each compiled with the V8 code cache
// beside it when there is one that fits; dist/cli.cjs, dist/cli.js and dist/index.js all take it
// from here (scripts/code-cache.mjs says why). CommonJS itself, so that the bin (dist/cli.cjs)
// starts without Node's ES module loader.
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { createRequire, Module } = require('node:module');
const { dirname, resolve } = require('node:path');
const vm = require('node:vm');

const writeCaches = process.env.${WRITE_CACHE} === '1';
/**
 * Whether this file runs in a context of its own, as jest runs every module in a vm sandbox (its own
 * Error, Object, ...): the program is then required through that context's require, without the
 * code cache, so that its errors are the test's Errors; compiled here it would run in Node's main
 * context, and "err instanceof Error" would be false in the test (adversarial trial 17).
 */
const sandboxed = vm.runInThisContext('Error') !== Error;
/** Scripts compiled, by their cache file: written at exit by the build's run. */
const compiled = new Map();
/** Runs the bundle's file \`file\` once, as Node's CommonJS loader would (and in its require.cache), but from its code cache. */
function load(file) {
  const nodeRequire = createRequire(file);
  const known = nodeRequire.cache[file];
  if (known) return known.exports;
  const cacheFile = file + ${JSON.stringify(CACHE_SUFFIX)};
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // No cache (a build without one, a file the build's run did not load): compiled from source.
  }
  // CommonJS's own wrapper, on the source's first line so that line numbers stay the file's. Read
  // as latin1: the bundle is ASCII (scripts/bundle.mjs checks), which latin1 decodes as UTF-8 would,
  // only without the UTF-8 scan of its ~1 MB.
  const script = new vm.Script('(function (exports, require, module, __filename, __dirname) {' + readFileSync(file, 'latin1') + '\\n})', {
    filename: file,
    cachedData,
    // import() in the program resolves as from a module of this directory (the bundle has none today).
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER ?? ((specifier) => import(specifier)),
  });
  if (writeCaches) compiled.set(cacheFile, script);
  const module = new Module(file);
  module.filename = file;
  nodeRequire.cache[file] = module;
  // The bundle's own files (the program, its chunks) load through here; packages and node: modules through Node.
  const require = Object.assign((id) => (/^\\.\\.?\\/.*\\.cjs$/.test(id) ? load(resolve(dirname(file), id)) : nodeRequire(id)), { resolve: nodeRequire.resolve, cache: nodeRequire.cache });
  script.runInThisContext()(module.exports, require, module, file, dirname(file));
  module.loaded = true;
  return module.exports;
}
if (writeCaches) process.once('exit', () => compiled.forEach((script, cacheFile) => writeFileSync(cacheFile, script.createCachedData())));
const programFile = resolve(__dirname, ${JSON.stringify(programFile)});
module.exports = sandboxed ? require(programFile) : load(programFile);
`;
}

/** dist/cli.cjs, the package's bin: the program's runCli(), as src/cli.ts. */
export function cliSource() {
  return `#!/usr/bin/env node
// The command line, as src/cli.ts: runCli() of the package's program, which ./${LOADER_FILE} runs
// from a V8 code cache (scripts/code-cache.mjs). CommonJS, as the loader: Node runs an ES module
// entry through its ES module loader, which costs a start ~10 ms of CPU more (issue #16).
'use strict';
require('./${LOADER_FILE}').runCli();
`;
}

/** The ES module entries' one import (a constant: a line of a template starting with `import` reads as one of this script's imports). */
const IMPORT_PROGRAM = `import program from './${LOADER_FILE}';`;

/** dist/cli.js: the same command line for `node dist/cli.js` (what scripts written before dist/cli.cjs run); an ES module, as the package's .js files. */
export function cliModuleSource() {
  return `#!/usr/bin/env node
// The command line, as dist/cli.cjs (the bin, which starts faster: it is CommonJS) for those that
// run \`node dist/cli.js\`: runCli() of the package's program (./${LOADER_FILE}, scripts/code-cache.mjs).
${IMPORT_PROGRAM}

await program.runCli();
`;
}

/** dist/index.js, the package's entry: `names` (src/index.ts's value exports) taken from the program, as constants. */
export function indexSource(names) {
  return `// The package: src/index.ts's exports (types in index.d.ts), taken from the program that
// ./${LOADER_FILE} runs from a V8 code cache, the one dist/cli.cjs runs too (scripts/code-cache.mjs).
${IMPORT_PROGRAM}

export const { ${names.join(', ')} } = program;
`;
}

/**
 * dist/index.cjs, the package's entry for \`require\` (jest's module system, CommonJS projects): the
 * same \`names\` from the same program as dist/index.js, so both entries share one copy of it.
 */
export function indexCommonJsSource(names) {
  return `// The package for require(): src/index.ts's exports (types in index.d.ts), as dist/index.js has
// them, from the same program (./${LOADER_FILE}, scripts/code-cache.mjs).
'use strict';
const program = require('./${LOADER_FILE}');

${names.map((n) => `exports.${n} = program.${n};`).join('\n')}
`;
}

/** An ApiVersions v0 request (header v1, client id "kmc-build", correlation id 1), size-prefixed. */
function apiVersionsRequest() {
  const clientId = Buffer.from('kmc-build');
  const body = Buffer.alloc(10 + clientId.length);
  body.writeInt16BE(18, 0);
  body.writeInt16BE(0, 2);
  body.writeInt32BE(1, 4);
  body.writeInt16BE(clientId.length, 8);
  clientId.copy(body, 10);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

/** Sends one ApiVersions to localhost:port and resolves with the response's error code. */
async function askApiVersions(port) {
  const socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  socket.write(apiVersionsRequest());
  let got = Buffer.alloc(0);
  for await (const chunk of socket) {
    got = Buffer.concat([got, chunk]);
    if (got.length >= 4 && got.length >= 4 + got.readInt32BE(0)) break;
  }
  socket.destroy();
  // size, correlation id, then the error code.
  return got.readInt16BE(8);
}

/**
 * Runs dist/cli.cjs once, in memory on free ports with the admin API, until it has
 * answered one ApiVersions, and stops it: the loader writes the cache as it exits. Without
 * NODE_OPTIONS, whose V8 flags would make the cache one that users' plain `node` rejects.
 */
export async function writeCliCodeCache(dist, programFile) {
  const env = { ...process.env, [WRITE_CACHE]: '1', LOG_LEVEL: 'info' };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, [join(dist, 'cli.cjs'), '--in-memory', '--port', '0', '--admin-port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  const ready = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.includes('kafka-mock-coordinator ready on')) resolve(JSON.parse(line));
    });
    exited.then(([code]) => reject(new Error(`the code cache run exited with ${code} before its ready line`)));
  });
  const errorCode = await askApiVersions(Number(ready.bootstrap.split(':').pop()));
  child.kill('SIGTERM');
  const [code] = await exited;
  const cache = cacheFileOf(join(dist, programFile));
  if (errorCode !== 0 || code !== 0 || !existsSync(cache) || statSync(cache).size === 0) {
    throw new Error(`the code cache run failed (ApiVersions error ${errorCode}, exit ${code}, cache ${existsSync(cache) ? 'empty' : 'missing'})`);
  }
}
