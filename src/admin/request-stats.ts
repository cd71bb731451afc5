/**
 * Request counts and latencies for `/metrics`, recorded from the fault registry's request-done
 * hook. The request path pays for one map walk and a few additions per request; prom-client
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

export class RequestStats {
  /** api -> version -> error -> count. */
  private readonly counts = new Map<string, Map<number, Map<string, number>>>();
  private readonly latencies = new Map<string, LatencyHistogram>();

  /** Records one finished request (its API, version, first error and duration). */
  record(entry: Readonly<RequestLogEntry>): void {
    let byVersion = this.counts.get(entry.api);
    if (!byVersion) this.counts.set(entry.api, (byVersion = new Map()));
    let byError = byVersion.get(entry.version);
    if (!byError) byVersion.set(entry.version, (byError = new Map()));
    const error = entry.error ?? 'NONE';
    byError.set(error, (byError.get(error) ?? 0) + 1);

    if (entry.durationMs === null) return;
    let histogram = this.latencies.get(entry.api);
    if (!histogram) this.latencies.set(entry.api, (histogram = { api: entry.api, buckets: new Array<number>(BUCKETS_MS.length + 1).fill(0), sumSeconds: 0, count: 0 }));
    let i = 0;
    while (i < BUCKETS_MS.length && entry.durationMs > BUCKETS_MS[i]!) i++;
    histogram.buckets[i]!++;
    histogram.sumSeconds += entry.durationMs / 1000;
    histogram.count++;
  }

  /** Every (api, version, error) seen, with its count. */
  requestCounts(): RequestCount[] {
    const out: RequestCount[] = [];
    for (const [api, byVersion] of this.counts) {
      for (const [version, byError] of byVersion) for (const [error, count] of byError) out.push({ api, version, error, count });
    }
    return out;
  }

  latencyHistograms(): readonly LatencyHistogram[] {
    return [...this.latencies.values()];
  }
}
