/**
 * A request log entry of a huge response (src/faults/request-log.ts `setResponseInSlices`, issue #16
 * item 5): up to ERROR_WALK_OBJECTS_PER_SLICE objects its error codes are gathered at once; past it
 * a slice per turn of the event loop, with the same codes in the same order as `responseErrors`.
 */
import { describe, expect, it } from 'vitest';
import { ERROR_WALK_OBJECTS_PER_SLICE, RequestLog, responseErrors } from '../../src/faults/request-log.js';

const arrived = { timeMs: 0, api: 'OffsetCommit', apiKey: 8, version: 8, correlationId: 1, clientId: 'c', connectionId: 'c1', brokerId: 1, principal: 'User:ANONYMOUS', groups: ['g'], memberId: null, topics: ['t'], transactionalId: null };

/** An OffsetCommit-like response: `topics` topics of `perTopic` partitions; the last partition of the last topic answers 39, partition 3 of the first 27. */
function response(topics: number, perTopic: number): unknown {
  return {
    throttleTimeMs: 0,
    topics: Array.from({ length: topics }, (_, t) => ({
      name: `t${t}`,
      partitions: Array.from({ length: perTopic }, (_, p) => ({ partitionIndex: p, errorCode: t === topics - 1 && p === perTopic - 1 ? 39 : t === 0 && p === 3 ? 27 : 0 })),
    })),
  };
}

describe('request log entries of huge responses', () => {
  it('a small response sets its errors at once', () => {
    const entry = new RequestLog(4).record(arrived);
    expect(entry.setResponseInSlices(response(2, 10))).toBeNull();
    expect([entry.error, entry.errors]).toEqual(['REBALANCE_IN_PROGRESS', ['REBALANCE_IN_PROGRESS', 'INVALID_REPLICA_ASSIGNMENT']]);
  });

  it('a response of 4 x ERROR_WALK_OBJECTS_PER_SLICE partitions is walked over several turns, finding what responseErrors finds', async () => {
    const big = response(4, ERROR_WALK_OBJECTS_PER_SLICE);
    const entry = new RequestLog(4).record(arrived);
    const walking = entry.setResponseInSlices(big);
    expect(walking).toBeInstanceOf(Promise);
    let done = false;
    void walking!.then(() => (done = true));
    let turns = 0;
    while (!done) {
      await new Promise((resolve) => setImmediate(resolve));
      turns++;
    }
    // One slice at once, the other three (and a bit) a turn each.
    expect(turns).toBeGreaterThanOrEqual(3);
    expect(entry.errors).toEqual(['REBALANCE_IN_PROGRESS', 'INVALID_REPLICA_ASSIGNMENT']);
    expect(responseErrors(big)).toEqual([27, 39]);
  });
});
