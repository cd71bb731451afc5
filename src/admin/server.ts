import Fastify, { type FastifyInstance, type FastifyReply, type FastifyError, type FastifyServerOptions } from 'fastify';
import type { Broker } from '../broker.js';
import type { SweepResult } from '../coordinator/offsets/retention.js';
import type { CompactionSummary } from '../coordinator/group-log.js';
import { MAX_JSON_NESTING, firstOutOfRangeNumber, nestsDeeperThan, outOfRangeMessage } from '../util/json-numbers.js';
import { FaultRuleError, FaultWaitTimeout, resolveApi, type FaultRegistry } from '../faults/index.js';
import { MAX_FAULT_HOLD_MS, MAX_TIMER_MS } from '../faults/types.js';
import type { RequestLogFilter } from '../faults/request-log.js';
import { ClockNotManualError, MAX_MANUAL_TIME_MS, type ServerClock } from '../util/manual-time.js';
import { describeGroupInSlices, groupsKnownNow } from './groups.js';
import { describeTransaction, listTransactionsJson } from './transactions.js';
import { LazyArray, sendJsonInSlices } from './json-in-slices.js';
import { OPENAPI_DOCUMENT } from './openapi.js';
import { ADMIN_MAX_BODY_SIZE, ADMIN_MAX_HEADER_SIZE, installAdminGuard, type AdminGuardOptions } from './guard.js';
import { ClusterError } from '../cluster/cluster-state.js';
import type { ClusterControl } from '../cluster/control.js';
import type { ConnectionStats } from '../server/server.js';
import { startLiveState, type AdminLiveState } from './live-state.js';
import { createMetrics } from './metrics.js';
import { registerConsoleRoutes } from './console-routes.js';
import { groupRoute, transactionRoute } from './id-route.js';

export interface AdminServerOptions {
  broker: Broker;
  faults: FaultRegistry;
  clock: ServerClock;
  /** The simulated cluster (`/cluster` routes); absent: those routes answer 404. */
  cluster?: ClusterControl;
  bootstrap: () => string;
  sweep: () => Promise<SweepResult>;
  /** Compacts `__consumer_offsets` now (`POST /offsets/compact`). */
  compact: () => Promise<CompactionSummary>;
  /** Connection totals of the Kafka listeners (`kmc_connections*` in /metrics); absent: not reported. */
  connections?: () => ConnectionStats;
  /** Where the built web console is; default `<package>/dist/console`. */
  consoleDir?: string;
}

export { DEFAULT_ADMIN_HOST } from './guard.js';

/** How the app is served (src/admin/listener.ts); absent, the app owns what it records and is served by `inject` or its own `listen`. */
export interface AdminAppServing {
  /** Recorded since the admin API started, before this app was built; closed by its owner. */
  live: AdminLiveState;
  /** fastify's `serverFactory`: the HTTP server, already listening, that passes requests to `handler`. */
  serverFactory: NonNullable<FastifyServerOptions['serverFactory']>;
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 408: 'Request Timeout', 409: 'Conflict', 410: 'Gone', 500: 'Internal Server Error' };

function sendError(reply: FastifyReply, statusCode: number, message: string): FastifyReply {
  return reply.code(statusCode).send({ statusCode, error: STATUS_TEXT[statusCode] ?? 'Error', message });
}

/** Ten years (ms): the most one clock advance may cover, so firing its timers stays quick. */
const MAX_CLOCK_ADVANCE_MS = 10 * 365 * 24 * 3600 * 1000;

/**
 * An integer field of a JSON body (400 naming it otherwise): a JSON number, as the route schemas
 * (/openapi.json) say, never a string of digits; undefined when absent.
 */
