/**
 * Where a log's next fdatasync under `mock.flush.policy=always` runs (issue #16): on the event-loop
 * thread (`fs.fdatasyncSync`) or on libuv's thread pool (`fs.fdatasync`, pipelined by
 * sync-pipeline.ts).
 *
 * Why inline at all: the thread-pool hand-off (queueing the work, waking a pool thread, waking the
 * loop for the callback, the promise around it) costs the server ~55 us of CPU per sync on the
 * development machine on top of the syscall (bench/fdatasync-cost.mjs: ~85 against ~140 us per
 * 200-byte append and sync), and under 'always' that is most of what a commit costs beyond 'never'.
 * Kafka does the same: with `flush.messages=1` its request handler thread calls `UnifiedLog.flush`
 * itself, and waits.
 *
 * Why not always inline: while the syscall runs nothing else on the loop does, so a slow disk (a
 * laptop SSD with a real cache flush, a busy VM) would hold every connection for each sync. So
 * once the mean time of the recent inline syncs (weighted, MEAN_WEIGHT) passes `maxMs`, the syncs
 * of the next RETRY_INLINE_MS go to the pool (where a slow sync holds up nobody and up to three
 * overlap); then one inline sync tries again, its own time the new mean. On a disk that stays slow
 * that is one slow sync on the loop a second. A mean, not every sync: a virtual disk's syncs of
 * ~0.3 ms take a few ms now and then (the development machine: a few per thousand, up to ~10 ms),
 * and sending each of those to the pool for a second kept the server on the pool most of the time.
 * One sync of ~8 x `maxMs` or more moves the mean past it at once. The pool's syncs are not
 * timed: their time includes the queueing and the loop's own delay in taking the callback, so a
 * fast one there proves little (reopening on one made a loaded disk alternate: one slow inline
 * sync every few). `maxMs` 0 keeps every sync on the pool.
 *
 * And however fast each one, the inline syncs of one turn of the event loop take INLINE_MS_PER_TURN
 * in all: a request touching thousands of partitions has the rest of its syncs on the pool.
 *
 * One gate per server (`syncGateFor`), shared by its logs: they share a disk, and with a gate each,
 * a hundred partitions on a slow disk would each try an inline sync every RETRY_INLINE_MS.
 */

/** After inline syncs turned slow, syncs go to the pool for this long (ms). */
export const RETRY_INLINE_MS = 1000;

/** Weight of the mean of inline sync times: each new time moves it by 1/MEAN_WEIGHT of the difference. */
export const MEAN_WEIGHT = 8;

/**
 * Inline sync time one turn of the event loop may take in all (ms): past it, the turn's other
 * syncs go to the pool. Each sync of a Produce to 9,000 partitions was fast, but 9,000 of them in
 * one turn held the loop 87-481 ms (adversarial trial 23b).
 */
export const INLINE_MS_PER_TURN = 5;

/** A monotonic clock in milliseconds (fractional): `performance.now` unless a test passes its own. */
export type SyncClock = () => number;

export class InlineSyncGate {
  /** While set, the clock reading before which syncs go to the pool (inline syncs turned slow). */
  private poolUntil: number | null = null;
  /** Weighted mean time of the inline syncs since the last switch to the pool (ms); null before the first. */
  private meanMs: number | null = null;
  /** Inline sync time of this turn of the event loop (ms), reset in its check phase. */
  private turnMs = 0;
  private readonly endTurn = (): void => {
    this.turnMs = 0;
  };

  constructor(
    private readonly maxMs: number,
    readonly clock: SyncClock = () => performance.now(),
    /** How long an inline sync first waits for the clients just answered (ms; util/returning-clients.ts). */
    readonly returnWaitMs = 0,
  ) {}

  /** True when the next sync may run on the event-loop thread. */
  get inline(): boolean {
    if (this.maxMs <= 0 || this.turnMs >= INLINE_MS_PER_TURN) return false;
    if (this.poolUntil !== null && this.clock() >= this.poolUntil) this.poolUntil = null;
    return this.poolUntil === null;
  }

  /** Records an inline sync started at clock reading `startedAt`, now done. */
  recordInline(startedAt: number): void {
    const now = this.clock();
    const took = now - startedAt;
    if (this.turnMs === 0) setImmediate(this.endTurn);
    this.turnMs += took;
    this.meanMs = this.meanMs === null ? took : this.meanMs + (took - this.meanMs) / MEAN_WEIGHT;
    if (this.meanMs <= this.maxMs) return;
    this.poolUntil = now + RETRY_INLINE_MS;
    this.meanMs = null;
  }
}

/** The gate of logs opened without one (tools, tests): every sync on the pool. */
export const POOL_ONLY = new InlineSyncGate(0);

const perServer = new WeakMap<object, InlineSyncGate>();

/** The one gate of a server's logs, keyed by its configuration object (`mock.flush.inline.sync.max.ms`, `mock.flush.inline.sync.wait.ms`). */
export function syncGateFor(config: { double(key: 'mock.flush.inline.sync.max.ms' | 'mock.flush.inline.sync.wait.ms'): number }): InlineSyncGate {
  let gate = perServer.get(config);
  if (gate === undefined) {
    gate = new InlineSyncGate(config.double('mock.flush.inline.sync.max.ms'), undefined, config.double('mock.flush.inline.sync.wait.ms'));
    perServer.set(config, gate);
  }
  return gate;
}
