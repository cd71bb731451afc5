/**
 * Who may use the HTTP admin API. The API can stop brokers, hang every Kafka request and move the
 * clock, so it is closed to what a browser can be made to send from another site:
 *
 * - `Authorization: Bearer <token>` on every route when a token is set (401 otherwise), except
 *   GET/HEAD of the web console's page and files (`/`, `/console/assets/*`): they hold no data,
 *   a browser cannot add the header to a navigation, and the page asks for the token itself;
 * - a request whose `Origin` is not the admin server's own, or that a browser marks cross-site or
 *   same-site (`Sec-Fetch-Site`), is refused with 403: a page elsewhere cannot drive the API even
 *   where it can send the request, nor make it build answers it cannot read. Not refused: GET/HEAD
 *   of the console's files, and a top-level navigation the user made (`Sec-Fetch-Mode: navigate`,
 *   `Sec-Fetch-Dest: document`, `Sec-Fetch-User: ?1`: a link to `/metrics` the user follows from
 *   another site); a prefetch or prerender (`Sec-Purpose`) is refused wherever it comes from;
 * - a state-changing request with a body must say `Content-Type: application/json` (415): the
 *   types a cross-site form or a no-cors fetch may send without a preflight (text/plain,
 *   form encodings) never reach a route;
 * - bound to a loopback address, the `Host` must be a loopback name too (403), so that a DNS name
 *   rebound to 127.0.0.1 does not make another site's page "same origin".
 *
 * Non-browser clients (curl, the command line, tests) send no `Origin` and pass the checks.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface AdminGuardOptions {
  /** Bearer token required on every request; null: none. */
  token: string | null;
  /** Whether the admin API is bound to a loopback address (then the Host header must be one). */
  loopbackOnly: boolean;
}

/** Where the admin API binds unless told otherwise: it can stop brokers and inject faults. */
export const DEFAULT_ADMIN_HOST = '127.0.0.1';

/**
 * The largest request head the admin API reads (bytes; Node's default is 16 KiB): group and
 * transactional ids go in paths, up to 98,301 characters percent-encoded.
 */
export const ADMIN_MAX_HEADER_SIZE = 128 * 1024;

/**
 * The largest request body the admin API reads (bytes; fastify's default is 1 MiB): a fault rule
 * with a list of thousands of errors fits. A 1 MiB JSON body of half a million values cost 57-220 ms
 * of event-loop CPU to parse and check, holding the Kafka port meanwhile (adversarial trial 17);
 * a larger body is refused 413 as it arrives.
 */
export const ADMIN_MAX_BODY_SIZE = 256 * 1024;

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether `host` (an address or name to bind, IPv6 bracketed or not) is loopback: 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  const family = isIP(bare);
  return family !== 0 && LOOPBACK.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/** An IP address (v4 or [v6]) or localhost / *.localhost: names no other site's DNS can rebind. */
function isAddressOrLocalhost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const lower = bare.toLowerCase();
  return isIP(bare) !== 0 || lower === 'localhost' || lower.endsWith('.localhost');
}

/** The host name of a `Host` header (without its port); '' when it is not `name[:port]` or `[v6][:port]`. */
function hostName(header: string): string {
  const m = /^(\[[^\]]*\]|[^:[\]]*)(?::\d*)?$/.exec(header);
  return m?.[1] ?? '';
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Paths of the web console's page and bundled files (src/admin/console-routes.ts), which need no token. */
export function isConsoleAssetPath(path: string): boolean {
  return path === '/' || path.startsWith('/console/assets/');
}

/** Compared as SHA-256 digests so that neither the length nor the content leaks through timing. */
function sameSecret(given: string, expected: Buffer): boolean {
  return timingSafeEqual(createHash('sha256').update(given).digest(), expected);
}

function refuse(reply: FastifyReply, statusCode: number, error: string, message: string): FastifyReply {
  return reply.code(statusCode).send({ statusCode, error, message });
}

/** 403 for a request a browser sent from another origin (`Origin`, or `Sec-Fetch-Site` cross-site or same-site); else undefined. */
function crossSiteRefusal(req: FastifyRequest, reply: FastifyReply, host: string): FastifyReply | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`) {
    return refuse(reply, 403, 'Forbidden', `cross-site request refused: Origin ${origin} is not this admin API (http://${host})`);
  }
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return refuse(reply, 403, 'Forbidden', `cross-site request refused (Sec-Fetch-Site: ${String(site)})`);
  }
  return undefined;
}

