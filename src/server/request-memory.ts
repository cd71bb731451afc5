/**
 * `queued.max.request.bytes` (default -1: no limit): the bytes of requests read and not yet
 * answered, across a broker's connections, as Kafka's `SimpleMemoryPool` in non-strict mode: a
 * request's whole size is taken when its size prefix has been read, granted while anything is left
 * (so one request may take the pool past its cap), and given back once it has been answered. A
 * connection whose next request finds the pool used up stops being read (Kafka's Selector mutes
 * it under memory pressure) until memory comes back; the rest of a request already granted is
 * always read, so the pool cannot lock itself up. Kafka requires the cap, when set, to be at least
 * `socket.request.max.bytes`.
 */
export class RequestMemoryPool {
  private used = 0;
  private readonly waiting = new Set<() => void>();

  constructor(
    /** `queued.max.request.bytes` (> 0). */
    readonly capBytes: number,
    /** Told how many connections wait for memory, each time that changes. */
    private readonly onWaiting: (count: number) => void = () => {},
  ) {}

  /** Bytes granted and not given back. */
  get usedBytes(): number {
    return this.used;
  }

  /** Takes `bytes` for one request if anything is left (non-strict); false: wait (`waitForMemory`). */
  tryAllocate(bytes: number): boolean {
    if (this.used >= this.capBytes) return false;
    this.used += bytes;
    return true;
  }

  /** Gives back a request's bytes; connections waiting are told to try again once some are free. */
  release(bytes: number): void {
    this.used -= bytes;
    if (this.used >= this.capBytes || this.waiting.size === 0) return;
    const woken = [...this.waiting];
    this.waiting.clear();
    this.onWaiting(0);
    for (const wake of woken) wake();
  }

  /** `wake` runs (once) when memory is given back. */
  waitForMemory(wake: () => void): void {
    this.waiting.add(wake);
    this.onWaiting(this.waiting.size);
  }

  /** A closed connection stops waiting. */
  forget(wake: () => void): void {
    if (this.waiting.delete(wake)) this.onWaiting(this.waiting.size);
  }
}
