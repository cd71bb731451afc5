import { describe, expect, it } from 'vitest';
import { closestNames, editDistance } from '../../src/util/closest-names.js';

describe('closest names', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('NOT_COORDINATR', 'NOT_COORDINATOR')).toBe(1);
    expect(editDistance('NOT-COORDINATOR', 'NOT_COORDINATOR')).toBe(1);
    expect(editDistance('ILLEGAL_GENERATON', 'ILLEGAL_GENERATION')).toBe(1);
  });

  it('names those within a third of the length in edits, or holding the name, or held in it; best first, at most three', () => {
    const known = ['NOT_COORDINATOR', 'COORDINATOR_NOT_AVAILABLE', 'REBALANCE_IN_PROGRESS', 'PRODUCER_FENCED', 'FENCED_INSTANCE_ID', 'FENCED_LEADER_EPOCH', 'FENCED_MEMBER_EPOCH'];
    expect(closestNames('NOT_COORDINATR', known)).toEqual(['NOT_COORDINATOR']);
    expect(closestNames('REBALANCE', known)).toEqual(['REBALANCE_IN_PROGRESS']);
    expect(closestNames('NOT_COORDINATOR_FOR_GROUP', known)).toEqual(['NOT_COORDINATOR']);
    expect(closestNames('FENCED', known)).toEqual(['PRODUCER_FENCED', 'FENCED_INSTANCE_ID', 'FENCED_LEADER_EPOCH']);
    expect(closestNames('FENCED', known, 5)).toEqual(['PRODUCER_FENCED', 'FENCED_INSTANCE_ID', 'FENCED_LEADER_EPOCH', 'FENCED_MEMBER_EPOCH']);
    // Short names: two edits at least, but no containment (every name holds "NOT").
    expect(closestNames('NOT', known)).toEqual([]);
    expect(closestNames('NO_SUCH_ERROR', known)).toEqual([]);
  });
});
