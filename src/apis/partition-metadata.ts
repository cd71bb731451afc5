import type { Broker } from '../broker.js';
import { ErrorCode } from '../protocol/errors.js';
import type { Topic } from '../topics/topic.js';
import type { MetadataResponsePartition } from '../protocol/messages/MetadataResponse.js';

/** With no authorizer every topic operation is allowed: READ..DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS bits (`AclOperation` codes). */
export const ALL_TOPIC_OPERATIONS = [3, 4, 5, 6, 7, 8, 10, 11].reduce((bits, op) => bits | (1 << op), 0);

/** A partition as Metadata answers it (DescribeTopicPartitions adds the ELR lists). */
export type PartitionMetadata = MetadataResponsePartition;

/**
 * A partition as Metadata and DescribeTopicPartitions describe it: leader, replicas (every broker,
 * preferred leader first), ISR (the live replicas) and offline replicas from the simulated cluster,
 * the leader epoch from the partition; LEADER_NOT_AVAILABLE when every replica is down.
 */
export function partitionMetadata(broker: Broker, topic: Topic, index: number): PartitionMetadata {
  const { cluster } = broker;
  const replicas = cluster.replicas(topic.name, index);
  const leaderId = cluster.leaderOf(topic.name, index);
  return {
    errorCode: leaderId === -1 ? ErrorCode.LEADER_NOT_AVAILABLE : ErrorCode.NONE,
    partitionIndex: index,
    leaderId,
    leaderEpoch: topic.partitions[index]!.leaderEpoch,
    replicaNodes: replicas,
    isrNodes: replicas.filter((id) => cluster.isUp(id)),
    offlineReplicas: replicas.filter((id) => !cluster.isUp(id)),
  };
}
