/**
 * Subscribed topic regular expressions (KIP-848, Kafka 4.0+): compiled with RE2 syntax through
 * `re2js` (a port of RE2/J, the engine Kafka's coordinator uses), matched against whole topic names
 * (`Pattern.matcher(topic).matches()`).
 *
 * Compiling happens only where Kafka 4.3 compiles: `Utils.throwIfRegularExpressionIsInvalid` when a
 * member takes a regex no other member of its group subscribes to, and `TopicRegexResolver` when a
 * group's regexes are resolved. Compiled regexes are kept in a least-recently-used cache bounded by
 * the total length of their sources (a compiled RE2 program takes tens of times its source's size),
 * so large regexes cannot pile up in memory.
 */
import type { RE2JS } from 're2js';
import { ErrorCode } from '../../protocol/errors.js';
import { lazyModule } from '../../util/lazy-module.js';
import { ConsumerGroupError } from './errors.js';

/** Loaded at the first compile (util/lazy-module.ts). */
const re2js = lazyModule<typeof import('re2js')>('re2js', 'regular expressions (SubscribedTopicRegex)');

/** The bound of the cache: the sum of the cached sources' lengths (UTF-16 code units). */
export const REGEX_CACHE_MAX_SOURCE_LENGTH = 1 << 20;

/** Insertion order is recency order: a hit moves its entry to the end. */
const cache = new Map<string, RE2JS>();
let cachedSourceLength = 0;

/**
 * RE2J 1.8 (Kafka 4.3.1's) has no "unexpected )" error: an unbalanced `)` fails its parser's stack
 * with ERR_INTERNAL_ERROR, which is what `getDescription()` returns.
 */
const RE2J_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'unexpected )': 'regexp/syntax: internal error',
};

/** The text of RE2J's `PatternSyntaxException.getDescription()` for a re2js compile error. */
function describe(err: unknown): string {
  const e = err as { getDescription?: () => string; error?: unknown; message?: unknown };
  const description = typeof e.getDescription === 'function' ? e.getDescription() : typeof e.error === 'string' ? e.error : String(e.message ?? err);
  return RE2J_DESCRIPTIONS[description] ?? description;
}

/**
 * Compiles `regex`; INVALID_REGULAR_EXPRESSION when RE2 refuses it, with the message of Kafka
 * 4.3's `Utils.throwIfRegularExpressionIsInvalid`. Invalid regexes are never cached.
 */
export function compileRegex(regex: string): RE2JS {
  const hit = cache.get(regex);
  if (hit) {
    cache.delete(regex);
    cache.set(regex, hit);
    return hit;
  }
  const engine = re2js().RE2JS; // outside the try: a failure to load it is not an invalid regex
  let compiled: RE2JS;
  try {
    compiled = engine.compile(regex);
  } catch (err) {
    throw new ConsumerGroupError(ErrorCode.INVALID_REGULAR_EXPRESSION, `SubscribedTopicRegex \`${regex}\` is not a valid regular expression: ${describe(err)}.`);
  }
  remember(regex, compiled);
  return compiled;
}

/** `Utils.throwIfRegularExpressionIsInvalid`. */
export function throwIfRegularExpressionIsInvalid(regex: string): void {
  compileRegex(regex);
}

function remember(regex: string, compiled: RE2JS): void {
  // A regex larger than the whole bound is not kept (it would evict everything else).
  if (regex.length > REGEX_CACHE_MAX_SOURCE_LENGTH) return;
  cache.set(regex, compiled);
  cachedSourceLength += regex.length;
  for (const key of cache.keys()) {
    if (cachedSourceLength <= REGEX_CACHE_MAX_SOURCE_LENGTH) break;
    cache.delete(key);
    cachedSourceLength -= key.length;
  }
}

/** The cache's size, for tests and diagnostics. */
export function regexCacheStats(): { entries: number; sourceLength: number } {
  return { entries: cache.size, sourceLength: cachedSourceLength };
}

/** Empties the cache (tests). */
export function clearRegexCache(): void {
  cache.clear();
  cachedSourceLength = 0;
}

/** The topic names (sorted) that `regex` matches in full. */
export function resolveRegex(regex: string, topicNames: Iterable<string>): string[] {
  const compiled = compileRegex(regex);
  return [...topicNames].filter((name) => compiled.matches(name)).sort();
}
