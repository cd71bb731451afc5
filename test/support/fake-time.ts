import type { Time, Timer } from '../../src/util/time.js';

interface Scheduled {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * A manual clock for tests: `now()` only moves when `advance(ms)` is called, and timers fire
 * during `advance` in due-time order (ties in scheduling order), each seeing `now()` equal to
 * its due time. Timers scheduled by a firing timer run in the same `advance` if they fall due.
 */
export class FakeTime implements Time {
  private nowMs: number;
  private seq = 0;
  private queue: Scheduled[] = [];

  constructor(startMs = 1_700_000_000_000) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  schedule(delayMs: number, fn: () => void): Timer {
    const entry: Scheduled = { at: this.nowMs + Math.max(0, delayMs), seq: this.seq++, fn, cancelled: false };
    this.queue.push(entry);
    return { cancel: () => void (entry.cancelled = true) };
  }

  /** Moves the clock forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const target = this.nowMs + ms;
    for (;;) {
      this.queue = this.queue.filter((e) => !e.cancelled);
      let next: Scheduled | undefined;
      for (const e of this.queue) {
        if (e.at <= target && (!next || e.at < next.at || (e.at === next.at && e.seq < next.seq))) next = e;
      }
      if (!next) break;
      this.queue.splice(this.queue.indexOf(next), 1);
      this.nowMs = next.at;
      next.fn();
    }
    this.nowMs = target;
  }

  /** Number of timers not yet fired or cancelled. */
  pendingTimers(): number {
    return this.queue.filter((e) => !e.cancelled).length;
  }
}
