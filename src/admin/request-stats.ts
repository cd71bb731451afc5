/**
 * Request counts and latencies for `/metrics`, recorded from the fault registry's request-done
 * hook. The request path pays for an array lookup and a few additions per request; prom-client
 * objects are only built from these totals when Prometheus scrapes (src/admin/metrics.ts).
 */
import type { RequestLogEntry } from '../faults/request-log.js';

/** Upper bounds (seconds) of the latency buckets; durations are measured in whole milliseconds. */
export const LATENCY_BUCKETS_SECONDS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const BUCKETS_MS = LATENCY_BUCKETS_SECONDS.map((s) => s * 1000);

/** Requests of one API at one version that ended with one error (`NONE` when none). */
export interface RequestCount {
  api: string;
  version: number;
  error: string;
  count: number;
}

/** Latencies of one API: non-cumulative counts per bucket (the last one is +Inf), their sum and count. */
export interface LatencyHistogram {
  api: string;
  buckets: number[];
  sumSeconds: number;
  count: number;
}

/** The `error` label of a request that got no response, by its outcome. */
const UNANSWERED: Readonly<Record<RequestLogEntry['outcome'], string>> = {
  response: 'NONE',
  'no-response': 'NO_RESPONSE',
  closed: 'CLOSED',
  failed: 'FAILED',
  pending: 'PENDING',
};

/** One API's counts and latencies (`RequestStats`' entry for its key). */
interface ApiStats {
  api: string;
  /** Requests answered without an error, by version (index). */
  ok: number[];
  /** Requests that ended with an error: version -> error -> count. */
  errors: Map<number, Map<string, number>>;
  histogram: LatencyHistogram;
}

export class RequestStats {
  /**
   * By API key, an array index: the request path looks its API up by number and counts an answer
   * without an error in an array slot, no map walk (issue #16: three map lookups and a set per request).
   */
  private readonly byKey: Array<ApiStats | undefined> = [];

  /**
   * Records one finished request: its API, version, and the first error of its response (or, when
   * it got none, `NO_RESPONSE`, `CLOSED` or `FAILED`: a hang must not count as answered without an
   * error, adversarial trial, session 20); the duration of an answered one.
   */
  record(entry: Readonly<RequestLogEntry>): void {
    const stats = this.byKey[entry.apiKey] ?? this.add(entry);
    const version = entry.version;
    const answered = entry.outcome === 'response';
    const error = answered ? entry.error : UNANSWERED[entry.outcome];
    if (error === null) stats.ok[version] = (stats.ok[version] ?? 0) + 1;
    else {
      let byError = stats.errors.get(version);
      if (!byError) stats.errors.set(version, (byError = new Map()));
      byError.set(error, (byError.get(error) ?? 0) + 1);
    }
    if (!answered || entry.durationMs === null) return;
    const histogram = stats.histogram;
    let i = 0;
    while (i < BUCKETS_MS.length && entry.durationMs > BUCKETS_MS[i]!) i++;
    histogram.buckets[i]!++;
    histogram.sumSeconds += entry.durationMs / 1000;
    histogram.count++;
  }

  private add(entry: Readonly<RequestLogEntry>): ApiStats {
    const stats: ApiStats = { api: entry.api, ok: [], errors: new Map(), histogram: { api: entry.api, buckets: new Array<number>(BUCKETS_MS.length + 1).fill(0), sumSeconds: 0, count: 0 } };
    this.byKey[entry.apiKey] = stats;
    return stats;
  }

  /** Every (api, version, error) seen, with its count (`NONE`: answered without an error). */
  requestCounts(): RequestCount[] {
    const out: RequestCount[] = [];
    for (const stats of this.byKey) {
      if (stats === undefined) continue;
      stats.ok.forEach((count, version) => out.push({ api: stats.api, version, error: 'NONE', count }));
      for (const [version, byError] of stats.errors) for (const [error, count] of byError) out.push({ api: stats.api, version, error, count });
    }
    return out;
  }

  /** The latencies of every API with a request that had a duration. */
  latencyHistograms(): readonly LatencyHistogram[] {
    const out: LatencyHistogram[] = [];
    for (const stats of this.byKey) if (stats !== undefined && stats.histogram.count > 0) out.push(stats.histogram);
    return out;
  }
}
