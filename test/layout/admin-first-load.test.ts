/**
 * The admin API's first HTTP request loads fastify and prom-client (src/admin/listener.ts) a
 * package per turn of the event loop (src/util/preload.ts), not in one go that held the Kafka port
 * ~100 ms on a quiet machine and up to 360 ms on a loaded one (issue #16 item 5), and a request
 * Node cannot parse before it is answered without loading them (adversarial trial, session 21).
 * Counted, not timed: in a fresh `node` on the built package (`npm run build` first), the turns of
 * the event loop that go by while the first `GET /health` is answered. In one go they were 6.
 */
import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const SCRIPT = `
const { startServer } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'index.js')).href)});
const server = await startServer({ inMemory: true, port: 0, adminPort: 0, logLevel: 'silent' });
// A request Node cannot parse first: answered without loading the app.
const { connect } = await import('node:net');
const malformed = await new Promise((resolve) => {
  const socket = connect({ port: server.admin.port, host: '127.0.0.1' });
  let reply = '';
  socket.on('data', (d) => (reply += d));
  socket.on('close', () => resolve(reply));
  socket.on('error', () => {});
  socket.write('NOT HTTP AT ALL\\r\\n\\r\\n');
});
const { createRequire } = await import('node:module');
const fastifyLoaded = Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/node_modules/fastify/'));
let turns = 0;
let counting = true;
const count = () => { turns++; if (counting) setImmediate(count); };
setImmediate(count);
const res = await fetch(server.admin.url + '/health');
counting = false;
const body = await res.json();
console.log(JSON.stringify({ malformed, fastifyLoaded, status: res.status, health: body.status, turns }));
await server.close();
`;

describe("the admin API's first request", () => {
  it('loads fastify, prom-client and their dependencies a package per turn of the event loop', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', SCRIPT], { cwd: ROOT });
    const result = JSON.parse(stdout.trim()) as { malformed: string; fastifyLoaded: boolean; status: number; health: string; turns: number };
    // fastify's answer to it, written without fastify: the first request after it still loads them in turns.
    expect(result.fastifyLoaded).toBe(false);
    expect(result.malformed).toBe('HTTP/1.1 400 Bad Request\r\nContent-Length: 65\r\nContent-Type: application/json\r\n\r\n{"error":"Bad Request","message":"Client Error","statusCode":400}');
    expect(result).toMatchObject({ status: 200, health: 'ok' });
    // fastify 5 and prom-client 15 come with ~45 packages between them.
    expect(result.turns).toBeGreaterThanOrEqual(30);
  });
});
