/**
 * `wallNow` (src/util/time.ts): the wall clock read once per synchronous run of code, the system
 * clock's `now`: a commit's eight clock reads are one (issue #16). Order of events, never time:
 * the run waits for `Date.now()` itself to move.
 */
import { describe, expect, it } from 'vitest';
import { systemTime, wallNow } from '../../src/util/time.js';

describe('wallNow', () => {
  it('gives the same reading for the rest of a synchronous run, and a new one after its microtasks', async () => {
    const first = wallNow();
    while (Date.now() === first);
    expect(wallNow()).toBe(first);
    expect(systemTime.now()).toBe(first);
    await Promise.resolve();
    const next = wallNow();
    expect(next).toBeGreaterThan(first);
    expect(next).toBeLessThanOrEqual(Date.now());
  });
});
