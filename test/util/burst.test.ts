/**
 * Bursts (src/util/burst.ts): a round's work runs only once everything the round before set off
 * has settled (promise chains included), a burst takes at most MAX_ROUNDS rounds, and the work
 * asked for beyond them still runs (in a later turn). Orders only: a burst may also end early on
 * its wall-clock bound, which these assertions allow.
 */
import { describe, expect, it } from 'vitest';
import { MAX_ROUNDS, atBurstEnd, beginBurst, burstOpen, inBurst, nextRound } from '../../src/util/burst.js';

/** Asks for `fn` as a log does: in the burst's next round while one is open, else in the next turn. */
const later = (fn: () => void): void => (burstOpen() ? nextRound(fn) : void setImmediate(fn));

/** Resolves once `done()` holds, letting the event loop turn meanwhile. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !done(); i++) await new Promise((r) => setImmediate(r));
  expect(done()).toBe(true);
}

describe('bursts', () => {
  it('runs the next round after the promise chains of the current one', async () => {
    const events: string[] = [];
    beginBurst();
    expect(burstOpen()).toBe(true);
    void Promise.resolve()
      .then(() => events.push('hop 1'))
      .then(() => events.push('hop 2'))
      .then(() => later(() => events.push('round 1')));
    await until(() => events.includes('round 1'));
    expect(events).toEqual(['hop 1', 'hop 2', 'round 1']);
    await until(() => !burstOpen());
  });

  it(`takes at most ${MAX_ROUNDS} rounds; work asked for beyond them runs in a later turn`, async () => {
    let rounds = 0;
    let inBurst = 0;
    const round = (): void => {
      rounds++;
      if (burstOpen()) inBurst++;
      if (rounds <= MAX_ROUNDS + 3) later(round);
    };
    beginBurst();
    later(round);
    await until(() => rounds === MAX_ROUNDS + 4);
    expect(inBurst).toBeLessThanOrEqual(MAX_ROUNDS);
    await until(() => !burstOpen());
  });

  it('runs what waits for the end of a burst once, after its last round', async () => {
    const events: string[] = [];
    beginBurst();
    expect(inBurst()).toBe(true);
    atBurstEnd(() => events.push(`end (in burst: ${inBurst()})`));
    void Promise.resolve().then(() => later(() => events.push(`round 1 (in burst: ${inBurst()})`)));
    await until(() => !inBurst() && events.some((e) => e.startsWith('round 1')));
    // A round of the burst comes before its end. On a loaded machine the burst's wall-clock bound
    // may close it before round 1 (at the promise hop or after), which then runs in a later turn,
    // after the end: either way the end runs once, outside the burst, after every round it had.
    const ranInBurst = events.includes('round 1 (in burst: true)');
    expect(events).toEqual(ranInBurst ? ['round 1 (in burst: true)', 'end (in burst: false)'] : ['end (in burst: false)', 'round 1 (in burst: false)']);
    beginBurst();
    await until(() => !inBurst());
    expect(events).toHaveLength(2);
  });
});
