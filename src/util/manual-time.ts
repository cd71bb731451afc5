import type { ScheduleOptions, Time, Timer } from './time.js';
import { TimerHeap, firesBefore, type HeapTimer } from './timer-heap.js';

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
  /** Ordinary timers, and the `coalesce` ones (fixed-delay maintenance tasks). */
  private readonly timers = new TimerHeap();
  private readonly coalescing = new TimerHeap();
  private live = 0;
  private dueSoon: NodeJS.Immediate | null = null;
  private advancing = false;

  constructor(startMs: number = Date.now()) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  /**
   * `options.coalesce`: the timer of a task Kafka runs with a fixed delay after each run (the log
   * cleaner's backoff, the offsets retention check). Falling due during an advance, it runs as late
   * as it can: just before the next ordinary timer due, or at the end of the advance, as such a task
   * runs once on a broker whose clock jumped. Its reschedules that would have fallen in between never
   * come due, so a jump of ten years runs it a few times instead of millions (issue #16).
   */
  schedule(delayMs: number, fn: () => void, options?: ScheduleOptions): Timer {
    const entry: HeapTimer = { at: this.nowMs + Math.max(0, delayMs), seq: this.seq++, fn, cancelled: false };
    (options?.coalesce ? this.coalescing : this.timers).push(entry);
    this.live++;
    if (entry.at <= this.nowMs && !this.advancing) this.runDueSoon();
    return {
      cancel: () => {
        if (entry.cancelled) return;
        entry.cancelled = true;
        this.live--;
      },
    };
  }

  /** Moves the clock forward by `ms` (>= 0), firing every timer that falls due on the way. */
  advance(ms: number): AdvanceResult {
    this.checkAdvance(ms);
    const { now, firedTimers } = this.runUntil(this.nowMs + ms, Infinity);
    // An advance in slices under way still moves the clock by all of its own `ms` after this one.
    if (this.slicing) this.movedDuringSlices += ms;
    return { now, firedTimers };
  }

  /** The end of the last `advanceInSlices` asked for: the next one starts after it. */
  private lastSlicedAdvance: Promise<unknown> = Promise.resolve();
  /** `advanceInSlices` calls not yet done (the first starts at once, the others after it). */
  private slicedQueued = 0;
  /** Whether an `advanceInSlices` is moving the clock. */
  private slicing = false;
  /** ms moved by `advance` calls made while an `advanceInSlices` ran (its target moves on by as much). */
  private movedDuringSlices = 0;

  /**
   * As `advance`, in slices: at most `ADVANCE_SLICE_TIMERS` timers (and about `ADVANCE_SLICE_MS` of
   * their work) per turn of the event loop, so that a jump of years never keeps other connections
   * waiting (issue #16). Between slices the clock reads the due time of the last timer fired, and
   * requests see that time. Resolves with the clock and the number of timers fired, as `advance`.
   * Used by the control surfaces (HTTP, command line).
   */
  advanceInSlices(ms: number): Promise<AdvanceResult> {
    // One after another, each by its whole `ms`: two at once both ran to the target the first
    // computed, moving the clock by one of them (adversarial trial, session 22).
    const run = this.slicedQueued === 0 ? this.advanceInSlicesNow(ms) : this.lastSlicedAdvance.then(() => this.advanceInSlicesNow(ms));
    this.slicedQueued++;
    const settled = (): void => {
      this.slicedQueued--;
    };
    this.lastSlicedAdvance = run.then(settled, settled);
    return run;
  }

  private async advanceInSlicesNow(ms: number): Promise<AdvanceResult> {
    this.checkAdvance(ms);
    const target = this.nowMs + ms;
    const movedBefore = this.movedDuringSlices;
    this.slicing = true;
    let fired = 0;
    try {
      for (;;) {
        const slice = this.runUntil(target + this.movedDuringSlices - movedBefore, ADVANCE_SLICE_TIMERS, performance.now() + ADVANCE_SLICE_MS);
        fired += slice.firedTimers;
        // Done when nothing is due by the target any more: the clock may reach it before the last
        // due timers fired (a coalescing timer fires at the target when no ordinary one comes first).
        if (!slice.cutShort) return { now: slice.now, firedTimers: fired };
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.slicing = false;
    }
  }

  /** Throws RangeError for an advance that is not a finite number >= 0 or would pass MAX_MANUAL_TIME_MS. */
  private checkAdvance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`advance expects a non-negative number of ms, got ${ms}`);
    if (this.nowMs + ms > MAX_MANUAL_TIME_MS) {
      throw new RangeError(`the clock can go up to ${MAX_MANUAL_TIME_MS} ms since the epoch (the latest time a date can show); it is at ${this.nowMs}, so it can advance at most ${MAX_MANUAL_TIME_MS - this.nowMs} ms`);
    }
  }

  /** Number of timers not yet fired or cancelled. */
  pendingTimers(): number {
    return this.live;
  }

  /** Due time of the next pending timer, or null. */
  nextDue(): number | null {
    const a = this.timers.peek();
    const b = this.coalescing.peek();
    if (!a || !b) return (a ?? b)?.at ?? null;
    return Math.min(a.at, b.at);
  }

  /** Drops every pending timer (server shutdown). */
  clear(): void {
    this.timers.clear();
    this.coalescing.clear();
    this.live = 0;
    if (this.dueSoon) clearImmediate(this.dueSoon);
    this.dueSoon = null;
  }

  private runDueSoon(): void {
    if (this.dueSoon) return;
    this.dueSoon = setImmediate(() => {
      this.dueSoon = null;
      this.runUntil(this.nowMs, Infinity);
    });
    this.dueSoon.unref?.();
  }

  /**
   * Fires the timers due by `target` in order, at most `maxTimers` of them (and none after
   * `deadline`, a `performance.now()` value, once one fired). An ordinary timer fires at its due
   * time; a coalescing one at the due time of the next ordinary timer due by `target`, else at
   * `target`. The clock ends at `target` when every due timer fired, else at the last firing's time.
   */
  private runUntil(target: number, maxTimers: number, deadline = Infinity): AdvanceResult & { cutShort: boolean } {
    let fired = 0;
    const wasAdvancing = this.advancing;
    this.advancing = true;
    try {
      for (;;) {
        const ordinary = dueBy(this.timers.peek(), target);
        const coalesced = dueBy(this.coalescing.peek(), target);
        if (!ordinary && !coalesced) break;
        if (fired >= maxTimers || (fired > 0 && performance.now() >= deadline)) return { now: this.nowMs, firedTimers: fired, cutShort: true };
        const takeCoalesced = coalesced !== undefined && (ordinary === undefined || firesBefore(coalesced, ordinary));
        const next = takeCoalesced ? coalesced : ordinary!;
        (takeCoalesced ? this.coalescing : this.timers).pop();
        next.cancelled = true;
        this.live--;
        const at = takeCoalesced ? (ordinary?.at ?? target) : next.at;
        if (at > this.nowMs) this.nowMs = at;
        fired++;
        next.fn();
      }
    } finally {
      this.advancing = wasAdvancing;
    }
    if (target > this.nowMs) this.nowMs = target;
    return { now: this.nowMs, firedTimers: fired, cutShort: false };
  }
}

