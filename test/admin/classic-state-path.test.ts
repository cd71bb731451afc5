/**
 * The states a classic group's timeline implies between two looks (src/admin/classic-state-path.ts):
 * a look at PreparingRebalance then one at Stable went through CompletingRebalance (new-user trial,
 * session 33: the history showed PreparingRebalance -> Stable, which Kafka never does).
 */
import { describe, expect, it } from 'vitest';
import { classicStatePath } from '../../src/admin/classic-state-path.js';

describe('classicStatePath', () => {
  it.each([
    ['PreparingRebalance', 'CompletingRebalance', ['CompletingRebalance']],
    ['CompletingRebalance', 'Stable', ['Stable']],
    ['Stable', 'PreparingRebalance', ['PreparingRebalance']],
    ['PreparingRebalance', 'Empty', ['Empty']],
    ['Empty', 'PreparingRebalance', ['PreparingRebalance']],
    ['Stable', 'Dead', ['Dead']],
    ['PreparingRebalance', 'Stable', ['CompletingRebalance', 'Stable']],
    ['Stable', 'CompletingRebalance', ['PreparingRebalance', 'CompletingRebalance']],
    ['Empty', 'Stable', ['PreparingRebalance', 'CompletingRebalance', 'Stable']],
    ['Stable', 'Empty', ['PreparingRebalance', 'Empty']],
    ['CompletingRebalance', 'Empty', ['PreparingRebalance', 'Empty']],
    ['Empty', 'CompletingRebalance', ['PreparingRebalance', 'CompletingRebalance']],
  ])('%s -> %s goes through %j', (from, to, path) => {
    expect(classicStatePath(from, to)).toEqual(path);
  });

  it('a state it does not know, or Dead left, is taken as seen', () => {
    expect(classicStatePath('Stable', 'Unknown')).toEqual(['Unknown']);
    expect(classicStatePath('Dead', 'Empty')).toEqual(['Empty']);
  });
});
