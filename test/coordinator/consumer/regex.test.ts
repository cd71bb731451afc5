import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ConsumerGroupError } from '../../../src/coordinator/consumer/errors.js';
import {
  REGEX_CACHE_MAX_SOURCE_LENGTH,
  clearRegexCache,
  compileRegex,
  regexCacheStats,
  resolveRegex,
  throwIfRegularExpressionIsInvalid,
} from '../../../src/coordinator/consumer/regex.js';

describe('subscribed regex compilation', () => {
  afterEach(() => clearRegexCache());

  it('matches whole topic names, sorted', () => {
    expect(resolveRegex('t.*', ['tb', 'ta', 'xt', 'txt'])).toEqual(['ta', 'tb', 'txt']);
    expect(resolveRegex('a|b', ['a', 'ab', 'b'])).toEqual(['a', 'b']);
  });

  it("rejects invalid regexes with Kafka's message (RE2J's description) and does not cache them", () => {
    const err = (() => {
      try {
        throwIfRegularExpressionIsInvalid('a*+');
      } catch (e) {
        return e as ConsumerGroupError;
      }
      throw new Error('no error');
    })();
    expect(err).toBeInstanceOf(ConsumerGroupError);
    expect(err.errorCode).toBe(ErrorCode.INVALID_REGULAR_EXPRESSION);
    expect(err.message).toBe('SubscribedTopicRegex `a*+` is not a valid regular expression: invalid nested repetition operator.');
    expect(() => compileRegex(')')).toThrow('SubscribedTopicRegex `)` is not a valid regular expression: regexp/syntax: internal error.');
    expect(regexCacheStats()).toEqual({ entries: 0, sourceLength: 0 });
  });

  it('keeps the cache under its total source length bound, least recently used first out', () => {
    const big = (k: number) => Array.from({ length: 2000 }, (_, i) => `t${k}-${i}-x`).join('|');
    const first = big(0);
    compileRegex(first);
    for (let k = 1; k < 80; k++) {
      compileRegex(big(k));
      if (k % 10 === 0) compileRegex(first); // kept recent
      expect(regexCacheStats().sourceLength).toBeLessThanOrEqual(REGEX_CACHE_MAX_SOURCE_LENGTH);
    }
    const stats = regexCacheStats();
    expect(stats.entries).toBeGreaterThan(1);
    expect(stats.entries).toBeLessThan(80);
    // Results stay right whatever was evicted.
    expect(resolveRegex(big(3), ['t3-5-x', 't4-5-x', 't3-1999-x', 't3-2000-x'])).toEqual(['t3-1999-x', 't3-5-x']);
    expect(regexCacheStats().sourceLength).toBeLessThanOrEqual(REGEX_CACHE_MAX_SOURCE_LENGTH);
  });

  it('does not cache a regex larger than the whole bound', () => {
    const huge = 'a'.repeat(REGEX_CACHE_MAX_SOURCE_LENGTH + 1);
    compileRegex('small');
    expect(compileRegex(huge).matches(huge)).toBe(true);
    expect(regexCacheStats()).toEqual({ entries: 1, sourceLength: 5 });
  });
});
