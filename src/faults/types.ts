import { API_NAMES } from '../protocol/messages/index.js';
import { FaultRuleError, checkKeys, given, int, isObject, str } from './validate.js';
import { firstOutOfRangeNumber, outOfRangeMessage } from '../util/json-numbers.js';
import { FAULT_ACTIONS, faultActionDefinition, type FaultAction, type NormalizedAction } from './actions/index.js';
import { checkReachable, type FaultRuleLimits } from './reachable.js';
import { parseNameMatch, type NameMatch } from './name-match.js';

export { FaultRuleError, MAX_FAULT_HOLD_MS, MAX_TIMER_MS, resolveError, knownErrorName, type ErrorRef } from './validate.js';
export type { FaultAction, FaultActionType, NormalizedAction } from './actions/index.js';
export type { NameMatch } from './name-match.js';

/**
 * Which requests a rule applies to. Every field given must match; an empty match matches every
 * request. Group, topic, partition and member filters only match requests that name them. A
 * group, topic, client, member or transactional id is the id itself or `{ prefix: 'shop-' }`,
 * every id starting with it (ids a client makes up at run time, as Kafka Streams').
 */
export interface FaultMatch {
  /** API by name (`OffsetCommit`, case-insensitive) or key (`8`). */
  api?: string | number;
  /** Lowest request version matched (inclusive). */
  minVersion?: number;
  /** Highest request version matched (inclusive). */
  maxVersion?: number;
  /** Group id named by the request (OffsetCommit, JoinGroup, FindCoordinator key, ...). */
  group?: NameMatch;
  /** Topic named by the request. For per-partition APIs an error targets only this topic's (these topics') partitions. */
  topic?: NameMatch;
  /**
   * Partitions named by the request. For per-partition APIs (Produce, Fetch, ListOffsets,
   * OffsetCommit, OffsetFetch) an error goes only to these partitions and the rest of the request
   * is handled normally.
   */
  partitions?: number[];
  /** One partition: shorthand for `partitions: [partition]` (ignored when `partitions` is given). */
  partition?: number;
  /** Client id from the request header. */
  clientId?: NameMatch;
  /** Member id named by the request (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, ...). */
  memberId?: NameMatch;
  /**
   * Transactional id named by the request: InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn,
   * EndTxn, TxnOffsetCommit, FindCoordinator with key type 1 (TRANSACTION), DescribeTransactions,
   * and Produce with a transactional id.
   */
  transactionalId?: NameMatch;
  /** Broker id that receives the request (this server's `node.id`). */
  brokerId?: number;
  /** Fire from the Nth matching request on (1-based; default 1): `nth: 2, times: 1` fails only the 2nd. */
  nth?: number;
}

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
  group?: NameMatch;
  topic?: NameMatch;
  partitions?: number[];
  clientId?: NameMatch;
  memberId?: NameMatch;
  transactionalId?: NameMatch;
  brokerId?: number;
  nth: number;
}

export interface NormalizedRule {
  id?: string;
  description?: string;
  match: NormalizedMatch;
  action: NormalizedAction;
  /** null: unlimited. */
  times: number | null;
  durationMs?: number;
}

const API_KEYS_BY_NAME = new Map<string, number>(Object.entries(API_NAMES).map(([key, name]) => [name.toLowerCase(), Number(key)]));

/** API key for a name (`OffsetCommit`, case-insensitive) or number. */
export function resolveApi(api: string | number): { apiKey: number; api: string } {
  if (typeof api === 'number' || /^\d+$/.test(String(api).trim())) {
    const apiKey = Number(api);
    if (!Number.isInteger(apiKey) || apiKey < 0 || apiKey > 32767) throw new FaultRuleError(`invalid api key ${api}`);
    // A request with an unknown key closes its connection before any rule is tried: such a rule would never fire.
    const name = API_NAMES[apiKey];
    if (name === undefined) throw new FaultRuleError(`unknown api key ${apiKey}: no Kafka API has it, so a rule on it would never fire`);
    return { apiKey, api: name };
  }
  const apiKey = API_KEYS_BY_NAME.get(String(api).trim().toLowerCase());
  if (apiKey === undefined) throw new FaultRuleError(`unknown api "${api}" (known: ${Object.values(API_NAMES).join(', ')})`);
  return { apiKey, api: API_NAMES[apiKey]! };
}

