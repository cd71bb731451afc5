/**
 * `GET /metrics`: Prometheus text format (prom-client), built when scraped from state the server
 * keeps anyway, so that serving requests costs nothing extra for it.
 *
 * - kafka_exporter's series, names, labels and help text (danielqsj/kafka_exporter, with its
 *   defaults: every topic and group, `offset.show-all`), so its Grafana dashboards work:
 *   `kafka_brokers`, `kafka_broker_info{id,address}`, `kafka_topic_partitions{topic}`,
 *   `kafka_topic_partition_current_offset` (the high watermark) and `_oldest_offset` (the log start
 *   offset), `_leader`, `_replicas`, `_in_sync_replica`, `_leader_is_preferred`,
 *   `_under_replicated_partition` `{topic,partition}`; per group, for every partition of each topic
 *   it has committed to, `kafka_consumergroup_current_offset` (-1 for a partition with no commit)
 *   and `kafka_consumergroup_lag` (high watermark minus committed offset; -1 with no commit)
 *   `{consumergroup,topic,partition}`, their `_sum{consumergroup,topic}` (the offset sum counts a
 *   -1 as the exporter does; the lag sum skips it) and `kafka_consumergroup_members{consumergroup}`.
 *   Unlike the exporter (which reads members from DescribeGroups, empty for KIP-848 groups) the
 *   member count of a consumer group is its real one.
 * - the server's own, `kmc_`: requests by api/version/error, request latency by api, rebalances by
 *   group type and cause, commits, fault firings by rule, the offsets log's bytes, segments, writes
 *   and fdatasyncs, cleaner runs and bytes removed, retention sweeps and expirations, connections.
 * - Node's default process metrics (`process_*`, `nodejs_*`).
 */
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import type { Broker } from '../broker.js';
import type { FaultRegistry } from '../faults/registry.js';
import type { ConnectionStats } from '../server/server.js';
import { consumerGroupSeries, labelledCounterSeries } from './group-series.js';
import { topicSeries } from './topic-series.js';
import type { Topic } from '../topics/topic.js';
import type { GroupWatch } from './group-watch.js';
import { LATENCY_BUCKETS_SECONDS, type RequestStats } from './request-stats.js';
import { nextTurn, sliceBudgetSpent } from '../util/slices.js';

export interface MetricsSources {
  broker: Broker;
  faults: FaultRegistry;
  requests: RequestStats;
  watch: GroupWatch;
  /** Connection totals of the Kafka listeners; absent: no connection series. */
  connections?: () => ConnectionStats;
}

/** Content type of the Prometheus text format 0.0.4. */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

type Labels = Record<string, string | number>;
type Sample = [labels: Labels, value: number];

/**
 * A gauge or counter whose samples are computed at scrape time from state the server keeps anyway
 * (prom-client's `collect`); counters read totals kept where the events happen.
 */
function lazyMetric(kind: 'gauge' | 'counter', registry: Registry, name: string, help: string, labelNames: string[], samples: () => Iterable<Sample>): void {
  const common = { name, help, labelNames, registers: [registry] };
  if (kind === 'gauge') {
    new Gauge({ ...common, collect() {
      this.reset();
      for (const [labels, value] of samples()) this.set(labels, value);
    } });
  } else {
    new Counter({ ...common, collect() {
      this.reset();
      for (const [labels, value] of samples()) this.inc(labels, value);
    } });
  }
}

const lazyGauge = (...args: [Registry, string, string, string[], () => Iterable<Sample>]): void => lazyMetric('gauge', ...args);
const lazyCounter = (...args: [Registry, string, string, string[], () => Iterable<Sample>]): void => lazyMetric('counter', ...args);

/**
 * kafka_exporter's view of the topics, taken once per scrape: the topics known then, and the
 * high watermark of each of their partitions (`highWatermarks`, per topic, per partition index, for
 * the group series' lag). The topic series read the rest of a partition when they write it.
 */
interface ExporterView {
  topics: readonly Topic[];
  highWatermarks: Map<string, number[]>;
}

function exporterView(broker: Broker): ExporterView {
  const topics = broker.topics.list();
  const highWatermarks = new Map<string, number[]>();
  for (const t of topics) highWatermarks.set(t.name, t.partitions.map((p) => Number(p.highWatermark)));
  return { topics, highWatermarks };
}

