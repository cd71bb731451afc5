/**
 * The wait for returning clients (util/returning-clients.ts): a log waits only for the clients it
 * names whose answer is the last thing they got, that sent nothing since it acknowledged them, within the window.
 * Every wait here ends by what the test does, or at once, so nothing depends on the machine's speed.
 */
import { describe, expect, it } from 'vitest';
import { clientsClock, noteAnswered, noteHeard, servingClient, setServingClient, whileClientsReturn } from '../../src/util/returning-clients.js';

const MINUTE = 60_000;

describe('returning clients', () => {
  it('waits for the named clients answered before it began until each is heard from; not for others', async () => {
    const [a, b, other] = [{}, {}, {}];
    await whileClientsReturn(new Set([a]), MINUTE, clientsClock()); // nothing counted yet: resolves at once, and counting starts
    const acknowledged = clientsClock();
    noteAnswered(a);
    noteAnswered(b);
    noteAnswered(other);
    const clients = new Set([a, b]);
    let done = false;
    const wait = whileClientsReturn(clients, MINUTE, acknowledged).then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    noteHeard(a);
    // The wait looks again each turn, then (past TURN_BY_TURN_MS, as on a loaded machine) each
    // millisecond: wait for its look, not for a number of turns (two turns failed once under CI load).
    while (clients.has(a)) await new Promise((resolve) => setImmediate(resolve));
    // Still b; `other` answered but not named is not waited for.
    expect([done, [...clients]]).toEqual([false, [b]]);
    noteHeard(b);
    await wait;
    expect(clients.size).toBe(0);
  });

  it('does not wait for a client that sent anything since it was acknowledged (and was answered again), nor one not answered', async () => {
    const [busy, never] = [{}, {}];
    const acknowledged = clientsClock();
    noteAnswered(busy);
    noteHeard(busy); // its next request went elsewhere (a Metadata, a commit to another partition)...
    noteAnswered(busy); // ...and was answered
    const clients = new Set([busy, never]);
    await whileClientsReturn(clients, MINUTE, acknowledged); // a minute otherwise
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
