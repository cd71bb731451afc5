/**
 * Bursts (src/util/burst.ts): a round's work runs only once everything the round before set off
 * has settled (promise chains included), end hooks run after the work, a burst takes at most
 * MAX_ROUNDS rounds and the work asked for beyond them still runs (in a later turn). Orders only:
 * a burst may also end early on its wall-clock bound, which these assertions allow.
 */
import { describe, expect, it } from 'vitest';
import { MAX_ROUNDS, atBurstEnd, beginBurst, burstOpen, nextRound } from '../../src/util/burst.js';

/** Asks for `fn` as a log does: in the burst's next round while one is open, else in the next turn. */
const later = (fn: () => void): void => (burstOpen() ? nextRound(fn) : void setImmediate(fn));

/** Resolves once `done()` holds, letting the event loop turn meanwhile. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !done(); i++) await new Promise((r) => setImmediate(r));
  expect(done()).toBe(true);
}

describe('bursts', () => {
  it('runs the next round after the promise chains of the current one, and end hooks after that', async () => {
    const events: string[] = [];
    beginBurst();
    atBurstEnd(() => events.push('end'));
    void Promise.resolve()
      .then(() => events.push('hop 1'))
      .then(() => events.push('hop 2'))
      .then(() => later(() => events.push('round 1')));
    await until(() => events.includes('round 1') && events.includes('end'));
    expect(events.indexOf('hop 2')).toBeLessThan(events.indexOf('round 1'));
    expect(events.indexOf('hop 2')).toBeLessThan(events.indexOf('end'));
    // Inside the wall-clock bound the round comes before the end hook (else it waits for the next turn).
    if (events.indexOf('end') < events.indexOf('round 1')) expect(burstOpen()).toBe(false);
  });

  it(`takes at most ${MAX_ROUNDS} rounds; work asked for beyond them runs in a later turn`, async () => {
    let rounds = 0;
    let ended = -1;
    const round = (): void => {
      rounds++;
      if (rounds <= MAX_ROUNDS + 3) later(round);
    };
    beginBurst();
    atBurstEnd(() => (ended = rounds));
    later(round);
    await until(() => rounds === MAX_ROUNDS + 4 && ended >= 0);
    expect(ended).toBeLessThanOrEqual(MAX_ROUNDS);
    expect(burstOpen()).toBe(false);
  });

  it('outside a burst, an end hook runs once the work set off so far has settled', async () => {
    const events: string[] = [];
    atBurstEnd(() => events.push('end'));
    void Promise.resolve().then(() => events.push('hop'));
    events.push('sync');
    await until(() => events.length === 3);
    expect(events).toEqual(['sync', 'hop', 'end']);
  });
});
