// Node's own `performance` (see util/burst.ts: the global's reads go through a lazy getter).
import { performance } from 'node:perf_hooks';

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
  /** Runs `fn` once after `delayMs` (ms; any non-negative length, also beyond {@link MAX_TIMER_MS}). */
  schedule(delayMs: number, fn: () => void, options?: ScheduleOptions): Timer;
}

/** The largest delay a Node.js timer honours (about 24.8 days); larger ones would fire at once. */
export const MAX_TIMER_MS = 2147483647;

/** A Node timer as a `Timer`. */
class NodeTimer implements Timer {
  constructor(private readonly handle: NodeJS.Timeout) {}

  cancel(): void {
    clearTimeout(this.handle);
  }
}

/** `wallNow`'s and `monotonicNow`'s readings for the synchronous run under way; -1 when none was made since the last run. */
let runNow = -1;
let runMonotonic = -1;
const endRun = (): void => {
  runNow = -1;
  runMonotonic = -1;
};

/**
 * `Date.now()`, read once per synchronous run of code: later reads until the microtasks queued
 * then have run give the same value. A commit read the clock eight times on its way (arrival, the
 * idle-connection check, the commit and batch timestamps, the segment's age, the answer: ~3% of
 * its CPU in a profile, issue #16); one run's reads are microseconds apart, as Kafka's request
 * handling reads `time.milliseconds()` once for many purposes. Never for a loop that waits for the
 * clock to move without yielding (none does: sliced work measures itself with `performance.now()`).
 */
export function wallNow(): number {
  if (runNow < 0) {
    if (runMonotonic < 0) queueMicrotask(endRun);
    runNow = Date.now();
  }
  return runNow;
}

/**
 * A monotonic reading (ms since the process started, `performance.now()`), once per synchronous
 * run as `wallNow`: for durations a stepped wall clock must not stretch or cut.
 */
export function monotonicNow(): number {
  if (runMonotonic < 0) {
    if (runNow < 0) queueMicrotask(endRun);
    runMonotonic = performance.now();
  }
  return runMonotonic;
}

/**
 * The real clock (`wallNow`). A delay above {@link MAX_TIMER_MS} is waited in chained timers of at most that
 * length: Node turns a longer one into a 1 ms timer (TimeoutOverflowWarning), while Kafka's
 * `KafkaScheduler` (a ScheduledThreadPoolExecutor) waits any `long` delay in full — a
 * `log.retention.check.interval.ms` of 30 days runs retention after 30 days, not at once.
 */
/**
 * Real time on a monotonic clock (`monotonicNow`; `now()` is not epoch ms) with Node's timers: what
 * measures how long a connection has been idle (`connections.max.idle.ms`), as Kafka's `Selector`
 * measures it with `System.nanoTime`: the wall clock stepped back an hour left every idle
 * connection open for that hour (adversarial trial, session 22).
 */
export const monotonicTime: Time = {
  now: monotonicNow,
  schedule: (delayMs, fn, options) => systemTime.schedule(delayMs, fn, options),
};

export const systemTime: Time = {
  now: wallNow,
  schedule(delayMs, fn) {
    // The usual case, a delay one Node timer can wait (every session re-armed by a heartbeat): no closures.
    if (delayMs >= 0 && delayMs <= MAX_TIMER_MS) return new NodeTimer(setTimeout(fn, delayMs));
    let remaining = Number.isNaN(delayMs) ? 0 : Math.max(0, delayMs);
    let handle: NodeJS.Timeout;
    const arm = (): void => {
      const step = Math.min(remaining, MAX_TIMER_MS);
      remaining -= step;
      handle = setTimeout(remaining > 0 ? arm : fn, step);
    };
    arm();
    return { cancel: () => clearTimeout(handle) };
  },
};
