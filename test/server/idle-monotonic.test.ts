/**
 * `connections.max.idle.ms` on real time measures idleness on a monotonic clock, as Kafka's
 * Selector does with `System.nanoTime`: a wall clock stepped back an hour (NTP, a VM resumed) must
 * neither keep idle connections open for that hour nor close active ones.
 */
import { once } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';

const apiVersions = { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' };

describe('connections.max.idle.ms on real time', () => {
  const cleanups: Array<() => void | Promise<void>> = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('closes an idle connection after the wall clock stepped back an hour', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { 'connections.max.idle.ms': 300 } });
    const client = await RawClient.connect(server.port);
    cleanups.push(() => client.close());
    const closed = once(client.socket, 'close');
    expect((await client.send(18, 3, apiVersions)).errorCode).toBe(0);
    // Idle from here; meanwhile the wall clock steps back an hour.
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() - 3_600_000);
    // Closed ~300 ms after that request, not an hour later: the wait is the close itself, the
    // test's timeout the backstop.
    await closed;
    expect(client.closed).toBe(true);
  });
});
