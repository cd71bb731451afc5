import { errorName } from '../protocol/errors.js';
import { runInSlices } from '../util/slices.js';

/** One request as the server saw it (the request log of the control API). */
export interface RequestLogEntry {
  /** Increasing sequence number (survives `clear`). */
  seq: number;
  /** Wall-clock time the request arrived (ISO 8601). */
  time: string;
  api: string;
  apiKey: number;
  version: number;
  correlationId: number;
  clientId: string;
  connectionId: string;
  /** The broker that received it (its `node.id`; with `--brokers N`, the one whose listener took the connection). */
  brokerId: number;
  /** Who sent it, as Kafka's `KafkaPrincipal` prints (`User:alice`; `User:ANONYMOUS` without authentication). */
  principal: string;
  /** The first group the request names, or null. */
  group: string | null;
  /** The groups the request names (the first 100, 8,192 characters in all: `LOGGED_NAMES_MAX`). */
  groups: string[];
  /** The first member id the request names, or null. */
  memberId: string | null;
  /** The topics the request names, each once (the first 100, 8,192 characters in all). */
  topics: string[];
  /** The first transactional id the request names, or null. */
  transactionalId: string | null;
  /** The error returned: the top-level error if any, else the first per-entry error; null for NONE or no response. */
  error: string | null;
  /** Every distinct error in the response. */
  errors: string[];
  /** Ids of the fault rules that fired on this request. */
  faults: string[];
  /**
   * Whether the server ran the request's handler, so that what it writes is applied whether or not
   * its answer reached the client (a `close` after it, a client gone during a `delay`); false while
   * pending, and when a fault rule answered, hung or closed instead of it, or the request died with
   * its stopped broker. An error rule on some partitions of a request handles the rest: true.
   */
  handled: boolean;
  /** `response` (answered), `no-response` (acks=0 or a hang), `closed` (connection closed by a fault), `failed` (handler error), `pending`. */
  outcome: 'pending' | 'response' | 'no-response' | 'closed' | 'failed';
  /** Real milliseconds from arrival to the outcome. */
  durationMs: number | null;
}

export interface RequestLogFilter {
  api?: string | number;
  group?: string;
  clientId?: string;
  transactionalId?: string;
  /** Only requests this broker received. */
  brokerId?: number;
  /** Only entries with seq greater than this. */
  sinceSeq?: number;
  /** The newest N entries (default all kept). */
  limit?: number;
  /**
   * Only requests that failed: answered with an error, on which a fault rule fired, or closed or
   * failed without an answer. The log keeps the last `capacity` of those too, beyond the last
   * `capacity` requests (consumers' Fetches push an error out of the whole log within seconds).
   */
  failed?: boolean;
  /**
   * Only requests answered with this error (Kafka's name, as `UNKNOWN_MEMBER_ID`; FaultRegistry
   * also takes a code) anywhere in the response: failed ones, so the failures kept beyond the log
   * are searched too. `NONE`: those answered without an error (as the console shows them).
   */
  error?: string;
}

/** Whether a settled entry is one `RequestLogFilter.failed` lists. */
function isFailed(e: Readonly<RequestLogEntry>): boolean {
  return e.error !== null || e.faults.length > 0 || e.outcome === 'closed' || e.outcome === 'failed';
}

/** Distinct non-zero `errorCode`s (and `partitionErrorCode`s) in a response (top-level first, then depth first), skipping byte buffers. */
export function responseErrors(response: unknown): number[] {
  const walk = new ErrorWalk(response);
  walk.step(Infinity);
  return walk.found === NO_CODES ? [] : walk.found;
}

/**
 * Objects (structs and arrays) of a response walked for its error codes in one turn of the event
 * loop, a few ms: a bigger response (a million partitions) is walked a slice per turn
 * (`LoggedRequest.setResponseInSlices`, issue #16 item 5).
 */
export const ERROR_WALK_OBJECTS_PER_SLICE = 65_536;

/**
 * The error codes of a response, gathered depth first (to depth 6) with a stack of its own so the
 * walk can stop after any number of objects and go on later. On the request path for every
 * response: `for...in` over plain decoded objects, one stack array per response.
 */
class ErrorWalk {
  /** The codes found; the shared empty list until the first (most responses carry none). */
  found: number[] = NO_CODES;
  /** Values still to visit, the next last, each followed by its depth. */
  private stack: unknown[];

