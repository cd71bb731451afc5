/**
 * The admin API is safe by default (src/admin/guard.ts): loopback unless told otherwise, no
 * cross-site state changes, JSON bodies only, a bearer token when set (and required off loopback
 * without --admin-insecure), bounded fault rules. Requests go through node:http so that the test
 * sets exactly the headers a browser would (Origin, Sec-Fetch-Site, Host, Content-Type).
 */
import { request } from 'node:http';
import { createConnection } from 'node:net';
import { networkInterfaces } from 'node:os';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, startServer } from '../../src/index.js';
import { MAX_FAULT_HOLD_MS, MAX_FAULT_RULES } from '../../src/faults/types.js';
import { startCli, kill } from '../support/cli-process.js';
import { startTestServer } from '../support/server.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

function call(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      // JSON answers parsed; others (/metrics, the console's page) as text.
      const json = String(res.headers['content-type'] ?? '').startsWith('application/json');
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text === '' ? null : json ? JSON.parse(text) : text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends `text` as it is (for what node:http will not send: two Host headers, an absolute target); the raw answer. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.end(text));
    let answer = '';
    socket.setEncoding('utf8').on('data', (c: string) => (answer += c));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };
const RULE = JSON.stringify({ id: 'r1', match: { api: 'Metadata', clientId: 'nobody' }, action: { type: 'error', error: 'UNKNOWN_SERVER_ERROR' } });

