/**
 * Clients about to send their next request: connections answered a moment ago with nothing more of
 * theirs read since. A client committing one request at a time sends its next commit a client
 * turnaround (~0.05-0.2 ms) after its answer.
 *
 * Why (issue #16): under `mock.flush.policy=always` one fdatasync on the event-loop thread carries
 * the commits read before it (storage/partition-log.ts). With 16 connections committing one at a
 * time, the answers of one sync went out while the other half's commits were already read, and the
 * two halves settled into alternating syncs of ~8 commits each, each half waiting two cycles. So
 * before an inline sync a log first waits a few event-loop turns for the clients it just answered
 * (`whileClientsReturn`, `mock.flush.inline.sync.wait.ms`), and one sync carries all 16. As
 * PostgreSQL's `commit_delay` waits only while `commit_siblings` other transactions are open: a
 * lone client (its connection is not counted while its own request is in flight) or a pipelining
 * one (its next request is read already) waits for nothing, and nobody waits longer than the
 * window after the last answer.
 *
 * One registry per process (the connections of every listener and server share the loop the wait
 * holds), counting only once a log first waits.
 */
// Node's own `performance`, not the global (see util/burst.ts).
import { performance } from 'node:perf_hooks';

/** Answered connections not heard from since, least recently answered first, with when (performance.now, ms). */
const answeredAt = new Map<object, number>();
/** Off until a log first waits (`whileClientsReturn`): a server with no log under 'always' keeps no count. */
let tracking = false;

/** `connection` sent an answer and holds no further request. */
export function noteAnswered(connection: object): void {
  if (!tracking) return;
  answeredAt.delete(connection);
  answeredAt.set(connection, performance.now());
}

/** Bytes arrived on `connection`, or it closed: it is not awaited any more. */
export function noteHeard(connection: object): void {
  if (tracking) answeredAt.delete(connection);
}

/** True while a connection answered within the last `windowMs` (ms) has not been heard from. */
export function clientsReturning(windowMs: number, now: number = performance.now()): boolean {
  for (const [connection, at] of answeredAt) {
    if (now - at <= windowMs) return true;
    answeredAt.delete(connection); // oldest first: the rest are younger
  }
  return false;
}

/**
 * Resolves once no connection answered within the last `windowMs` (ms) is still to send again
 * (`clientsReturning`), yielding an event-loop turn at a time meanwhile (their requests are read in
 * those turns): at once when none is, after `windowMs` at most. The first call starts the count.
 */
export async function whileClientsReturn(windowMs: number): Promise<void> {
  tracking = true;
  const until = performance.now() + windowMs;
  for (let now = performance.now(); now < until && clientsReturning(windowMs, now); now = performance.now()) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
