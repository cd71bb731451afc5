import Fastify, { type FastifyInstance, type FastifyReply, type FastifyError } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { Broker } from '../broker.js';
import type { SweepResult } from '../coordinator/offsets/retention.js';
import { FaultRuleError, FaultWaitTimeout, type FaultRegistry } from '../faults/index.js';
import type { RequestLogFilter } from '../faults/request-log.js';
import { ClockNotManualError, type ServerClock } from '../util/manual-time.js';
import { describeGroup, listGroups } from './groups.js';
import { OPENAPI_DOCUMENT } from './openapi.js';

export interface AdminServerOptions {
  broker: Broker;
  faults: FaultRegistry;
  clock: ServerClock;
  bootstrap: () => string;
  sweep: () => Promise<SweepResult>;
}

export interface AdminServer {
  /** `http://host:port` (127.0.0.1 when bound to every interface). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 408: 'Request Timeout', 409: 'Conflict', 410: 'Gone', 500: 'Internal Server Error' };

function sendError(reply: FastifyReply, statusCode: number, message: string): FastifyReply {
  return reply.code(statusCode).send({ statusCode, error: STATUS_TEXT[statusCode] ?? 'Error', message });
}

function optionalInt(value: unknown, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  throw new FaultRuleError(`${name} must be an integer`);
}

/** The HTTP admin API (fastify). Routes are described by `OPENAPI_DOCUMENT` at `/openapi.json`. */
export function buildAdminApp(options: AdminServerOptions): FastifyInstance {
  const { broker, faults, clock } = options;
  const app = Fastify({ logger: false });

  app.setErrorHandler((err: FastifyError, _req, reply) => {
    if (err instanceof FaultRuleError) return sendError(reply, /duplicate rule id/.test(err.message) ? 409 : 400, err.message);
    if (err instanceof FaultWaitTimeout) return sendError(reply, 408, err.message);
    if (err instanceof ClockNotManualError) return sendError(reply, 409, err.message);
    if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) return sendError(reply, err.statusCode, err.message);
    broker.log.error({ err }, 'admin API request failed');
    return sendError(reply, 500, err.message);
  });
  app.setNotFoundHandler((req, reply) => sendError(reply, 404, `no route ${req.method} ${req.url.split('?')[0]}`));

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
    const timeoutMs = optionalInt(body['timeoutMs'], 'timeoutMs');
    try {
      return await handle.waitFired(count, timeoutMs === undefined ? {} : { timeoutMs });
    } catch (err) {
      if (err instanceof FaultWaitTimeout) throw err;
      return sendError(reply, 410, (err as Error).message);
    }
  });

  app.get<{ Querystring: Record<string, string | undefined> }>('/requests', async (req) => {
    const q = req.query;
    const filter: RequestLogFilter = {};
    if (q['api']) filter.api = q['api'];
    if (q['group'] !== undefined) filter.group = q['group'];
    if (q['clientId'] !== undefined) filter.clientId = q['clientId'];
    const sinceSeq = optionalInt(q['sinceSeq'], 'sinceSeq');
    if (sinceSeq !== undefined) filter.sinceSeq = sinceSeq;
    const limit = optionalInt(q['limit'], 'limit');
    if (limit !== undefined) filter.limit = limit;
    return { requests: faults.requests(filter) };
  });
  app.delete('/requests', async (_req, reply) => {
    faults.clearRequests();
    return reply.code(204).send();
  });

  app.get('/groups', async () => ({ groups: listGroups(broker) }));
  app.get<{ Params: { groupId: string } }>('/groups/:groupId', async (req, reply) => {
    const group = describeGroup(broker, req.params.groupId);
    return group ?? sendError(reply, 404, `unknown group "${req.params.groupId}"`);
  });
  app.get<{ Params: { groupId: string } }>('/groups/:groupId/offsets', async (req, reply) => {
    const group = describeGroup(broker, req.params.groupId);
    return group ? { groupId: group.groupId, offsets: group.offsets, totalLag: group.totalLag } : sendError(reply, 404, `unknown group "${req.params.groupId}"`);
  });

  const clockView = () => ({ mode: clock.mode, now: clock.now(), nowIso: new Date(clock.now()).toISOString(), pendingTimers: clock.pendingTimers() });
  app.get('/clock', async () => clockView());
  app.post('/clock/advance', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const ms = optionalInt(body['ms'], 'ms');
    if (ms === undefined || ms < 0) return sendError(reply, 400, 'ms (an integer >= 0) is required');
    const { firedTimers } = clock.advance(ms);
    // Let the work the timers started (appends, responses) take its first steps.
    await new Promise((resolve) => setImmediate(resolve));
    return { ...clockView(), firedTimers };
  });

  app.post('/offsets/sweep', async () => options.sweep());
  return app;
}

/** Starts the admin API on `host:port` (port 0: a free one). */
export async function startAdminServer(options: AdminServerOptions & { host: string; port: number }): Promise<AdminServer> {
  const app = buildAdminApp(options);
  await app.listen({ host: options.host === '' ? '0.0.0.0' : options.host, port: options.port });
  const address = app.server.address() as AddressInfo;
  const anyHost = ['', '0.0.0.0', '::'].includes(options.host);
  const host = anyHost ? '127.0.0.1' : options.host.includes(':') ? `[${options.host}]` : options.host;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close() {
      closing ??= app.close();
      return closing;
    },
  };
}
