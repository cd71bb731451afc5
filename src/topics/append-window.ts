/**
 * Bounds the appends one request has waiting for their write (and, under `mock.flush.policy=always`,
 * their fdatasync) at once: past `max`, the request appends its next partition only once one of them
 * is durable or failed.
 *
 * Why: a request's appends to many partitions each queue a write and a sync for the thread pool,
 * and the other connections' appends (an OffsetCommit's `__consumer_offsets` batch) queued behind
 * all of them: a Produce of one record to each of 20,000 partitions of a data directory made
 * another client's commit wait 4.7-12.8 s (adversarial trial 28), where Kafka, appending and
 * flushing them one after another on one request handler thread, holds up no other request. With
 * at most `max` of one request's appends queued, another request's waits behind that many. And
 * the partitions' descriptors then close clean: the file cache (fd-cache.ts) closes the least
 * recently used ones to make room, and a file written but not yet synced was synced on the
 * event-loop thread first (up to ~1.1 s of them in one turn).
 */
export class AppendWindow {
  private outstanding = 0;
  private waiter: (() => void) | null = null;
  private readonly settled = (): void => {
    this.outstanding--;
    const waiter = this.waiter;
    if (waiter !== null && this.outstanding < this.max) {
      this.waiter = null;
      waiter();
    }
  };

  constructor(private readonly max: number) {}

  /** Counts `durable` (an append's promise) until it settles. */
  track(durable: Promise<unknown>): void {
    this.outstanding++;
    durable.then(this.settled, this.settled);
  }

  /** Null while fewer than `max` are outstanding; else a promise of the moment one settles. One waiter at a time. */
  room(): Promise<void> | null {
    if (this.outstanding < this.max) return null;
    return new Promise<void>((resolve) => (this.waiter = resolve));
  }
}

/** Appends one request keeps waiting for their write (and sync) at once (`AppendWindow`). */
export const APPENDS_IN_FLIGHT = 64;