  /** `stack`: an empty array to use (the shared one of `walkNow`), else one of its own. */
  constructor(response: unknown, stack: unknown[] = []) {
    this.stack = stack;
    this.reset(response);
  }

  /** Starts over on `response` (the stack must be empty). */
  reset(response: unknown): void {
    this.found = NO_CODES;
    if (response !== null && typeof response === 'object') {
      this.add((response as Record<string, unknown>)['errorCode']);
      this.stack.push(response, 0);
    }
  }

  /** The walk goes on in a walk of its own (its stack and codes moved there); this one is empty again. */
  handOver(): ErrorWalk {
    const rest = new ErrorWalk(null, this.stack);
    rest.found = this.found;
    this.stack = [];
    this.found = NO_CODES;
    return rest;
  }

  /** Visits up to `objects` objects; true once every one has been. */
  step(objects: number): boolean {
    const { stack } = this;
    for (let n = 0; n < objects && stack.length > 0; n++) {
      const depth = stack.pop() as number;
      const value = stack.pop();
      if (depth > 6 || value === null || typeof value !== 'object' || value instanceof Uint8Array) continue;
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) stack.push(value[i], depth + 1);
        continue;
      }
      const obj = value as Record<string, unknown>;
      this.add(obj['errorCode']);
      // AddPartitionsToTxn v0-3 answers per partition in `partitionErrorCode`.
      this.add(obj['partitionErrorCode']);
      const from = stack.length;
      for (const k in obj) {
        const v = obj[k];
        if (k !== 'errorCode' && typeof v === 'object' && v !== null) stack.push(v, depth + 1);
      }
      reversePairs(stack, from);
    }
    return stack.length === 0;
  }

  private add(code: unknown): void {
    if (typeof code !== 'number' || code === 0) return;
    if (this.found === NO_CODES) this.found = [code];
    else if (!this.found.includes(code)) this.found.push(code);
  }

  /** The walk to its end, `ERROR_WALK_OBJECTS_PER_SLICE` objects per slice. */
  *inSlices(): Generator<void, number[]> {
    while (!this.step(ERROR_WALK_OBJECTS_PER_SLICE)) yield;
    return this.found;
  }
}

/** The codes of a response without errors (never added to: `ErrorWalk.add` replaces it). */
const NO_CODES: number[] = [];

/**
 * The walk of every response not walked in slices: one for the process, its stack empty between
 * responses (issue #16: a walk object and two arrays per request otherwise).
 */
const walkNow = new ErrorWalk(null);

/** Reverses the (value, depth) pairs of `stack` from index `from` on, so the first field pushed is visited first. */
function reversePairs(stack: unknown[], from: number): void {
  for (let i = from, j = stack.length - 2; i < j; i += 2, j -= 2) {
    const v = stack[i];
    const d = stack[i + 1];
    stack[i] = stack[j];
    stack[i + 1] = stack[j + 1];
    stack[j] = v;
    stack[j + 1] = d;
  }
}

/** Shared by every entry without errors or fault rules (never handed out: `toJSON` copies). */
const NONE: readonly string[] = Object.freeze([]);

/** What the fault layer knows of a request when it arrives (`timeMs`: wall-clock ms since the epoch). */
export type ArrivedRequest = Pick<RequestLogEntry, 'api' | 'apiKey' | 'version' | 'correlationId' | 'clientId' | 'connectionId' | 'brokerId' | 'principal' | 'groups' | 'memberId' | 'topics' | 'transactionalId'> & {
  timeMs: number;
};

/**
 * One request of the log, as the request path fills it: a class with its fields in one fixed
 * order, the ISO time formatted only when read, no arrays of its own until a response has errors or
 * a rule fires. Read as a `RequestLogEntry` (listeners); `toJSON` is the plain copy the admin API
 * and `FaultRegistry.requests` hand out.
 *
 * The log reuses an entry once a thousand newer requests have pushed it out and it is no longer in
 * flight (`RequestLog.add`): entries the log keeps otherwise survive a young-generation collection
 * or two each, and copying those was a tenth of the commit path's GC time (issue #16). Its
 * groups and topics are its own arrays, refilled; a listener copies what it keeps.
 */
