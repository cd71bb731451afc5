/**
 * The request log's ring buffer (src/faults/request-log.ts): oldest first across the wrap, sequence
 * numbers that survive `clear`, filters and `limit`, entries handed out as plain copies with the
 * documented keys in order, and response errors found top-level first then depth first.
 */
import { describe, expect, it } from 'vitest';
import { RequestLog, responseErrors, type ArrivedRequest } from '../../src/faults/request-log.js';
import { RequestOutcome } from '../../src/faults/request-outcome.js';

const T0 = Date.UTC(2026, 11, 2, 7, 0, 0, 125);

function request(i: number, overrides: Partial<ArrivedRequest> = {}): ArrivedRequest {
  return {
    timeMs: T0 + i,
    api: i % 2 === 0 ? 'OffsetCommit' : 'Heartbeat',
    apiKey: i % 2 === 0 ? 8 : 12,
    version: 8,
    correlationId: i,
    clientId: `client-${i % 3}`,
    connectionId: 'c1',
    brokerId: 1 + (i % 2),
    principal: 'User:ANONYMOUS',
    groups: [`g${i % 2}`],
    memberId: null,
    topics: ['t'],
    transactionalId: i % 3 === 0 ? 'tx-a' : null,
    ...overrides,
  };
}

describe('RequestLog', () => {
  it('keeps the newest `capacity` entries, oldest first, across many wraps', () => {
    const log = new RequestLog(4);
    for (let i = 0; i < 11; i++) log.record(request(i));
    expect(log.list().map((e) => [e.seq, e.correlationId])).toEqual([[8, 7], [9, 8], [10, 9], [11, 10]]);
    expect(log.list({ limit: 2 }).map((e) => e.seq)).toEqual([10, 11]);
    expect(log.list({ limit: 0 })).toEqual([]);
    expect(log.list({ api: 'offsetcommit' }).map((e) => e.seq)).toEqual([9, 11]);
    expect(log.list({ api: 12 }).map((e) => e.seq)).toEqual([8, 10]);
    expect(log.list({ group: 'g1', sinceSeq: 8 }).map((e) => e.seq)).toEqual([10]);
    expect(log.list({ clientId: 'client-1' }).map((e) => e.seq)).toEqual([8, 11]);
    expect(log.list({ transactionalId: 'tx-a' }).map((e) => e.seq)).toEqual([10]);
    expect(log.list({ brokerId: 2 }).map((e) => e.seq)).toEqual([8, 10]);
  });

  it('reuses an entry pushed out once its request has its outcome, refilled, never one still in flight', () => {
    const log = new RequestLog(2);
    const inFlight = log.record(request(0, { groups: ['a'] }));
    const answered = log.record(request(1, { groups: ['b', 'b2'], topics: ['t1', 't2'] }));
    answered.setResponse({ errorCode: 27 });
    answered.addFault('rule-1');
    answered.outcome = 'response';
    answered.durationMs = 4;
    const third = log.record(request(2, { groups: ['c'] }));
    expect(third).not.toBe(inFlight);
    expect([inFlight.seq, inFlight.groups, inFlight.outcome]).toEqual([1, ['a'], 'pending']);
    const fourth = log.record(request(3, { groups: ['d'], topics: [] }));
    expect(fourth).toBe(answered);
    expect([fourth.seq, fourth.correlationId, fourth.groups, fourth.topics, fourth.error, fourth.errors, fourth.faults, fourth.outcome, fourth.durationMs]).toEqual([4, 3, ['d'], [], null, [], [], 'pending', null]);
    expect(log.list().map((e) => [e.seq, e.groups, e.outcome])).toEqual([[3, ['c'], 'pending'], [4, ['d'], 'pending']]);
  });

  it('an outcome set again after its entry went to a later request leaves that request alone', () => {
    const log = new RequestLog(1);
    const seen: string[] = [];
    const listeners = new Set([(e: { seq: number; outcome: string }) => seen.push(`${e.seq}:${e.outcome}`)]);
    const io = { send: () => {}, close: () => {}, isClosed: () => false, whenClosed: () => Promise.resolve(), closedWithin: () => Promise.resolve(true), droppedByShutdown: () => false };
    const hung = new RequestOutcome(log, log.record(request(0)), io, T0, listeners);
    hung.finish('no-response');
    const next = log.record(request(1));
    expect(next.seq).toBe(2);
    // The hang's action fails afterwards (dispatch's catch): nothing of it reaches request 2.
    expect(() => hung.failed(new Error('late'))).toThrow('late');
    expect([next.outcome, next.durationMs]).toEqual(['pending', null]);
    expect(seen).toEqual(['1:no-response']);
  });

  it('keeps the last `capacity` failed requests beyond the log: ?failed lists them with the failed ones it holds, oldest first', () => {
    const log = new RequestLog(3);
    const io = { send: () => {}, close: () => {}, isClosed: () => false, whenClosed: () => Promise.resolve(), closedWithin: () => Promise.resolve(true), droppedByShutdown: () => false };
    const settle = (correlationId: number, how: 'ok' | 'error' | 'fault' | 'closed') => {
      const entry = log.record(request(correlationId));
      if (how === 'fault') entry.addFault('f1');
      const outcome = new RequestOutcome(log, entry, io, T0, new Set());
      if (how === 'closed') outcome.finish('closed');
      else outcome.respondWith({ errorCode: how === 'error' ? 27 : 0 }, true);
    };
    settle(0, 'error'); // seq 1
    settle(1, 'ok');
    settle(2, 'fault'); // seq 3
    settle(3, 'closed'); // seq 4
    for (let i = 4; i < 10; i++) settle(i, 'ok'); // seq 5-10: the log holds 8-10 only
    settle(10, 'error'); // seq 11
    const pending = log.record(request(11)); // seq 12, in flight: not (yet) failed
    pending.addFault('f2');
    expect(log.list().map((e) => e.seq)).toEqual([10, 11, 12]);
    // Of the failures kept (capacity 3: seq 3, 4, 11), those the log no longer holds, then its own.
    expect(log.list({ failed: true }).map((e) => [e.seq, e.error, e.faults, e.outcome])).toEqual([
      [3, null, ['f1'], 'response'],
      [4, null, [], 'closed'],
      [11, 'REBALANCE_IN_PROGRESS', [], 'response'],
    ]);
    expect(log.list({ failed: true, limit: 1 }).map((e) => e.seq)).toEqual([11]);
    expect(log.list({ failed: true, sinceSeq: 3 }).map((e) => e.seq)).toEqual([4, 11]);
    // By error: the failures kept beyond the log are searched too (seq 1 left both); with or without `failed`.
    expect(log.list({ error: 'REBALANCE_IN_PROGRESS' }).map((e) => e.seq)).toEqual([11]);
    expect(log.list({ error: 'REBALANCE_IN_PROGRESS', failed: true }).map((e) => e.seq)).toEqual([11]);
    expect(log.list({ error: 'UNKNOWN_MEMBER_ID' })).toEqual([]);
    // NONE: the answers without an error the log holds (seq 10: ok; 11 failed, 12 in flight).
    expect(log.list({ error: 'NONE' }).map((e) => e.seq)).toEqual([10]);
    log.clear();
    expect(log.list({ failed: true })).toEqual([]);
  });

  it('numbers on after clear, and holds nothing with capacity 0', () => {
    const log = new RequestLog(3);
    log.record(request(0));
    log.record(request(1));
    log.clear();
    expect(log.list()).toEqual([]);
    log.record(request(2));
    expect(log.list().map((e) => e.seq)).toEqual([3]);
    const none = new RequestLog(0);
    expect(none.record(request(0)).seq).toBe(1);
    expect(none.list()).toEqual([]);
  });

  it('hands out plain copies with the documented keys in order; errors and faults as set on the request path', () => {
    const log = new RequestLog(2);
    const entry = log.record(request(0, { groups: ['a', 'b'], memberId: 'm-1', topics: ['t1', 't2'] }));
    expect(entry.time).toBe('2026-12-02T07:00:00.125Z');
    expect(entry.group).toBe('a');
    expect(entry.errors).toEqual([]);
    entry.addFault('f1');
    entry.addFault('f2');
    entry.setResponse({ errorCode: 0, topics: [{ name: 't1', partitions: [{ partitionIndex: 0, errorCode: 27 }, { partitionIndex: 1, errorCode: 0 }] }] });
    entry.outcome = 'response';
    entry.durationMs = 3;
    const [listed] = log.list();
    expect(Object.keys(listed!)).toEqual([
      'seq', 'time', 'api', 'apiKey', 'version', 'correlationId', 'clientId', 'connectionId', 'brokerId', 'principal',
      'group', 'groups', 'memberId', 'topics', 'transactionalId', 'error', 'errors', 'faults', 'handled', 'outcome', 'durationMs',
    ]);
    expect(listed).toEqual({
      seq: 1, time: '2026-12-02T07:00:00.125Z', api: 'OffsetCommit', apiKey: 8, version: 8, correlationId: 0, clientId: 'client-0',
      connectionId: 'c1', brokerId: 1, principal: 'User:ANONYMOUS', group: 'a', groups: ['a', 'b'], memberId: 'm-1', topics: ['t1', 't2'],
      transactionalId: 'tx-a', error: 'REBALANCE_IN_PROGRESS', errors: ['REBALANCE_IN_PROGRESS'], faults: ['f1', 'f2'], handled: false, outcome: 'response', durationMs: 3,
    });
    expect(JSON.parse(JSON.stringify(entry))).toEqual(listed);
    // A copy: changing it changes nothing held.
    listed!.errors.push('X');
    listed!.faults.push('f9');
    expect(log.list()[0]!.errors).toEqual(['REBALANCE_IN_PROGRESS']);
    expect(log.list()[0]!.faults).toEqual(['f1', 'f2']);
    // An entry without errors or faults hands out arrays of its own as well.
    const quiet = log.record(request(1));
    quiet.setResponse({ errorCode: 0, throttleTimeMs: 0 });
    const listedQuiet = log.list()[1]!;
    expect([listedQuiet.error, listedQuiet.errors, listedQuiet.faults]).toEqual([null, [], []]);
    listedQuiet.errors.push('X');
    expect(log.list()[1]!.errors).toEqual([]);
  });
});

describe('responseErrors', () => {
  it('lists distinct non-zero codes, the top-level one first, then depth first; byte buffers are not walked', () => {
    expect(responseErrors({ throttleTimeMs: 0, topics: [{ partitions: [{ errorCode: 0 }] }] })).toEqual([]);
    expect(
      responseErrors({
        topics: [{ partitions: [{ errorCode: 3 }, { errorCode: 6, records: Buffer.from([0, 0, 0, 7]) }] }, { errorCode: 3 }],
        errorCode: 16,
        more: { nested: [{ errorCode: 27 }] },
      }),
    ).toEqual([16, 3, 6, 27]);
    expect(responseErrors(null)).toEqual([]);
    expect(responseErrors({ a: { b: { c: { d: { e: { f: { g: { errorCode: 5 } } } } } } } })).toEqual([]);
    expect(responseErrors({ a: { b: { c: { d: { e: { errorCode: 5 } } } } } })).toEqual([5]);
  });
});