/**
 * Builds the registry; `render()` is the exposition text of one scrape as chunks, each generated
 * when the consumer asks for the next (src/admin/group-series.ts: a scrape can be gigabytes).
 * Returning the generator (`return()`, as a destroyed `Readable.from` does) stops the generation.
 */
export function createMetrics(sources: MetricsSources): { render: () => AsyncGenerator<string> } {
  const { broker, faults, requests, watch } = sources;
  const registry = new Registry();
  // prom-client counts the process's CPU from its registration here (the admin API's first
  // request, src/admin/listener.ts); Prometheus' process collectors count from the process's start,
  // and so does process.cpuUsage(): the CPU spent before is added once (new-user trial, session 31:
  // 0.44 s reported for 2.01 s spent).
  const spentBefore = process.cpuUsage();
  collectDefaultMetrics({ register: registry });
  for (const [name, micros] of [
    ['process_cpu_user_seconds_total', spentBefore.user],
    ['process_cpu_system_seconds_total', spentBefore.system],
    ['process_cpu_seconds_total', spentBefore.user + spentBefore.system],
  ] as const) {
    (registry.getSingleMetric(name) as Counter | undefined)?.inc(micros / 1e6);
  }
  // The exposition's parts in registration order: prom-client's metrics one by one, and the
  // per-topic and per-group ones written by us in slices from the scrape's view.
  const parts: Array<(scrape: ExporterView) => AsyncIterable<string>> = [];
  let partsFromRegistry = 0;
  const takeRegistered = (): void => {
    const metrics = registry.getMetricsAsArray();
    for (; partsFromRegistry < metrics.length; partsFromRegistry++) {
      const name = metrics[partsFromRegistry]!.name;
      parts.push(async function* () {
        yield await registry.getSingleMetricAsString(name);
      });
    }
  };
  const addSliced = (part: (scrape: ExporterView) => AsyncIterable<string>): void => {
    takeRegistered();
    parts.push(part);
  };

  lazyGauge(registry, 'kafka_brokers', 'Number of Brokers in the Kafka Cluster.', [], () => [[{}, broker.cluster.liveBrokers().length]]);
  lazyGauge(registry, 'kafka_broker_info', 'Information about the Kafka Broker.', ['id', 'address'], () => broker.cluster.liveBrokers().map((b): Sample => [{ id: b.id, address: `${b.host}:${b.port}` }, 1]));
  // Per topic and partition: written by us in slices (src/admin/topic-series.ts).
  addSliced((scrape) => topicSeries(broker, scrape.topics));

  // Per group: written by us in slices (src/admin/group-series.ts), in prom-client's format.
  addSliced((scrape) => consumerGroupSeries(broker, scrape.highWatermarks));

  lazyCounter(registry, 'kmc_requests_total', 'Kafka requests handled, by API, version and the first error of the response (NONE: no error; NO_RESPONSE, CLOSED, FAILED: no response).', ['api', 'version', 'error'], () =>
    requests.requestCounts().map((c): Sample => [{ api: c.api, version: c.version, error: c.error }, c.count]));
  registry.registerMetric(latencyHistogram(requests));
  lazyCounter(registry, 'kmc_rebalances_total', 'Group rebalances (a new classic generation or consumer group epoch) seen, by group type and inferred cause.', ['group_type', 'cause'], () =>
    watch.rebalanceCounts().map((r): Sample => [{ group_type: r.groupType, cause: r.cause }, r.count]));
  addSliced(() => labelledCounterSeries('kmc_offset_commits_total', 'OffsetCommit and TxnOffsetCommit requests answered without an error, by group.', 'consumergroup', watch.commitCountsByGroup()));
  lazyCounter(registry, 'kmc_fault_firings_total', 'Times each fault rule fired (rules removed since are no longer listed).', ['rule'], () => faults.list().map((r): Sample => [{ rule: r.id }, r.fired]));
  lazyGauge(registry, 'kmc_offsets_log_bytes', 'Bytes of the __consumer_offsets segments, all partitions.', [], () => [[{}, broker.groupLog.partitionLogs().reduce((n, p) => n + p.sizeInBytes, 0)]]);
  // Commits per fdatasync (issue #16): kmc_offset_commits_total's rise over this one's, under `mock.flush.policy=always`.
  const offsetsLogStat = (key: 'writes' | 'syncs') => (): Sample[] => [[{}, broker.groupLog.partitionLogs().reduce((n, p) => n + p.stats[key], 0)]];
  lazyCounter(registry, 'kmc_offsets_log_writes_total', 'Writes to the __consumer_offsets segments (the appends of one event-loop turn share one), partitions open now.', [], offsetsLogStat('writes'));
  lazyCounter(registry, 'kmc_offsets_log_syncs_total', 'fdatasync calls on the __consumer_offsets segments (the appends written while one runs share the next), partitions open now.', [], offsetsLogStat('syncs'));
  lazyGauge(registry, 'kmc_offsets_log_segments', 'Segments of the __consumer_offsets partitions.', [], () => [[{}, broker.groupLog.partitionLogs().reduce((n, p) => n + p.segmentCount, 0)]]);
  lazyCounter(registry, 'kmc_log_cleaner_runs_total', 'Completed cleans of a __consumer_offsets partition.', [], () => [[{}, broker.groupLog.cleaner.stats.runs]]);
  lazyCounter(registry, 'kmc_log_cleaner_bytes_removed_total', 'Bytes the log cleaner removed from __consumer_offsets.', [], () => [[{}, broker.groupLog.cleaner.stats.bytesRemoved]]);
  lazyCounter(registry, 'kmc_retention_sweeps_total', 'Offsets retention sweeps run (periodic and on demand).', [], () => [[{}, broker.retention.stats.sweeps]]);
  lazyCounter(registry, 'kmc_retention_expired_offsets_total', 'Committed offsets expired by retention (offsets.retention.minutes).', [], () => [[{}, broker.retention.stats.expiredOffsets]]);
  lazyCounter(registry, 'kmc_retention_deleted_groups_total', 'Empty groups deleted by the retention sweep.', [], () => [[{}, broker.retention.stats.deletedGroups]]);
  const connections = sources.connections;
  if (connections) {
    lazyGauge(registry, 'kmc_connections', 'Kafka client connections open now.', [], () => [[{}, connections().open]]);
    lazyCounter(registry, 'kmc_connections_accepted_total', 'Kafka client connections accepted since start.', [], () => [[{}, connections().accepted]]);
  }

  takeRegistered();

  return {
    async *render() {
      // Many scrapes at once share the turn's budget too: each part of each one waits for a turn
      // with budget left (adversarial trial, session 21: 300 scrapes arriving together, generated
      // in one go, held the Kafka port 580 ms; 1,000 of them 2.1 s).
      while (sliceBudgetSpent()) await nextTurn();
      const scrape = exporterView(broker);
      // As prom-client's Registry.metrics(): metrics separated by a blank line, a newline at the end.
      for (const [i, part] of parts.entries()) {
        while (sliceBudgetSpent()) await nextTurn();
        if (i > 0) yield '\n\n';
        yield* part(scrape);
      }
      yield '\n';
    },
  };
}

/**
 * `kmc_request_duration_seconds{api}`: a histogram whose buckets RequestStats fills on the
 * request path; this object only formats them at scrape time (prom-client's registry takes any
 * metric with `get()`).
 */
function latencyHistogram(requests: RequestStats): Metric {
  const name = 'kmc_request_duration_seconds';
  const help = 'Time from a Kafka request\'s arrival to its response, by API (millisecond resolution).';
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    async get() {
      const values: Array<{ labels: Labels; value: number; metricName: string }> = [];
      for (const h of requests.latencyHistograms()) {
        let cumulative = 0;
        LATENCY_BUCKETS_SECONDS.forEach((le, i) => {
          cumulative += h.buckets[i]!;
          values.push({ metricName: `${name}_bucket`, labels: { le, api: h.api }, value: cumulative });
        });
        values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', api: h.api }, value: h.count });
        values.push({ metricName: `${name}_sum`, labels: { api: h.api }, value: h.sumSeconds });
        values.push({ metricName: `${name}_count`, labels: { api: h.api }, value: h.count });
      }
      return { name, help, type: 'histogram', values, aggregator: 'sum' };
    },
    reset() {},
  };
  return metric as unknown as Metric;
}
