/**
 * Partition counts of changelog topics, as Kafka 4.3's
 * `org.apache.kafka.coordinator.group.streams.topics.ChangelogTopics`: a subtopology's changelogs
 * get one partition per task, i.e. the largest count among its source and repartition source topics.
 */
import type { Subtopology } from '../../../records/schemas/StreamsGroupTopologyValue.js';
import { StreamsInvalidTopologyError, illegalState } from './topic-errors.js';
import type { TopicPartitionCountProvider } from './repartition-topics.js';

/**
 * `ChangelogTopics.setup()`. `partitionCount` must know every source topic, repartition topics
 * included (decided ones too). `subtopologies` in Kafka's iteration order: a changelog named by two
 * subtopologies takes the count of the later one.
 */
export function setupChangelogTopics(
  subtopologies: readonly Subtopology[],
  partitionCount: TopicPartitionCountProvider,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const subtopology of subtopologies) {
    let max: number | undefined;
    const sources = [...subtopology.sourceTopics, ...subtopology.repartitionSourceTopics.map((t) => t.name)];
    for (const topic of sources) {
      const n = partitionCount(topic);
      if (n === undefined) throw illegalState(`No partition count for source topic ${topic}`);
      if (max === undefined || n > max) max = n;
    }
    if (max === undefined) {
      throw new StreamsInvalidTopologyError(`No source topics found for subtopology ${subtopology.subtopologyId}`);
    }
    for (const changelog of subtopology.stateChangelogTopics) counts.set(changelog.name, max);
  }
  return counts;
}
