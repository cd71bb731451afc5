/**
 * A streams group's topology configured against the topics that exist (Kafka 4.3's
 * `org.apache.kafka.coordinator.group.streams.topics`: `ConfiguredTopology`, `ConfiguredSubtopology`,
 * `ConfiguredInternalTopic`, `TopicConfigurationException`).
 */

/** `ConfiguredInternalTopic`: a repartition or changelog topic as the group needs it. */
export interface ConfiguredInternalTopic {
  readonly name: string;
  readonly numberOfPartitions: number;
  /** null: the broker's default (`Optional.empty()`; described as 0). */
  readonly replicationFactor: number | null;
  /** In the order Kafka's `HashMap` of the topology's configs iterates them. */
  readonly topicConfigs: ReadonlyMap<string, string>;
}

/** `ConfiguredSubtopology`. */
export interface ConfiguredSubtopology {
  readonly numberOfTasks: number;
  readonly sourceTopics: ReadonlySet<string>;
  readonly repartitionSourceTopics: ReadonlyMap<string, ConfiguredInternalTopic>;
  readonly repartitionSinkTopics: ReadonlySet<string>;
  readonly stateChangelogTopics: ReadonlyMap<string, ConfiguredInternalTopic>;
}

/** A topic the group coordinator asks to be created (`CreateTopicsRequestData.CreatableTopic`). */
export interface CreatableTopic {
  readonly name: string;
  readonly numPartitions: number;
  /** -1: the broker's default. */
  readonly replicationFactor: number;
  readonly configs: ReadonlyArray<{ readonly name: string; readonly value: string }>;
}

/** `StreamsGroupHeartbeatResponse.Status` codes. */
export const StreamsStatus = {
  STALE_TOPOLOGY: 0,
  MISSING_SOURCE_TOPICS: 1,
  INCORRECTLY_PARTITIONED_TOPICS: 2,
  MISSING_INTERNAL_TOPICS: 3,
  SHUTDOWN_APPLICATION: 4,
  ASSIGNMENT_DELAYED: 5,
} as const;

/** `TopicConfigurationException`: a status code and its detail message. */
export interface TopicConfigurationError {
  readonly status: number;
  readonly message: string;
}

/** `ConfiguredTopology`. */
export interface ConfiguredTopology {
  readonly topologyEpoch: number;
  readonly metadataHash: bigint;
  /** Sorted by subtopology id; null when the topology could not be configured. */
  readonly subtopologies: ReadonlyMap<string, ConfiguredSubtopology> | null;
  readonly internalTopicsToBeCreated: ReadonlyMap<string, CreatableTopic>;
  readonly topicConfigurationError: TopicConfigurationError | null;
  /** `isReady()`: no topic configuration error. */
  readonly isReady: boolean;
}
