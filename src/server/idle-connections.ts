/**
 * `connections.max.idle.ms` (default 600000, 10 minutes): a connection with no request arriving
 * and no response leaving for that long is closed, as Kafka's `Selector` closes channels its
 * `IdleExpiryManager` finds idle. Kept as Kafka keeps it: the connections in least recently active
 * order (Kafka's LinkedHashMap in access order; here a list linked through one node per
 * connection, so that activity, twice per request, costs a clock read and a few pointer writes,
 * no hashing) and one timer, due when the least recently active one would expire. On real time, or
 * on the manual clock (`--clock manual`), whose advances then close idle connections (issue #16).
 * -1 disables it (as in Kafka).
 */
import { MAX_TIMER_MS, type Time, type Timer } from '../util/time.js';

/** A connection's place in the order of activity. */
export interface IdleNode {
  /** When a request last arrived or a response last left (whole ms, the server's clock). */
  at: number;
  /** Less recently active, or null for the least. */
  prev: IdleNode | null;
  /** More recently active, or null for the most. */
  next: IdleNode | null;
  readonly connection: IdleClosable;
}

export interface IdleClosable {
  /** Set by `IdleConnections.add`, cleared by `remove`. */
  idleNode: IdleNode | null;
  /**
   * Whether an answer is being written and its bytes have moved since this was last asked: a
   * client reading a large answer slowly is active, as Kafka's Selector counts each write it makes.
   */
  answerMoving?(): boolean;
  /** Closes the connection for being idle (one info line). */
  closeIdle(idleMs: number): void;
}

export class IdleConnections {
  /** The least recently active connection's node. */
  private head: IdleNode | null = null;
  /** The most recently active connection's node. */
  private tail: IdleNode | null = null;
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

  /** `c` opened: the most recently active. */
  add(c: IdleClosable): void {
    if (!this.enabled || c.idleNode !== null) return;
    const node: IdleNode = { at: this.nowMs(), prev: null, next: null, connection: c };
    c.idleNode = node;
    this.append(node);
    if (this.timer === null) this.arm();
  }

  /**
   * A request arrived on, or a response left, `c`: it is the most recently active. Active again in
   * the same millisecond, it stays where it is: its idle time is the same either way, and a busy
   * connection (a request and its answer within a millisecond, thousands a second) costs a clock
   * read instead of a move in the list each time; only connections going idle in the same
   * millisecond may then be closed in another order among themselves.
   */
  touch(c: IdleClosable): void {
    const node = c.idleNode;
    if (node === null) return;
    const now = this.nowMs();
    if (node.at === now) return;
    node.at = now;
    if (node === this.tail) return;
    this.unlink(node);
    this.append(node);
  }

  remove(c: IdleClosable): void {
    const node = c.idleNode;
    if (node === null) return;
    this.unlink(node);
    c.idleNode = null;
  }

  /** Stops the timer (server shutdown). */
  close(): void {
    this.timer?.cancel();
    this.timer = null;
    for (let node = this.head; node !== null; node = node.next) node.connection.idleNode = null;
    this.head = this.tail = null;
  }

  private append(node: IdleNode): void {
    node.prev = this.tail;
    node.next = null;
    if (this.tail === null) this.head = node;
    else this.tail.next = node;
    this.tail = node;
  }

  private unlink(node: IdleNode): void {
    if (node.prev === null) this.head = node.next;
    else node.prev.next = node.next;
    if (node.next === null) this.tail = node.prev;
    else node.next.prev = node.prev;
    node.prev = node.next = null;
  }

  /** The clock in whole milliseconds (the monotonic clock's readings have fractions): small integers, no heap number per touch. */
  private nowMs(): number {
    return Math.floor(this.time.now());
  }

  /** Schedules the check for when the least recently active connection would expire. */
  private arm(): void {
    if (this.head === null) return;
    const due = this.head.at + this.maxIdleMs;
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
    const now = this.nowMs();
    for (let node = this.head; node !== null && node.at + this.maxIdleMs <= now; node = this.head) {
      const c = node.connection;
      if (c.answerMoving?.() === true) {
        this.touch(c);
        continue;
      }
      this.remove(c);
      c.closeIdle(now - node.at);
    }
    this.arm();
  }
}
