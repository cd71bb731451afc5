/**
 * kafka_exporter's topic series of `GET /metrics` (`kafka_topic_partitions` and the seven
 * `kafka_topic_partition_*` gauges), written as Prometheus text in chunks and slices like the group
 * series (group-series.ts `metricText`): built through prom-client in one turn, one topic of 9,000
 * partitions held the Kafka port 0.25-0.9 s per scrape, four of them ~2 s (adversarial trial,
 * session 20). The topics are those known when the scrape began; each partition's figures are read
 * when its line is written.
 */
import type { Broker } from '../broker.js';
import type { Partition } from '../topics/partition.js';
import type { Topic } from '../topics/topic.js';
import { escapeLabel, metricText } from './group-series.js';

/** One partition as the gauges read it; one per scrape, moved from partition to partition. */
class PartitionReader {
  topic = '';
  partition: Partition | null = null;

  constructor(
    private readonly cluster: Broker['cluster'],
    /** The ids of the brokers up (the in-sync replicas are those of them). */
    private readonly live: ReadonlySet<number>,
  ) {}

  get index(): number {
    return this.partition!.index;
  }

  leader(): number {
    return this.cluster.leaderOf(this.topic, this.index);
  }

  replicas(): readonly number[] {
    return this.cluster.replicas(this.topic, this.index);
  }

  inSync(): number {
    let n = 0;
    for (const id of this.replicas()) if (this.live.has(id)) n++;
    return n;
  }
}

/** The per-partition gauges, in kafka_exporter's (and prom-client's former) order. */
const PARTITION_GAUGES: ReadonlyArray<[name: string, help: string, value: (p: PartitionReader) => number]> = [
  ['kafka_topic_partition_current_offset', 'Current Offset of a Broker at Topic/Partition', (p) => Number(p.partition!.highWatermark)],
  ['kafka_topic_partition_oldest_offset', 'Oldest Offset of a Broker at Topic/Partition', (p) => Number(p.partition!.logStartOffset)],
  ['kafka_topic_partition_leader', 'Leader Broker ID of this Topic/Partition', (p) => p.leader()],
  ['kafka_topic_partition_replicas', 'Number of Replicas for this Topic/Partition', (p) => p.replicas().length],
  ['kafka_topic_partition_in_sync_replica', 'Number of In-Sync Replicas for this Topic/Partition', (p) => p.inSync()],
  ['kafka_topic_partition_leader_is_preferred', '1 if Topic/Partition is using the Preferred Broker', (p) => (p.leader() === p.replicas()[0] ? 1 : 0)],
  ['kafka_topic_partition_under_replicated_partition', '1 if Topic/Partition is under Replicated', (p) => (p.inSync() < p.replicas().length ? 1 : 0)],
];

/**
 * The topic series of one scrape as chunks (metrics separated by a blank line, as prom-client
 * writes them), `topics` as the scrape found them; generated when asked for.
 */
export async function* topicSeries(broker: Broker, topics: readonly Topic[]): AsyncGenerator<string> {
  const reader = new PartitionReader(broker.cluster, new Set(broker.cluster.liveBrokers().map((b) => b.id)));
  function* partitionCounts(): Generator<string> {
    for (const t of topics) yield `kafka_topic_partitions{topic="${escapeLabel(t.name)}"} ${t.partitions.length}`;
  }
  function* partitionLines(name: string, value: (p: PartitionReader) => number): Generator<string> {
    for (const t of topics) {
      const topic = escapeLabel(t.name);
      reader.topic = t.name;
      for (const p of t.partitions) {
        reader.partition = p;
        yield `${name}{topic="${topic}",partition="${p.index}"} ${value(reader)}`;
      }
    }
  }
  yield* metricText('kafka_topic_partitions', 'Number of partitions for this Topic', 'gauge', partitionCounts());
  for (const [name, help, value] of PARTITION_GAUGES) {
    yield '\n\n';
    yield* metricText(name, help, 'gauge', partitionLines(name, value));
  }
}
