/**
 * The wait for returning clients (util/returning-clients.ts): a log waits only for the clients it
 * names that were answered before the wait began, within the window, and not heard from since.
 * Every wait here ends by what the test does, or at once, so nothing depends on the machine's speed.
 */
import { describe, expect, it } from 'vitest';
import { noteAnswered, noteHeard, servingClient, setServingClient, whileClientsReturn } from '../../src/util/returning-clients.js';

const MINUTE = 60_000;

describe('returning clients', () => {
  it('waits for the named clients answered before it began until each is heard from; not for others', async () => {
    const [a, b, other] = [{}, {}, {}];
    await whileClientsReturn(new Set([a]), MINUTE); // nothing counted yet: resolves at once, and counting starts
    noteAnswered(a);
    noteAnswered(b);
    noteAnswered(other);
    const clients = new Set([a, b]);
    let done = false;
    const wait = whileClientsReturn(clients, MINUTE).then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    noteHeard(a);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // Still b; `other` answered but not named is not waited for.
    expect([done, [...clients]]).toEqual([false, [b]]);
    noteHeard(b);
    await wait;
    expect(clients.size).toBe(0);
  });

  it('does not wait for a client answered after the wait began, nor one not answered', async () => {
    const [busy, never] = [{}, {}];
    const clients = new Set([busy, never]);
    const wait = whileClientsReturn(clients, MINUTE);
    noteAnswered(busy); // answered again meanwhile: a client busy with other requests
    await wait; // a minute otherwise
    expect(clients.size).toBe(0);
  });

  it('names the connection whose request is being handled', () => {
    const c = {};
    expect(servingClient()).toBe(null);
    setServingClient(c);
    expect(servingClient()).toBe(c);
    setServingClient(null);
    expect(servingClient()).toBe(null);
  });
});
