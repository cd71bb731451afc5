import { describe, expect, it } from 'vitest';
import { firstOutOfRangeNumber, nestsDeeperThan } from '../../src/util/json-numbers.js';

describe('number literals JSON.parse cannot hold exactly', () => {
  it('are found as written, with the path of their field', () => {
    expect(firstOutOfRangeNumber('{"match":{"partitions":[1,2,99999999999999999999]}}')).toEqual({ path: 'match.partitions[2]', literal: '99999999999999999999' });
    expect(firstOutOfRangeNumber('[{"a":1},{"b":[[0],[-1e400]]}]')).toEqual({ path: '[1].b[1][0]', literal: '-1e400' });
    // Strings holding digits, brackets, commas, quotes and escapes are not read as numbers or structure.
    expect(firstOutOfRangeNumber('{"k\\"[1,":"99999999999999999999,]","x":{"y\\\\":[1e300]}}')).toEqual({ path: 'x.y\\[0]', literal: '1e300' });
    expect(firstOutOfRangeNumber('9007199254740992')).toEqual({ path: '', literal: '9007199254740992' });
  });

  it('are none up to 2^53 - 1 in magnitude, fractions and tiny exponents included', () => {
    expect(firstOutOfRangeNumber('{"a":9007199254740991,"b":-9007199254740991,"c":[1.5,-0.25,1e-400,2E3],"d":"1e400","e":null,"f":true}')).toBeNull();
  });
});

describe('nestsDeeperThan', () => {
  it('counts arrays and objects opened inside one another, not brackets in strings', () => {
    expect(nestsDeeperThan('{"a":[{"b":[]}]}', 4)).toBe(false);
    expect(nestsDeeperThan('{"a":[{"b":[]}]}', 3)).toBe(true);
    // Siblings do not add up; brackets and escaped quotes inside strings are text.
    expect(nestsDeeperThan('[[],[],[[]]]', 3)).toBe(false);
    expect(nestsDeeperThan('{"k\\"[[[[":"]]]]{{{{","x":[1]}', 2)).toBe(false);
    expect(nestsDeeperThan('['.repeat(1000), 999)).toBe(true);
  });
});
