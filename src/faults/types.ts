import { ErrorCode, errorName } from '../protocol/errors.js';
import { API_NAMES } from '../protocol/messages/index.js';

/** An error by Kafka's name (`REBALANCE_IN_PROGRESS`) or number (`27`). */
export type ErrorRef = string | number;

/**
 * Which requests a rule applies to. Every field given must match; an empty match matches every
 * request. Group, topic, partition and member filters only match requests that name them.
 */
export interface FaultMatch {
  /** API by name (`OffsetCommit`, case-insensitive) or key (`8`). */
  api?: string | number;
  /** Lowest request version matched (inclusive). */
  minVersion?: number;
  /** Highest request version matched (inclusive). */
  maxVersion?: number;
  /** Group id named by the request (OffsetCommit, JoinGroup, FindCoordinator key, ...). */
  group?: string;
  /** Topic named by the request. For per-partition APIs an error targets only this topic's partitions. */
  topic?: string;
  /**
   * Partitions named by the request. For per-partition APIs (Produce, Fetch, ListOffsets,
   * OffsetCommit, OffsetFetch) an error goes only to these partitions and the rest of the request
   * is handled normally. `partition` (one number) is accepted as a shorthand.
   */
  partitions?: number[];
  /** Client id from the request header. */
  clientId?: string;
  /** Member id named by the request (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, ...). */
  memberId?: string;
  /** Broker id that receives the request (this server's `node.id`). */
  brokerId?: number;
  /** Fire from the Nth matching request on (1-based; default 1): `nth: 2, times: 1` fails only the 2nd. */
  nth?: number;
}

/** What a rule does when it fires. */
export type FaultAction =
  /** Answer with this error without running the handler (per-partition APIs: on the targeted partitions). */
  | { type: 'error'; error: ErrorRef; delayMs?: number }
  /** One error per firing, in order (cycling if the rule outlives the list). `times` defaults to the list length. */
  | { type: 'errors'; errors: ErrorRef[]; delayMs?: number }
  /** Wait `ms` (real time), then handle the request and respond normally. */
  | { type: 'delay'; ms: number }
  /**
   * Never answer: the request is not handled and the connection stops reading further requests
   * (the client times out). With `closeAfterMs` the connection is closed after that long.
   */
  | { type: 'hang'; closeAfterMs?: number }
  /**
   * Close the connection. `before`: the request is not applied. `after`: the request is handled
   * (a commit is durable) and the response is dropped ("applied but response lost").
   */
  | { type: 'close'; when: 'before' | 'after'; delayMs?: number }
  /** Handle normally, answer with `throttle_time_ms = ms`, and read nothing more from the connection for `ms` (KIP-219). */
  | { type: 'throttle'; ms: number };

export type FaultActionType = FaultAction['type'];

/** A rule as given to `faults.add`, `POST /faults`, `--faults rules.json` or `KMC_FAULTS`. */
export interface FaultRuleSpec {
  /** Optional id (unique); generated (`f1`, `f2`, ...) when absent. */
  id?: string;
  description?: string;
  match?: FaultMatch;
  action: FaultAction;
  /** How many times the rule fires: a count (default 1; for `errors` the list length) or `"unlimited"` (until removed). */
  times?: number | 'unlimited';
  /** The rule stops firing this long after it was added (real time). Without `times` it fires unlimited times meanwhile. */
  durationMs?: number;
}

/** A validated rule. */
export interface NormalizedMatch {
  apiKey?: number;
  api?: string;
  minVersion?: number;
  maxVersion?: number;
  group?: string;
  topic?: string;
  partitions?: number[];
  clientId?: string;
  memberId?: string;
  brokerId?: number;
  nth: number;
}

export type NormalizedAction =
  | { type: 'error'; error: string; errorCode: number; delayMs?: number }
  | { type: 'errors'; errors: string[]; errorCodes: number[]; delayMs?: number }
  | { type: 'delay'; ms: number }
  | { type: 'hang'; closeAfterMs?: number }
  | { type: 'close'; when: 'before' | 'after'; delayMs?: number }
  | { type: 'throttle'; ms: number };

export interface NormalizedRule {
  id?: string;
  description?: string;
  match: NormalizedMatch;
  action: NormalizedAction;
  /** null: unlimited. */
  times: number | null;
  durationMs?: number;
}

/** A rule that was refused (bad name, missing field, ...). HTTP answers 400 with its message. */
export class FaultRuleError extends Error {
  override readonly name = 'FaultRuleError';
}

const API_KEYS_BY_NAME = new Map<string, number>(Object.entries(API_NAMES).map(([key, name]) => [name.toLowerCase(), Number(key)]));

