/**
 * The topic configuration of a streams group's topology, as Kafka 4.3's
 * `org.apache.kafka.coordinator.group.streams.topics.InternalTopicManager.configureTopics`: checks
 * the source topics exist, decides the partition counts of the repartition and changelog topics
 * (`RepartitionTopics`, `CopartitionedTopicsEnforcer`, `ChangelogTopics`), checks copartitioning and
 * the internal topics that exist, and lists the internal topics still to be created.
 *
 * Kafka walks the subtopologies through the `HashMap` its `StreamsTopology` keeps them in, and
 * several sets and maps on the way are `HashSet`s/`HashMap`s; their iteration order decides which
 * topic a message names and in which order, so it is reproduced here (java-string-collections.ts).
 */
import type {
  CopartitionGroup,
  StreamsGroupTopologyValue,
  Subtopology,
  TopicConfig,
  TopicInfo,
} from '../../../records/schemas/StreamsGroupTopologyValue.js';
import { validateTopicName } from '../../../topics/topic-name.js';
import type { JavaHashMap } from '../../share/java-collections.js';
import type { ConfiguredInternalTopic, ConfiguredSubtopology, ConfiguredTopology, CreatableTopic } from './types.js';
import { setupRepartitionTopics, type TopicPartitionCountProvider } from './repartition-topics.js';
import { enforceCopartitioning } from './copartitioning.js';
import { setupChangelogTopics } from './changelog-topics.js';
import {
  IllegalTopologyStateError,
  TopicConfigurationException,
  illegalArgument,
  illegalState,
} from './topic-errors.js';
import {
  collectToSet,
  compareJavaStrings,
  copyToHashSet,
  javaMapString,
  newStringHashMap,
  putUnique,
  toOrderedMap,
  toOrderedSet,
} from './java-string-collections.js';

export { StreamsInvalidTopologyError, IllegalTopologyStateError, TopicConfigurationException } from './topic-errors.js';
export type { TopicPartitionCountProvider } from './repartition-topics.js';

/**
 * `InternalTopicManager.configureTopics` for the group's persisted topology.
 *
 * `partitionCount` is the broker's view: the partition count of an existing topic, undefined when
 * the topic does not exist. A topology that cannot be used yet comes back with
 * `topicConfigurationError` (MISSING_SOURCE_TOPICS, INCORRECTLY_PARTITIONED_TOPICS, or
 * MISSING_INTERNAL_TOPICS with the topics to create); one that can never be used throws
 * StreamsInvalidTopologyError (answered STREAMS_INVALID_TOPOLOGY). IllegalTopologyStateError and
 * TopicError (an illegal internal topic name) are what Kafka lets escape as unchecked exceptions.
 */
export function configureTopics(
  topology: StreamsGroupTopologyValue,
  metadataHash: bigint,
  partitionCount: (topic: string) => number | undefined,
): ConfiguredTopology {
  const subtopologies = subtopologiesInKafkaOrder(topology);
  if (topology.epoch < 0) throw illegalArgument('Topology epoch must be non-negative.');

  // Resolved before Kafka's try block: a bad copartition index escapes as an unchecked exception.
  const copartitionGroups = subtopologies.map(copartitionGroupsOf);

  try {
    throwOnMissingSourceTopics(subtopologies, partitionCount);

    const decided = decidePartitionCounts(subtopologies, partitionCount, copartitionGroups);

    const configured = new Map<string, ConfiguredSubtopology>();
    const built = subtopologies.map((s) => [s.subtopologyId, fromPersistedSubtopology(s, partitionCount, decided)] as const);
    for (const [id, subtopology] of [...built].sort(([a], [b]) => compareJavaStrings(a, b))) {
      configured.set(id, subtopology);
    }

    const toCreate = missingInternalTopics(configured, subtopologies, partitionCount);
    const topicConfigurationError =
      toCreate.size > 0
        ? TopicConfigurationException.missingInternalTopics(
            `Internal topics are missing: ${summarizeTopics([...toCreate.keys()])}`,
          )
        : null;
    return {
      topologyEpoch: topology.epoch,
      metadataHash,
      subtopologies: configured,
      internalTopicsToBeCreated: toCreate,
      topicConfigurationError: topicConfigurationError && {
        status: topicConfigurationError.status,
        message: topicConfigurationError.message,
      },
      isReady: topicConfigurationError === null,
    };
  } catch (e) {
    if (!(e instanceof TopicConfigurationException)) throw e;
    return {
      topologyEpoch: topology.epoch,
      metadataHash,
      subtopologies: null,
      internalTopicsToBeCreated: new Map(),
      topicConfigurationError: { status: e.status, message: e.message },
      isReady: false,
    };
  }
}

