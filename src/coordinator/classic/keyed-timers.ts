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
  private readonly timers = new Map<string, Timer>();
  private readonly behindReceivedRequests: boolean;

  constructor(
    private readonly time: Time,
    options: KeyedTimersOptions = {},
  ) {
    this.behindReceivedRequests = options.behindReceivedRequests === true;
  }

  schedule(key: string, delayMs: number, fn: () => void): void {
    // One lookup for the replaced timer; `set` below overwrites its entry.
    this.timers.get(key)?.cancel();
    const timer = this.time.schedule(
      delayMs,
      this.behindReceivedRequests
        ? () =>
            afterReceivedRequests(() => {
              // Kafka skips the operation of a timer cancelled or replaced while it waited.
              if (this.timers.get(key) !== timer) return;
              this.timers.delete(key);
              fn();
            })
        : () => {
            // Only forget the key if it still maps to this timer (fn may have rescheduled it).
            if (this.timers.get(key) === timer) this.timers.delete(key);
            fn();
          },
    );
    this.timers.set(key, timer);
  }

  cancel(key: string): void {
    const timer = this.timers.get(key);
    if (timer) {
      timer.cancel();
      this.timers.delete(key);
    }
  }

  has(key: string): boolean {
    return this.timers.has(key);
  }

  /** Cancels every timer whose key starts with `prefix`. */
  cancelPrefix(prefix: string): void {
    for (const key of [...this.timers.keys()]) if (key.startsWith(prefix)) this.cancel(key);
  }

  cancelAll(): void {
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
  }
}

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
