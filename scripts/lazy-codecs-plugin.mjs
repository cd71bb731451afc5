// A rolldown plugin for scripts/bundle.mjs: the generated codecs leave the start-up path. Why:
// Node parses every byte of the modules it imports before running any, and a start that answers
// ApiVersions needs two of the ~120 message codec modules (tsc's dist/protocol/messages/
// <Api>Request.js and <Api>Response.js, ~530 kB) and none of the ~50 coordinator record schemas
// (dist/records/schemas/<Name>Key.js and <Name>Value.js, ~160 kB) (issue #16's start-up target). So:
// - each such module becomes an entry of its own, dist/chunks/messages/<Name>.js or
//   dist/chunks/records/<Name>.js;
// - every other module that imports one gets a stand-in instead: the same export names, each
//   plain constant copied, each function a forwarder that on its first call loads the real module
//   with `require` (synchronous: Node 20.19+ loads ES modules so) and rebinds the export to the real
//   function, so later calls go straight to it (an ES module's importers see the rebinding); an
//   export that is neither (a schema's FIELDS) has no stand-in, and importing it fails the build;
// - the generated registries, the messages' index (API_NAMES, API_CODECS) and the record types
//   (record-types.js), become ones whose codec properties (API_CODECS[key].request and .response,
//   an entry's key and value) load their module the first time they are read, then stay plain
//   properties.
// The header codecs (RequestHeader, ResponseHeader: every request needs them) and the schemas
// outside the registry (consumer protocol, control records) stay in the bundle.
// On a Node without require(esm), for ES module codec files (.js), the loader registers a preload with src/protocol/codec-loading.ts,
// which startServer awaits. Names and values are read by importing tsc's output, so this follows
// the generator (scripts/generate-codecs.mjs) without knowing it, and stops the build on what it
// does not recognise rather than wrapping it wrongly.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const LOADER = '\0kmc-codec-loader';
const STAND_IN = '\0kmc-codec:';
const REGISTRY = '\0kmc-codec-registry:';

const importDist = (path) => import(pathToFileURL(path).href);
const isPlain = (value) => value === null || ['number', 'string', 'boolean'].includes(typeof value);
/** Plain values, and arrays and plain objects of them: what JSON writes back as it was. */
const isData = (value) =>
  isPlain(value) || ((Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype) && Object.values(value).every(isData));

/** The plugin and the entries it adds, for the tsc output in `dist`. */
export async function lazyCodecs(dist) {
  const messagesDir = join(dist, 'protocol', 'messages');
  const recordsDir = join(dist, 'records', 'schemas');
  const messagesIndex = await importDist(join(messagesDir, 'index.js'));
  const recordTypes = await importDist(join(recordsDir, 'record-types.js'));

  /** Lazy modules by key (`messages/<Name>`, `records/<Name>`): their path and tsc's module. */
  const lazy = new Map();
  for (const f of readdirSync(messagesDir).filter((f) => /(Request|Response)\.js$/.test(f) && !/^(Request|Response)Header\.js$/.test(f))) {
    lazy.set(`messages/${f.slice(0, -3)}`, { path: join(messagesDir, f), module: await importDist(join(messagesDir, f)) });
  }
  const registryEntries = Object.values(recordTypes.COORDINATOR_RECORD_TYPES).flat();
  for (const side of ['key', 'value']) {
    for (const entry of registryEntries) {
      const name = `${entry.name}${side === 'key' ? 'Key' : 'Value'}`;
      const module = await importDist(join(recordsDir, `${name}.js`));
      if (entry[side] !== module) throw new Error(`lazy codecs: the ${side} of record type ${entry.name} is not ${name}.js`);
      lazy.set(`records/${name}`, { path: join(recordsDir, `${name}.js`), module });
    }
  }
  const keyOfPath = new Map([...lazy].map(([key, { path }]) => [path, key]));
  const keyOfModule = new Map([...lazy].map(([key, { module }]) => [module, key]));
  const registries = new Map([
    [join(messagesDir, 'index.js'), () => lazyMessagesIndex(messagesDir, messagesIndex, keyOfModule)],
    [join(recordsDir, 'record-types.js'), () => lazyRecordTypes(recordTypes, keyOfModule)],
  ]);

  const standIn = (key) => {
    const lines = [`import { loadCodecModule } from ${JSON.stringify(LOADER)};`];
    for (const [name, value] of Object.entries(lazy.get(key).module)) {
      if (typeof value === 'function') lines.push(`export let ${name} = (...args) => (${name} = loadCodecModule(${JSON.stringify(key)}).${name})(...args);`);
      else if (isPlain(value)) lines.push(`export const ${name} = ${JSON.stringify(value)};`);
    }
    return lines.join('\n');
  };

  const plugin = {
    name: 'kmc-lazy-codecs',
    resolveId: {
      order: 'pre',
      async handler(source, importer) {
        if (source === LOADER || source.startsWith(STAND_IN) || source.startsWith(REGISTRY)) return source;
        if (importer === undefined || importer.startsWith('\0') || !/^[./]/.test(source)) return null;
        const resolved = await this.resolve(source, importer, { skipSelf: true });
        if (resolved === null) return null;
        if (registries.has(resolved.id)) return `${REGISTRY}${resolved.id}`;
        const key = keyOfPath.get(resolved.id);
        // The lazy modules' own imports (primitives) resolve as usual.
        return key === undefined || keyOfPath.has(importer) ? null : `${STAND_IN}${key}`;
      },
    },
    load(id) {
      if (id === LOADER) return codecLoader(dist, [...lazy.keys()]);
      if (id.startsWith(REGISTRY)) return registries.get(id.slice(REGISTRY.length))();
      if (id.startsWith(STAND_IN)) return standIn(id.slice(STAND_IN.length));
      return null;
    },
  };
  return { plugin, inputs: Object.fromEntries([...lazy].map(([key, { path }]) => [`chunks/${key}`, path])) };
}

