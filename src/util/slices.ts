/**
 * Work done in slices (issue #16: no request keeps the event loop from the others): a generator
 * yields between slices, and `runInSlices` resumes it in the next turn of the event loop
 * (`setImmediate`, after the poll phase has read the other sockets).
 */
// Node's own `performance`: the global's reads go through a lazy getter on Node 20 (server/turn-budget.ts).
import { performance } from 'node:perf_hooks';

/** The next turn of the event loop. */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** Runs `work` to its end, one slice (up to its next `yield`) per turn of the event loop; rejects with what it throws. */
export async function runInSlices<T>(work: Generator<void, T>): Promise<T> {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    await nextTurn();
  }
}

/**
 * Runs `work`'s first slice now: its value when that was all (a small request, answered at once),
 * else a promise of the rest, one slice per turn of the event loop from the next.
 */
export function runSoon<T>(work: Generator<void, T>): T | Promise<T> {
  const first = work.next();
  return first.done ? first.value : nextTurn().then(() => runInSlices(work));
}

/** Runs `work` to its end at once (work too small to be worth slicing). */
export function runNow<T>(work: Generator<void, T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

/**
 * `items.map(fn)`, `perSlice` items (or SLICE_BUDGET_MS of them, looked at every MAP_BUDGET_EVERY)
 * per turn of the event loop, the first slice at once: a request naming hundreds of thousands of
 * ids leaves the others their turns, and so does one naming a few hundred long ones (400
 * transactional ids of 32,000 characters, each hashed and compared in full, held other
 * connections ~90 ms in one turn).
 */
export function mapInSlices<T, U>(items: readonly T[], perSlice: number, fn: (item: T) => U): Promise<U[]> {
  function* work(): Generator<void, U[]> {
    const out: U[] = new Array(items.length);
    const slicer = new Slicer(perSlice, MAP_BUDGET_EVERY);
    for (let i = 0; i < items.length; i++) {
      out[i] = fn(items[i]!);
      if (i + 1 < items.length && slicer.due()) yield;
    }
    return out;
  }
  return Promise.resolve(runSoon(work()));
}

/** Items `mapInSlices` maps between two looks at the turn's budget (a short list reads no clock). */
const MAP_BUDGET_EVERY = 16;

/**
 * Wall-clock work (ms) one slice may take before it yields, whatever its item count: a slice of
 * synchronous, durable file writes (a partition's directory and metadata) takes far longer on a
 * loaded disk than its count suggests (issue #16: 256 partitions held other connections 2 s).
 */
export const SLICE_BUDGET_MS = 10;

/** When this turn's sliced work began (performance.now(), ms); -1 before any this turn. */
let turnWorkStart = -1;
function endTurnWork(): void {
  turnWorkStart = -1;
}

/**
 * Whether the sliced work of this turn of the event loop, of every sliced loop together, has had
 * its `SLICE_BUDGET_MS`: one budget per turn, not one per loop, so fifty admin requests working in
 * slices at once make a turn of ~10 ms, not of fifty times that (adversarial trial, session 19:
 * fifty concurrent listings added 276 ms to the median Kafka request). The first call of a turn
 * starts the budget; it ends in the check phase after it (a budget started in a check phase lasts
 * into the next turn's poll, which only makes the next loop to look yield sooner).
 */
export function sliceBudgetSpent(): boolean {
  const now = performance.now();
  if (turnWorkStart < 0) {
    turnWorkStart = now;
    setImmediate(endTurnWork);
    return false;
  }
  return now - turnWorkStart >= SLICE_BUDGET_MS;
}

/**
 * Counts a loop's items: `next()` before each item but the first yields a turn of the event loop
 * once `maxItems` items have gone by since the last yield, or this turn's sliced work (of all
 * loops, `sliceBudgetSpent`) has had `SLICE_BUDGET_MS`. Each loop does at least one item per turn.
 * `budgetEvery` > 1 looks at the budget only every that many items: a loop on the request path
 * (Produce, Fetch) whose usual request has a few partitions then reads no clock and schedules
 * nothing for it.
 */
export class Slicer {
  private items = 0;

  constructor(
    private readonly maxItems: number,
    private readonly budgetEvery = 1,
  ) {}

  /** `next()` without the promise: whether the loop yields a turn before its next item (`await nextTurn()` or a generator's `yield`). */
  due(): boolean {
    const items = ++this.items;
    if (items < this.maxItems && (items % this.budgetEvery !== 0 || !sliceBudgetSpent())) return false;
    this.items = 0;
    return true;
  }

  async next(): Promise<void> {
    if (this.due()) await nextTurn();
  }
}