/**
 * Kafka's `InternalTopicManager.summarizeTopics`: at most three names, in the collection's order,
 * then how many more.
 */
export function summarizeTopics(topics: readonly string[]): string {
  if (topics.length === 0) return '<none>';
  const shown = topics.slice(0, 3).join(', ');
  return topics.length > 3 ? `${shown} and ${topics.length - 3} additional topics` : shown;
}

/**
 * `StreamsTopology.fromRecord`: the subtopologies keyed by id in a `HashMap` (via
 * `Collectors.toMap`, which refuses a repeated id), returned in that map's iteration order.
 */
function subtopologiesInKafkaOrder(topology: StreamsGroupTopologyValue): Subtopology[] {
  const byId = newStringHashMap<Subtopology>();
  for (const s of topology.subtopologies) putUnique(byId, s.subtopologyId, s, subtopologyString);
  return [...byId.entries()].map(([, s]) => s);
}

/**
 * `copartitionGroupsFromPersistedSubtopology`: each group's topic names (its source topic indexes,
 * then its repartition source topic indexes) in the iteration order of Kafka's `HashSet`.
 */
function copartitionGroupsOf(subtopology: Subtopology): string[][] {
  return subtopology.copartitionGroups.map((group: CopartitionGroup) => {
    const names = [
      ...group.sourceTopics.map((i) => at(subtopology.sourceTopics, i)),
      ...group.repartitionSourceTopics.map((i) => at(subtopology.repartitionSourceTopics, i).name),
    ];
    return [...collectToSet(names).values()];
  });
}

/** `List.get(i)`, whose bad index is an `IndexOutOfBoundsException`. */
function at<T>(list: readonly T[], index: number): T {
  if (index < 0 || index >= list.length) {
    throw new IllegalTopologyStateError(
      'IndexOutOfBoundsException',
      `Index ${index} out of bounds for length ${list.length}`,
    );
  }
  return list[index]!;
}

function throwOnMissingSourceTopics(subtopologies: readonly Subtopology[], partitionCount: TopicPartitionCountProvider): void {
  // A TreeSet in Kafka: the message lists the missing topics sorted.
  const missing = new Set<string>();
  for (const s of subtopologies) {
    for (const topic of s.sourceTopics) if (partitionCount(topic) === undefined) missing.add(topic);
  }
  if (missing.size > 0) {
    const sorted = [...missing].sort(compareJavaStrings);
    throw TopicConfigurationException.missingSourceTopics(`Source topics ${summarizeTopics(sorted)} are missing.`);
  }
}

/** Kafka's `getPartitionCount`: an existing topic's count wins over a decided one. */
function countProvider(partitionCount: TopicPartitionCountProvider, decided: ReadonlyMap<string, number>): TopicPartitionCountProvider {
  return (topic) => partitionCount(topic) ?? decided.get(topic);
}

