/**
 * Injected time: the domain reads the clock and schedules timers only through this,
 * so session and rebalance timeouts can be driven by tests.
 */
export interface Timer {
  cancel(): void;
}

export interface Time {
  /** Wall-clock milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once after `delayMs` (ms). */
  schedule(delayMs: number, fn: () => void): Timer;
}

export const systemTime: Time = {
  now: () => Date.now(),
  schedule(delayMs, fn) {
    const handle = setTimeout(fn, Math.max(0, delayMs));
    return { cancel: () => clearTimeout(handle) };
  },
};