/** Whether a browser asks ahead of the user (`Sec-Purpose: prefetch` or `prefetch;prerender`; Chromium's older `Purpose: prefetch`). */
function isPrefetch(req: FastifyRequest): boolean {
  const purpose = `${String(req.headers['sec-purpose'] ?? '')} ${String(req.headers['purpose'] ?? '')}`.toLowerCase();
  return purpose.includes('prefetch') || purpose.includes('prerender');
}

/** Installs the checks as the first hook of every request (before body parsing and routing). */
export function installAdminGuard(app: FastifyInstance, options: AdminGuardOptions): void {
  const expected = options.token === null ? null : createHash('sha256').update(options.token).digest();
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    // One Host, and an origin-form target: what the checks below read must be all there is.
    const hosts = req.raw.rawHeaders.filter((_, i) => i % 2 === 0 && req.raw.rawHeaders[i]!.toLowerCase() === 'host').length;
    if (hosts > 1 || !req.raw.url?.startsWith('/')) {
      return refuse(reply, 400, 'Bad Request', hosts > 1 ? 'more than one Host header' : 'the request target must be a path');
    }
    const host = req.headers.host ?? '';
    if (options.loopbackOnly && !isLoopbackHost(hostName(host))) {
      return refuse(reply, 403, 'Forbidden', `the admin API answers only to loopback host names (Host: ${JSON.stringify(host)})`);
    }
    // Bound to other addresses (the Docker image), a browser must still name the server by address
    // or localhost: a page whose DNS name was rebound to this server would otherwise be its own
    // origin (its Origin and Host agree). Browsers say they are browsers (Origin, Sec-Fetch-Site);
    // other clients (curl, containers calling a service name) pass.
    const fromBrowser = req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined;
    if (fromBrowser && !options.loopbackOnly && !isAddressOrLocalhost(hostName(host))) {
      return refuse(reply, 403, 'Forbidden', `a browser reaches the admin API by IP address or localhost, not by the name ${JSON.stringify(hostName(host))} (DNS rebinding guard)`);
    }
    const path = req.raw.url.split('?')[0]!;
    if (expected !== null && !((req.method === 'GET' || req.method === 'HEAD') && isConsoleAssetPath(path))) {
      const auth = req.headers.authorization ?? '';
      const token = /^Bearer (.+)$/i.exec(auth)?.[1];
      if (token === undefined || !sameSecret(token, expected)) {
        reply.header('www-authenticate', 'Bearer realm="kafka-mock-coordinator admin API"');
        return refuse(reply, 401, 'Unauthorized', 'this admin API needs "Authorization: Bearer <token>" (--admin-token, KMC_ADMIN_TOKEN)');
      }
    }
    if (SAFE_METHODS.has(req.method)) {
      // A page elsewhere cannot read these answers (no CORS headers), but its scripts could still
      // make the server build them (a listing of 100,000 transactional ids is 20 MB) or hold
      // `/events` streams open (adversarial trial 26): refused, but for a link the user follows
      // (a top-level navigation the user made) and the console's own files. A frame's navigation,
      // a script's (`window.open`, `location`) and a browser's prefetch or prerender of another
      // page's speculation rules are the page's doing: a hundred iframes of /groups held the
      // Kafka port ~1 s (adversarial trial 27).
      if (isConsoleAssetPath(path)) return;
      if (isPrefetch(req)) return refuse(reply, 403, 'Forbidden', 'prefetch and prerender refused: the admin API builds an answer for a request the user makes');
      const userNavigation = req.headers['sec-fetch-mode'] === 'navigate' && req.headers['sec-fetch-dest'] === 'document' && req.headers['sec-fetch-user'] === '?1';
      if (userNavigation) return;
      return crossSiteRefusal(req, reply, host);
    }
    const refused = crossSiteRefusal(req, reply, host);
    if (refused !== undefined) return refused;
    const type = req.headers['content-type'];
    const hasBody = (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;
    if ((type !== undefined || hasBody) && type?.split(';')[0]?.trim().toLowerCase() !== 'application/json') {
      return refuse(reply, 415, 'Unsupported Media Type', `state-changing requests take a JSON body: send Content-Type: application/json (got ${type === undefined ? 'none' : JSON.stringify(type)})`);
    }
  });
}
