/**
 * The registry of clients about to send again (util/returning-clients.ts): an answered connection
 * counts until it is heard from or `windowMs` passed since its answer, with times passed in, so
 * nothing here depends on the machine's speed.
 */
import { describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { clientsReturning, noteAnswered, noteHeard, whileClientsReturn } from '../../src/util/returning-clients.js';

describe('returning clients', () => {
  it('counts nothing until a log first waits, then each answered connection until heard from or past the window', async () => {
    const first = {};
    const second = {};
    noteAnswered(first);
    expect(clientsReturning(60_000)).toBe(false);
    await whileClientsReturn(60_000); // none counted: resolves at once, and counting starts
    const answeredAt = performance.now();
    noteAnswered(first);
    noteAnswered(second);
    expect(clientsReturning(60_000)).toBe(true);
    noteHeard(first);
    expect(clientsReturning(60_000)).toBe(true);
    // Past the window the second no longer counts, and is forgotten (a later, wider look sees nothing).
    expect(clientsReturning(10, answeredAt + 60_000)).toBe(false);
    expect(clientsReturning(60_000)).toBe(false);
    noteAnswered(second);
    const wait = whileClientsReturn(60_000);
    noteHeard(second);
    await wait;
    expect(clientsReturning(60_000)).toBe(false);
  });
});
