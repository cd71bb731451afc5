/**
 * The bundle's chunks (scripts/bundle.mjs) reach each other through their CommonJS exports objects,
 * on every request (`ErrorCode.NONE` is a load from another chunk's exports). V8 keeps those
 * objects fast only while no two chunks define the same export name with different getters: with
 * one-letter names in every chunk, all chunks but the first had dictionary exports, each such load
 * a slow lookup and a call (issue #16). A fresh `node --allow-natives-syntax` loads the program and
 * every chunk, then says which exports objects are dictionaries (`npm run build` first).
 */
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const PROBE = `
const { readdirSync } = require('node:fs');
const { join } = require('node:path');
const dist = join(process.cwd(), 'dist');
require(join(dist, 'program-loader.cjs'));
const files = readdirSync(join(dist, 'chunks'), { recursive: true }).filter((f) => f.endsWith('.cjs'));
for (const f of files) require(join(dist, 'chunks', f));
const loaded = Object.keys(require.cache).filter((k) => k.startsWith(dist));
const slow = loaded.filter((k) => !%HasFastProperties(require.cache[k].exports)).map((k) => k.slice(dist.length + 1));
console.log(JSON.stringify({ loaded: loaded.length, chunks: files.length, slow }));
`;

describe('the bundle', () => {
  it("keeps every chunk's exports object in V8's fast mode once all are loaded", () => {
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '-e', PROBE], { cwd: ROOT, encoding: 'utf8' });
    const { loaded, chunks, slow } = JSON.parse(out.trim().split('\n').at(-1)!) as { loaded: number; chunks: number; slow: string[] };
    expect(chunks).toBeGreaterThan(50);
    expect(loaded).toBeGreaterThan(chunks);
    expect(slow).toEqual([]);
  });
});