function optionalInt(value: unknown, name: string, max = MAX_TIMER_MS): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw new FaultRuleError(`${name} must be an integer from 0 to ${max} (a JSON number), got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * An integer query parameter: digits in the URL, from `min` to `max`; undefined when absent or
 * empty. Its 400 names it as a query parameter and says what it takes (not "a JSON number", which
 * is about body fields: adversarial trial 12); given twice (fastify's array) is a 400 too.
 */
function queryInt(value: string | string[] | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const what = `${name} (a query parameter) must be`;
  if (Array.isArray(value)) throw new FaultRuleError(`${what} given once, got ${value.length} values`);
  const n = /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) throw new FaultRuleError(`${what} an integer from ${min} to ${max} in digits, got ${JSON.stringify(value)}`);
  return n;
}

/** A string query parameter, undefined when absent; given twice is a 400 naming it. */
function queryString(value: string | string[] | undefined, name: string): string | undefined {
  if (Array.isArray(value)) throw new FaultRuleError(`${name} (a query parameter) must be given once, got ${value.length} values`);
  return value;
}

/** A true/false query parameter, undefined when absent; anything else is a 400 naming it. */
function queryBool(value: string | string[] | undefined, name: string): boolean | undefined {
  const text = queryString(value, name);
  if (text === undefined || text === '') return undefined;
  if (text !== 'true' && text !== 'false') throw new FaultRuleError(`${name} (a query parameter) must be true or false, got ${JSON.stringify(text)}`);
  return text === 'true';
}

/** The HTTP admin API (fastify). Routes are described by `OPENAPI_DOCUMENT` at `/openapi.json`. */
export function buildAdminApp(options: AdminServerOptions & AdminGuardOptions, serving?: AdminAppServing): FastifyInstance {
  const { broker, faults, clock } = options;
  // Group and transactional ids may be up to 32,767 UTF-8 bytes (Kafka's int16 string), and they
  // are path parameters: up to 98,301 characters percent-encoded. Node's default 16 KiB request
  // head answered such a path 431 before any route (the listener's server takes the same size).
  const app = Fastify({
    logger: false,
    bodyLimit: ADMIN_MAX_BODY_SIZE,
    routerOptions: { maxParamLength: 200_000 },
    ...(serving ? { serverFactory: serving.serverFactory } : { http: { maxHeaderSize: ADMIN_MAX_HEADER_SIZE } }),
  });
  installAdminGuard(app, options);
  // A JSON content type with no body (a DELETE from fetch with the header set) is no body, not an error.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    if (body === '') return done(null, undefined);
    if (nestsDeeperThan(body as string, MAX_JSON_NESTING)) return done(Object.assign(new Error(`the body nests arrays and objects more than ${MAX_JSON_NESTING} deep`), { statusCode: 400 }), undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body as string);
    } catch (err) {
      return done(Object.assign(err as Error, { statusCode: 400 }), undefined);
    }
    // No field takes a number JSON.parse would round (or make Infinity): refused as written, by its field.
    const outOfRange = firstOutOfRangeNumber(body as string);
    if (outOfRange !== null) return done(Object.assign(new Error(outOfRangeMessage(outOfRange, 'the body')), { statusCode: 400 }), undefined);
    done(null, parsed);
  });

  app.setErrorHandler((err: FastifyError, _req, reply) => {
    if (err instanceof FaultRuleError) return sendError(reply, /duplicate rule id/.test(err.message) ? 409 : 400, err.message);
    if (err instanceof FaultWaitTimeout) return sendError(reply, 408, err.message);
    if (err instanceof ClockNotManualError) return sendError(reply, 409, err.message);
    if (err instanceof ClusterError) return sendError(reply, err.statusCode, err.message);
    if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) return sendError(reply, err.statusCode, err.message);
    broker.log.error({ err }, 'admin API request failed');
    return sendError(reply, 500, err.message);
  });
  app.setNotFoundHandler((req, reply) => sendError(reply, 404, `no route ${req.method} ${req.url.split('?')[0]}`));

  // What the console and /metrics read: request totals and the group watch, from the admin API's
  // start (the listener's), or from now on for an app of its own.
  const live = serving?.live ?? startLiveState({ broker, faults, clock });
  if (!serving) app.addHook('onClose', async () => live.close());
  const { requestStats, watch } = live;
  const metrics = createMetrics({ broker, faults, requests: requestStats, watch, ...(options.connections ? { connections: options.connections } : {}) });
  // A change made through this API (fault rules, the clock, the cluster) reaches the console's live view at once.
  app.addHook('onResponse', async (req) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return;
    watch.touched({ faults: req.url.startsWith('/faults'), clock: req.url.startsWith('/clock') });
  });
  registerConsoleRoutes(app, { broker, clock, bootstrap: options.bootstrap, watch, renderMetrics: metrics.render, ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}) });

  app.get('/openapi.json', async () => OPENAPI_DOCUMENT);
  app.get('/health', async () => ({ status: 'ok', bootstrap: options.bootstrap(), nodeId: broker.nodeId, clusterId: broker.clusterId, clock: clock.mode }));

  app.get('/faults', async () => ({ faults: faults.list() }));
  app.post('/faults', async (req, reply) => {
    const handle = faults.add(req.body as never);
    return reply.code(201).send(handle.info());
  });
  app.delete('/faults', async () => ({ removed: faults.clear() }));
  app.get<{ Params: { id: string } }>('/faults/:id', async (req, reply) => {
    const handle = faults.get(req.params.id);
    return handle ? handle.info() : sendError(reply, 404, `no fault rule "${req.params.id}"`);
  });
  app.delete<{ Params: { id: string } }>('/faults/:id', async (req, reply) => {
    return faults.remove(req.params.id) ? reply.code(204).send() : sendError(reply, 404, `no fault rule "${req.params.id}"`);
  });
  app.post<{ Params: { id: string } }>('/faults/:id/wait', async (req, reply) => {
    const handle = faults.get(req.params.id);
    if (!handle) return sendError(reply, 404, `no fault rule "${req.params.id}"`);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const count = optionalInt(body['count'], 'count');
    if (count === undefined || count < 0) return sendError(reply, 400, 'count (an integer >= 0) is required');
    const timeoutMs = optionalInt(body['timeoutMs'], 'timeoutMs', MAX_FAULT_HOLD_MS);
    // A client that goes away stops its wait (20,000 abandoned waits held 67 MB until their timeouts).
    const gone = new AbortController();
    reply.raw.once('close', () => gone.abort(new Error('the HTTP client went away')));
    try {
      return await handle.waitFired(count, { signal: gone.signal, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
    } catch (err) {
      if (err instanceof FaultWaitTimeout) throw err;
      if (gone.signal.aborted) return reply;
      return sendError(reply, 410, (err as Error).message);
    }
  });

  app.get<{ Querystring: Record<string, string | string[] | undefined> }>('/requests', async (req) => {
    const q = req.query;
    const filter: RequestLogFilter = {};
    // An unknown API name is a 400, as for POST /faults, not an empty list.
    const api = queryString(q['api'], 'api');
    if (api) filter.api = resolveApi(api).api;
    for (const key of ['group', 'clientId', 'transactionalId'] as const) {
      const value = queryString(q[key], key);
      if (value !== undefined) filter[key] = value;
    }
    // A request's seq counts every request the server has logged: past 2^31 on a long run.
    const sinceSeq = queryInt(q['sinceSeq'], 'sinceSeq', 0, Number.MAX_SAFE_INTEGER);
    if (sinceSeq !== undefined) filter.sinceSeq = sinceSeq;
    const brokerId = queryInt(q['brokerId'], 'brokerId', 0, Number.MAX_SAFE_INTEGER);
    if (brokerId !== undefined) filter.brokerId = brokerId;
    const limit = queryInt(q['limit'], 'limit', 1, MAX_TIMER_MS);
    if (limit !== undefined) filter.limit = limit;
    const failed = queryBool(q['failed'], 'failed');
    if (failed !== undefined) filter.failed = failed;
    // An error name no Kafka version has is a 400, as an unknown API is (FaultRegistry.requests).
    const error = queryString(q['error'], 'error');
    if (error !== undefined) filter.error = error;
    return { requests: faults.requests(filter) };
  });
  app.delete('/requests', async (_req, reply) => {
    faults.clearRequests();
    return reply.code(204).send();
  });

  app.get('/groups', async (req, reply) => {
    // Each group summarized as its piece of the answer is written.
    const known = await groupsKnownNow(broker, () => req.raw.socket.destroyed);
    return sendJsonInSlices(reply, { groups: new LazyArray(known.ids, (groupId) => known.summary(groupId) ?? undefined) });
  });
  groupRoute(app, '', async (groupId, reply) => {
    const group = await describeGroupInSlices(broker, groupId);
    return group ? sendJsonInSlices(reply, group) : sendError(reply, 404, `unknown group "${groupId}"`);
  });
  groupRoute(app, '/offsets', async (groupId, reply) => {
    const group = await describeGroupInSlices(broker, groupId);
    return group ? sendJsonInSlices(reply, { groupId: group.groupId, offsets: group.offsets, totalLag: group.totalLag }) : sendError(reply, 404, `unknown group "${groupId}"`);
  });

  // A test's action: one member's session runs out now (Broker.expireMemberSession).
  app.post('/group/expire-session', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body !== 'object' || Array.isArray(body)) return sendError(reply, 400, 'the body must be a JSON object');
    const groupId = requiredString(body, 'groupId');
    const memberId = requiredString(body, 'memberId');
    const groupType = broker.expireMemberSession(groupId, memberId);
    if (groupType === null) return sendError(reply, 404, `no session of member "${memberId}" in group "${groupId}"`);
    return { groupId, memberId, groupType };
  });

  const clockView = () => ({ mode: clock.mode, now: clock.now(), nowIso: new Date(clock.now()).toISOString(), pendingTimers: clock.pendingTimers() });
  app.get<{ Querystring: Record<string, string | string[] | undefined> }>('/transactions', async (req, reply) => {
    const limit = queryInt(req.query['limit'], 'limit', 1, Number.MAX_SAFE_INTEGER);
    return reply.type('application/json; charset=utf-8').send(listTransactionsJson(broker, limit));
  });
  transactionRoute(app, '', (transactionalId, reply) => describeTransaction(broker, transactionalId) ?? sendError(reply, 404, `unknown transactional id "${transactionalId}"`));
  app.get('/clock', async () => clockView());
  app.post('/clock/advance', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const ms = optionalInt(body['ms'], 'ms', MAX_CLOCK_ADVANCE_MS);
    if (ms === undefined || ms < 0) return sendError(reply, 400, 'ms (an integer >= 0) is required');
    if (clock.mode === 'manual' && clock.now() + ms > MAX_MANUAL_TIME_MS) {
      return sendError(reply, 400, `ms: the clock can go up to ${MAX_MANUAL_TIME_MS} ms since the epoch (the latest time a date can show); it is at ${clock.now()}, so ms can be at most ${MAX_MANUAL_TIME_MS - clock.now()}`);
    }
    // In slices: a jump of years fires its timers without holding up the Kafka connections.
    const { firedTimers } = await clock.advanceInSlices(ms);
    // Let the work the timers started (appends, responses) take its first steps.
    await new Promise((resolve) => setImmediate(resolve));
    return { ...clockView(), firedTimers };
  });

  app.post('/offsets/sweep', async () => options.sweep());
  app.post('/offsets/compact', async () => options.compact());

  registerClusterRoutes(app, options.cluster);
  return app;
}

function requiredInt(body: Record<string, unknown>, name: string): number {
  const value = optionalInt(body[name], name);
  if (value === undefined) throw new ClusterError(`${name} (an integer) is required`);
  return value;
}

function requiredString(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value === '') throw new ClusterError(`${name} (a non-empty string) is required`);
  return value;
}

/** `/cluster` routes: the simulated brokers and the cluster actions (src/cluster/control.ts). */
function registerClusterRoutes(app: FastifyInstance, cluster: ClusterControl | undefined): void {
  const control = (): ClusterControl => {
    if (!cluster) throw new ClusterError('this admin API has no cluster control', 404);
    return cluster;
  };
  const brokerParam = (raw: string): number => {
    // Digits as written: "01" is not a broker id (nor "-1", "1.0").
    if (!/^(0|[1-9]\d*)$/.test(raw)) throw new ClusterError(`broker id must be a non-negative integer written without leading zeros, got "${raw}"`);
    // Kafka's node ids are int32: a longer one would be rounded before the lookup names it.
    if (raw.length > 10 || Number(raw) > 2147483647) throw new ClusterError(`broker id must be at most 2147483647, got "${raw}"`);
    return Number(raw);
  };
  const bodyOf = (req: { body?: unknown }): Record<string, unknown> => {
    const body = req.body ?? {};
    if (typeof body !== 'object' || Array.isArray(body)) throw new ClusterError('the body must be a JSON object');
    return body as Record<string, unknown>;
  };
  app.get('/cluster', async () => control().describe());
  app.post('/cluster/move-coordinator', async (req) => {
    const body = bodyOf(req);
    if ((body['groupId'] === undefined) === (body['transactionalId'] === undefined)) throw new ClusterError('give groupId or transactionalId, one of them');
    if (body['transactionalId'] !== undefined) {
      const transactionalId = requiredString(body, 'transactionalId');
      const previous = control().moveTransactionCoordinator(transactionalId, requiredInt(body, 'brokerId'));
      return { transactionalId, previous, coordinator: control().transactionCoordinatorOf(transactionalId) };
    }
    const groupId = requiredString(body, 'groupId');
    const previous = control().moveCoordinator(groupId, requiredInt(body, 'brokerId'));
    return { groupId, previous, coordinator: control().coordinatorOf(groupId) };
  });
  app.post('/cluster/coordinator-load', async (req) => {
    const body = bodyOf(req);
    const all = body['all'] === true;
    const groupId = all ? null : requiredString(body, 'groupId');
    if (all && body['groupId'] !== undefined) throw new ClusterError('give groupId or all: true, not both');
    const { until } = control().coordinatorLoadInProgress(groupId, requiredInt(body, 'durationMs'));
    return { groupId, until: until === 0 ? null : new Date(until).toISOString() };
  });
  app.post<{ Params: { brokerId: string } }>('/cluster/brokers/:brokerId/stop', async (req) => {
    await control().stopBroker(brokerParam(req.params.brokerId));
    return control().describe();
  });
  app.post<{ Params: { brokerId: string } }>('/cluster/brokers/:brokerId/start', async (req) => {
    await control().startBroker(brokerParam(req.params.brokerId));
    return control().describe();
  });
  app.post('/cluster/move-leader', async (req) => {
    const body = bodyOf(req);
    const topic = requiredString(body, 'topic');
    const partition = requiredInt(body, 'partition');
    const brokerId = requiredInt(body, 'brokerId');
    const previous = control().moveLeader(topic, partition, brokerId);
    const leader = control().leaderOf(topic, partition);
    // A stopped broker leads once it starts (src/cluster/control.ts): said here, not only in GET /cluster.
    return { topic, partition, previous, leader, pendingLeader: leader === brokerId ? null : brokerId };
  });
}
