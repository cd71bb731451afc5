/**
 * The per-group series of `GET /metrics` written as Prometheus text (format 0.0.4, as prom-client
 * writes it) in slices that yield to the event loop: with ten thousand groups they are 28 MB, and
 * built through prom-client in one turn they held the Kafka port 4.6 s (issue #16 item 5).
 * Each group costs its committed offsets and the topics' high watermarks, nothing more.
 */
import type { Broker } from '../broker.js';
import { Slicer } from '../util/slices.js';
import { eachGroupInSlices } from './groups.js';

/** Series written per turn of the event loop at most (plus `SLICE_BUDGET_MS`) for one counter. */
const SERIES_PER_SLICE = 2000;
/** Lines per chunk of text: the response is written chunk by chunk, never as one 28 MB string. */
const LINES_PER_CHUNK = 1000;

/** prom-client's escaping of help text and label values (backslash, newline; label values also `"`). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
function escapeLabel(value: string): string {
  return escapeHelp(value).replace(/"/g, '\\"');
}

/** `# HELP` and `# TYPE` of one metric. */
function header(name: string, help: string, type: 'gauge' | 'counter'): string {
  return `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}`;
}

/**
 * One metric's text as chunks: its header, then chunks of `\n`-led lines. Metrics are
 * separated by a blank line, as prom-client's `Registry.metrics()` separates them.
 */
class MetricText {
  readonly chunks: string[];
  private lines: string[] = [];

  constructor(name: string, help: string, type: 'gauge' | 'counter') {
    this.chunks = [header(name, help, type)];
  }

  add(line: string): void {
    if (this.lines.push(line) === LINES_PER_CHUNK) this.flush();
  }

  /** The lines added since the last chunk become one. */
  flush(): void {
    if (this.lines.length === 0) return;
    this.chunks.push(`\n${this.lines.join('\n')}`);
    this.lines = [];
  }
}

/** Joins metrics' chunks with prom-client's blank line between metrics. */
function joined(metrics: MetricText[]): string[] {
  return metrics.flatMap((m, i) => (i === 0 ? m.chunks : ['\n\n', ...m.chunks]));
}

const help = {
  currentOffset: 'Current Offset of a ConsumerGroup at Topic/Partition',
  currentOffsetSum: 'Current Offset of a ConsumerGroup at Topic for all partitions',
  lag: 'Current Approximate Lag of a ConsumerGroup at Topic/Partition',
  lagSum: 'Current Approximate Lag of a ConsumerGroup at Topic for all partitions',
  members: 'Amount of members in a consumer group',
};

/**
 * kafka_exporter's group series, in its order: `kafka_consumergroup_current_offset`, `_sum`,
 * `kafka_consumergroup_lag`, `_sum` `{consumergroup,topic[,partition]}` and
 * `kafka_consumergroup_members{consumergroup}`, groups sorted by id, topics by name. For every
 * partition of each topic a group committed to: the committed offset (-1 without a commit) and the
 * lag (high watermark minus committed offset; -1 without a commit); the offset sum counts a -1 as
 * the exporter does, the lag sum skips it. A topic no longer known has no partitions to list.
 * `highWatermarks`: per topic, per partition index. Returns the text as chunks, in slices.
 */
export async function consumerGroupSeries(broker: Broker, highWatermarks: ReadonlyMap<string, readonly number[]>): Promise<string[]> {
  const current = new MetricText('kafka_consumergroup_current_offset', help.currentOffset, 'gauge');
  const currentSum = new MetricText('kafka_consumergroup_current_offset_sum', help.currentOffsetSum, 'gauge');
  const lag = new MetricText('kafka_consumergroup_lag', help.lag, 'gauge');
  const lagSum = new MetricText('kafka_consumergroup_lag_sum', help.lagSum, 'gauge');
  const members = new MetricText('kafka_consumergroup_members', help.members, 'gauge');
  const all = [current, currentSum, lag, lagSum, members];
  await eachGroupInSlices(broker, (g) => {
    const group = escapeLabel(g.groupId);
    const committed = new Map<string, Map<number, number>>();
    for (const { topic, partition, offset } of broker.offsets.offsetsOf(g.groupId)) {
      let byPartition = committed.get(topic);
      if (!byPartition) committed.set(topic, (byPartition = new Map()));
      byPartition.set(partition, Number(offset.committedOffset));
    }
    for (const topic of [...committed.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      const hw = highWatermarks.get(topic);
      if (!hw) continue;
      const byPartition = committed.get(topic)!;
      const labels = `consumergroup="${group}",topic="${escapeLabel(topic)}"`;
      let offsetSum = 0;
      let lagTotal = 0;
      hw.forEach((end, partition) => {
        const offset = byPartition.get(partition);
        current.add(`kafka_consumergroup_current_offset{${labels},partition="${partition}"} ${offset ?? -1}`);
        lag.add(`kafka_consumergroup_lag{${labels},partition="${partition}"} ${offset === undefined ? -1 : end - offset}`);
        offsetSum += offset ?? -1;
        // As the exporter: a committed offset of -1 is no commit for the lag sum.
        if (offset !== undefined && offset !== -1) lagTotal += end - offset;
      });
      currentSum.add(`kafka_consumergroup_current_offset_sum{${labels}} ${offsetSum}`);
      lagSum.add(`kafka_consumergroup_lag_sum{${labels}} ${lagTotal}`);
    }
    members.add(`kafka_consumergroup_members{consumergroup="${group}"} ${g.members}`);
  });
  for (const m of all) m.flush();
  return joined(all);
}

/** A counter with one label, one series per entry of `values`, as chunks written in slices. */
export async function labelledCounterSeries(name: string, helpText: string, label: string, values: Iterable<[string, number]>): Promise<string[]> {
  const metric = new MetricText(name, helpText, 'counter');
  const slicer = new Slicer(SERIES_PER_SLICE);
  for (const [labelValue, value] of values) {
    await slicer.next();
    metric.add(`${name}{${label}="${escapeLabel(labelValue)}"} ${value}`);
  }
  metric.flush();
  return metric.chunks;
}