const dueBy = (t: HeapTimer | undefined, target: number): HeapTimer | undefined => (t !== undefined && t.at <= target ? t : undefined);

/**
 * The latest time (ms since the epoch) the manual clock may reach: the last instant a JavaScript
 * Date can represent (year 275760). Beyond it, timestamps could not be shown or logged.
 */
export const MAX_MANUAL_TIME_MS = 8.64e15;

/** Timers `advanceInSlices` fires at most per turn of the event loop. */
export const ADVANCE_SLICE_TIMERS = 1024;
/** About how long (ms) one slice of `advanceInSlices` keeps the event loop. */
export const ADVANCE_SLICE_MS = 20;

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
  /**
   * As `advance`, firing the timers in slices with a turn of the event loop between them (a jump
   * of years does not hold up other connections); what the HTTP and command-line surfaces use.
   */
  advanceInSlices(ms: number): Promise<AdvanceResult>;
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
    async advanceInSlices(ms: number): Promise<AdvanceResult> {
      if (!manual) throw new ClockNotManualError(`the server clock is ${mode}, not manual (start it with --clock manual or startServer({ clock: 'manual' }))`);
      return manual.advanceInSlices(ms);
    },
    pendingTimers: () => (manual ? manual.pendingTimers() : null),
  };
}