describe('admin API: safe by default', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('refuses cross-site and non-JSON state changes with 403/415 and changes nothing', async () => {
    const server = await startTestServer({ brokers: 2, adminPort: 0 });
    cleanups.push(() => server.stop());
    const base = server.admin!.url;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const up = () => server.cluster.describe().brokers.map((b: { up: boolean }) => b.up);

    // What a page on another site can send without a preflight: a text/plain POST with its Origin.
    const stop = await call(base, 'POST', '/cluster/brokers/1/stop', { 'content-type': 'text/plain', origin: 'http://evil.example' }, '{}');
    expect(stop.status).toBe(403);
    expect(stop.body.message).toBe(`cross-site request refused: Origin http://evil.example is not this admin API (http://${new URL(base).host})`);
    expect(up()).toEqual([true, true]);
    // A browser that hides the Origin still says where the request comes from.
    expect((await call(base, 'POST', '/offsets/sweep', { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await call(base, 'DELETE', '/faults', { origin: 'null' })).status).toBe(403);

    // Without an Origin (curl, scripts) a body must still be JSON.
    const plain = await call(base, 'POST', '/faults', { 'content-type': 'text/plain' }, RULE);
    expect(plain.status).toBe(415);
    expect(plain.body.message).toBe('state-changing requests take a JSON body: send Content-Type: application/json (got "text/plain")');
    expect((await call(base, 'POST', '/faults', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=b')).status).toBe(415);
    expect((await call(base, 'POST', '/faults', {}, RULE)).status).toBe(415);
    expect(server.faults.list()).toEqual([]);

    // The admin server's own origin, and clients that send none, pass.
    const own = await call(base, 'POST', '/faults', { ...JSON_TYPE, origin: base, 'sec-fetch-site': 'same-origin' }, RULE);
    expect(own.status).toBe(201);
    expect(server.faults.list().map((r) => r.id)).toEqual(['r1']);
    expect((await call(base, 'POST', '/cluster/brokers/2/stop')).status).toBe(200);
    expect(up()).toEqual([true, false]);
    expect((await call(base, 'DELETE', '/faults/r1')).status).toBe(204);
    // A JSON content type without a body (fetch with the header always set) is no body.
    expect((await call(base, 'DELETE', '/faults', JSON_TYPE)).body).toEqual({ removed: 0 });
    // Only what the checks read: one Host, a path as the target, a Host that is exactly a name and a port.
    const port = new URL(base).port;
    for (const [headers, status] of [[{ host: `[::1]evil.example:${port}` }, 403], [{ host: `localhost.evil.example:${port}` }, 403]] as const) {
      expect((await call(base, 'GET', '/health', headers)).status, JSON.stringify(headers)).toBe(status);
    }
    const twoHosts = await rawRequest(Number(port), `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`);
    expect(twoHosts).toMatch(/^HTTP\/1\.1 400 /);
    const absolute = await rawRequest(Number(port), `POST http://evil.example/faults HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${RULE.length}\r\nConnection: close\r\n\r\n${RULE}`);
    expect(absolute).toMatch(/^HTTP\/1\.1 400 /);
    expect(server.faults.list()).toEqual([]);
    // Reads from another site's scripts are refused too (they could not read the answer, but the
    // server would build it, or hold an /events stream); a link the user follows is not, nor a
    // client that sends no Origin, nor the console's own requests.
    const read = await call(base, 'GET', '/transactions', { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' });
    expect([read.status, read.body.message]).toEqual([403, `cross-site request refused: Origin http://evil.example is not this admin API (http://${new URL(base).host})`]);
    expect((await call(base, 'GET', '/events', { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' })).status).toBe(403);
    expect((await call(base, 'GET', '/metrics', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' })).status).toBe(403);
    const scriptNavigation = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
    const userLink = { ...scriptNavigation, 'sec-fetch-user': '?1' };
    expect((await call(base, 'GET', '/metrics', userLink)).status).toBe(200);
    // A script's navigation (window.open, location) carries no Sec-Fetch-User; a speculation
    // rule's prefetch or prerender says Sec-Purpose, with Sec-Fetch-Site none (adversarial trial 27).
    expect((await call(base, 'GET', '/groups', scriptNavigation)).status).toBe(403);
    expect((await call(base, 'GET', '/groups', { ...scriptNavigation, 'sec-fetch-site': 'same-site' })).status).toBe(403);
    for (const purpose of ['prefetch', 'prefetch;prerender', 'prefetch;anonymous-client-ip']) {
      expect((await call(base, 'GET', '/groups', { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', 'sec-purpose': purpose })).status).toBe(403);
    }
    expect((await call(base, 'GET', '/groups', { purpose: 'prefetch' })).status).toBe(403);
    // A URL the user types (Sec-Fetch-Site none) is answered.
    expect((await call(base, 'GET', '/groups', { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', 'sec-fetch-user': '?1' })).status).toBe(200);
    // A page's frames navigate too, but they are the page's doing (a hundred iframes of /groups).
    for (const dest of ['iframe', 'frame', 'embed', 'object']) {
      expect((await call(base, 'GET', '/groups', { ...userLink, 'sec-fetch-dest': dest })).status).toBe(403);
    }
    expect((await call(base, 'GET', '/groups', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' })).status).toBe(403);
    expect((await call(base, 'GET', '/', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' })).status).toBe(200);
    expect((await call(base, 'GET', '/faults', { origin: base, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' })).status).toBe(200);
    expect((await call(base, 'GET', '/faults')).status).toBe(200);
  });

  it('answers only to loopback host names when bound to loopback (DNS rebinding)', async () => {
    const server = await startTestServer({ adminPort: 0 });
    cleanups.push(() => server.stop());
    const port = new URL(server.admin!.url).port;
    const rebound = await call(server.admin!.url, 'GET', '/health', { host: `rebound.example:${port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.body.message).toBe(`the admin API answers only to loopback host names (Host: "rebound.example:${port}")`);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      expect((await call(server.admin!.url, 'GET', '/health', { host })).status, host).toBe(200);
    }
    // Bound to IPv6 loopback, given bracketed as in a URL (where the machine has one).
    if (Object.values(networkInterfaces()).flat().some((a) => a?.address === '::1')) {
      const v6 = await startTestServer({ adminPort: 0, adminHost: '[::1]' });
      cleanups.push(() => v6.stop());
      expect(v6.admin!.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
      expect((await call(v6.admin!.url, 'GET', '/health')).status).toBe(200);
    }
  });

  it('bound to every address (--admin-host 0.0.0.0 --admin-insecure, the Docker image): a browser must name it by address or localhost (DNS rebinding)', async () => {
    const server = await startTestServer({ adminPort: 0, adminHost: '0.0.0.0', adminInsecure: true });
    cleanups.push(() => server.stop());
    const port = new URL(server.admin!.url).port;
    const base = `http://127.0.0.1:${port}`;
    const rebound = { host: `rebind.attacker.example:${port}`, origin: `http://rebind.attacker.example:${port}`, 'sec-fetch-site': 'same-origin' };
    const post = await call(base, 'POST', '/faults', { ...JSON_TYPE, ...rebound }, RULE);
    expect(post.status).toBe(403);
    expect(post.body.message).toBe('a browser reaches the admin API by IP address or localhost, not by the name "rebind.attacker.example" (DNS rebinding guard)');
    expect((await call(base, 'GET', '/metrics', { host: rebound.host, 'sec-fetch-site': 'same-origin' })).status).toBe(403);
    expect(server.faults.list()).toEqual([]);
    // A browser by address or localhost, and non-browser clients by any name, pass.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      expect((await call(base, 'GET', '/health', { host, 'sec-fetch-site': 'none' })).status, host).toBe(200);
    }
    expect((await call(base, 'GET', '/health', { host: `kmc-service:${port}` })).status).toBe(200);
  });

  it('binds 127.0.0.1 unless told otherwise: another interface of this machine is refused', async () => {
    const server = await startCli(['--in-memory', '--port', '0', '--admin-port', '0']);
    cleanups.push(() => kill(server, 'SIGKILL'));
    const port = Number(/admin API http:\/\/127\.0\.0\.1:(\d+)/.exec(server.lines.join('\n'))?.[1]);
    expect(port).toBeGreaterThan(0);
    expect((await call(`http://127.0.0.1:${port}`, 'GET', '/health')).status).toBe(200);
    const external = Object.values(networkInterfaces()).flat().find((a) => a !== undefined && a.family === 'IPv4' && !a.internal);
    // A machine with only a loopback interface has nothing else to try.
    if (external !== undefined) {
      await expect(call(`http://${external.address}:${port}`, 'GET', '/health')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    }
  });

  it('requires the bearer token on every route when one is set, for HTTP and the control commands', async () => {
    const server = await startTestServer({ adminPort: 0, adminToken: 's3cret' });
    cleanups.push(() => server.stop());
    const base = server.admin!.url;
    const missing = await call(base, 'GET', '/health');
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="kafka-mock-coordinator admin API"');
    expect((await call(base, 'GET', '/groups', { authorization: 'Bearer s3cre' })).status).toBe(401);
    expect((await call(base, 'POST', '/faults', { ...JSON_TYPE, authorization: 'Bearer wrong' }, RULE)).status).toBe(401);
    expect(server.faults.list()).toEqual([]);
    expect((await call(base, 'GET', '/health', { authorization: 'Bearer s3cret' })).status).toBe(200);

    // Asynchronously: the server answering it lives in this process's event loop.
    const cli = (env: Record<string, string>) =>
      promisify(execFile)(process.execPath, [CLI, 'faults', 'list', '--admin', base], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
    await expect(cli({ KMC_ADMIN_TOKEN: '' })).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('GET /faults: 401 this admin API needs "Authorization: Bearer <token>"') });
    const listed = await cli({ KMC_ADMIN_TOKEN: 's3cret' });
    expect(JSON.parse(listed.stdout)).toEqual({ faults: [] });
  });

  it("serves the web console's page and bundled files without the token, and no data", async () => {
    const server = await startTestServer({ adminPort: 0, adminToken: 's3cret' });
    cleanups.push(() => server.stop());
    const base = server.admin!.url;
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // The page loads only its own files, talks only to this server and cannot be framed elsewhere.
    expect(page.headers.get('content-security-policy')).toBe("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
    const asset = await fetch(`${base}${script}`);
    expect([asset.status, asset.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect((await fetch(`${base}/console/assets/nothing.js`)).status).toBe(404);
    // Everything with data, the event stream and /metrics included, still needs the token.
    for (const path of ['/overview', '/events', '/metrics', '/groups/g/history', '/console', '/index.html']) {
      expect((await fetch(`${base}${path}`)).status, path).toBe(401);
    }
    expect((await fetch(`${base}/`, { method: 'POST', headers: JSON_TYPE, body: '{}' })).status).toBe(401);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer s3cret' } })).status).toBe(200);
    // The Host check (DNS rebinding) covers the page too.
    expect((await call(base, 'GET', '/', { host: 'rebound.example:80' })).status).toBe(403);
  });

  it('trims a token read with its newline, and refuses an empty one', async () => {
    const server = await startTestServer({ adminPort: 0, adminToken: 's3cret\n' });
    cleanups.push(() => server.stop());
    expect((await call(server.admin!.url, 'GET', '/health', { authorization: 'Bearer s3cret' })).status).toBe(200);
    await expect(startServer({ port: 0, inMemory: true, adminPort: 0, adminToken: ' ' })).rejects.toThrow('invalid config --admin-token: is empty');
  });

  it('refuses to start the admin API off loopback without a token or --admin-insecure, naming --admin-host', async () => {
    const res = spawnSync(process.execPath, [CLI, '--in-memory', '--port', '0', '--admin-port', '0', '--admin-host', '0.0.0.0'], { encoding: 'utf8', timeout: 60_000 });
    expect(res.status).toBe(2);
    expect(res.stderr).toMatch(/^kafka-mock-coordinator: invalid config --admin-host: the admin API on 0\.0\.0\.0 \(not a loopback address\)/);
    const env = spawnSync(process.execPath, [CLI, '--in-memory', '--port', '0', '--admin-port', '0'], { env: { ...process.env, KMC_ADMIN_HOST: '0.0.0.0', KMC_ADMIN_INSECURE: 'maybe' }, encoding: 'utf8', timeout: 60_000 });
    expect(env.status).toBe(2);
    expect(env.stderr).toContain('invalid KMC_ADMIN_INSECURE "maybe" (true or false)');
    await expect(startServer({ port: 0, inMemory: true, adminPort: 0, adminHost: '0.0.0.0' })).rejects.toBeInstanceOf(ConfigError);

    for (const args of [['--admin-insecure'], ['--admin-token', 't']]) {
      const server = await startCli(['--in-memory', '--port', '0', '--admin-port', '0', '--admin-host', '0.0.0.0', ...args]);
      expect(server.lines.at(-1)).toMatch(/ready on localhost:\d+ \(admin API http:\/\/127\.0\.0\.1:\d+/);
      expect(await kill(server, 'SIGTERM')).toBe(0);
    }
  });

  it(`holds at most ${MAX_FAULT_RULES} fault rules and no request longer than ${MAX_FAULT_HOLD_MS} ms, with a 400`, async () => {
    const server = await startTestServer({ adminPort: 0 });
    cleanups.push(() => server.stop());
    const base = server.admin!.url;
    server.faults.addAll(Array.from({ length: MAX_FAULT_RULES - 1 }, (_, i) => ({ id: `n${i}`, match: { clientId: 'nobody' }, action: { type: 'error', error: 'UNKNOWN_SERVER_ERROR' } })));
    expect((await call(base, 'POST', '/faults', JSON_TYPE, RULE)).status).toBe(201);
    const over = await call(base, 'POST', '/faults', JSON_TYPE, JSON.stringify({ id: 'one-too-many', match: {}, action: { type: 'hang' } }));
    expect(over.status).toBe(400);
    expect(over.body.message).toBe(`at most ${MAX_FAULT_RULES} fault rules at once (${MAX_FAULT_RULES} held): remove some first`);
    expect(server.faults.list()).toHaveLength(MAX_FAULT_RULES);
    server.faults.clear();
    for (const action of [{ type: 'delay', ms: MAX_FAULT_HOLD_MS + 1 }, { type: 'hang', closeAfterMs: MAX_FAULT_HOLD_MS + 1 }, { type: 'close', delayMs: MAX_FAULT_HOLD_MS + 1 }, { type: 'throttle', ms: MAX_FAULT_HOLD_MS + 1 }]) {
      const res = await call(base, 'POST', '/faults', JSON_TYPE, JSON.stringify({ match: {}, action }));
      expect(res.status, JSON.stringify(action)).toBe(400);
      expect(res.body.message).toMatch(new RegExp(`must be an integer from 0 to ${MAX_FAULT_HOLD_MS}, got ${MAX_FAULT_HOLD_MS + 1}$`));
    }
    expect(server.faults.list()).toEqual([]);
    const held = server.faults.add({ id: 'held', match: { clientId: 'nobody' }, action: { type: 'error', error: 'UNKNOWN_SERVER_ERROR' } });
    const wait = await call(base, 'POST', `/faults/${held.id}/wait`, JSON_TYPE, JSON.stringify({ count: 1, timeoutMs: MAX_FAULT_HOLD_MS + 1 }));
    expect(wait.status).toBe(400);
    expect(wait.body.message).toBe(`timeoutMs must be an integer from 0 to ${MAX_FAULT_HOLD_MS} (a JSON number), got ${MAX_FAULT_HOLD_MS + 1}`);
  });
});
