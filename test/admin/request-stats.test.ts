/**
 * The request counts and latencies behind `kmc_requests_total` and `kmc_request_duration_seconds`
 * (src/admin/request-stats.ts): an answered request counts under its first error (NONE without),
 * one that got no response under what became of it, never as NONE (adversarial trial, session 20:
 * a hung and a fault-closed Metadata counted as answered without an error), and only answered
 * requests have a duration in the histogram.
 */
import { describe, expect, it } from 'vitest';
import { RequestStats } from '../../src/admin/request-stats.js';
import { RequestLog, type LoggedRequest } from '../../src/faults/request-log.js';

const log = new RequestLog(10);
function ended(apiKey: number, api: string, outcome: LoggedRequest['outcome'], durationMs: number, error: string | null = null): LoggedRequest {
  const entry = log.record({ timeMs: 0, api, apiKey, version: 12, correlationId: 1, clientId: 'c', connectionId: 'c1', brokerId: 1, principal: 'User:ANONYMOUS', groups: [], memberId: null, topics: [], transactionalId: null });
  entry.outcome = outcome;
  entry.durationMs = durationMs;
  entry.error = error;
  return entry;
}

describe('RequestStats', () => {
  it('counts requests without a response by their outcome, and times answered ones only', () => {
    const stats = new RequestStats();
    stats.record(ended(3, 'Metadata', 'response', 2));
    stats.record(ended(3, 'Metadata', 'response', 30, 'UNKNOWN_TOPIC_OR_PARTITION'));
    stats.record(ended(3, 'Metadata', 'no-response', 0));
    stats.record(ended(3, 'Metadata', 'closed', 0));
    stats.record(ended(0, 'Produce', 'failed', 1));
    stats.record(ended(3, 'Metadata', 'response', 1));
    expect(stats.requestCounts()).toEqual([
      { api: 'Produce', version: 12, error: 'FAILED', count: 1 },
      { api: 'Metadata', version: 12, error: 'NONE', count: 2 },
      { api: 'Metadata', version: 12, error: 'UNKNOWN_TOPIC_OR_PARTITION', count: 1 },
      { api: 'Metadata', version: 12, error: 'NO_RESPONSE', count: 1 },
      { api: 'Metadata', version: 12, error: 'CLOSED', count: 1 },
    ]);
    const [metadata, ...others] = stats.latencyHistograms();
    expect(others).toEqual([]);
    expect([metadata!.api, metadata!.count, metadata!.sumSeconds]).toEqual(['Metadata', 3, 0.033]);
    // 1 and 2 ms in the first buckets (<= 1 ms, <= 2.5 ms), 30 ms in the one up to 50 ms.
    expect(metadata!.buckets.slice(0, 6)).toEqual([1, 1, 0, 0, 0, 1]);
  });
});
