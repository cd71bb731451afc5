/**
 * How a fault rule names a group, topic, client, member or transactional id: the id itself, or
 * `{ "prefix": "..." }` for every id that starts with it. Ids some clients make up at run time
 * (Kafka Streams' transactional ids `<application.id>-<process id>-<thread>`, its client ids,
 * Connect's) are then matched by the part the test knows.
 */
import { FaultRuleError, checkKeys, given, isObject, str } from './validate.js';

/** An id (exact) or `{ prefix }` (every id starting with it). */
export type NameMatch = string | { readonly prefix: string };

/** Whether `name` is the id `match` names, or starts with its prefix. */
export function nameMatches(match: NameMatch, name: string): boolean {
  return typeof match === 'string' ? name === match : name.startsWith(match.prefix);
}

/** Whether any of `names` matches. */
export function anyNameMatches(match: NameMatch, names: Iterable<string>): boolean {
  for (const name of names) if (nameMatches(match, name)) return true;
  return false;
}

/** Validates `match.<key>`: a string, or an object with a non-empty string `prefix` and nothing else. */
export function parseNameMatch(value: unknown, what: string): NameMatch {
  if (typeof value === 'string') return value;
  if (!isObject(value)) throw new FaultRuleError(`${what} must be a string or {"prefix": "..."}, got ${given(value)}`);
  checkKeys(value, PREFIX_KEYS, what);
  if (value['prefix'] === undefined) throw new FaultRuleError(`${what}.prefix is required in {"prefix": "..."}`);
  const prefix = str(value['prefix'], `${what}.prefix`);
  // An empty prefix matches every id, which leaving the field out already says.
  if (prefix === '') throw new FaultRuleError(`${what}.prefix must not be empty (leave ${what} out to match any request)`);
  return { prefix };
}

const PREFIX_KEYS = new Set(['prefix']);