function decidePartitionCounts(
  subtopologies: readonly Subtopology[],
  partitionCount: TopicPartitionCountProvider,
  copartitionGroups: readonly (readonly string[][])[],
): Map<string, number> {
  const decided = new Map<string, number>();
  const countOf = countProvider(partitionCount, decided);

  for (const [topic, n] of setupRepartitionTopics(subtopologies, countOf)) decided.set(topic, n);

  // Repartition topics whose count the topology fixes, and those left to the coordinator; Kafka
  // passes the fixed ones of the whole topology to every copartition group.
  const fixed = collectToSet(
    subtopologies.flatMap((s) => s.repartitionSourceTopics.filter((t) => t.partitions !== 0).map((t) => t.name)),
  );
  const flexible = new Set(
    subtopologies.flatMap((s) => s.repartitionSourceTopics.filter((t) => t.partitions === 0).map((t) => t.name)),
  );
  const fixedInOrder = [...fixed.values()];
  for (const groups of copartitionGroups) {
    for (const group of groups) {
      for (const [topic, n] of enforceCopartitioning(group, fixedInOrder, flexible, countOf)) decided.set(topic, n);
    }
  }

  for (const [topic, n] of setupChangelogTopics(subtopologies, countOf)) decided.set(topic, n);
  return decided;
}

function fromPersistedSubtopology(
  subtopology: Subtopology,
  partitionCount: TopicPartitionCountProvider,
  decided: ReadonlyMap<string, number>,
): ConfiguredSubtopology {
  const numberOfTasks = computeNumberOfTasks(subtopology, countProvider(partitionCount, decided));
  const sourceTopics = toOrderedSet(copyToHashSet(subtopology.sourceTopics));
  const repartitionSourceTopics = internalTopicsByName(subtopology.repartitionSourceTopics, decided);
  const repartitionSinkTopics = toOrderedSet(copyToHashSet(subtopology.repartitionSinkTopics));
  const stateChangelogTopics = internalTopicsByName(subtopology.stateChangelogTopics, decided);
  if (numberOfTasks <= 0) throw illegalArgument('Number of tasks must be positive');
  return { numberOfTasks, sourceTopics, repartitionSourceTopics, repartitionSinkTopics, stateChangelogTopics };
}

/** One task per partition of the subtopology's largest source (external or repartition) topic. */
function computeNumberOfTasks(subtopology: Subtopology, countOf: TopicPartitionCountProvider): number {
  let max: number | undefined;
  for (const topic of [...subtopology.sourceTopics, ...subtopology.repartitionSourceTopics.map((t) => t.name)]) {
    const n = countOf(topic);
    if (n === undefined) throw illegalState(`Number of partitions must be set for topic ${topic}`);
    if (max === undefined || n > max) max = n;
  }
  if (max === undefined) throw illegalState('Subtopology does not contain any source topics');
  return max;
}

/** `Collectors.toMap(ConfiguredInternalTopic::name, ...)`: a HashMap, in its iteration order. */
function internalTopicsByName(
  topics: readonly TopicInfo[],
  decided: ReadonlyMap<string, number>,
): Map<string, ConfiguredInternalTopic> {
  const byName = newStringHashMap<ConfiguredInternalTopic>();
  for (const info of topics) putUnique(byName, info.name, fromPersistedTopicInfo(info, decided), internalTopicString);
  return toOrderedMap(byName);
}

function fromPersistedTopicInfo(info: TopicInfo, decided: ReadonlyMap<string, number>): ConfiguredInternalTopic {
  const decidedCount = decided.get(info.name);
  if (info.partitions === 0 && decidedCount === undefined) {
    throw illegalState(`Number of partitions must be set for topic ${info.name}`);
  }
  const numberOfPartitions = info.partitions === 0 ? decidedCount! : info.partitions;
  const replicationFactor = info.replicationFactor === 0 ? null : info.replicationFactor;
  // Kafka collects the configs into a HashMap: the topic is created with them in that map's order.
  const configs = newStringHashMap<string>();
  for (const c of info.topicConfigs) putUnique(configs, c.key, c.value, (v) => v);
  const topicConfigs = toOrderedMap(configs);
  // ConfiguredInternalTopic's own checks.
  validateTopicName(info.name);
  if (numberOfPartitions < 1) throw illegalArgument('Number of partitions must be at least 1.');
  return { name: info.name, numberOfPartitions, replicationFactor, topicConfigs };
}

