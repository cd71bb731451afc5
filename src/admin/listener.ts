/**
 * The admin API's HTTP listener. The port is bound at start (a busy port is a start-up error, as
 * always), and what the admin API records from its start begins then (src/admin/live-state.ts);
 * fastify, prom-client and the routes (src/admin/server.ts) load with the first HTTP request
 * (issue #16: they are most of the admin API's start-up CPU, about 130 ms, and about 16 MiB of RSS,
 * for a server that is often never asked), a package per turn of the event loop so that the Kafka
 * connections are served meanwhile (src/util/preload.ts). Requests that arrive while they load
 * wait for them.
 */
import { lookup } from 'node:dns/promises';
import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { ADMIN_MAX_HEADER_SIZE, isLoopbackHost } from './guard.js';
import { startLiveState } from './live-state.js';
import { preloadPackages } from '../util/preload.js';
import type { AdminServerOptions } from './server.js';

export interface AdminServer {
  /** `http://host:port` (127.0.0.1 when bound to every interface). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The CommonJS packages the app (src/admin/server.ts) requires. */
const ADMIN_PACKAGES = ['fastify', 'prom-client'];

/** Starts the admin API on `host:port` (port 0: a free one; host '' every interface), guarded as src/admin/guard.ts says. */
export async function startAdminServer(options: AdminServerOptions & { host: string; port: number; token: string | null }): Promise<AdminServer> {
  const live = startLiveState(options);
  const server = httpServer();
  let handle: Handler | null = null;
  let app: ReturnType<typeof loadApp> | null = null;
  async function loadApp() {
    // A package a turn: loading fastify and prom-client in one go held the Kafka port ~100 ms.
    await preloadPackages(ADMIN_PACKAGES);
    const { buildAdminApp } = await import('./server.js');
    let fastifyHandler: Handler | null = null;
    const instance = buildAdminApp(
      { ...options, loopbackOnly: isLoopbackHost(options.host) },
      { live, serverFactory: (handler) => ((fastifyHandler = handler), server) },
    );
    await instance.ready();
    handle = fastifyHandler;
    server.off('clientError', beforeApp);
    return instance;
  }
  // A request Node cannot parse that comes before the app (a port scanner, a browser speaking TLS
  // or HTTP/2): answered here as fastify's default client-error handler answers it once the app
  // is loaded, without loading the app for it, which held the Kafka port 120-420 ms
  // (adversarial trial, session 21).
  function beforeApp(err: NodeJS.ErrnoException, socket: Duplex): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, message] =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Client Timeout'] : err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Exceeded maximum allowed HTTP header size'] : [400, 'Client Error'];
    const body = JSON.stringify({ error: STATUS_CODES[status], message, statusCode: status });
    if (socket.writable) socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\n\r\n${body}`);
    socket.destroy(err);
  }
  server.on('clientError', beforeApp);
  const dispatch = (req: IncomingMessage, res: ServerResponse): void => {
    if (handle) return handle(req, res);
    (app ??= loadApp()).then(
      () => handle!(req, res),
      (err: Error) => {
        options.broker.log.error({ err }, 'admin API could not load');
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ statusCode: 500, error: 'Internal Server Error', message: `the admin API could not load: ${err.message}` }));
      },
    );
  };
  server.on('request', dispatch);

  // An IPv6 address may come bracketed, as in a URL ("[::1]"); listen wants it bare.
  const bindHost = options.host === '' ? '0.0.0.0' : options.host.replace(/^\[(.*)\]$/, '$1');
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: bindHost, port: options.port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    live.close();
    // Marked: node's text (`listen EADDRINUSE ... :<port>`) reads as a Kafka listener's, and the
    // command line names the flag of the one that failed.
    throw Object.assign(err as Error, { listener: 'admin' });
  }
  const address = server.address() as AddressInfo;
  const secondary = bindHost === 'localhost' ? await listenOnOtherAddresses('localhost', address, dispatch) : [];
  const anyHost = ['', '0.0.0.0', '::'].includes(bindHost);
  const host = anyHost ? '127.0.0.1' : bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close() {
      closing ??= (async () => {
        // No new connections from now; `closed` settles once the open ones are gone.
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const other of secondary) other.close(() => {});
        // The app's preClose ends the console's event streams, which would keep a connection open.
        if (app) await app.then((instance) => instance.close(), () => undefined);
        for (const each of [server, ...secondary]) each.closeIdleConnections();
        live.close();
        await closed;
      })();
      return closing;
    },
  };
}

/**
 * Admin API connections open at once; one more is closed as it is accepted (adversarial trial,
 * session 19: 19,500 connections sending a header byte a second were all kept, 15.5k of the
 * process's 20k file descriptors). The console takes a few per tab.
 */
export const ADMIN_MAX_CONNECTIONS = 1024;
/**
 * Milliseconds a request's head, and the whole request, may take to arrive; a client that stops
 * sending mid-request is closed then (Node checks every 30 s, so up to that much later). Answers
 * that stream (the console's events) are not bounded by these: they count until the request is in.
 */
export const ADMIN_HEADERS_TIMEOUT_MS = 20_000;
export const ADMIN_REQUEST_TIMEOUT_MS = 30_000;

/** An HTTP server as fastify makes its own (keep-alive 72 s), with request timeouts and a connection cap; request heads up to ADMIN_MAX_HEADER_SIZE. */
function httpServer(): Server {
  const server = createServer({ maxHeaderSize: ADMIN_MAX_HEADER_SIZE, headersTimeout: ADMIN_HEADERS_TIMEOUT_MS, requestTimeout: ADMIN_REQUEST_TIMEOUT_MS });
  server.keepAliveTimeout = 72_000;
  server.maxConnections = ADMIN_MAX_CONNECTIONS;
  // A client that half-closes its socket after a request (curl's --no-keepalive does not, some
  // scripts do) still gets the answer, then the close: by default Node aborts a request still being
  // answered when its socket ends, so the first request, which waits for the app to load over
  // several turns, got no answer (adversarial trial, session 21). Node's own property (_http_server.js).
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  return server;
}

/**
 * As fastify's `listen` on `localhost`: the other addresses the name resolves to (::1 beside
 * 127.0.0.1) get a server of their own on the same port, serving the same requests; one that
 * cannot be bound is skipped.
 */
async function listenOnOtherAddresses(name: string, main: AddressInfo, dispatch: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server[]> {
  const addresses = await lookup(name, { all: true }).catch(() => []);
  const servers: Server[] = [];
  for (const { address } of addresses) {
    if (address === main.address) continue;
    const other = httpServer();
    other.on('request', dispatch);
    const bound = await new Promise<boolean>((resolve) => {
      other.once('error', () => resolve(false));
      other.listen({ host: address, port: main.port }, () => resolve(true));
    });
    if (bound) servers.push(other);
  }
  return servers;
}
