/**
 * Topic name rules, as Kafka's `org.apache.kafka.common.internals.Topic`.
 */
import { ErrorCode } from '../protocol/errors.js';
import { TopicError } from './topic-error.js';

/** Kafka's `Topic.MAX_NAME_LENGTH`. */
export const MAX_TOPIC_NAME_LENGTH = 249;

/** The group coordinator's internal topic (owned by the coordinator, not the TopicStore). */
export const GROUP_METADATA_TOPIC_NAME = '__consumer_offsets';
/** The transaction coordinator's internal topic (owned by the TransactionLog). */
export const TRANSACTION_STATE_TOPIC_NAME = '__transaction_state';
/** The share coordinator's internal topic (owned by its share-state log). */
export const SHARE_GROUP_STATE_TOPIC_NAME = '__share_group_state';

const LEGAL = /^[a-zA-Z0-9._-]+$/;

/**
 * Throws TopicError(INVALID_TOPIC_EXCEPTION) unless `name` is a legal topic name, with Kafka 4.3's
 * message (the controller's `ReplicationControlManager.validateNewTopicNames` calls `Topic.validate`:
 * `topicValidateProblem`).
 */
export function validateTopicName(name: string): void {
  const problem = topicValidateProblem(name);
  if (problem !== null) throw new TopicError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem);
}

/**
 * The metadata log's topic (KRaft): no CreateTopics may make it (`ReplicationControlManager`:
 * "Creation of internal topic __cluster_metadata is prohibited.").
 */
export const CLUSTER_METADATA_TOPIC_NAME = '__cluster_metadata';

/**
 * What Kafka 4.3's `Topic.validate(String)` says of an illegal name (CreateTopics, DescribeProducers
 * and others), null when legal.
 */
export function topicValidateProblem(name: string): string | null {
  const invalid = (why: string): string => `Topic name is invalid: ${why}`;
  if (name.length === 0) return invalid('the empty string is not allowed');
  if (name === '.') return invalid("'.' is not allowed");
  if (name === '..') return invalid("'..' is not allowed");
  if (name.length > MAX_TOPIC_NAME_LENGTH) return invalid(`the length of '${name}' is longer than the max allowed length ${MAX_TOPIC_NAME_LENGTH}`);
  if (!LEGAL.test(name)) return invalid(`'${name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`);
  return null;
}

export function isValidTopicName(name: string): boolean {
  try {
    validateTopicName(name);
    return true;
  } catch {
    return false;
  }
}

/** Kafka's `Topic.isInternal` (`Topic.INTERNAL_TOPICS`). */
export function isInternalTopic(name: string): boolean {
  return name === GROUP_METADATA_TOPIC_NAME || name === TRANSACTION_STATE_TOPIC_NAME || name === SHARE_GROUP_STATE_TOPIC_NAME;
}

/** Names that collide in metric names: equal once '.' is replaced by '_' (Kafka's `Topic.hasCollision`). */
export function topicNamesCollide(a: string, b: string): boolean {
  return a.replace(/\./g, '_') === b.replace(/\./g, '_');
}
