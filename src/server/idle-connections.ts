/**
 * `connections.max.idle.ms` (default 600000, 10 minutes): a connection with no request arriving
 * and no response leaving for that long is closed, as Kafka's `Selector` closes channels its
 * `IdleExpiryManager` finds idle. Kept as Kafka keeps it: the connections in least recently active
 * order (a Map re-inserted on activity) and one timer, due when the least recently active one would
 * expire, so activity costs a clock read and a Map update, never a timer. On real time, or on the
 * manual clock (`--clock manual`), whose advances then close idle connections (issue #16). -1
 * disables it (as in Kafka).
 */
import { MAX_TIMER_MS, type Time, type Timer } from '../util/time.js';

export interface IdleClosable {
  /** Closes the connection for being idle (one info line). */
  closeIdle(idleMs: number): void;
}

export class IdleConnections {
  private readonly lastActive = new Map<IdleClosable, number>();
  private timer: Timer | null = null;
  private timerDue = Infinity;

  constructor(
    private readonly time: Time,
    /** `connections.max.idle.ms`; <= 0 (Kafka's -1) disables the check. */
    private readonly maxIdleMs: number,
  ) {}

  get enabled(): boolean {
    return this.maxIdleMs > 0;
  }

  /** A request arrived on, or a response left, `c` (also when it opens). */
  touch(c: IdleClosable): void {
    if (!this.enabled) return;
    const now = this.time.now();
    // Touched already at this millisecond: its place (after those last active earlier) is right as it is.
    if (this.lastActive.get(c) === now) return;
    this.lastActive.delete(c);
    this.lastActive.set(c, now);
    if (this.timer === null) this.arm();
  }

  remove(c: IdleClosable): void {
    this.lastActive.delete(c);
  }

  /** Stops the timer (server shutdown). */
  close(): void {
    this.timer?.cancel();
    this.timer = null;
    this.lastActive.clear();
  }

  /** Schedules the check for when the least recently active connection would expire. */
  private arm(): void {
    const oldest = this.lastActive.values().next();
    if (oldest.done) return;
    const due = oldest.value + this.maxIdleMs;
    if (this.timer !== null && due >= this.timerDue) return;
    this.timer?.cancel();
    this.timerDue = due;
    // A Node timer cannot wait longer than MAX_TIMER_MS: a check due later runs early and re-arms.
    this.timer = this.time.schedule(Math.min(due - this.time.now(), MAX_TIMER_MS), () => {
      this.timer = null;
      this.timerDue = Infinity;
      this.expire();
    });
  }

  private expire(): void {
    const now = this.time.now();
    for (const [c, at] of this.lastActive) {
      if (at + this.maxIdleMs > now) break;
      this.lastActive.delete(c);
      c.closeIdle(now - at);
    }
    this.arm();
  }
}
