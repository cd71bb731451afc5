/**
 * Clients about to send their next request: a log's connections answered a moment ago with nothing
 * more of theirs read since. A client committing one request at a time sends its next commit a
 * client turnaround (~0.05-0.2 ms) after its answer.
 *
 * Why (issue #16): under `mock.flush.policy=always` one fdatasync on the event-loop thread carries
 * the commits read before it (storage/partition-log.ts). With 16 connections committing one at a
 * time, the answers of one sync went out while the other half's commits were already read, and the
 * two halves settled into alternating syncs of ~8 commits each, each half waiting two cycles. So
 * before an inline sync a log first waits a few event-loop turns for the clients whose appends its
 * previous sync acknowledged (`whileClientsReturn`, `mock.flush.inline.sync.wait.ms`), and one sync
 * carries all 16. As PostgreSQL's `commit_delay` waits only while `commit_siblings` other
 * transactions are open, only those clients are waited for: not one whose next request was read
 * already (a pipelining client), nor one that sent anything since (a client busy with other
 * requests), nor any other connection (a producer writing to another log, a metadata poller); a
 * lone client waits for nothing. And a step holding an append made outside any request (a
 * transaction's markers and completion, written after EndTxn was answered) does not wait at all:
 * the clients it would wait for may be waiting for it (their next AddPartitionsToTxn is refused
 * CONCURRENT_TRANSACTIONS until the completion is written).
 *
 * Which client made an append: the connection whose request is being handled when the log is
 * appended to (`servingClient`), as handlers append before their first await; an append made later
 * (after a coordinator load, say) has none, and its client is not waited for.
 */
// Node's own `performance`, not the global (see util/burst.ts).
import { performance } from 'node:perf_hooks';

/** Answered connections not heard from since, with when (performance.now, ms). */
const answeredAt = new Map<object, number>();
/** When each connection's bytes last arrived (performance.now, ms), until it closes. */
const heardAt = new Map<object, number>();
/** Off until a log first waits: a server with no log under 'always' keeps no count. */
let tracking = false;
/** The connection whose request is being handled now (null between requests). */
let serving: object | null = null;

/** `connection` starts (or, with null, ends) handling a request: appends made meanwhile are its. */
export function setServingClient(connection: object | null): void {
  serving = connection;
}

/** The connection whose request is being handled now, if any. */
export function servingClient(): object | null {
  return serving;
}

/** `connection` sent an answer and holds no further request. */
export function noteAnswered(connection: object): void {
  if (!tracking) return;
  answeredAt.set(connection, performance.now());
}

/** Bytes arrived on `connection`: it is not awaited any more. */
export function noteHeard(connection: object): void {
  if (!tracking) return;
  answeredAt.delete(connection);
  heardAt.set(connection, performance.now());
}

/** `connection` closed: forgotten. */
export function noteClosed(connection: object): void {
  answeredAt.delete(connection);
  heardAt.delete(connection);
}

/** A clock reading to pass as `whileClientsReturn`'s `since` (performance.now, ms). */
export function clientsClock(): number {
  return performance.now();
}

/** How long a wait looks again every event-loop turn (ms); after that, once a millisecond (a timer), so that a long window costs no CPU. */
export const TURN_BY_TURN_MS = 1;

/**
 * Resolves once none of `clients` is still to send again: a client counts while its answer is the
 * last thing it got, it sent nothing since `since` (the clock reading when the log acknowledged it:
 * a client that went on to other requests meanwhile is not coming back with an append), and that
 * answer is at most `windowMs` (ms) old. Yields an event-loop turn at a time meanwhile (their
 * requests are read in those turns; past TURN_BY_TURN_MS a millisecond at a time): at once when
 * none counts, after `windowMs` at most. Takes out of `clients` those it no longer waits for. The
 * first call starts the count.
 */
export async function whileClientsReturn(clients: Set<object>, windowMs: number, since: number): Promise<void> {
  tracking = true;
  const startedAt = performance.now();
  const until = startedAt + windowMs;
  for (let now = startedAt; now < until; now = performance.now()) {
    for (const client of clients) {
      const at = answeredAt.get(client);
      if (at === undefined || (heardAt.get(client) ?? -Infinity) > since || now - at > windowMs) clients.delete(client);
    }
    if (clients.size === 0) return;
    await new Promise<void>((resolve) => (now - startedAt < TURN_BY_TURN_MS ? setImmediate(resolve) : setTimeout(resolve, 1)));
  }
}
