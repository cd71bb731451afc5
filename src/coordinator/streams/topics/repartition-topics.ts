/**
 * Partition counts of repartition topics, as Kafka 4.3's
 * `org.apache.kafka.coordinator.group.streams.topics.RepartitionTopics`: a repartition topic
 * without an explicit count takes the largest count among the source topics (external or
 * repartition) of the subtopology that writes it, iterated until nothing is left undecided.
 */
import type { Subtopology } from '../../../records/schemas/StreamsGroupTopologyValue.js';
import { StreamsInvalidTopologyError, illegalState } from './topic-errors.js';
import { copyToHashSet, newStringHashSet } from './java-string-collections.js';

/** The partition count of a topic as known so far; undefined when unknown. */
export type TopicPartitionCountProvider = (topic: string) => number | undefined;

/**
 * `RepartitionTopics.setup()`: the number of partitions of every repartition source topic.
 * `subtopologies` must be in the order Kafka iterates them (its `HashMap` of subtopology ids): a
 * count derived within one sweep uses whatever upstream counts that sweep has already found.
 *
 * Throws IllegalTopologyStateError (`IllegalStateException`) when an external source topic has no
 * count, and StreamsInvalidTopologyError when some repartition topic cannot be decided.
 */
export function setupRepartitionTopics(
  subtopologies: readonly Subtopology[],
  partitionCount: TopicPartitionCountProvider,
): Map<string, number> {
  const missing = newStringHashSet();
  for (const subtopology of subtopologies) {
    for (const topic of missingExternalSourceTopics(subtopology, partitionCount)) missing.add(topic);
  }
  if (missing.size > 0) {
    throw illegalState(`Missing source topics: ${[...missing.values()].join(', ')}`);
  }

  const counts = computeRepartitionTopicPartitionCounts(subtopologies, partitionCount);

  for (const subtopology of subtopologies) {
    if (subtopology.repartitionSourceTopics.some((t) => !counts.has(t.name))) {
      throw new StreamsInvalidTopologyError(
        'Failed to compute number of partitions for all repartition topics, because ' +
          'a repartition source topic is never used as a sink topic.',
      );
    }
  }
  return counts;
}

/** The external source topics (not repartition sources) whose count is unknown, in Java's `HashSet` order. */
function missingExternalSourceTopics(subtopology: Subtopology, partitionCount: TopicPartitionCountProvider): string[] {
  const missing = copyToHashSet(subtopology.sourceTopics);
  for (const topic of subtopology.repartitionSourceTopics) missing.delete(topic.name);
  return [...missing.values()].filter((t) => partitionCount(t) === undefined);
}

function computeRepartitionTopicPartitionCounts(
  subtopologies: readonly Subtopology[],
  partitionCount: TopicPartitionCountProvider,
): Map<string, number> {
  const counts = new Map<string, number>();
  // Counts the topology fixes (the DSL's `repartition()` with a partition count) are taken as given.
  for (const subtopology of subtopologies) {
    for (const topic of subtopology.repartitionSourceTopics) {
      if (topic.partitions !== 0) counts.set(topic.name, topic.partitions);
    }
  }

  let partitionCountNeeded: boolean;
  do {
    partitionCountNeeded = false;
    // A sweep that decides nothing new would repeat forever: the topology has an unresolvable loop.
    let progress = false;
    for (const subtopology of subtopologies) {
      for (const sink of subtopology.repartitionSinkTopics) {
        if (counts.has(sink)) continue;
        const n = maxKnownSourcePartitions(counts, subtopology, partitionCount);
        if (n === undefined) {
          partitionCountNeeded = true;
        } else {
          counts.set(sink, n);
          progress = true;
        }
      }
    }
    if (!progress && partitionCountNeeded) {
      throw new StreamsInvalidTopologyError(
        'Failed to compute number of partitions for all repartition topics. ' +
          'There may be loops in the topology that cannot be resolved.',
      );
    }
  } while (partitionCountNeeded);
  return counts;
}

/** The largest count among the subtopology's sources known so far (repartition sources first, as Kafka). */
function maxKnownSourcePartitions(
  counts: ReadonlyMap<string, number>,
  subtopology: Subtopology,
  partitionCount: TopicPartitionCountProvider,
): number | undefined {
  let max: number | undefined;
  for (const topic of subtopology.repartitionSourceTopics) {
    const n = counts.get(topic.name);
    if (n !== undefined && (max === undefined || n > max)) max = n;
  }
  for (const topic of subtopology.sourceTopics) {
    const n = partitionCount(topic);
    if (n !== undefined && (max === undefined || n > max)) max = n;
  }
  return max;
}
