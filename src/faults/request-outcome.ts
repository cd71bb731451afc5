import { NO_RESPONSE, type RequestDone } from '../apis/types.js';
import type { ConnectionIO } from './actions/index.js';
import type { LoggedRequest, RequestLog, RequestLogEntry } from './request-log.js';
import { wallNow } from '../util/time.js';

/**
 * How one request of the fault layer ends: its request-log entry's outcome, duration and errors
 * set, the request-done listeners told, the response sent. One object per request with methods,
 * not a set of closures made for every request (issue #16: the commit path allocates per request).
 */
export class RequestOutcome {
  constructor(
    private readonly log: RequestLog,
    private readonly entry: LoggedRequest,
    private readonly io: ConnectionIO,
    /** Wall-clock ms the request arrived (`wallNow()`). */
    private readonly started: number,
    private readonly doneListeners: ReadonlySet<(entry: Readonly<RequestLogEntry>) => void>,
    /** The API's reader of its responses' error codes (`ApiDefinition.errorCodes`), if it has one. */
    private readonly errorCodes?: (response: unknown) => readonly number[] | null,
  ) {
    this.seq = entry.seq;
  }

  /** The entry's `seq` for this request: the log reuses an entry once its outcome is set (`RequestLog.add`). */
  private readonly seq: number;

  /** Sets the outcome; with `walk`, the response's error codes are gathered too. */
  private finishWith(outcome: RequestLogEntry['outcome'], response: unknown, walk: boolean): void {
    const entry = this.entry;
    // A second outcome (a fault action failing after it set one) after the entry went to a later
    // request would be that request's: left out.
    if (entry.seq !== this.seq) return;
    entry.outcome = outcome;
    entry.durationMs = wallNow() - this.started;
    if (walk && response !== undefined && response !== NO_RESPONSE) entry.setResponse(response);
    this.log.settled(entry);
    if (this.doneListeners.size !== 0) for (const listener of this.doneListeners) listener(entry);
  }

  /** The request ends without the handler's response (a fault action: closed, no response, failed). */
  finish(outcome: RequestLogEntry['outcome'], response?: unknown): void {
    this.finishWith(outcome, response, true);
  }

  /** Logs and sends `response`; `walk`: its error codes are still to be gathered. */
  respondWith(response: unknown, walk: boolean): void {
    this.finishWith(response === NO_RESPONSE ? 'no-response' : this.io.isClosed() ? 'closed' : 'response', response, walk);
    this.io.send(response);
  }

  /**
   * The handler's response, without a rule: a response of a million partitions has its error
   * codes gathered a slice per turn before it is sent (the connection stays muted meanwhile, so
   * answers keep their order); null when sent at once.
   */
  answer(response: unknown): Promise<void> | null {
    const walking = response === NO_RESPONSE ? null : this.entry.setResponseInSlices(response, this.errorCodes);
    if (walking === null) {
      this.respondWith(response, false);
      return null;
    }
    return walking.then(() => this.respondWith(response, false));
  }

  /** `answer`, then the connection is told (`whenDone`) once the answer is sent or failed. */
  answerThen(response: unknown, whenDone: RequestDone): void {
    let walking: Promise<void> | null;
    try {
      walking = this.answer(response);
    } catch (err) {
      whenDone.requestFailed(err);
      return;
    }
    if (walking === null) whenDone.requestDone();
    else walking.then(() => whenDone.requestDone(), (err: unknown) => whenDone.requestFailed(err));
  }

  /** `failed`, telling the connection (`whenDone`) instead of throwing. */
  failedThen(err: unknown, whenDone: RequestDone): void {
    this.finish('failed');
    whenDone.requestFailed(err);
  }

  /** The handler failed: logged as `failed`, and the error goes on (the connection closes). */
  failed(err: unknown): never {
    this.finish('failed');
    throw err;
  }
}
