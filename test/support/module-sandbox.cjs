// A module sandbox as jest's (test/layout/code-cache.test.ts): every file of the package at
// process.argv[2] is compiled in a context of its own (its own Error, Object, ...), packages and
// Node's modules come from Node; prints whether an error the package throws is that context's Error.
const vm = require('node:vm');
const { readFileSync } = require('node:fs');
const path = require('node:path');
const root = process.argv[2];
const context = vm.createContext({ console, process, Buffer, setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate, queueMicrotask, URL, URLSearchParams, TextDecoder, TextEncoder, AbortController, AbortSignal, performance, structuredClone, WebAssembly });
context.globalThis = context;
context.global = context;
const cache = new Map();
function load(file) {
  if (cache.has(file)) return cache.get(file).exports;
  const module = { exports: {} };
  cache.set(file, module);
  const fn = new vm.Script('(function (exports, require, module, __filename, __dirname) {' + readFileSync(file, 'utf8') + '\n})', { filename: file }).runInContext(context);
  fn(module.exports, requireFrom(file), module, file, path.dirname(file));
  return module.exports;
}
function requireFrom(from) {
  const nodeRequire = require('node:module').createRequire(from);
  const r = (id) => (id.startsWith('.') || path.isAbsolute(id) ? load(nodeRequire.resolve(id)) : nodeRequire(id));
  r.resolve = nodeRequire.resolve;
  r.cache = {};
  return r;
}
const kmc = load(path.join(root, 'dist', 'index.cjs'));
const SandboxError = vm.runInContext('Error', context);
kmc.startServer({ port: 0, inMemory: true, config: { 'num.partitions': 'x' } }).then(
  () => console.log(JSON.stringify({ refused: false })),
  async (err) => {
    const s = await kmc.startServer({ port: 0, inMemory: true });
    console.log(JSON.stringify({ sandboxError: err instanceof SandboxError, mainError: err instanceof Error, name: err.name, port: s.port > 0 }));
    await s.close();
  },
);
