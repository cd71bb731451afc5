import { describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { OPENAPI_DOCUMENT } from '../../src/admin/openapi.js';
import { buildAdminApp } from '../../src/admin/server.js';
import { startTestServer } from '../support/server.js';

describe('admin API document', () => {
  it('is a valid OpenAPI document', async () => {
    const doc = structuredClone(OPENAPI_DOCUMENT) as unknown as Parameters<typeof SwaggerParser.validate>[0];
    await expect(SwaggerParser.validate(doc)).resolves.toBeTruthy();
  });

  it('describes every route the server has, and the server serves it', async () => {
    const server = await startTestServer({ adminPort: 0, adminHost: '127.0.0.1' });
    try {
      const app = buildAdminApp({ broker: server.broker, faults: server.faults, clock: server.clock, bootstrap: () => server.bootstrap, sweep: () => server.sweepExpiredOffsets(), compact: () => server.compactOffsetsLog(), token: null, loopbackOnly: false });
      await app.ready();
      const documented = Object.entries(OPENAPI_DOCUMENT.paths).flatMap(([path, item]) => Object.keys(item).filter((k) => k !== 'parameters').map((m) => ({ method: m.toUpperCase(), url: path.replace(/\{(\w+)\}/g, ':$1') })));
      expect(documented.length).toBe(35);
      for (const route of documented) expect(app.hasRoute(route as { method: 'GET'; url: string }), `${route.method} ${route.url}`).toBe(true);
      // Every served route is documented: the route table lists exactly the documented ones plus /openapi.json.
      const table = app.printRoutes({ commonPrefix: false });
      const served = (table.match(/\((GET|POST|DELETE|PUT|PATCH)[^)]*\)/g) ?? []).join(' ');
      expect(served.match(/GET|POST|DELETE|PUT|PATCH/g)!.length).toBe(documented.length + 1);
      await app.close();

      const res = await fetch(`${server.admin!.url}/openapi.json`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { openapi: string }).openapi).toBe('3.0.3');
      const bad = await fetch(`${server.admin!.url}/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: { type: 'error', error: 'NOPE' } }) });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('NOPE') });
      const missing = await fetch(`${server.admin!.url}/faults/zzz`);
      expect(missing.status).toBe(404);
      const notManual = await fetch(`${server.admin!.url}/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"ms":5}' });
      expect(notManual.status).toBe(409);
    } finally {
      await server.stop();
    }
  });
});
