/**
 * While connections are arriving, the work done for sockets' data within one event-loop turn is
 * bounded, so the loop comes back to its poll phase often. Node accepts one connection per turn
 * (libuv 1.45+ accepts once per poll of the listening socket), and a turn answers every request
 * read in it: under a burst of new clients (a thousand consumers joining one group at once), the
 * clients already accepted keep the turns long while the rest wait in the listen queue, joining
 * seconds late (Kafka's acceptor thread takes them all meanwhile). So for `ACCEPTING_MS` after an
 * accept, once a turn's work has taken `TURN_BUDGET_MS`, the data of sockets read after that waits,
 * in arrival order, for the next turns' check phases, each after one more poll (and one more
 * accept). Without accepts (a steady load) every socket's data is handled at once, as before.
 * Only the moment a socket's new data is taken up moves: each connection still serves its requests
 * one at a time in order, and connections are taken up in the order their data arrived.
 */
// Node's own `performance`, not the global: on Node 20 every read of the global goes through a lazy
// getter (internal/util's defineReplaceableLazyAttribute), 1.7% of a commit's CPU in a profile (#16).
import { performance } from 'node:perf_hooks';

/** Wall-clock work per turn (ms) before further sockets' data waits for the next turn, while accepting. */
export const TURN_BUDGET_MS = 1;
/** How long after an accept (ms) turns are bounded. */
export const ACCEPTING_MS = 50;

/** performance.now() of the last accepted connection. */
let acceptedAt = -Infinity;
/**
 * An accept was noted and its ACCEPTING_MS were not yet seen to pass: only then does a socket's data
 * read the clock (issue #16: a clock read per request under a steady load, for nothing).
 */
let accepting = false;
/** performance.now() when this turn's first work began; -1: none yet this turn. */
let turnStartedAt = -1;
let waiting: Array<() => void> = [];
let waitingHead = 0;
/** A `runWaiting` is queued for the next turn's check phase. */
let resumeQueued = false;

/** A listener accepted a connection: more may wait in its queue. */
export function noteAccepted(): void {
  acceptedAt = performance.now();
  accepting = true;
}

/** Whether a connection was accepted within the last `quietMs` (real time). */
export function acceptedWithin(quietMs: number): boolean {
  return performance.now() - acceptedAt <= quietMs;
}

/** Runs `fn` now, or after the next poll when this turn's budget is spent while accepting (or others wait already). */
export function runInTurn(fn: () => void): void {
  if (waitingHead === waiting.length) {
    if (!accepting) {
      fn();
      return;
    }
    const now = performance.now();
    if (now - acceptedAt > ACCEPTING_MS) {
      accepting = false;
      fn();
      return;
    }
    if (turnStartedAt < 0) {
      turnStartedAt = now;
      setImmediate(endTurn);
    }
    if (now - turnStartedAt < TURN_BUDGET_MS) {
      fn();
      return;
    }
  }
  waiting.push(fn);
  queueResume();
}

/**
 * Runs `fn` now when no socket's data waits for a later turn, else after what waits (in arrival
 * order): a coordinator timer's operation queued behind the requests already read
 * (util/received-requests.ts). Unlike `runInTurn` it never waits for the budget alone.
 */
export function runBehindWaiting(fn: () => void): void {
  if (waitingHead === waiting.length) fn();
  else waiting.push(fn); // a `runWaiting` is queued whenever something waits
}

/** The check phase of a turn that did work: the next turn starts a new budget. */
function endTurn(): void {
  turnStartedAt = -1;
}

/**
 * Runs what waits in the check phase of the next turn, after its poll: an immediate queued by an
 * immediate runs in the next turn, so from a poll phase (socket data) it goes through `nextTurn`.
 */
function queueResume(inCheckPhase = false): void {
  if (resumeQueued) return;
  resumeQueued = true;
  setImmediate(inCheckPhase ? runWaiting : nextTurn);
}

function nextTurn(): void {
  setImmediate(runWaiting);
}

/** Runs what waits, oldest first, for one budget (at least one function, so what waits always moves). */
function runWaiting(): void {
  resumeQueued = false;
  const startedAt = performance.now();
  try {
    do {
      const fn = waiting[waitingHead]!;
      waiting[waitingHead++] = undefined as unknown as () => void;
      fn();
    } while (waitingHead < waiting.length && performance.now() - startedAt < TURN_BUDGET_MS);
  } finally {
    // Even after a throw (an uncaught error, as it would have been from the socket's 'data' event), the rest still runs.
    if (waitingHead === waiting.length) {
      waiting = [];
      waitingHead = 0;
    } else {
      queueResume(true);
    }
  }
}
