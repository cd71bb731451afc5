/**
 * A share partition's records in flight as runs of consecutive offsets in one state (Kafka 4.3.1's
 * `SharePartition.cachedState`: a `NavigableMap` of `InFlightBatch`es, each one state for its
 * whole range until a change splits it per offset). A run is split where a change begins or ends
 * and joined again with a neighbour left in the same state (`compact`), so the work and memory of
 * every operation follow the number of runs, not of offsets: a state batch of five million
 * acknowledged offsets, a compacted-away gap of millions, an acknowledgement naming a range far
 * below the start offset are each one run (adversarial trial, session 23: one entry per offset
 * took seconds and gigabytes).
 */

/** One acquisition lock: the offsets it covers that still point at it are released when it fires. */
export interface LockTask {
  readonly memberId: string;
  timer: { cancel(): void } | null;
  /** When the lock runs out (ms, the share partition's clock): a timer started again for it (a failed change put its records back) keeps this deadline. */
  expiresAt: number;
  /** Offsets still under this lock: the timer is cancelled when none is left. */
  held: number;
}

/** What every offset of a run shares. */
export interface RunState {
  /** RecordState: AVAILABLE, ACQUIRED, ACKNOWLEDGED or ARCHIVED. */
  state: number;
  deliveryCount: number;
  /** The member holding the records while ACQUIRED. */
  memberId: string | null;
  lock: LockTask | null;
}

/** A run of offsets `first`..`last` (inclusive) in one state. */
export interface Run extends RunState {
  first: bigint;
  last: bigint;
  /** Writes in flight carrying a change of these offsets (Kafka's `hasOngoingStateTransition`). */
  writes: number;
}

/** How many offsets a run holds. */
export function runLength(run: Run): number {
  return Number(run.last - run.first + 1n);
}

/** A run's shared state, copied (what a failed write puts back). */
export function stateOf(run: Run): RunState {
  return { state: run.state, deliveryCount: run.deliveryCount, memberId: run.memberId, lock: run.lock };
}

/** Sorted, non-overlapping runs. */
export class InFlightRuns {
  private runs: Run[] = [];

  get isEmpty(): boolean {
    return this.runs.length === 0;
  }

  /** Every run, lowest offsets first (a copy: the caller may change runs' states while walking it). */
  all(): Run[] {
    return [...this.runs];
  }

  /** The first run at or after `offset` (null when none). */
  firstFrom(offset: bigint): Run | null {
    const i = this.lowerBound(offset);
    return i < this.runs.length ? this.runs[i]! : null;
  }

  /** Adds `run` after every run held (its first offset past their last). */
  append(run: Run): void {
    this.runs.push(run);
  }

  /**
   * The runs covering `first`..`last`, split so that none reaches outside; offsets no run holds
   * are left out. Splitting keeps each run object on its lower part, so runs a caller holds stay
   * what they were for their lower offsets.
   */
  slice(first: bigint, last: bigint): Run[] {
    if (first > last) return [];
    this.splitAt(first);
    this.splitAt(last + 1n);
    const from = this.lowerBound(first);
    let to = from;
    while (to < this.runs.length && this.runs[to]!.last <= last) to++;
    return this.runs.slice(from, to);
  }

  /** Splits the run holding `offset` (if it starts below it) into `..offset - 1` and `offset..`. */
  splitAt(offset: bigint): void {
    const i = this.lowerBound(offset);
    // The run before the lower bound may hold `offset` (it starts below it).
    const at = i > 0 && this.runs[i - 1]!.last >= offset ? i - 1 : -1;
    if (at < 0) return;
    const run = this.runs[at]!;
    const upper: Run = { ...run, first: offset };
    run.last = offset - 1n;
    this.runs.splice(at + 1, 0, upper);
  }

  /** Removes `run` (one of these runs). */
  remove(run: Run): void {
    const i = this.lowerBound(run.first);
    if (this.runs[i] === run) this.runs.splice(i, 1);
  }

  /** Removes the runs `drop` approves. */
  removeWhere(drop: (run: Run) => boolean): void {
    this.runs = this.runs.filter((run) => !drop(run));
  }

  /** Joins neighbouring runs of consecutive offsets with the same state, count, member, lock and writes. */
  compact(): void {
    const out: Run[] = [];
    for (const run of this.runs) {
      const last = out[out.length - 1];
      if (last && last.last + 1n === run.first && last.state === run.state && last.deliveryCount === run.deliveryCount && last.memberId === run.memberId && last.lock === run.lock && last.writes === run.writes) {
        last.last = run.last;
      } else out.push(run);
    }
    this.runs = out;
  }

  /** Index of the first run whose first offset is at or after `offset`. */
  private lowerBound(offset: bigint): number {
    let lo = 0;
    let hi = this.runs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.runs[mid]!.first < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
