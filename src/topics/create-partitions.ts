/**
 * CreatePartitions checks for one topic, as Kafka 4.3's `ReplicationControlManager.createPartitions`
 * and `validateManualPartitionAssignment` make them on the controller, in the same order and with
 * the same messages.
 */
import { ErrorCode } from '../protocol/errors.js';
import { TopicError } from './topic-error.js';
import type { Topic } from './topic.js';

/** What the checks need to know about the simulated cluster. */
export interface ReplicaPlacement {
  /** Every broker id (registered brokers). */
  readonly brokerIds: readonly number[];
  /** Whether a broker is up (not stopped by the cluster simulation). */
  isUp(id: number): boolean;
}

/**
 * Throws the TopicError CreatePartitions answers for growing `topic` (undefined: absent) to
 * `count` partitions, with `assignments` (one replica list per new partition) or null:
 *   absent topic                          -> UNKNOWN_TOPIC_OR_PARTITION (no message)
 *   internal topic                        -> INVALID_REQUEST (ours: see DIFFERENCES.md)
 *   count equal to the current count      -> INVALID_PARTITIONS "Topic already has N partition(s)."
 *   count below it                        -> INVALID_PARTITIONS "The topic T currently has N partition(s); M would not be an increase."
 *   assignments not one per new partition -> INVALID_REPLICA_ASSIGNMENT
 *   a replica list that is empty, names an unknown broker or one twice, has a length other than
 *   the topic's replication factor (every broker here), or only stopped brokers -> INVALID_REPLICA_ASSIGNMENT
 * Returns the number of partitions to add.
 */
export function checkCreatePartitions(topic: Topic | undefined, name: string, count: number, assignments: ReadonlyArray<readonly number[]> | null, cluster: ReplicaPlacement): number {
  if (!topic) throw new TopicError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null);
  if (topic.internal) throw new TopicError(ErrorCode.INVALID_REQUEST, `Adding partitions to the internal topic ${name} is not supported.`);
  const current = topic.partitionCount;
  if (count === current) throw new TopicError(ErrorCode.INVALID_PARTITIONS, `Topic already has ${current} partition(s).`);
  if (count < current) {
    throw new TopicError(ErrorCode.INVALID_PARTITIONS, `The topic ${name} currently has ${current} partition(s); ${count} would not be an increase.`);
  }
  const additional = count - current;
  if (assignments === null) return additional;
  const invalid = (message: string): TopicError => new TopicError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, message);
  if (assignments.length !== additional) {
    throw invalid(`Attempted to add ${additional} additional partition(s), but only ${assignments.length} assignment(s) were specified.`);
  }
  const replicationFactor = cluster.brokerIds.length;
  assignments.forEach((replicas, i) => checkManualAssignment(replicas, current + i, replicationFactor, cluster));
  return additional;
}

/**
 * `ReplicationControlManager.validateManualPartitionAssignment` and the fencing check after it, for
 * the replica list of `partition` (CreateTopics and CreatePartitions), with `replicationFactor` the
 * length the previous partitions have: throws INVALID_REPLICA_ASSIGNMENT with Kafka's message for an
 * empty list, an unregistered broker, a broker twice, another length, or only stopped brokers.
 */
export function checkManualAssignment(replicas: readonly number[], partition: number, replicationFactor: number, cluster: ReplicaPlacement): void {
  const invalid = (message: string): TopicError => new TopicError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, message);
  if (replicas.length === 0) throw invalid('The manual partition assignment includes an empty replica list.');
  const sorted = [...replicas].sort((a, b) => a - b);
  sorted.forEach((id, j) => {
    if (!cluster.brokerIds.includes(id)) throw invalid(`The manual partition assignment includes broker ${id}, but no such broker is registered.`);
    if (j > 0 && sorted[j - 1] === id) throw invalid(`The manual partition assignment includes the broker ${id} more than once.`);
  });
  if (sorted.length !== replicationFactor) {
    throw invalid(
      `The manual partition assignment includes a partition with ${sorted.length} replica(s), but this is not consistent with previous partitions, which have ${replicationFactor} replica(s).`,
    );
  }
  if (!replicas.some((id) => cluster.isUp(id))) {
    throw invalid(`All brokers specified in the manual partition assignment for partition ${partition} are fenced or in controlled shutdown.`);
  }
}
