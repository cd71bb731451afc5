/**
 * `ServerHandle.close()` resolves once every client socket is closed and counted out, not only the
 * listening socket: a suite's `afterAll` asserting no open connections right after `await
 * server.close()` held (new-user trial 29: it still counted one, 0 a moment later).
 */
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/index.js';
import { RawClient } from '../support/raw-client.js';
import { TEST_LOG_LEVEL } from '../support/server.js';

describe('close()', () => {
  it('resolves with every connection closed and counted out', async () => {
    const server = await startServer({ port: 0, inMemory: true, logLevel: TEST_LOG_LEVEL });
    const clients = await Promise.all([1, 2, 3].map(() => RawClient.connect(server.port)));
    // Each answered once: admitted and counted.
    for (const c of clients) expect((await c.send(18, 3, { clientSoftwareName: 'close-test', clientSoftwareVersion: '1' })).errorCode).toBe(0);
    expect(server.connections.open).toBe(3);
    await server.close();
    expect(server.connections.open).toBe(0);
    await Promise.all(clients.map((c) => c.waitClosed()));
  });
});
