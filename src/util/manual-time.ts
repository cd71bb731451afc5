import type { Time, Timer } from './time.js';

interface Scheduled {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

export interface AdvanceResult {
  /** The clock after the advance (ms since the epoch). */
  now: number;
  /** Timers that fired during the advance, in firing order. */
  firedTimers: number;
}

/**
 * A manual clock (`--clock manual`, `startServer({ clock: 'manual' })`): `now()` moves only when
 * `advance(ms)` is called, and every timer that falls due on the way fires in due-time order
 * (ties in scheduling order), each seeing `now()` equal to its own due time. Timers scheduled
 * by a firing callback run in the same advance when they fall due before its end.
 *
 * A timer scheduled for "now" (delay <= 0, e.g. completing a join with
 * `group.initial.rebalance.delay.ms=0`) is due without moving the clock, so it fires on its own
 * on the next event-loop turn; real clients therefore never wait for an advance that does not
 * move time.
 */
export class ManualTime implements Time {
  private nowMs: number;
  private seq = 0;
  private queue: Scheduled[] = [];
  private dueSoon: NodeJS.Immediate | null = null;
  private advancing = false;

  constructor(startMs: number = Date.now()) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  schedule(delayMs: number, fn: () => void): Timer {
    const entry: Scheduled = { at: this.nowMs + Math.max(0, delayMs), seq: this.seq++, fn, cancelled: false };
    this.queue.push(entry);
    if (entry.at <= this.nowMs && !this.advancing) this.runDueSoon();
    return { cancel: () => void (entry.cancelled = true) };
  }

  /** Moves the clock forward by `ms` (>= 0), firing every timer that falls due on the way. */
  advance(ms: number): AdvanceResult {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`advance expects a non-negative number of ms, got ${ms}`);
    return this.runUntil(this.nowMs + ms);
  }

  /** Number of timers not yet fired or cancelled. */
  pendingTimers(): number {
    return this.queue.filter((e) => !e.cancelled).length;
  }

  /** Due time of the next pending timer, or null. */
  nextDue(): number | null {
    let next: number | null = null;
    for (const e of this.queue) if (!e.cancelled && (next === null || e.at < next)) next = e.at;
    return next;
  }

  /** Drops every pending timer (server shutdown). */
  clear(): void {
    this.queue = [];
    if (this.dueSoon) clearImmediate(this.dueSoon);
    this.dueSoon = null;
  }

  private runDueSoon(): void {
    if (this.dueSoon) return;
    this.dueSoon = setImmediate(() => {
      this.dueSoon = null;
      this.runUntil(this.nowMs);
    });
    this.dueSoon.unref?.();
  }

  private runUntil(target: number): AdvanceResult {
    let fired = 0;
    const wasAdvancing = this.advancing;
    this.advancing = true;
    try {
      for (;;) {
        this.queue = this.queue.filter((e) => !e.cancelled);
        let next: Scheduled | undefined;
        for (const e of this.queue) {
          if (e.at <= target && (!next || e.at < next.at || (e.at === next.at && e.seq < next.seq))) next = e;
        }
        if (!next) break;
        this.queue.splice(this.queue.indexOf(next), 1);
        if (next.at > this.nowMs) this.nowMs = next.at;
        fired++;
        next.fn();
      }
    } finally {
      this.advancing = wasAdvancing;
    }
    if (target > this.nowMs) this.nowMs = target;
    return { now: this.nowMs, firedTimers: fired };
  }
}

/** Thrown by `clock.advance` when the server does not run on a manual clock (HTTP: 409). */
export class ClockNotManualError extends Error {
  override readonly name = 'ClockNotManualError';
}

/** The server's clock as the control surfaces see it (`server.clock`, `GET /clock`, `clock advance`). */
export interface ServerClock {
  /** `system` (default), `manual` (`--clock manual`), or `custom` (a `time` injected by the caller). */
  readonly mode: 'system' | 'manual' | 'custom';
  /** The server's current time, ms since the epoch. */
  now(): number;
  /**
   * Manual clock only: moves time forward by `ms`, firing what falls due in order (session and
   * rebalance timeouts, the initial rebalance delay, retention sweeps, the cleaner schedule).
   * Their follow-up work (appends) continues asynchronously. Throws ClockNotManualError otherwise.
   */
  advance(ms: number): AdvanceResult;
  /** Pending timers (manual clock), else null. */
  pendingTimers(): number | null;
}

export function serverClock(time: Time, mode: ServerClock['mode']): ServerClock {
  const manual = time instanceof ManualTime ? time : null;
  return {
    mode,
    now: () => time.now(),
    advance(ms: number): AdvanceResult {
      if (!manual) throw new ClockNotManualError(`the server clock is ${mode}, not manual (start it with --clock manual or startServer({ clock: 'manual' }))`);
      return manual.advance(ms);
    },
    pendingTimers: () => (manual ? manual.pendingTimers() : null),
  };
}