/** The loader: `loadCodecModule(key)` requires dist/chunks/<key>.js (.cjs in the command line's bundle) once. */
function codecLoader(dist, keys) {
  return [
    "import { createRequire } from 'node:module';",
    "import { fileURLToPath } from 'node:url';",
    `import { setCodecPreload } from ${JSON.stringify(join(dist, 'protocol', 'codec-loading.js'))};`,
    'const require = createRequire(import.meta.url);',
    'const loaded = new Map();',
    // This module lands in dist/chunks/ (checked by bundle.mjs), the codec entries below it, with
    // its own extension: .js in the package's ES module bundle, .cjs in the command line's CommonJS one.
    "const codecExtension = import.meta.url.endsWith('.cjs') ? '.cjs' : '.js';",
    "const codecUrl = (key) => new URL('./' + key + codecExtension, import.meta.url);",
    'export function loadCodecModule(key) {',
    '  let m = loaded.get(key);',
    '  if (m === undefined) {',
    '    m = require(fileURLToPath(codecUrl(key)));',
    '    loaded.set(key, m);',
    '  }',
    '  return m;',
    '}',
    // A CommonJS codec file is required on any Node; an ES module one not before Node 20.19.
    "if (!process.features.require_module && codecExtension === '.js') {",
    `  const keys = ${JSON.stringify(keys)};`,
    '  setCodecPreload(async () => { for (const key of keys) if (!loaded.has(key)) loaded.set(key, await import(codecUrl(key).href)); });',
    '}',
    "/** `holder[property]` loads module `key` when first read, then is a plain property. */",
    'export function lazyProperty(holder, property, key) {',
    '  return Object.defineProperty(holder, property, {',
    '    configurable: true,',
    '    enumerable: true,',
    '    get() {',
    '      Object.defineProperty(this, property, { value: loadCodecModule(key), enumerable: true });',
    '      return this[property];',
    '    },',
    '  });',
    '}',
  ].join('\n');
}

/** The messages' index: API_NAMES as it is, each API_CODECS entry's request and response lazy. */
function lazyMessagesIndex(messagesDir, index, keyOfModule) {
  const kept = ['API_NAMES', 'API_CODECS', 'RequestHeader', 'ResponseHeader'];
  const unknown = Object.keys(index).filter((e) => !kept.includes(e) && !keyOfModule.has(index[e]));
  if (unknown.length > 0) throw new Error(`lazy codecs: the generated messages index exports ${unknown.join(', ')}, which the lazy index does not`);
  const entries = Object.entries(index.API_CODECS).map(([apiKey, { request, response }]) => {
    return `  ${apiKey}: lazyProperty(lazyProperty({}, 'request', ${JSON.stringify(keyOfModule.get(request))}), 'response', ${JSON.stringify(keyOfModule.get(response))}),`;
  });
  return [
    `import { lazyProperty } from ${JSON.stringify(LOADER)};`,
    `import * as RequestHeader from ${JSON.stringify(join(messagesDir, 'RequestHeader.js'))};`,
    `import * as ResponseHeader from ${JSON.stringify(join(messagesDir, 'ResponseHeader.js'))};`,
    'export { RequestHeader, ResponseHeader };',
    `export const API_NAMES = ${JSON.stringify(index.API_NAMES)};`,
    'export const API_CODECS = {',
    ...entries,
    '};',
  ].join('\n');
}

/** The record types: every export as it is, the registry entries' key and value lazy. */
function lazyRecordTypes(recordTypes, keyOfModule) {
  const lines = [`import { lazyProperty } from ${JSON.stringify(LOADER)};`];
  const arrays = new Map();
  const entryText = (entry) => {
    const { key, value, ...rest } = entry;
    return `lazyProperty(lazyProperty(${JSON.stringify(rest)}, 'key', ${JSON.stringify(keyOfModule.get(key))}), 'value', ${JSON.stringify(keyOfModule.get(value))})`;
  };
  for (const [name, value] of Object.entries(recordTypes)) {
    if (name === 'COORDINATOR_RECORD_TYPES') continue;
    if (Array.isArray(value) && value.every((e) => keyOfModule.has(e.key) && keyOfModule.has(e.value))) {
      arrays.set(value, name);
      lines.push(`export const ${name} = [${value.map(entryText).join(', ')}];`);
    } else if (isData(value)) {
      lines.push(`export const ${name} = ${JSON.stringify(value)};`);
    } else {
      throw new Error(`lazy codecs: record-types.js exports ${name}, which the lazy record types do not know how to copy`);
    }
  }
  const logs = Object.entries(recordTypes.COORDINATOR_RECORD_TYPES).map(([log, entries]) => {
    if (!arrays.has(entries)) throw new Error(`lazy codecs: COORDINATOR_RECORD_TYPES['${log}'] is none of record-types.js's exported lists`);
    return `  ${JSON.stringify(log)}: ${arrays.get(entries)},`;
  });
  lines.push('export const COORDINATOR_RECORD_TYPES = {', ...logs, '};');
  return lines.join('\n');
}
