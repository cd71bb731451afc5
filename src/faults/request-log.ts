import { errorName } from '../protocol/errors.js';

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
  /** Who sent it, as Kafka's `KafkaPrincipal` prints (`User:alice`; `User:ANONYMOUS` without authentication). */
  principal: string;
  /** The first group the request names, or null. */
  group: string | null;
  /** Every group the request names. */
  groups: string[];
  /** The first member id the request names, or null. */
  memberId: string | null;
  /** Topics the request names. */
  topics: string[];
  /** The error returned: the top-level error if any, else the first per-entry error; null for NONE or no response. */
  error: string | null;
  /** Every distinct error in the response. */
  errors: string[];
  /** Ids of the fault rules that fired on this request. */
  faults: string[];
  /** `response` (answered), `no-response` (acks=0 or a hang), `closed` (connection closed by a fault), `failed` (handler error), `pending`. */
  outcome: 'pending' | 'response' | 'no-response' | 'closed' | 'failed';
  /** Real milliseconds from arrival to the outcome. */
  durationMs: number | null;
}

export interface RequestLogFilter {
  api?: string | number;
  group?: string;
  clientId?: string;
  /** Only entries with seq greater than this. */
  sinceSeq?: number;
  /** The newest N entries (default all kept). */
  limit?: number;
}

/** Distinct non-zero `errorCode`s in a response (top-level first), skipping byte buffers. */
export function responseErrors(response: unknown): number[] {
  const found: number[] = [];
  const seen = new Set<number>();
  const add = (code: unknown): void => {
    if (typeof code === 'number' && code !== 0 && !seen.has(code)) {
      seen.add(code);
      found.push(code);
    }
  };
  const walk = (value: unknown, depth: number): void => {
    if (depth > 6 || value === null || typeof value !== 'object' || Buffer.isBuffer(value) || value instanceof Uint8Array) return;
    if (Array.isArray(value)) {
      for (const v of value) walk(v, depth + 1);
      return;
    }
    const obj = value as Record<string, unknown>;
    add(obj['errorCode']);
    for (const [k, v] of Object.entries(obj)) if (k !== 'errorCode' && typeof v === 'object') walk(v, depth + 1);
  };
  if (response !== null && typeof response === 'object') {
    add((response as Record<string, unknown>)['errorCode']);
    walk(response, 0);
  }
  return found;
}

/** A ring buffer of the most recent requests. */
export class RequestLog {
  private readonly entries: RequestLogEntry[] = [];
  private seq = 0;

  constructor(readonly capacity = 1000) {}

  add(entry: Omit<RequestLogEntry, 'seq'>): RequestLogEntry {
    const full: RequestLogEntry = { seq: ++this.seq, ...entry };
    this.entries.push(full);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    return full;
  }

  static setResponse(entry: RequestLogEntry, response: unknown): void {
    const codes = responseErrors(response);
    entry.errors = codes.map(errorName);
    entry.error = entry.errors[0] ?? null;
  }

  list(filter: RequestLogFilter = {}): RequestLogEntry[] {
    const api = filter.api === undefined ? undefined : String(filter.api).toLowerCase();
    let out = this.entries.filter(
      (e) =>
        (api === undefined || e.api.toLowerCase() === api || String(e.apiKey) === api) &&
        (filter.group === undefined || e.groups.includes(filter.group)) &&
        (filter.clientId === undefined || e.clientId === filter.clientId) &&
        (filter.sinceSeq === undefined || e.seq > filter.sinceSeq),
    );
    if (filter.limit !== undefined && out.length > filter.limit) out = out.slice(out.length - filter.limit);
    return out.map((e) => ({ ...e }));
  }

  clear(): void {
    this.entries.length = 0;
  }
}
