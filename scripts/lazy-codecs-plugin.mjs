// A rolldown plugin for scripts/bundle.mjs: the message codecs (tsc's dist/protocol/messages/
// <Api>Request.js and <Api>Response.js, ~530 kB of generated code) leave the start-up path. Why:
// Node parses every byte of the modules it imports before running any, and a start that answers
// ApiVersions needs two of the ~120 codec modules (issue #16's start-up target). So:
// - each codec module becomes an entry of its own, dist/chunks/messages/<Name>.js;
// - every other module that imports one gets a stand-in instead: the same export names, each
//   constant copied, each function a forwarder that on its first call loads the real module with
//   `require` (synchronous: Node 20.19+ loads ES modules so) and rebinds the export to the real
//   function, so later calls go straight to it (an ES module's importers see the rebinding);
// - the generated index (API_NAMES, API_CODECS) becomes one whose API_CODECS entries load the
//   API's codec modules the first time they are read.
// The header codecs (RequestHeader, ResponseHeader: every request needs them) stay in the bundle.
// On a Node without require(esm) the loader registers a preload with src/protocol/codec-loading.ts,
// which startServer awaits. Names are read by importing tsc's output, so the stand-ins follow the
// generator (scripts/generate-codecs.mjs) without knowing it; an export that is neither a function
// nor a plain value stops the build rather than being wrapped wrongly.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const LOADER = '\0kmc-codec-loader';
const STAND_IN = '\0kmc-codec:';

/** The plugin and the entries it adds, for the tsc output in `dist`. */
export async function lazyCodecs(dist) {
  const messagesDir = join(dist, 'protocol', 'messages');
  const lazy = readdirSync(messagesDir).filter((f) => /(Request|Response)\.js$/.test(f) && !/^(Request|Response)Header\.js$/.test(f)).map((f) => f.slice(0, -3));
  const modules = new Map();
  for (const name of lazy) modules.set(name, await import(pathToFileURL(join(messagesDir, `${name}.js`)).href));
  const index = await import(pathToFileURL(join(messagesDir, 'index.js')).href);
  const indexPath = join(messagesDir, 'index.js');
  const modulePath = (name) => join(messagesDir, `${name}.js`);
  const byPath = new Map(lazy.map((name) => [modulePath(name), name]));

  const standIn = (name) => {
    const lines = [`import { loadCodecModule } from ${JSON.stringify(LOADER)};`];
    for (const [key, value] of Object.entries(modules.get(name))) {
      if (typeof value === 'function') lines.push(`export let ${key} = (...args) => (${key} = loadCodecModule(${JSON.stringify(name)}).${key})(...args);`);
      else if (value === null || ['number', 'string', 'boolean'].includes(typeof value)) lines.push(`export const ${key} = ${JSON.stringify(value)};`);
      else throw new Error(`lazy codecs: ${name}.${key} is a ${typeof value}, neither a function nor a plain value: teach scripts/lazy-codecs-plugin.mjs to stand in for it`);
    }
    return lines.join('\n');
  };

  const lazyIndex = () => {
    const entries = Object.keys(index.API_CODECS).map((key) => {
      const api = index.API_NAMES[key];
      for (const side of ['Request', 'Response']) {
        if (index.API_CODECS[key][side.toLowerCase()] !== modules.get(api + side)) throw new Error(`lazy codecs: API_CODECS[${key}] is not ${api}${side}`);
      }
      return `  ${key}: lazyApi(${JSON.stringify(api)}),`;
    });
    const exported = new Set(Object.keys(index));
    const kept = ['API_NAMES', 'API_CODECS', 'RequestHeader', 'ResponseHeader', ...lazy];
    const unknown = [...exported].filter((e) => !kept.includes(e));
    if (unknown.length > 0) throw new Error(`lazy codecs: the generated index exports ${unknown.join(', ')}, which the lazy index does not`);
    return [
      `import { loadCodecModule } from ${JSON.stringify(LOADER)};`,
      `import * as RequestHeader from ${JSON.stringify(join(messagesDir, 'RequestHeader.js'))};`,
      `import * as ResponseHeader from ${JSON.stringify(join(messagesDir, 'ResponseHeader.js'))};`,
      'export { RequestHeader, ResponseHeader };',
      `export const API_NAMES = ${JSON.stringify(index.API_NAMES)};`,
      '/** An API\'s codec modules, each loaded when first read and then kept as a plain property. */',
      'function lazyApi(api) {',
      '  return {',
      "    get request() { return Object.defineProperty(this, 'request', { value: loadCodecModule(api + 'Request'), enumerable: true }).request; },",
      "    get response() { return Object.defineProperty(this, 'response', { value: loadCodecModule(api + 'Response'), enumerable: true }).response; },",
      '  };',
      '}',
      'export const API_CODECS = {',
      ...entries,
      '};',
    ].join('\n');
  };

  const loader = [
    "import { createRequire } from 'node:module';",
    "import { fileURLToPath } from 'node:url';",
    `import { setCodecPreload } from ${JSON.stringify(join(dist, 'protocol', 'codec-loading.js'))};`,
    'const require = createRequire(import.meta.url);',
    'const loaded = new Map();',
    // This module lands in dist/chunks/ (checked by bundle.mjs), the codec entries in dist/chunks/messages/.
    "const codecUrl = (name) => new URL('./messages/' + name + '.js', import.meta.url);",
    'export function loadCodecModule(name) {',
    '  let m = loaded.get(name);',
    '  if (m === undefined) {',
    '    m = require(fileURLToPath(codecUrl(name)));',
    '    loaded.set(name, m);',
    '  }',
    '  return m;',
    '}',
    'if (!process.features.require_module) {',
    `  const names = ${JSON.stringify(lazy)};`,
    '  setCodecPreload(async () => { for (const name of names) if (!loaded.has(name)) loaded.set(name, await import(codecUrl(name).href)); });',
    '}',
  ].join('\n');

  const plugin = {
    name: 'kmc-lazy-codecs',
    resolveId: {
      order: 'pre',
      async handler(source, importer) {
        if (source === LOADER || source.startsWith(STAND_IN)) return source;
        if (importer === undefined || importer.startsWith('\0') || !/^[./]/.test(source)) return null;
        const resolved = await this.resolve(source, importer, { skipSelf: true });
        if (resolved === null) return null;
        if (resolved.id === indexPath) return `${STAND_IN}index`;
        const name = byPath.get(resolved.id);
        // The codec modules' own imports (primitives) resolve as usual.
        return name === undefined || byPath.has(importer) ? null : `${STAND_IN}${name}`;
      },
    },
    load(id) {
      if (id === LOADER) return loader;
      if (!id.startsWith(STAND_IN)) return null;
      const name = id.slice(STAND_IN.length);
      return name === 'index' ? lazyIndex() : standIn(name);
    },
  };
  return { plugin, inputs: Object.fromEntries(lazy.map((name) => [`chunks/messages/${name}`, modulePath(name)])), loaderMarker: "'./messages/' + name + '.js'" };
}
