/**
 * Bursts: work that follows on from itself within one event-loop turn. A log's group commit
 * (storage/partition-log.ts) writes the appends of one turn with one write; the answers it
 * unblocks let muted connections take their next, already buffered request, whose appends make
 * the next *round* of the burst instead of waiting for the next turn. Every connection still has
 * one request in flight at a time, as Kafka's `Processor` mutes a channel from a complete request
 * until its response is sent; what a round saves is an event-loop turn per pipelined request.
 *
 * Mechanics: a round runs once everything its previous round set off synchronously has settled
 * (the microtask queue drained: `queueMicrotask` then `process.nextTick`, which Node runs only
 * after the microtasks), so that one round gathers every connection's next request. A burst ends
 * when a round starts nothing new, or after `MAX_ROUNDS` rounds or `MAX_BURST_MS` (other sockets'
 * data waits meanwhile); work still asked for then runs in the next turn (`setImmediate`).
 *
 * The answers of all of a burst's rounds leave together: a connection with a further request
 * buffered holds what it writes during a burst and writes it when the burst ends (`atBurstEnd`), so
 * a pipelining client gets one socket write per burst instead of one per request; a connection with
 * nothing more buffered writes its answer at once (server/connection.ts).
 */
// Node's own `performance`, not the global: on Node 20 every read of the global goes through a lazy
// getter (internal/util's defineReplaceableLazyAttribute), 1.7% of a commit's CPU in a profile (#16).
import { performance } from 'node:perf_hooks';

/** Rounds per burst: a connection serves at most this many pipelined requests before the event loop polls again. */
export const MAX_ROUNDS = 8;
/** Wall-clock bound on a burst (ms): other connections' requests are read soon enough. */
export const MAX_BURST_MS = 2;

let active = false;
let rounds = 0;
let startedAt = 0;
let settleQueued = false;
let work: Array<() => void> = [];
let ending: Array<() => void> = [];

/** Runs `settle` once everything set off so far has run (ticks come after the drained microtasks). */
function queueSettle(): void {
  if (settleQueued) return;
  settleQueued = true;
  queueMicrotask(() => process.nextTick(settle));
}

function settle(): void {
  settleQueued = false;
  if (work.length > 0) {
    const next = work;
    work = [];
    if (rounds < MAX_ROUNDS && performance.now() - startedAt < MAX_BURST_MS) {
      rounds++;
      runAll(next);
      queueSettle();
      return;
    }
    for (const fn of next) setImmediate(fn);
  }
  active = false;
  if (ending.length > 0) {
    const fns = ending;
    ending = [];
    runAll(fns);
  }
}

/** Runs every function even if one throws; a throw is rethrown afterwards as an uncaught error (what `setImmediate` would have made of it). */
function runAll(fns: ReadonlyArray<() => void>): void {
  for (const fn of fns) {
    try {
      fn();
    } catch (err) {
      process.nextTick(() => {
        throw err;
      });
    }
  }
}

/**
 * Marks the start of a burst's first round (a log's turn write); a no-op inside a burst. The burst
 * ends once the work it sets off has settled.
 */
export function beginBurst(): void {
  if (active) return;
  active = true;
  rounds = 0;
  startedAt = performance.now();
  queueSettle();
}

/** True while a burst can take another round: `nextRound` then runs `fn` sooner than `setImmediate`. */
export function burstOpen(): boolean {
  return active && rounds < MAX_ROUNDS;
}

/** True from `beginBurst` until the burst's work has settled (also in a last round that can take no further one). */
export function inBurst(): boolean {
  return active;
}

/** Runs `fn` once the current burst has ended (call only while `inBurst()`). */
export function atBurstEnd(fn: () => void): void {
  ending.push(fn);
}

/** Runs `fn` in the burst's next round (call only while `burstOpen()`). */
export function nextRound(fn: () => void): void {
  work.push(fn);
  queueSettle();
}