/** API key for a name (`OffsetCommit`, case-insensitive) or number. */
export function resolveApi(api: string | number): { apiKey: number; api: string } {
  if (typeof api === 'number' || /^\d+$/.test(String(api).trim())) {
    const apiKey = Number(api);
    if (!Number.isInteger(apiKey) || apiKey < 0 || apiKey > 32767) throw new FaultRuleError(`invalid api key ${api}`);
    return { apiKey, api: API_NAMES[apiKey] ?? `api${apiKey}` };
  }
  const apiKey = API_KEYS_BY_NAME.get(String(api).trim().toLowerCase());
  if (apiKey === undefined) throw new FaultRuleError(`unknown api "${api}" (known: ${Object.values(API_NAMES).join(', ')})`);
  return { apiKey, api: API_NAMES[apiKey]! };
}

/** Error code for a Kafka error name (case-insensitive) or number. */
export function resolveError(ref: ErrorRef): { code: number; name: string } {
  if (typeof ref === 'number' || /^-?\d+$/.test(String(ref).trim())) {
    const code = Number(ref);
    if (!Number.isInteger(code) || code < -32768 || code > 32767) throw new FaultRuleError(`invalid error code ${ref}`);
    return { code, name: errorName(code) };
  }
  const name = String(ref).trim().toUpperCase();
  const code = (ErrorCode as Record<string, number>)[name];
  if (code === undefined) throw new FaultRuleError(`unknown error "${ref}" (use a Kafka error name such as REBALANCE_IN_PROGRESS, or a number)`);
  return { code, name };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The largest delay a Node.js timer honours (about 24.8 days); larger ones would fire at once. */
export const MAX_TIMER_MS = 2147483647;

/**
 * The longest a rule may hold one request (ms): `delay.ms`, `delayMs`, `hang.closeAfterMs`,
 * `throttle.ms`, and a hang without `closeAfterMs` ends then too; also the longest
 * `POST /faults/{id}/wait` waits. One hour: longer than any client timeout, short
 * enough that a forgotten rule cannot hold requests (and their memory) for days.
 */
export const MAX_FAULT_HOLD_MS = 3_600_000;

/** The most fault rules a server holds at once (each one is checked against every request). */
export const MAX_FAULT_RULES = 1000;

function int(value: unknown, what: string, min: number, max = MAX_TIMER_MS): number {
  const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw new FaultRuleError(`${what} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
}

function str(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new FaultRuleError(`${what} must be a string, got ${JSON.stringify(value)}`);
  return value;
}

const MATCH_KEYS = new Set(['api', 'minVersion', 'maxVersion', 'group', 'topic', 'partitions', 'partition', 'clientId', 'memberId', 'brokerId', 'nth']);
const RULE_KEYS = new Set(['id', 'description', 'match', 'action', 'times', 'durationMs']);

function checkKeys(obj: Record<string, unknown>, allowed: Set<string>, what: string): void {
  for (const key of Object.keys(obj)) if (!allowed.has(key)) throw new FaultRuleError(`unknown field "${key}" in ${what}`);
}

/** Validates a rule spec (from code, JSON or the CLI); throws FaultRuleError naming the problem. */
export function normalizeRule(input: unknown): NormalizedRule {
  if (!isObject(input)) throw new FaultRuleError('a fault rule must be an object');
  checkKeys(input, RULE_KEYS, 'rule');
  const matchIn = input['match'] ?? {};
  if (!isObject(matchIn)) throw new FaultRuleError('match must be an object');
  checkKeys(matchIn, MATCH_KEYS, 'match');
  const match: NormalizedMatch = { nth: 1 };
  if (matchIn['api'] !== undefined) {
    if (typeof matchIn['api'] !== 'string' && typeof matchIn['api'] !== 'number') throw new FaultRuleError('match.api must be a name or a number');
    Object.assign(match, resolveApi(matchIn['api']));
  }
  if (matchIn['minVersion'] !== undefined) match.minVersion = int(matchIn['minVersion'], 'match.minVersion', 0);
  if (matchIn['maxVersion'] !== undefined) match.maxVersion = int(matchIn['maxVersion'], 'match.maxVersion', 0);
  if (match.minVersion !== undefined && match.maxVersion !== undefined && match.minVersion > match.maxVersion) {
    throw new FaultRuleError('match.minVersion is above match.maxVersion');
  }
  for (const key of ['group', 'topic', 'clientId', 'memberId'] as const) {
    if (matchIn[key] !== undefined) match[key] = str(matchIn[key], `match.${key}`);
  }
  if (matchIn['partitions'] !== undefined || matchIn['partition'] !== undefined) {
    const raw = matchIn['partitions'] ?? [matchIn['partition']];
    if (!Array.isArray(raw) || raw.length === 0) throw new FaultRuleError('match.partitions must be a non-empty array of partition numbers');
    match.partitions = raw.map((p, i) => int(p, `match.partitions[${i}]`, 0));
  }
  if (matchIn['brokerId'] !== undefined) match.brokerId = int(matchIn['brokerId'], 'match.brokerId', 0);
  if (matchIn['nth'] !== undefined) match.nth = int(matchIn['nth'], 'match.nth', 1);

  const actionIn = input['action'];
  if (!isObject(actionIn)) throw new FaultRuleError('action is required: an object with a "type" (error, errors, delay, hang, close, throttle)');
  const delayMs = actionIn['delayMs'] === undefined ? undefined : int(actionIn['delayMs'], 'action.delayMs', 0, MAX_FAULT_HOLD_MS);
  const withDelay = <T extends object>(a: T): T => (delayMs === undefined ? a : { ...a, delayMs });
  const onlyKeys = (...keys: string[]): void => checkKeys(actionIn, new Set(['type', ...keys]), `action "${String(actionIn['type'])}"`);
  let action: NormalizedAction;
  switch (actionIn['type']) {
    case 'error': {
      onlyKeys('error', 'delayMs');
      if (actionIn['error'] === undefined) throw new FaultRuleError('action.error is required (an error name or number)');
      const { code, name } = resolveError(actionIn['error'] as ErrorRef);
      action = withDelay({ type: 'error', error: name, errorCode: code });
      break;
    }
    case 'errors': {
      onlyKeys('errors', 'delayMs');
      const list = actionIn['errors'];
      if (!Array.isArray(list) || list.length === 0) throw new FaultRuleError('action.errors must be a non-empty array of error names or numbers');
      const resolved = list.map((e) => resolveError(e as ErrorRef));
      action = withDelay({ type: 'errors', errors: resolved.map((r) => r.name), errorCodes: resolved.map((r) => r.code) });
      break;
    }
    case 'delay':
      onlyKeys('ms');
      action = { type: 'delay', ms: int(actionIn['ms'], 'action.ms', 0, MAX_FAULT_HOLD_MS) };
      break;
    case 'hang':
      onlyKeys('closeAfterMs');
      action = actionIn['closeAfterMs'] === undefined ? { type: 'hang' } : { type: 'hang', closeAfterMs: int(actionIn['closeAfterMs'], 'action.closeAfterMs', 0, MAX_FAULT_HOLD_MS) };
      break;
    case 'close': {
      onlyKeys('when', 'delayMs');
      const when = actionIn['when'] ?? 'before';
      if (when !== 'before' && when !== 'after') throw new FaultRuleError('action.when must be "before" (not applied) or "after" (applied, response lost)');
      action = withDelay({ type: 'close', when });
      break;
    }
    case 'throttle':
      onlyKeys('ms');
      // The connection stays muted for the throttle time: a hold like the others.
      action = { type: 'throttle', ms: int(actionIn['ms'], 'action.ms', 0, MAX_FAULT_HOLD_MS) };
      break;
    default:
      throw new FaultRuleError(`action.type must be one of error, errors, delay, hang, close, throttle; got ${JSON.stringify(actionIn['type'])}`);
  }

  const durationMs = input['durationMs'] === undefined ? undefined : int(input['durationMs'], 'durationMs', 1);
  let times: number | null;
  const timesIn = input['times'];
  if (timesIn === undefined) times = durationMs !== undefined ? null : action.type === 'errors' ? action.errors.length : 1;
  else if (timesIn === 'unlimited' || timesIn === null) times = null;
  else times = int(timesIn, 'times', 1);

  const rule: NormalizedRule = { match, action, times };
  if (input['id'] !== undefined) {
    const id = str(input['id'], 'id');
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(id)) throw new FaultRuleError('id must be 1-100 characters of letters, digits, ".", "_" or "-"');
    rule.id = id;
  }
  if (input['description'] !== undefined) rule.description = str(input['description'], 'description');
  if (durationMs !== undefined) rule.durationMs = durationMs;
  return rule;
}

/** Rules from a startup file or `KMC_FAULTS`: a JSON array of rules, or `{ "faults": [...] }`, or one rule. */
export function parseRulesDocument(text: string, source: string): unknown[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new FaultRuleError(`${source}: not valid JSON (${(err as Error).message})`);
  }
  if (Array.isArray(doc)) return doc;
  if (isObject(doc) && Array.isArray(doc['faults'])) return doc['faults'];
  if (isObject(doc) && doc['action'] !== undefined) return [doc];
  throw new FaultRuleError(`${source}: expected an array of fault rules or {"faults": [...]}`);
}
