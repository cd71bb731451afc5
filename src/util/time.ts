/**
 * Injected time: the domain reads the clock and schedules timers only through this,
 * so session and rebalance timeouts can be driven by tests.
 */
export interface Timer {
  cancel(): void;
}

export interface ScheduleOptions {
  /**
   * The timer of a maintenance task Kafka runs with a fixed delay after each run: a manual clock
   * jumping far ahead runs it once per stretch instead of once per period (see ManualTime).
   * The system clock ignores it.
   */
  coalesce?: boolean;
}

export interface Time {
  /** Wall-clock milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once after `delayMs` (ms). */
  schedule(delayMs: number, fn: () => void, options?: ScheduleOptions): Timer;
}

export const systemTime: Time = {
  now: () => Date.now(),
  schedule(delayMs, fn) {
    const handle = setTimeout(fn, Math.max(0, delayMs));
    return { cancel: () => clearTimeout(handle) };
  },
};

/** The largest delay a Node.js timer honours (about 24.8 days); larger ones would fire at once. */
export const MAX_TIMER_MS = 2147483647;
