/**
 * Waits until the in-process server's state says `done`: looks after each of the first 1,000
 * turns of the event loop (what the server does at once), then once a millisecond (what waits on
 * a write's fdatasync in libuv's thread pool, which on a loaded machine outlasts any number of
 * turns: 1,000 were not enough for a share lock timeout's release with two test suites running),
 * for up to `ms` of wall time. Fails the test with `what` if `done` never holds.
 */
import { expect } from 'vitest';

export async function until(done: () => boolean, what = 'the server state', ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (let i = 0; !done() && Date.now() < deadline; i++) await new Promise((r) => (i < 1000 ? setImmediate(r) : setTimeout(r, 1)));
  expect(done(), `waited ${ms} ms for ${what}`).toBe(true);
}
