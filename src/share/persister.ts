/**
 * The share-group state persister as the group coordinator and the share partitions use it: Kafka
 * 4.3.1's `org.apache.kafka.server.share.persister.Persister` (its `DefaultStatePersister` sends
 * InitializeShareGroupState / ReadShareGroupState / WriteShareGroupState / DeleteShareGroupState /
 * ReadShareGroupStateSummary to the share coordinator, `ShareCoordinatorService`). Here the share
 * coordinator is in-process (src/share/state/) and these calls go to it directly; each resolves
 * once its ShareSnapshot/ShareUpdate record is durable in `__share_group_state`, as Kafka answers
 * after the coordinator's append.
 */
import { javaStringHashCode, kafkaAbs } from '../util/java-hash.js';

/** One share partition of a group (`topicId` is the topic's base64url id, as Kafka's `Uuid.toString`). */
export interface SharePartitionRef {
  topicId: string;
  partition: number;
}

/** A per-partition answer: Kafka error code (0 = NONE) and message. */
export interface PersisterPartitionResult extends SharePartitionRef {
  errorCode: number;
  errorMessage: string | null;
}

/** ReadShareGroupStateSummary's answer for one partition. */
export interface PersisterSummary extends PersisterPartitionResult {
  /** The share-partition start offset; -1n when the partition is not initialized. */
  startOffset: bigint;
  /** Records at or after `startOffset` acknowledged or archived (KIP-1226); -1 when unknown. */
  deliveryCompleteCount: number;
  leaderEpoch: number;
  stateEpoch: number;
}

/** A partition to initialize: `startOffset` -1n means "from `share.auto.offset.reset` at first load". */
export interface PersisterInitializeEntry extends SharePartitionRef {
  stateEpoch: number;
  startOffset: bigint;
}

/** The calls the group coordinator makes on the share-state persister (Kafka's `Persister`). */
export interface SharePersister {
  /** InitializeShareGroupState: FENCED_STATE_EPOCH when a newer state epoch is recorded, UNKNOWN_TOPIC_OR_PARTITION for an unknown topic/partition. */
  initializeState(groupId: string, partitions: readonly PersisterInitializeEntry[]): Promise<PersisterPartitionResult[]>;
  /** ReadShareGroupStateSummary (DescribeShareGroupOffsets): startOffset -1n for a partition never initialized. */
  readStateSummary(groupId: string, partitions: ReadonlyArray<SharePartitionRef & { leaderEpoch: number }>): Promise<PersisterSummary[]>;
  /** DeleteShareGroupState (DeleteGroups, DeleteShareGroupOffsets): the state is tombstoned and cached share partitions dropped. */
  deleteState(groupId: string, partitions: readonly SharePartitionRef[]): Promise<PersisterPartitionResult[]>;
}

/** The share coordinator's key of a share partition (Kafka's `SharePartitionKey.asCoordinatorKey`). */
export function shareCoordinatorKey(groupId: string, topicId: string, partition: number): string {
  return `${groupId}:${topicId}:${partition}`;
}

/**
 * The `__share_group_state` partition of a coordinator key (Kafka's
 * `ShareCoordinatorService.partitionFor`: `Utils.abs(key.hashCode()) % numPartitions`).
 */
export function shareStatePartitionFor(coordinatorKey: string, partitions: number): number {
  return kafkaAbs(javaStringHashCode(coordinatorKey)) % partitions;
}
