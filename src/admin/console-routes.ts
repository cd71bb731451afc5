/**
 * The web console and what it reads, on the admin HTTP server:
 *
 * - `GET /` and `GET /console/assets/*`: the page, built by `npm run build` from console/ into
 *   dist/console (vite; no CDN, so it works offline and in the container). These are the only
 *   routes served without the bearer token (src/admin/guard.ts): they hold no data, and the page
 *   asks for the token when the API answers 401.
 * - `GET /overview`, `GET /groups/{id}/history`: the views the pages show.
 * - `GET /events`: server-sent events; one `change` event (`ChangeNotice` JSON) after each change
 *   the group watch sees, so the page refetches without a reload.
 * - `GET /metrics`: Prometheus (src/admin/metrics.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Broker } from '../broker.js';
import type { ServerClock } from '../util/manual-time.js';
import type { GroupWatch } from './group-watch.js';
import { overview } from './overview.js';
import { sendJsonInSlices } from './json-in-slices.js';
import { groupRoute } from './id-route.js';
import { METRICS_CONTENT_TYPE } from './metrics.js';


/** Open `/events` streams at most (each holds a socket; more get 503). */
const MAX_EVENT_STREAMS = 100;
/** Bytes a stream may have waiting for its reader before it is closed. */
const MAX_EVENT_BUFFER_BYTES = 1 << 20;

export interface ConsoleRouteOptions {
  broker: Broker;
  clock: ServerClock;
  bootstrap: () => string;
  watch: GroupWatch;
  renderMetrics: () => AsyncGenerator<string>;
  /** Where the built page is; default `<package>/dist/console`. */
  consoleDir?: string;
}

/** Where `npm run build` puts the page: dist/console beside dist/admin (also when running from src/ in tests). */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../../dist/console/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/**
 * The page loads only its own files and talks only to this server; no other site may frame it
 * (its forms change state).
 */
const CONSOLE_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

interface Asset {
  body: Buffer;
  type: string;
}

/** Reads the built page's files once (a handful of small files). */
function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(join(dir, 'index.html'))) return assets;
  assets.set('/', { body: readFileSync(join(dir, 'index.html')), type: CONTENT_TYPES['.html']! });
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      const file = join(assetDir, name);
      if (!statSync(file).isFile()) continue;
      assets.set(`/console/assets/${name}`, { body: readFileSync(file), type: CONTENT_TYPES[extname(name)] ?? 'application/octet-stream' });
    }
  }
  return assets;
}

export function registerConsoleRoutes(app: FastifyInstance, options: ConsoleRouteOptions): void {
  const { broker, clock, watch } = options;
  let assets: Map<string, Asset> | null = null;
  const serve = (path: string, reply: FastifyReply): FastifyReply => {
    assets ??= loadAssets(options.consoleDir ?? DEFAULT_CONSOLE_DIR);
    const asset = assets.get(path);
    if (!asset) {
      if (path === '/') {
        return reply.code(503).type('text/plain; charset=utf-8').send('The web console is not built: run `npm run build` (it bundles console/ into dist/console).\n');
      }
      return reply.code(404).send({ statusCode: 404, error: 'Not Found', message: `no console file ${path}` });
    }
    // Bundled files carry a content hash in their name; the page itself must be fetched again.
    const cache = path === '/' ? 'no-cache' : 'public, max-age=31536000, immutable';
    return reply.headers({ ...CONSOLE_HEADERS, 'cache-control': cache }).type(asset.type).send(asset.body);
  };
  app.get('/', async (_req, reply) => serve('/', reply));
  app.get<{ Params: { file: string } }>('/console/assets/:file', async (req, reply) => serve(`/console/assets/${req.params.file}`, reply));

  app.get('/overview', async (req, reply) => sendJsonInSlices(reply, await overview(broker, options.bootstrap(), clock, () => req.raw.socket.destroyed)));
  groupRoute(app, '/history', (groupId, reply) => watch.history(groupId) ?? reply.code(404).send({ statusCode: 404, error: 'Not Found', message: `unknown group "${groupId}"` }));
  // Chunk by chunk, each generated when the socket wants more (a scrape can be gigabytes): bytes,
  // not objects, so the stream holds at most its highWaterMark plus one chunk; a client gone
  // destroys it (fastify), which returns the generator and ends the work.
  app.get('/metrics', async (_req, reply) => reply.type(METRICS_CONTENT_TYPE).send(Readable.from(options.renderMetrics(), { objectMode: false })));

  const streams = new Set<ServerResponse>();
  app.get('/events', (req, reply) => {
    if (streams.size >= MAX_EVENT_STREAMS) {
      return reply.code(503).send({ statusCode: 503, error: 'Service Unavailable', message: `at most ${MAX_EVENT_STREAMS} event streams at once` });
    }
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    // `retry`: how long a browser's EventSource waits before reconnecting after a drop.
    res.write('retry: 2000\n: connected\n\n');
    // A reader that does not keep up is dropped (its browser reconnects) rather than buffered for.
    const unsubscribe = watch.subscribe((notice) => {
      if (res.writableLength > MAX_EVENT_BUFFER_BYTES) res.destroy();
      else res.write(`event: change\ndata: ${JSON.stringify(notice)}\n\n`);
    });
    // A comment now and then keeps proxies (and the Docker port mapping) from closing an idle stream.
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    keepAlive.unref();
    streams.add(res);
    req.raw.once('close', () => {
      unsubscribe();
      clearInterval(keepAlive);
      streams.delete(res);
    });
  });
  // Open streams would keep close() waiting forever.
  app.addHook('preClose', async () => {
    for (const res of streams) res.end();
    streams.clear();
  });
}
