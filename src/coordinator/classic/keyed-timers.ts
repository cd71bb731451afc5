import type { Time, Timer } from '../../util/time.js';
import { afterReceivedRequests } from '../../util/received-requests.js';

export interface KeyedTimersOptions {
  /**
   * An expired timer's operation runs after the requests the server has already read
   * (util/received-requests.ts), and not at all if its key was cancelled or rescheduled
   * meanwhile: Kafka's `CoordinatorTimerImpl` queues it as a write event behind them.
   */
  behindReceivedRequests?: boolean;
}

/**
 * Timers addressed by name, as Kafka's `CoordinatorTimer` keys them (one heartbeat timer per
 * member, one join and one sync timer per group): scheduling a key replaces its previous timer, so rescheduling
 * a session is one call and a stale timer can never fire next to its replacement.
 */
export class KeyedTimers {
  private readonly timers = new Map<string, KeyedTimer>();
  private readonly behindReceivedRequests: boolean;

  constructor(
    private readonly time: Time,
    options: KeyedTimersOptions = {},
  ) {
    this.behindReceivedRequests = options.behindReceivedRequests === true;
  }

  schedule(key: string, delayMs: number, fn: () => void): void {
    // One lookup for the replaced timer; `set` below overwrites its entry.
    this.timers.get(key)?.timer.cancel();
    const expire = this.behindReceivedRequests
      ? () =>
          afterReceivedRequests(() => {
            // Kafka skips the operation of a timer cancelled or replaced while it waited.
            if (this.timers.get(key) !== entry) return;
            this.timers.delete(key);
            fn();
          })
      : () => {
          // Only forget the key if it still maps to this timer (fn may have rescheduled it).
          if (this.timers.get(key) === entry) this.timers.delete(key);
          fn();
        };
    const entry: KeyedTimer = { timer: NOT_ARMED, dueAt: this.time.now() + delayMs, expire };
    entry.timer = this.time.schedule(delayMs, expire);
    this.timers.set(key, entry);
  }

  cancel(key: string): void {
    const entry = this.timers.get(key);
    if (entry) {
      entry.timer.cancel();
      this.timers.delete(key);
    }
  }

  /**
   * Fires `key`'s timer now, as if it had fallen due (its operation behind the requests already
   * read, when the timers are so made); false when none is armed.
   */
  fireNow(key: string): boolean {
    const entry = this.timers.get(key);
    if (entry === undefined) return false;
    entry.timer.cancel();
    entry.expire();
    return true;
  }

  /** When `key`'s timer is due (ms on the server clock), undefined when none is armed. */
  dueAt(key: string): number | undefined {
    return this.timers.get(key)?.dueAt;
  }

  has(key: string): boolean {
    return this.timers.has(key);
  }

  /** Cancels every timer whose key starts with `prefix`. */
  cancelPrefix(prefix: string): void {
    for (const key of [...this.timers.keys()]) if (key.startsWith(prefix)) this.cancel(key);
  }

  cancelAll(): void {
    for (const entry of this.timers.values()) entry.timer.cancel();
    this.timers.clear();
  }
}

/** A key's timer, when it is due (server clock, ms) and what it runs then. */
interface KeyedTimer {
  timer: Timer;
  readonly dueAt: number;
  readonly expire: () => void;
}

/** The placeholder of an entry whose timer is being armed (`schedule` returns it). */
const NOT_ARMED: Timer = { cancel: () => {} };

// A key starts with the group id's length, then the group id and a NUL: group ids are any
// non-empty string (Kafka accepts NUL in them), so a bare `${groupId}\u0000` prefix of group "a"
// would also match the keys of group "a\u0000x". With the length in front, the digits before the
// first ':' fix how many characters the group id has, so `cancelPrefix(groupTimersPrefix(id))`
// drops exactly one group's timers whatever characters the ids hold.
export const groupTimersPrefix = (groupId: string): string => `${groupId.length}:${groupId}\u0000`;
/** A timer key of one group: its prefix, then a kind (never holding NUL) and, for member timers, the member id. */
export const groupTimerKey = (groupId: string, kind: string, memberId?: string): string =>
  memberId === undefined ? `${groupTimersPrefix(groupId)}${kind}` : `${groupTimersPrefix(groupId)}${kind}\u0000${memberId}`;
export const heartbeatKey = (groupId: string, memberId: string): string => groupTimerKey(groupId, 'heartbeat', memberId);
export const joinKey = (groupId: string): string => groupTimerKey(groupId, 'join');
export const syncKey = (groupId: string): string => groupTimerKey(groupId, 'sync');
