/**
 * Copartitioning, as Kafka 4.3's
 * `org.apache.kafka.coordinator.group.streams.topics.CopartitionedTopicsEnforcer`: the topics of a
 * copartition group (joined streams/tables) must have equal partition counts; repartition topics in
 * the group are coerced to the count of the group's external topics (or, when the group holds only
 * repartition topics, to a fixed count or the largest one).
 */
import { StreamsInvalidTopologyError, TopicConfigurationException, illegalState } from './topic-errors.js';
import type { TopicPartitionCountProvider } from './repartition-topics.js';
import { compareJavaStrings, javaCollectionString, javaMapString, newStringHashMap } from './java-string-collections.js';

/**
 * `CopartitionedTopicsEnforcer.enforce`: the partition count of every repartition topic in the
 * group. `copartitionedTopics` and `fixedRepartitionTopics` are in the iteration order of Kafka's
 * `HashSet`s (the first fixed topic sets the count; the first mismatching topic is the one named).
 * `fixedRepartitionTopics` are those of the whole topology, as Kafka passes them, not only the group's.
 *
 * Throws TopicConfigurationException (INCORRECTLY_PARTITIONED_TOPICS) for unequal counts,
 * StreamsInvalidTopologyError when no count is positive, IllegalTopologyStateError for a topic
 * without a count.
 */
export function enforceCopartitioning(
  copartitionedTopics: readonly string[],
  fixedRepartitionTopics: readonly string[],
  flexibleRepartitionTopics: ReadonlySet<string>,
  partitionCount: TopicPartitionCountProvider,
): Map<string, number> {
  if (copartitionedTopics.length === 0) return new Map();
  const countOf = (topic: string): number => {
    const n = partitionCount(topic);
    if (n === undefined) throw illegalState(`Number of partitions is not set for topic: ${topic}`);
    return n;
  };
  const fixed = new Set(fixedRepartitionTopics);

  // Kafka's HashMap: the coercion below visits (and reports) repartition topics in its order.
  const repartitionCounts = newStringHashMap<number>();
  for (const topic of copartitionedTopics) {
    if (fixed.has(topic) || flexibleRepartitionTopics.has(topic)) repartitionCounts.set(topic, countOf(topic));
  }
  const externalCounts = new Map<string, number>();
  for (const topic of copartitionedTopics) {
    if (!repartitionCounts.has(topic)) externalCounts.set(topic, countOf(topic));
  }

  let target: number;
  if (externalCounts.size === 0) {
    target =
      fixed.size > 0
        ? sameFixedCount(repartitionCounts.entries(), fixedRepartitionTopics, countOf)
        : maxCount(repartitionCounts.entries());
  } else {
    target = sameCount(externalCounts);
  }

  const result = new Map<string, number>();
  for (const [topic, count] of repartitionCounts.entries()) {
    result.set(topic, target);
    if (fixed.has(topic) && count !== target) {
      throw TopicConfigurationException.incorrectlyPartitionedTopics(
        `Number of partitions [${count}] of repartition topic [${topic}] ` +
          `doesn't match number of partitions [${target}] of the source topic.`,
      );
    }
  }
  return result;
}

/** Kafka prints the group's counts as a `TreeMap` (sorted by name) inside brackets. */
function notSamePartitions(counts: Iterable<readonly [string, number]>): TopicConfigurationException {
  const sorted = [...counts].sort(([a], [b]) => compareJavaStrings(a, b));
  return TopicConfigurationException.incorrectlyPartitionedTopics(
    `Following topics do not have the same number of partitions: [${javaMapString(sorted)}]`,
  );
}

/** `validateAndGetNumOfPartitions`: all fixed topics (of the topology) agree; the message lists the group's. */
function sameFixedCount(
  groupRepartitionCounts: Iterable<readonly [string, number]>,
  fixedRepartitionTopics: readonly string[],
  countOf: (topic: string) => number,
): number {
  const first = countOf(fixedRepartitionTopics[0]!);
  for (const topic of fixedRepartitionTopics) {
    if (countOf(topic) !== first) throw notSamePartitions(groupRepartitionCounts);
  }
  return first;
}

/** `getSamePartitions`: the external topics of the group all have one count. */
function sameCount(externalCounts: ReadonlyMap<string, number>): number {
  const first = externalCounts.values().next().value as number;
  for (const n of externalCounts.values()) {
    if (n !== first) throw notSamePartitions(externalCounts.entries());
  }
  return first;
}

/** `getMaxPartitions`. */
function maxCount(repartitionCounts: Iterable<readonly [string, number]>): number {
  const entries = [...repartitionCounts];
  let max = 0;
  for (const [, n] of entries) max = Math.max(max, n);
  if (max === 0) {
    throw new StreamsInvalidTopologyError(
      'All topics in the copartition group had undefined partition number: ' +
        javaCollectionString(entries.map(([t]) => t)),
    );
  }
  return max;
}