export class LoggedRequest implements RequestLogEntry {
  seq = 0;
  /** Wall-clock ms since the epoch; NaN first, so V8 keeps it as an unboxed double updated in place. */
  timeMs = Number.NaN;
  api = '';
  apiKey = 0;
  version = 0;
  correlationId = 0;
  clientId = '';
  connectionId = '';
  brokerId = 0;
  principal = '';
  readonly groups: string[] = [];
  memberId: string | null = null;
  readonly topics: string[] = [];
  transactionalId: string | null = null;
  error: string | null = null;
  errors: string[] = NONE as string[];
  faults: string[] = NONE as string[];
  handled = false;
  outcome: RequestLogEntry['outcome'] = 'pending';
  durationMs: number | null = null;

  /** Starts the entry over for request `seq`, arriving at `timeMs`; the caller fills in the rest. */
  arrive(seq: number, timeMs: number): void {
    this.seq = seq;
    this.timeMs = timeMs;
    this.error = null;
    this.errors = NONE as string[];
    this.faults = NONE as string[];
    this.handled = false;
    this.outcome = 'pending';
    this.durationMs = null;
  }

  get time(): string {
    return new Date(this.timeMs).toISOString();
  }

  get group(): string | null {
    return this.groups[0] ?? null;
  }

  /** Notes a fault rule that fired on this request. */
  addFault(ruleId: string): void {
    this.faults = this.faults === NONE ? [ruleId] : [...this.faults, ruleId];
  }

  /** Sets `error` and `errors` from the response's error codes. */
  setResponse(response: unknown): void {
    this.setErrors(responseErrors(response));
  }

  /**
   * As `setResponse`: null when done at once; for a response of more than
   * `ERROR_WALK_OBJECTS_PER_SLICE` objects, a promise of the walk done a slice per turn of the event loop.
   */
  setResponseInSlices(response: unknown, errorCodes?: (response: unknown) => readonly number[] | null): Promise<void> | null {
    // The API reads its codes from the response's shape when it can (ApiDefinition.errorCodes).
    const known = errorCodes === undefined ? null : errorCodes(response);
    if (known !== null) {
      this.setErrors(known);
      return null;
    }
    walkNow.reset(response);
    if (walkNow.step(ERROR_WALK_OBJECTS_PER_SLICE)) {
      this.setErrors(walkNow.found);
      walkNow.found = NO_CODES;
      return null;
    }
    return runInSlices(walkNow.handOver().inSlices()).then((codes) => this.setErrors(codes));
  }

  private setErrors(codes: readonly number[]): void {
    if (codes.length === 0) return;
    this.errors = codes.map(errorName);
    this.error = this.errors[0]!;
  }

  /** The entry as a plain object, keys in the documented order (arrays copied). */
  toJSON(): RequestLogEntry {
    return {
      seq: this.seq,
      time: this.time,
      api: this.api,
      apiKey: this.apiKey,
      version: this.version,
      correlationId: this.correlationId,
      clientId: this.clientId,
      connectionId: this.connectionId,
      brokerId: this.brokerId,
      principal: this.principal,
      group: this.group,
      groups: [...this.groups],
      memberId: this.memberId,
      topics: [...this.topics],
      transactionalId: this.transactionalId,
      error: this.error,
      errors: [...this.errors],
      faults: [...this.faults],
      handled: this.handled,
      outcome: this.outcome,
      durationMs: this.durationMs,
    };
  }
}

/**
 * A ring buffer of the most recent requests: adding one is O(1) whatever the capacity. Beside it,
 * copies of the last `capacity` failed ones (`RequestLogFilter.failed`), taken as they settle.
 */
export class RequestLog {
  private readonly slots: Array<LoggedRequest | undefined>;
  /** Slot the next entry goes to. */
  private next = 0;
  /** Entries held (at most the capacity). */
  private size = 0;
  private seq = 0;
  /** The last `capacity` failed requests as they settled, oldest first (a ring: `failedNext`). */
  private readonly failures: Array<RequestLogEntry | undefined>;
  private failedNext = 0;

  constructor(readonly capacity = 1000) {
    this.slots = new Array<LoggedRequest | undefined>(Math.max(0, capacity)).fill(undefined);
    this.failures = new Array<RequestLogEntry | undefined>(Math.max(0, capacity)).fill(undefined);
  }

