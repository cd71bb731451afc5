/**
 * Scrapes of `/metrics` at once share the turn's slice budget (src/admin/metrics.ts): 300 of them
 * are written over several turns of the event loop, not in one go of promise reactions that held
 * the Kafka port 580 ms (adversarial trial, session 21). Counted in turns, against a real broker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/admin/metrics.js';
import { startLiveState, type AdminLiveState } from '../../src/admin/live-state.js';
import { startTestServer } from '../support/server.js';
import { countTurns } from '../support/turns.js';

describe('/metrics scrapes at once', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let live: AdminLiveState;

  beforeAll(async () => {
    server = await startTestServer({});
    live = startLiveState({ broker: server.broker, faults: server.faults, clock: server.clock });
  });
  afterAll(async () => {
    live.close();
    await server.stop();
  });

  it('300 scrapes take turns of the event loop between their parts, each scrape whole', async () => {
    const metrics = createMetrics({ broker: server.broker, faults: server.faults, requests: live.requestStats, watch: live.watch });
    const loop = countTurns();
    const texts = await Promise.all(Array.from({ length: 300 }, async () => {
      let text = '';
      for await (const chunk of metrics.render()) text += chunk;
      return text;
    }));
    loop.stop();
    expect(new Set(texts.map((t) => t.split('\n').filter((l) => l.startsWith('# HELP ')).length)).size).toBe(1);
    expect(texts[299]).toContain('# HELP kmc_requests_total ');
    expect(texts[299]!.endsWith('\n')).toBe(true);
    // Each scrape is ~0.5-2 ms of work: 300 of them are several 10 ms budgets.
    expect(loop.turns).toBeGreaterThanOrEqual(3);
  });
});
