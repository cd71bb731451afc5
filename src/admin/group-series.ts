/**
 * The per-group series of `GET /metrics` written as Prometheus text (format 0.0.4, as prom-client
 * writes it) as a stream of chunks, generated only as fast as the scraper reads them: with ten
 * thousand groups they are 28 MB, built through prom-client in one turn they held the Kafka port
 * 4.6 s (issue #16 item 5), and with groups committed to a 5,000-partition topic one scrape was
 * 1.57 GB, all of it held until sent (adversarial trial 13: 3 GB of heap, or the heap limit).
 * Each chunk is short and the work between two turns of the event loop bounded, so neither the
 * memory nor the Kafka port depends on the size of the scrape.
 */
import type { Broker } from '../broker.js';
import { nextTurn, sliceBudgetSpent } from '../util/slices.js';
import { groupsKnownNow } from './groups.js';
import type { GroupSummary } from './views.js';

/** Series (or groups) written per turn of the event loop at most (fewer once the turn's slice budget is spent). */
const SERIES_PER_SLICE = 2000;
/** Lines per chunk of text: the response is written chunk by chunk, never as one string. */
const LINES_PER_CHUNK = 1000;
/** Items between two looks at the turn's slice budget (`sliceBudgetSpent`). */
const ITEMS_PER_CLOCK_LOOK = 64;

/** prom-client's escaping of help text and label values (backslash, newline; label values also `"`). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
export function escapeLabel(value: string): string {
  return escapeHelp(value).replace(/"/g, '\\"');
}

/** `# HELP` and `# TYPE` of one metric. */
function header(name: string, help: string, type: 'gauge' | 'counter'): string {
  return `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}`;
}

/**
 * One metric's text as chunks: its header, then chunks of up to `LINES_PER_CHUNK` `\n`-led lines
 * of `lines` (a `null` marks an item that wrote nothing, such as a group without commits). A turn
 * of the event loop is yielded after `SERIES_PER_SLICE` items or once the turn's slice budget is
 * spent (the rule of `Slicer`), and the lines pending then stay pending: a chunk is only handed on when full. A
 * consumer that stops asking stops the generation at the next chunk.
 */
export async function* metricText(name: string, helpText: string, type: 'gauge' | 'counter', lines: Iterable<string | null>): AsyncGenerator<string> {
  yield header(name, helpText, type);
  let pending: string[] = [];
  let items = 0;
  for (const line of lines) {
    if (line !== null && pending.push(line) === LINES_PER_CHUNK) {
      yield `\n${pending.join('\n')}`;
      pending = [];
    }
    if (++items === SERIES_PER_SLICE || (items % ITEMS_PER_CLOCK_LOOK === 0 && sliceBudgetSpent())) {
      await nextTurn();
      items = 0;
    }
  }
  if (pending.length > 0) yield `\n${pending.join('\n')}`;
}

const help = {
  currentOffset: 'Current Offset of a ConsumerGroup at Topic/Partition',
  currentOffsetSum: 'Current Offset of a ConsumerGroup at Topic for all partitions',
  lag: 'Current Approximate Lag of a ConsumerGroup at Topic/Partition',
  lagSum: 'Current Approximate Lag of a ConsumerGroup at Topic for all partitions',
  members: 'Amount of members in a consumer group',
};

