#!/usr/bin/env node
// Container HEALTHCHECK: one Kafka ApiVersions v0 round trip to the server in this container.
// Healthy (exit 0) only when the server answers with error_code 0 and lists ApiVersions (key 18);
// a TCP connect alone is not enough. Plain Node, no dependencies, so it runs from any directory.
//
// Where to ask: KMC_HEALTHCHECK_ADDRESS=host:port if set, else the first entry of KAFKA_LISTENERS
// (a wildcard host means 127.0.0.1), else 127.0.0.1:9092.
import net from 'node:net';

const TIMEOUT_MS = Number(process.env.KMC_HEALTHCHECK_TIMEOUT_MS ?? 2000);

function target() {
  const explicit = process.env.KMC_HEALTHCHECK_ADDRESS;
  if (explicit) {
    const i = explicit.lastIndexOf(':');
    return { host: explicit.slice(0, i).replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(explicit.slice(i + 1)) };
  }
  const first = (process.env.KAFKA_LISTENERS ?? '').split(',')[0].trim();
  const m = /^[A-Za-z_][A-Za-z0-9_]*:\/\/(\[[^\]]*\]|[^:]*):(\d+)$/.exec(first);
  if (!m) return { host: '127.0.0.1', port: 9092 };
  const host = m[1].replace(/^\[|\]$/g, '');
  return { host: host === '' || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host, port: Number(m[2]) };
}

function fail(message) {
  process.stderr.write(`unhealthy: ${message}\n`);
  process.exit(1);
}

const { host, port } = target();
const correlationId = (Math.random() * 0x7fffffff) | 0;
const clientId = Buffer.from('healthcheck');
// Request header v1 (api_key, api_version, correlation_id, client_id) and an empty ApiVersions v0 body.
const body = Buffer.alloc(2 + 2 + 4 + 2 + clientId.length);
body.writeInt16BE(18, 0);
body.writeInt16BE(0, 2);
body.writeInt32BE(correlationId, 4);
body.writeInt16BE(clientId.length, 8);
clientId.copy(body, 10);
const frame = Buffer.alloc(4 + body.length);
frame.writeInt32BE(body.length, 0);
body.copy(frame, 4);

const timer = setTimeout(() => fail(`no ApiVersions response from ${host}:${port} within ${TIMEOUT_MS} ms`), TIMEOUT_MS);
let received = Buffer.alloc(0);
const socket = net.connect({ host, port }, () => socket.write(frame));
socket.on('error', (err) => fail(`${host}:${port}: ${err.message}`));
socket.on('close', () => fail(`${host}:${port} closed the connection before answering`));
socket.on('data', (chunk) => {
  received = Buffer.concat([received, chunk]);
  if (received.length < 4) return;
  const size = received.readInt32BE(0);
  if (received.length < 4 + size) return;
  // Response header v0 (correlation_id), then error_code and the api_keys array (key, min, max).
  if (size < 10) fail(`short ApiVersions response (${size} bytes)`);
  const gotCorrelation = received.readInt32BE(4);
  if (gotCorrelation !== correlationId) fail(`correlation id ${gotCorrelation}, expected ${correlationId}`);
  const errorCode = received.readInt16BE(8);
  if (errorCode !== 0) fail(`ApiVersions error_code ${errorCode}`);
  const count = received.readInt32BE(10);
  let listsApiVersions = false;
  for (let i = 0, at = 14; i < count && at + 6 <= 4 + size; i++, at += 6) {
    if (received.readInt16BE(at) === 18) listsApiVersions = true;
  }
  if (!listsApiVersions) fail('ApiVersions response does not list ApiVersions');
  clearTimeout(timer);
  socket.removeAllListeners('close');
  socket.destroy();
  process.stdout.write(`healthy: ApiVersions from ${host}:${port} lists ${count} APIs\n`);
  process.exit(0);
});