/**
 * The configured internal topics that do not exist yet (Kafka's `HashMap`, in its iteration
 * order: the MISSING_INTERNAL_TOPICS message names its first three). An existing one must have
 * the decided partition count.
 */
function missingInternalTopics(
  configured: ReadonlyMap<string, ConfiguredSubtopology>,
  subtopologies: readonly Subtopology[],
  partitionCount: TopicPartitionCountProvider,
): Map<string, CreatableTopic> {
  const toCreate: JavaHashMap<string, CreatableTopic> = newStringHashMap<CreatableTopic>();
  for (const s of configured.values()) {
    for (const t of s.repartitionSourceTopics.values()) toCreate.set(t.name, toCreatableTopic(t));
    for (const t of s.stateChangelogTopics.values()) toCreate.set(t.name, toCreatableTopic(t));
  }
  // `StreamsTopology.requiredTopics()`, a HashSet: the first wrongly partitioned topic in its order is reported.
  const required = collectToSet(
    subtopologies.flatMap((s) => [
      ...s.sourceTopics,
      ...s.repartitionSourceTopics.map((t) => t.name),
      ...s.stateChangelogTopics.map((t) => t.name),
    ]),
  );
  for (const topic of required.values()) {
    const existing = partitionCount(topic);
    if (existing === undefined) continue;
    const expected = toCreate.get(topic);
    if (expected === undefined) continue;
    toCreate.delete(topic);
    if (existing !== expected.numPartitions) {
      throw TopicConfigurationException.incorrectlyPartitionedTopics(
        `Existing topic ${topic} has different number of partitions: expected ${expected.numPartitions}, found ${existing}`,
      );
    }
  }
  return toOrderedMap(toCreate);
}

function toCreatableTopic(topic: ConfiguredInternalTopic): CreatableTopic {
  return {
    name: topic.name,
    numPartitions: topic.numberOfPartitions,
    // Unset (or 0) leaves it to the broker's default.
    replicationFactor: topic.replicationFactor !== null && topic.replicationFactor !== 0 ? topic.replicationFactor : -1,
    configs: [...topic.topicConfigs].map(([name, value]) => ({ name, value })),
  };
}

/** The record `ConfiguredInternalTopic.toString()`, for Kafka's duplicate-key message. */
function internalTopicString(t: ConfiguredInternalTopic): string {
  const rf = t.replicationFactor === null ? 'Optional.empty' : `Optional[${t.replicationFactor}]`;
  return `ConfiguredInternalTopic[name=${t.name}, numberOfPartitions=${t.numberOfPartitions}, replicationFactor=${rf}, topicConfigs=${javaMapString(t.topicConfigs)}]`;
}

/** The generated `StreamsGroupTopologyValue.Subtopology.toString()`, for Kafka's duplicate-key message. */
function subtopologyString(s: Subtopology): string {
  const list = (xs: readonly (string | number)[]): string => `[${xs.join(', ')}]`;
  const config = (c: TopicConfig): string => `TopicConfig(key='${c.key}', value='${c.value}')`;
  const info = (t: TopicInfo): string =>
    `TopicInfo(name='${t.name}', partitions=${t.partitions}, replicationFactor=${t.replicationFactor}, topicConfigs=${list(t.topicConfigs.map(config))})`;
  const group = (g: CopartitionGroup): string =>
    `CopartitionGroup(sourceTopics=${list(g.sourceTopics)}, sourceTopicRegex=${list(g.sourceTopicRegex)}, repartitionSourceTopics=${list(g.repartitionSourceTopics)})`;
  return (
    `Subtopology(subtopologyId='${s.subtopologyId}', sourceTopics=${list(s.sourceTopics)}, ` +
    `sourceTopicRegex=${list(s.sourceTopicRegex)}, stateChangelogTopics=${list(s.stateChangelogTopics.map(info))}, ` +
    `repartitionSinkTopics=${list(s.repartitionSinkTopics)}, repartitionSourceTopics=${list(s.repartitionSourceTopics.map(info))}, ` +
    `copartitionGroups=${list(s.copartitionGroups.map(group))})`
  );
}
