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
