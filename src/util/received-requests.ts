/**
 * Where a coordinator timer's operation waits behind the requests the server has already read.
 * Kafka's `CoordinatorTimerImpl` does not run an expired timer's operation on the timer thread: it
 * schedules it as a write event at the tail of the coordinator's event queue, behind the requests
 * already handed to the coordinator, and skips it if the timer was cancelled or replaced meanwhile.
 * Here a request read from a socket may wait a turn or more before it is handled (while connections
 * are arriving, server/turn-budget.ts bounds each turn's work), and a timer firing meanwhile would
 * run before it: a classic group's 0 ms initial-rebalance timer would end the first generation
 * without the JoinGroups already read. The server installs its queue of read requests here
 * (`setReceivedRequestsQueue`); without a server (unit tests, the manual clock) the operation runs
 * at once.
 */

type Queue = (fn: () => void) => void;

const runNow: Queue = (fn) => fn();
let queue: Queue = runNow;

/** Runs `fn` after the requests already read and waiting to be handled (at once when none wait). */
export function afterReceivedRequests(fn: () => void): void {
  queue(fn);
}

/** Installs the server's queue of read requests (server/turn-budget.ts `runBehindWaiting`). */
export function setReceivedRequestsQueue(next: Queue): void {
  queue = next;
}

/**
 * Whether a listener accepted a connection within the last `quietMs` (real time): clients may be
 * arriving whose first requests are not read yet. Kafka's acceptor thread takes a burst of
 * connections at once and its network threads read them in parallel, so their JoinGroups are queued
 * before a group's 0 ms initial-rebalance timer fires; Node accepts one connection per event-loop
 * turn (server/turn-budget.ts), and the classic rebalancer waits for such a burst to settle
 * (`ARRIVALS_WAIT_MS` at most) before it ends a first generation. False without a server.
 */
export function connectionsArriving(quietMs: number): boolean {
  return arriving(quietMs);
}

let arriving: (quietMs: number) => boolean = () => false;

/** Installs the server's view of arriving connections (server/turn-budget.ts `acceptedWithin`). */
export function setConnectionsArriving(next: (quietMs: number) => boolean): void {
  arriving = next;
}
