/**
 * The bookkeeping of pipelined group commit under `mock.flush.policy=always` (issue #16): a log's
 * written steps wait here, in offset order, for an fdatasync that covers them, while up to
 * `limit` fdatasyncs run at once. The log (partition-log.ts) does the I/O: it writes a step (after
 * the previous step's write), registers it with `add`, and starts a sync with `run`; when a sync
 * completes the log calls `acknowledge` with its new recovery point, which resolves the steps it
 * covers, oldest first. On a failure `takeAll` hands back every step not yet acknowledged, so the
 * log can roll them back together.
 *
 * Why several syncs at once: one fdatasync at a time caps a log at the disk's sync rate (~1-2k/s
 * on the development machine's ext4), and with one sync in flight and one batch forming, 16
 * connections with one commit each split into two alternating halves. Concurrent fdatasyncs of
 * one file overlap on the device (measured: 1/2/3 at once gave ~1.3k/4k/6.5k syncs/s).
 *
 * Why a step gathers before it starts a sync while another runs (`gathered`): an fdatasync costs
 * the server far more CPU than a commit (the thread-pool hand-off and wake-up, the syscall: ~250 us
 * against ~30 us per commit under 'never'), so with 16 connections committing one at a time a
 * busy loop spent most of its time starting syncs of ~4 commits each (3 in flight). A sync that
 * starts while the loop is still reading appends steals CPU from them and carries few; one that
 * starts once a turn read nothing new costs only idle time and carries all that arrived. With no
 * sync running a step starts at once (a lone commit waits for nothing), and the gathering ends as
 * soon as no sync runs, so it never delays a sync past the one it waits behind, nor by more than
 * MAX_GATHER_TURNS turns (a slow disk still gets overlapping syncs).
 */
import type { Deferred } from './deferred.js';

/**
 * fdatasyncs of one log in flight at once. Three: libuv's thread pool has four threads
 * (UV_THREADPOOL_SIZE) that every log's syncs, large writes and directory syncs share, so one
 * busy log leaves a thread to the others; and a fourth showed no clear gain (one file, 200-byte
 * writes: 3 and 4 at once both ~6.5k syncs/s in the quietest run, on a loaded, noisy machine).
 */
export const MAX_SYNCS_IN_FLIGHT = 3;

/**
 * Event-loop turns a step gathers appends at most while another sync runs (see `gathered`): the
 * bound for a loop that reads new appends in every turn while a slow sync runs. Eight, as a burst's
 * rounds (util/burst.ts MAX_ROUNDS): on a fast disk the sync waited for ends sooner.
 */
export const MAX_GATHER_TURNS = 8;

/** A step whose bytes were written (or are being written) and wait for a covering fdatasync. */
export interface WrittenStep<Point> {
  /** Offset after the step's last record: a sync covering it acknowledges the step. */
  readonly end: bigint;
  /** The appends' waiter (null when no append waits: a write for a roll or a close). */
  readonly waiter: Deferred | null;
  /** Where a failure rolls the log back to when this is the oldest step not acknowledged. */
  readonly rollbackPoint: Point;
}

export class SyncPipeline<Point> {
  private running = 0;
  private readonly slotWaiters: Array<() => void> = [];
  private readonly idleWaiters: Array<() => void> = [];
  /** Steps not yet acknowledged, oldest first. */
  private readonly steps: Array<WrittenStep<Point>> = [];

  /** `limit`: syncs running at once, at least 1. */
  constructor(readonly limit: number = MAX_SYNCS_IN_FLIGHT) {}

  /** Syncs running now. */
  get inFlight(): number {
    return this.running;
  }

  /** Resolves once a sync may start (fewer than `limit` run). */
  whenSlotFree(): Promise<void> {
    if (this.running < this.limit) return Promise.resolve();
    return new Promise((resolve) => this.slotWaiters.push(resolve));
  }

  /** Resolves once no sync runs (at once when none does). */
  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Resolves once a step about to start its sync has gathered what keeps arriving: at once when no
   * sync runs; else after the first event-loop turn in which `appendsSeen()` did not move (the
   * loop read no new append), or once no sync runs, or after MAX_GATHER_TURNS turns.
   */
  async gathered(appendsSeen: () => number): Promise<void> {
    for (let turns = 0; turns < MAX_GATHER_TURNS && this.running > 0; turns++) {
      const before = appendsSeen();
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (appendsSeen() === before) return;
    }
  }

  /** A step to acknowledge once a sync covers its end (steps come in offset order). */
  add(step: WrittenStep<Point>): void {
    this.steps.push(step);
  }

  /**
   * Runs `sync` in a slot (the caller waited for `whenSlotFree`), then `settle` with its outcome,
   * then frees the slot. Never rejects.
   */
  run(sync: () => Promise<void>, settle: (error: Error | null) => void): void {
    this.running++;
    const done = (error: Error | null): void => {
      settle(error);
      this.running--;
      this.slotWaiters.shift()?.();
      if (this.running === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    };
    sync().then(
      () => done(null),
      (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
    );
  }

  /** Resolves, oldest first, every step ending at or below `recoveryPoint`. */
  acknowledge(recoveryPoint: bigint): void {
    let n = 0;
    while (n < this.steps.length && this.steps[n]!.end <= recoveryPoint) n++;
    for (const step of this.steps.splice(0, n)) step.waiter?.resolve();
  }

  /** Takes out every step not yet acknowledged, oldest first (a failure fails them all). */
  takeAll(): Array<WrittenStep<Point>> {
    return this.steps.splice(0);
  }
}
