/**
 * Long-poll support for Fetch (Kafka's `DelayedFetch` purgatory, simplified): a fetch that
 * has fewer than `min_bytes` waits until one of its partitions grows, or its
 * `max_wait_ms` passes, then rebuilds its response.
 */
import type { Time, Timer } from '../util/time.js';

interface Waiter {
  keys: readonly object[];
  timer: Timer | null;
  resolve(notified: boolean): void;
}

export class AppendWaiters {
  private readonly byKey = new Map<object, Set<Waiter>>();

  constructor(private readonly time: Time) {}

  /**
   * Resolves when `notify` is called for any of `keys` (partitions), or after `timeoutMs`
   * (ms) on the injected clock, whichever comes first: true when notified, false on
   * timeout. Never rejects.
   */
  wait(keys: readonly object[], timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        keys,
        timer: null,
        resolve: (notified) => {
          waiter.timer?.cancel();
          for (const key of keys) {
            const set = this.byKey.get(key);
            if (!set) continue;
            set.delete(waiter);
            if (set.size === 0) this.byKey.delete(key);
          }
          resolve(notified);
        },
      };
      for (const key of keys) {
        let set = this.byKey.get(key);
        if (!set) this.byKey.set(key, (set = new Set()));
        set.add(waiter);
      }
      waiter.timer = this.time.schedule(Math.max(0, timeoutMs), () => waiter.resolve(false));
    });
  }

  /** Wakes every waiter interested in `key` (a partition that grew or went away). */
  notify(key: object): void {
    const set = this.byKey.get(key);
    if (!set) return;
    for (const waiter of [...set]) waiter.resolve(true);
  }

  /** Wakes everyone (shutdown). */
  notifyAll(): void {
    for (const key of [...this.byKey.keys()]) this.notify(key);
  }

  /** Number of waiting fetches (for tests and metrics). */
  get size(): number {
    const all = new Set<Waiter>();
    for (const set of this.byKey.values()) for (const w of set) all.add(w);
    return all.size;
  }
}