/** The most fault rules a server holds at once (each one is checked against every request). */
export const MAX_FAULT_RULES = 1000;

const MATCH_KEYS = new Set(['api', 'minVersion', 'maxVersion', 'group', 'topic', 'partitions', 'partition', 'clientId', 'memberId', 'transactionalId', 'brokerId', 'nth']);
const RULE_KEYS = new Set(['id', 'description', 'match', 'action', 'times', 'durationMs']);

/**
 * Validates a rule spec (from code, JSON or the CLI); throws FaultRuleError naming the problem.
 * With `limits` (a server's), a match no request to that server can satisfy is refused too.
 */
export function normalizeRule(input: unknown, limits?: FaultRuleLimits): NormalizedRule {
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
  for (const key of ['group', 'topic', 'clientId', 'memberId', 'transactionalId'] as const) {
    if (matchIn[key] !== undefined) match[key] = parseNameMatch(matchIn[key], `match.${key}`);
  }
  // A request's empty group, member or transactional id names nothing (request-info.ts): a rule
  // for "" would be accepted and never fire (new-user trial 24).
  for (const key of ['group', 'topic', 'memberId', 'transactionalId'] as const) {
    if (match[key] === '') throw new FaultRuleError(`match.${key} must not be empty: an empty id names nothing, so the rule would never fire (leave match.${key} out to match any request)`);
  }
  if (matchIn['partitions'] !== undefined || matchIn['partition'] !== undefined) {
    const raw = matchIn['partitions'] ?? [matchIn['partition']];
    if (!Array.isArray(raw) || raw.length === 0) throw new FaultRuleError('match.partitions must be a non-empty array of partition numbers');
    match.partitions = raw.map((p, i) => int(p, `match.partitions[${i}]`, 0));
  }
  if (matchIn['brokerId'] !== undefined) match.brokerId = int(matchIn['brokerId'], 'match.brokerId', 0);
  if (matchIn['nth'] !== undefined) match.nth = int(matchIn['nth'], 'match.nth', 1);
  if (limits !== undefined) checkReachable(match, limits);

  const actionIn = input['action'];
  const types = FAULT_ACTIONS.map((a) => a.type).join(', ');
  if (!isObject(actionIn)) throw new FaultRuleError(`action is required: an object with a "type" (${types})`);
  const definition = faultActionDefinition(actionIn['type']);
  if (!definition) throw new FaultRuleError(`action.type must be one of ${types}; got ${given(actionIn['type'])}`);
  checkKeys(actionIn, new Set(['type', ...Object.keys(definition.fields)]), `action "${definition.type}"`);
  const action = definition.parse(actionIn) as NormalizedAction;

  const durationMs = input['durationMs'] === undefined ? undefined : int(input['durationMs'], 'durationMs', 1);
  let times: number | null;
  const timesIn = input['times'];
  if (timesIn === undefined) times = durationMs !== undefined ? null : definition.defaultTimes?.(action) ?? 1;
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
  const rules = Array.isArray(doc) ? doc : isObject(doc) && Array.isArray(doc['faults']) ? doc['faults'] : isObject(doc) && doc['action'] !== undefined ? [doc] : null;
  if (rules === null) throw new FaultRuleError(`${source}: expected an array of fault rules or {"faults": [...]}`);
  // A number JSON.parse would round (or make Infinity) is refused as written, by its rule and field, as POST /faults does.
  const outOfRange = firstOutOfRangeNumber(text);
  if (outOfRange !== null) {
    // Its place as the other refusals name it: "rule 2 of 3: action.ms" (a field outside the rules: its path as is).
    const inRule = rules[0] === doc ? null : /^(?:faults)?\[(\d+)\]\.?(.*)$/.exec(outOfRange.path);
    const place = inRule ? `rule ${Number(inRule[1]) + 1} of ${rules.length}: ` : rules[0] === doc ? 'rule 1 of 1: ' : '';
    throw new FaultRuleError(`${source}: ${place}${outOfRangeMessage({ path: inRule ? inRule[2]! : outOfRange.path, literal: outOfRange.literal }, 'the rule')}`);
  }
  return rules;
}
