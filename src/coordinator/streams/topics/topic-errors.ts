/**
 * The exceptions Kafka's `org.apache.kafka.coordinator.group.streams.topics` classes throw:
 * `TopicConfigurationException` (a heartbeat status, caught by `configureTopics`),
 * `StreamsInvalidTopologyException` (answered as STREAMS_INVALID_TOPOLOGY) and the unchecked JDK
 * exceptions (`IllegalStateException` and friends) that only an unexpected topology reaches.
 */
import { StreamsStatus } from './types.js';

/** Kafka's `StreamsInvalidTopologyException`: the caller answers STREAMS_INVALID_TOPOLOGY with this message. */
export class StreamsInvalidTopologyError extends Error {
  override readonly name = 'StreamsInvalidTopologyError';
}

/**
 * Kafka's `TopicConfigurationException`: the topology cannot be used yet, and the heartbeat
 * answers with `status` and this message instead of tasks.
 */
export class TopicConfigurationException extends Error {
  override readonly name = 'TopicConfigurationException';

  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }

  static incorrectlyPartitionedTopics(message: string): TopicConfigurationException {
    return new TopicConfigurationException(StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS, message);
  }

  static missingSourceTopics(message: string): TopicConfigurationException {
    return new TopicConfigurationException(StreamsStatus.MISSING_SOURCE_TOPICS, message);
  }

  static missingInternalTopics(message: string): TopicConfigurationException {
    return new TopicConfigurationException(StreamsStatus.MISSING_INTERNAL_TOPICS, message);
  }
}

/** The unchecked Java exceptions these classes let escape (none of them is a Kafka `ApiException`). */
export type JavaExceptionClass = 'IllegalStateException' | 'IllegalArgumentException' | 'IndexOutOfBoundsException';

/**
 * An unchecked Java exception thrown by Kafka's code for a topology it does not expect (a missing
 * partition count, a duplicate key, a bad copartition index). Kafka does not map it to an error
 * code of its own, so the caller treats it like any unexpected failure.
 */
export class IllegalTopologyStateError extends Error {
  override readonly name = 'IllegalTopologyStateError';

  constructor(
    readonly javaClass: JavaExceptionClass,
    message: string,
  ) {
    super(message);
  }
}

export const illegalState = (message: string): IllegalTopologyStateError =>
  new IllegalTopologyStateError('IllegalStateException', message);

export const illegalArgument = (message: string): IllegalTopologyStateError =>
  new IllegalTopologyStateError('IllegalArgumentException', message);
