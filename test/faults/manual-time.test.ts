import { describe, expect, it } from 'vitest';
import { ManualTime, serverClock, ClockNotManualError } from '../../src/util/manual-time.js';
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
});
