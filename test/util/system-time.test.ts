import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, systemTime } from '../../src/util/time.js';

/**
 * The real clock's timers, driven by vitest's fake timers (which, as Node, turn a delay above
 * 2^31-1 ms into 1 ms): a 30-day `log.retention.check.interval.ms` must wait 30 days.
 */
describe('systemTime.schedule', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
  afterEach(() => vi.useRealTimers());

  const THIRTY_DAYS = 2_592_000_000;

  it('waits a delay above 2^31-1 ms in full', () => {
    let fired = 0;
    systemTime.schedule(THIRTY_DAYS, () => fired++);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(MAX_TIMER_MS);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(THIRTY_DAYS - MAX_TIMER_MS - 2);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(1);
    vi.advanceTimersByTime(THIRTY_DAYS * 2);
    expect(fired).toBe(1);
  });

  it('waits exactly 2^31-1 ms and short delays unchanged', () => {
    const firedAt: number[] = [];
    const start = Date.now();
    systemTime.schedule(MAX_TIMER_MS, () => firedAt.push(Date.now() - start));
    systemTime.schedule(5, () => firedAt.push(Date.now() - start));
    vi.advanceTimersByTime(MAX_TIMER_MS);
    expect(firedAt).toEqual([5, MAX_TIMER_MS]);
  });

  it('cancel stops a chained timer in any of its links', () => {
    let fired = 0;
    const early = systemTime.schedule(THIRTY_DAYS, () => fired++);
    const late = systemTime.schedule(THIRTY_DAYS, () => fired++);
    early.cancel();
    vi.advanceTimersByTime(MAX_TIMER_MS + 10);
    late.cancel();
    vi.advanceTimersByTime(THIRTY_DAYS);
    expect(fired).toBe(0);
  });
});
