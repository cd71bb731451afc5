/**
 * Subscribed topic regular expressions (KIP-848, Kafka 4.0+): compiled with RE2 syntax through
 * `re2js` (a port of RE2/J, the engine Kafka's coordinator uses), matched against whole topic names
 * (`Pattern.matcher(topic).matches()`).
 */
import { RE2JS } from 're2js';
import { ErrorCode } from '../../protocol/errors.js';
import { ConsumerGroupError } from './errors.js';

const cache = new Map<string, RE2JS>();

/** Compiles `regex`; INVALID_REGULAR_EXPRESSION when RE2 refuses it. */
export function compileRegex(regex: string): RE2JS {
  let compiled = cache.get(regex);
  if (compiled) return compiled;
  try {
    compiled = RE2JS.compile(regex);
  } catch (err) {
    throw new ConsumerGroupError(ErrorCode.INVALID_REGULAR_EXPRESSION, `SubscribedTopicRegex \`${regex}\` is not a valid regular expression: ${(err as Error).message}.`);
  }
  if (cache.size > 1000) cache.clear();
  cache.set(regex, compiled);
  return compiled;
}

/** The topic names (sorted) that `regex` matches in full. */
export function resolveRegex(regex: string, topicNames: Iterable<string>): string[] {
  const compiled = compileRegex(regex);
  return [...topicNames].filter((name) => compiled.matches(name)).sort();
}
