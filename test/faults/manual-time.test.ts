import { describe, expect, it } from 'vitest';
import { ManualTime, serverClock, ClockNotManualError, ADVANCE_SLICE_TIMERS } from '../../src/util/manual-time.js';
import { systemTime } from '../../src/util/time.js';

describe('ManualTime', () => {
  it('fires due timers in order on advance, including timers scheduled by fired callbacks', () => {
    const t = new ManualTime(1000);
    const seen: Array<[string, number]> = [];
    t.schedule(30, () => seen.push(['c', t.now()]));
    t.schedule(10, () => {
      seen.push(['a', t.now()]);
      t.schedule(5, () => seen.push(['a2', t.now()]));
      t.schedule(100, () => seen.push(['late', t.now()]));
    });
    t.schedule(10, () => seen.push(['b', t.now()]));
    const cancelled = t.schedule(20, () => seen.push(['x', t.now()]));
    cancelled.cancel();
    expect(t.advance(30)).toEqual({ now: 1030, firedTimers: 4 });
    expect(seen).toEqual([['a', 1010], ['b', 1010], ['a2', 1015], ['c', 1030]]);
    expect(t.pendingTimers()).toBe(1);
    expect(t.advance(79).firedTimers).toBe(0);
    expect(t.advance(1).firedTimers).toBe(1);
    expect(seen.at(-1)).toEqual(['late', 1110]);
  });

  it('runs timers due now on their own, without moving the clock', async () => {
    const t = new ManualTime(5);
    let fired = false;
    t.schedule(0, () => (fired = true));
    expect(fired).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect(fired).toBe(true);
    expect(t.now()).toBe(5);
  });

  it('refuses negative advances; serverClock refuses advance unless manual', () => {
    expect(() => new ManualTime().advance(-1)).toThrow(RangeError);
    expect(() => serverClock(systemTime, 'system').advance(1)).toThrow(ClockNotManualError);
    expect(serverClock(new ManualTime(7), 'manual').advance(3).now).toBe(10);
  });

  it('coalesces fixed-delay maintenance timers: a jump of ten years runs each once per stretch between ordinary timers', () => {
    const YEAR = 365 * 24 * 3600 * 1000;
    const t = new ManualTime(0);
    const runs: Array<[string, number]> = [];
    // A task rescheduling itself 15 s after each run (as the log cleaner's backoff).
    const cleaner = (): void => void t.schedule(15_000, () => {
      runs.push(['cleaner', t.now()]);
      cleaner();
    }, { coalesce: true });
    cleaner();
    t.schedule(YEAR, () => runs.push(['session timeout', t.now()]));
    expect(t.advance(10 * YEAR)).toEqual({ now: 10 * YEAR, firedTimers: 3 });
    // Once just before the ordinary timer (at its due time, before it), once at the end.
    expect(runs).toEqual([['cleaner', YEAR], ['session timeout', YEAR], ['cleaner', 10 * YEAR]]);
    expect(t.pendingTimers()).toBe(1);
    expect(t.nextDue()).toBe(10 * YEAR + 15_000);
    // Within a short advance it runs at its own times, as any timer.
    expect(t.advance(45_000).firedTimers).toBe(1);
    expect(runs.at(-1)).toEqual(['cleaner', 10 * YEAR + 45_000]);
  });

  it('advanceInSlices fires many timers in slices, yielding the event loop between them, in the same order as advance', async () => {
    const count = ADVANCE_SLICE_TIMERS * 5;
    const sliced = new ManualTime(0);
    const whole = new ManualTime(0);
    const firedSliced: number[] = [];
    const firedWhole: number[] = [];
    let otherWorkRan = false;
    const firedAfterOtherWork: number[] = [];
    for (let i = 0; i < count; i++) {
      // Due times out of scheduling order, ties included.
      const at = ((i * 7919) % 1000) + 1;
      sliced.schedule(at, () => {
        firedSliced.push(i);
        if (otherWorkRan) firedAfterOtherWork.push(i);
      });
      whole.schedule(at, () => firedWhole.push(i));
    }
    // Other work queued before the advance starts: it runs at the first yield, before the advance ends.
    setImmediate(() => (otherWorkRan = true));
    const result = await sliced.advanceInSlices(2000);
    expect(result).toEqual({ now: 2000, firedTimers: count });
    expect(whole.advance(2000)).toEqual({ now: 2000, firedTimers: count });
    expect(firedSliced).toEqual(firedWhole);
    expect(otherWorkRan).toBe(true);
    // At most one slice fired before the other work ran.
    expect(firedAfterOtherWork.length).toBeGreaterThanOrEqual(count - ADVANCE_SLICE_TIMERS);
    expect(sliced.pendingTimers()).toBe(0);
  });

  it('advances asked for while one runs in slices move the clock by all of theirs: in slices one after another, at once on top', async () => {
    const clock = new ManualTime(0);
    const fired: number[] = [];
    for (let i = 0; i < ADVANCE_SLICE_TIMERS * 3; i++) clock.schedule(i, () => fired.push(i));
    const first = clock.advanceInSlices(3_600_000);
    const second = clock.advanceInSlices(3_600_000);
    // Still inside the first one's slices: an advance at once goes on top of both.
    expect(clock.now()).toBeLessThan(3_600_000);
    clock.advance(1000);
    const [a, b] = await Promise.all([first, second]);
    expect(a.now).toBe(3_601_000);
    expect(b).toEqual({ now: 7_201_000, firedTimers: 0 });
    expect(clock.now()).toBe(7_201_000);
    expect(fired).toEqual(Array.from({ length: ADVANCE_SLICE_TIMERS * 3 }, (_, i) => i));
  });

  it('advanceInSlices fires every maintenance timer due by the target even when a slice ends with the clock already there', async () => {
    // Coalescing timers due during the advance fire at its end: the first slice moves the clock to
    // the target and stops at its timer limit, with more of them still due.
    const clock = new ManualTime(0);
    const count = ADVANCE_SLICE_TIMERS + 3;
    let fired = 0;
    for (let i = 0; i < count; i++) clock.schedule(1000, () => fired++, { coalesce: true });
    expect(await clock.advanceInSlices(10_000)).toEqual({ now: 10_000, firedTimers: count });
    expect([fired, clock.pendingTimers()]).toEqual([count, 0]);
  });
});