/** One group's committed offsets: per topic (sorted by name), per partition. */
function committedByTopic(broker: Broker, groupId: string): Array<[topic: string, byPartition: Map<number, number>]> {
  const committed = new Map<string, Map<number, number>>();
  for (const { topic, partition, offset } of broker.offsets.offsetsOf(groupId)) {
    let byPartition = committed.get(topic);
    if (!byPartition) committed.set(topic, (byPartition = new Map()));
    byPartition.set(partition, Number(offset.committedOffset));
  }
  return [...committed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** One group as a scrape read it: its summary (null: a classic group Dead) and its commits by topic. */
interface GroupRead {
  summary: GroupSummary | null;
  committed: Array<[topic: string, byPartition: Map<number, number>]>;
}

/** What one metric writes for one group's topic: `hw` its high watermarks, `byPartition` the group's commits. */
type TopicLines = (labels: string, hw: readonly number[], byPartition: ReadonlyMap<number, number>) => Iterable<string>;

const perPartition = (name: string, value: (end: number, offset: number | undefined) => number): TopicLines =>
  function* (labels, hw, byPartition) {
    for (let partition = 0; partition < hw.length; partition++) {
      yield `${name}{${labels},partition="${partition}"} ${value(hw[partition]!, byPartition.get(partition))}`;
    }
  };

const perTopic = (name: string, value: (hw: readonly number[], byPartition: ReadonlyMap<number, number>) => number): TopicLines =>
  function* (labels, hw, byPartition) {
    yield `${name}{${labels}} ${value(hw, byPartition)}`;
  };

/**
 * kafka_exporter's group series, in its order: `kafka_consumergroup_current_offset`, `_sum`,
 * `kafka_consumergroup_lag`, `_sum` `{consumergroup,topic[,partition]}` and
 * `kafka_consumergroup_members{consumergroup}`, groups sorted by id, topics by name. For every
 * partition of each topic a group committed to: the committed offset (-1 without a commit) and the
 * lag (high watermark minus committed offset; -1 without a commit); the offset sum counts a -1 as
 * the exporter does, the lag sum skips it. A topic no longer known has no partitions to list.
 * `highWatermarks`: per topic, per partition index. The text comes as chunks, each generated when
 * asked for (one pass over the groups per metric). The groups are those known when it begins;
 * each group is summarized and its offsets read once, when the first pass comes to it, and what
 * was read is kept until the last pass has written it: every metric shows the group as it was then
 * (a commit made during the scrape shows in all of them or none of them). What is kept is the
 * groups' commits (not their series, which a wide topic multiplies), and only for this scrape.
 */
export async function* consumerGroupSeries(broker: Broker, highWatermarks: ReadonlyMap<string, readonly number[]>): AsyncGenerator<string> {
  const groups = await groupsKnownNow(broker);
  /** Each group as read by the first pass, until the last pass (members) has written it. */
  const read = new Map<string, GroupRead>();
  function* known(last = false): Generator<GroupRead> {
    for (const groupId of groups.ids) {
      let group = read.get(groupId);
      if (group === undefined) {
        const summary = groups.summary(groupId);
        read.set(groupId, (group = { summary, committed: summary ? committedByTopic(broker, groupId) : [] }));
      }
      if (last) read.delete(groupId);
      yield group;
    }
  }
  function* topicLines(linesOf: TopicLines): Generator<string | null> {
    for (const { summary: g, committed } of known()) {
      yield null;
      if (!g) continue;
      const group = escapeLabel(g.groupId);
      for (const [topic, byPartition] of committed) {
        const hw = highWatermarks.get(topic);
        if (hw) yield* linesOf(`consumergroup="${group}",topic="${escapeLabel(topic)}"`, hw, byPartition);
      }
    }
  }
  function* memberLines(): Generator<string | null> {
    for (const { summary: g } of known(true)) yield g ? `kafka_consumergroup_members{consumergroup="${escapeLabel(g.groupId)}"} ${g.members}` : null;
  }
  const gauge = (name: string, helpText: string, lines: Iterable<string | null>) => metricText(name, helpText, 'gauge', lines);
  const metrics = [
    () => gauge('kafka_consumergroup_current_offset', help.currentOffset, topicLines(perPartition('kafka_consumergroup_current_offset', (_end, offset) => offset ?? -1))),
    () => gauge('kafka_consumergroup_current_offset_sum', help.currentOffsetSum, topicLines(perTopic('kafka_consumergroup_current_offset_sum', (hw, byPartition) => {
      let sum = 0;
      for (let partition = 0; partition < hw.length; partition++) sum += byPartition.get(partition) ?? -1;
      return sum;
    }))),
    () => gauge('kafka_consumergroup_lag', help.lag, topicLines(perPartition('kafka_consumergroup_lag', (end, offset) => (offset === undefined ? -1 : end - offset)))),
    () => gauge('kafka_consumergroup_lag_sum', help.lagSum, topicLines(perTopic('kafka_consumergroup_lag_sum', (hw, byPartition) => {
      let sum = 0;
      // As the exporter: a committed offset of -1 is no commit for the lag sum.
      hw.forEach((end, partition) => {
        const offset = byPartition.get(partition);
        if (offset !== undefined && offset !== -1) sum += end - offset;
      });
      return sum;
    }))),
    () => gauge('kafka_consumergroup_members', help.members, memberLines()),
  ];
  // prom-client's blank line between metrics.
  for (const [i, metric] of metrics.entries()) {
    if (i > 0) yield '\n\n';
    yield* metric();
  }
}

/** A counter with one label, one series per entry of `values`, as chunks generated when asked for. */
export function labelledCounterSeries(name: string, helpText: string, label: string, values: Iterable<[string, number]>): AsyncGenerator<string> {
  function* lines(): Generator<string> {
    for (const [labelValue, value] of values) yield `${name}{${label}="${escapeLabel(labelValue)}"} ${value}`;
  }
  return metricText(name, helpText, 'counter', lines());
}