  /** Called as `entry` gets its outcome: a failed request is kept among the failures too (a copy). */
  settled(entry: LoggedRequest): void {
    if (this.capacity <= 0 || !isFailed(entry)) return;
    this.failures[this.failedNext] = entry.toJSON();
    this.failedNext = this.failedNext + 1 === this.capacity ? 0 : this.failedNext + 1;
  }

  /**
   * The entry of a request arriving at `timeMs` (wall-clock ms), its `seq` and time set, the rest
   * for the caller to fill: the oldest entry reused when the log is full and that request has its
   * outcome, else a new one (a request in flight keeps its entry, the log forgets it).
   */
  add(timeMs: number): LoggedRequest {
    const oldest = this.size === this.capacity ? this.slots[this.next] : undefined;
    const entry = oldest !== undefined && oldest.outcome !== 'pending' ? oldest : new LoggedRequest();
    entry.arrive(++this.seq, timeMs);
    if (this.capacity <= 0) return entry;
    this.slots[this.next] = entry;
    this.next = this.next + 1 === this.capacity ? 0 : this.next + 1;
    if (this.size < this.capacity) this.size++;
    return entry;
  }

  /** `add`, the entry filled from `request` (the request path fills its entry field by field). */
  record(request: ArrivedRequest): LoggedRequest {
    const entry = this.add(request.timeMs);
    entry.api = request.api;
    entry.apiKey = request.apiKey;
    entry.version = request.version;
    entry.correlationId = request.correlationId;
    entry.clientId = request.clientId;
    entry.connectionId = request.connectionId;
    entry.brokerId = request.brokerId;
    entry.principal = request.principal;
    entry.groups.splice(0, entry.groups.length, ...request.groups);
    entry.memberId = request.memberId;
    entry.topics.splice(0, entry.topics.length, ...request.topics);
    entry.transactionalId = request.transactionalId;
    return entry;
  }

  /** The entries held, oldest first. */
  private held(): LoggedRequest[] {
    const out: LoggedRequest[] = [];
    const first = (this.next - this.size + this.capacity) % Math.max(1, this.capacity);
    for (let i = 0; i < this.size; i++) out.push(this.slots[(first + i) % this.capacity]!);
    return out;
  }

  /** The failures kept that the log itself no longer holds (older than its oldest entry), oldest first. */
  private olderFailures(): RequestLogEntry[] {
    const oldestHeld = this.size === 0 ? Number.POSITIVE_INFINITY : this.slots[(this.next - this.size + this.capacity) % this.capacity]!.seq;
    const out: RequestLogEntry[] = [];
    for (let i = 0; i < this.capacity; i++) {
      const e = this.failures[(this.failedNext + i) % this.capacity];
      if (e !== undefined && e.seq < oldestHeld) out.push(e);
    }
    return out;
  }

  list(filter: RequestLogFilter = {}): RequestLogEntry[] {
    const api = filter.api === undefined ? undefined : String(filter.api).toLowerCase();
    const matches = (e: Readonly<RequestLogEntry>): boolean =>
      (api === undefined || e.api.toLowerCase() === api || String(e.apiKey) === api) &&
      (filter.group === undefined || e.groups.includes(filter.group)) &&
      (filter.clientId === undefined || e.clientId === filter.clientId) &&
      (filter.transactionalId === undefined || e.transactionalId === filter.transactionalId) &&
      (filter.brokerId === undefined || e.brokerId === filter.brokerId) &&
      (filter.sinceSeq === undefined || e.seq > filter.sinceSeq) &&
      (filter.failed !== true || (e.outcome !== 'pending' && isFailed(e))) &&
      (filter.error === undefined || (filter.error === 'NONE' ? e.error === null && e.outcome === 'response' : e.errors.includes(filter.error)));
    let out = this.held().filter(matches).map((e) => e.toJSON());
    if (filter.failed === true || (filter.error !== undefined && filter.error !== 'NONE')) out = [...this.olderFailures().filter(matches), ...out];
    if (filter.limit !== undefined && out.length > filter.limit) out = out.slice(out.length - filter.limit);
    return out;
  }

  clear(): void {
    this.slots.fill(undefined);
    this.next = 0;
    this.size = 0;
    this.failures.fill(undefined);
    this.failedNext = 0;
  }
}
