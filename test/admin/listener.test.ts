/**
 * src/admin/listener.ts: the admin API's port is open from start and what it records (request
 * totals, the group watch) starts then, while fastify and its routes load with the first HTTP
 * request. Requests sent together before that are all answered, one Node cannot parse gets
 * fastify's answer; a server whose admin API was never asked closes and frees the port.
 */
import { lookup } from 'node:dns/promises';
import { connect } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { ADMIN_MAX_CONNECTIONS } from '../../src/admin/listener.js';

describe('admin listener', () => {
  it('answers every request that arrives before the app is loaded, and counts Kafka requests made before them', async () => {
    const server = await startTestServer({ adminPort: 0 });
    try {
      // Kafka requests before any HTTP request: the totals must already be recording.
      const kafka = await RawClient.connect(server.port);
      for (let i = 0; i < 3; i++) expect((await kafka.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' })).errorCode).toBe(0);
      kafka.close();

      const base = server.admin!.url;
      const first = await Promise.all(Array.from({ length: 8 }, () => fetch(`${base}/health`)));
      expect(first.map((r) => r.status)).toEqual(Array(8).fill(200));
      const bodies = (await Promise.all(first.map((r) => r.json()))) as Array<{ status: string; bootstrap: string }>;
      expect(bodies.every((b) => b.status === 'ok' && b.bootstrap === server.bootstrap)).toBe(true);

      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/^kmc_requests_total\{api="ApiVersions",version="3",error="NONE"\} 3$/m);
    } finally {
      await server.stop();
    }
  });

  it('a first request whose client half-closes its socket right after sending it is answered, then the socket is closed', async () => {
    const server = await startTestServer({ adminPort: 0 });
    try {
      const socket = connect({ port: server.admin!.port, host: '127.0.0.1' });
      await once(socket, 'connect');
      socket.end('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      let reply = '';
      socket.on('data', (d: Buffer) => (reply += d.toString('latin1')));
      await once(socket, 'close');
      expect(reply).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 'ok', bootstrap: server.bootstrap });
    } finally {
      await server.stop();
    }
  });

  it("a request Node cannot parse, before the app is loaded, gets fastify's answer", async () => {
    const server = await startTestServer({ adminPort: 0 });
    try {
      const socket = connect({ port: server.admin!.port, host: '127.0.0.1' });
      await once(socket, 'connect');
      socket.end('NOT HTTP AT ALL\r\n\r\n');
      let reply = '';
      socket.on('data', (d: Buffer) => (reply += d.toString('latin1')));
      await once(socket, 'close');
      expect(reply).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(reply).toContain('{"error":"Bad Request","message":"Client Error","statusCode":400}');
    } finally {
      await server.stop();
    }
  });

  it('on localhost, as fastify: every address the name resolves to answers, on the same port', async () => {
    const addresses = (await lookup('localhost', { all: true })).map((a) => (a.family === 6 ? `[${a.address}]` : a.address));
    const server = await startTestServer({ adminPort: 0, adminHost: 'localhost' });
    try {
      expect(server.admin!.url).toBe(`http://localhost:${server.admin!.port}`);
      for (const address of addresses) {
        const res = await fetch(`http://${address}:${server.admin!.port}/health`);
        expect([address, res.status]).toEqual([address, 200]);
      }
    } finally {
      await server.stop();
    }
  });

  it('closes without ever having loaded the app, and the port is free after', async () => {
    const server = await startTestServer({ adminPort: 0 });
    const port = server.admin!.port;
    await server.stop();
    const socket = connect({ port, host: '127.0.0.1' });
    const [err] = (await once(socket, 'error')) as [NodeJS.ErrnoException];
    expect(err.code).toBe('ECONNREFUSED');
  });

  it('closes a connection past ADMIN_MAX_CONNECTIONS as it is accepted, and takes new ones again once others close', async () => {
    const server = await startTestServer({ adminPort: 0 });
    const sockets: Array<ReturnType<typeof connect>> = [];
    try {
      const port = server.admin!.port;
      const open = async () => {
        const socket = connect({ port, host: '127.0.0.1' });
        sockets.push(socket);
        await once(socket, 'connect');
        return socket;
      };
      // Each sends half a request head and waits: held open, as a slow client would.
      for (let i = 0; i < ADMIN_MAX_CONNECTIONS; i++) (await open()).write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      // Failed before: there was no cap, and this one was kept too.
      const extra = await open();
      extra.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const answer: Buffer[] = [];
      extra.on('data', (d: Buffer) => answer.push(d));
      await once(extra, 'close');
      expect(Buffer.concat(answer).toString()).toBe('');

      sockets[0]!.destroy();
      let health: Response | null = null;
      // The server sees the close on its next poll: until then the new connection may still be refused.
      while (health === null) health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
      expect(health.status).toBe(200);
    } finally {
      for (const s of sockets) s.destroy();
      await server.stop();
    }
  });
});
