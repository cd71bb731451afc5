/**
 * Server-side assignor API for KIP-848 consumer groups, modelled on Kafka's
 * `group-coordinator-api` package `org.apache.kafka.coordinator.group.api.assignor`
 * (`GroupSpec`, `MemberSubscription`, `SubscribedTopicDescriber`, `GroupAssignment`).
 *
 * Topic ids are Kafka UUIDs in their usual string form (URL-safe base64, 22 characters, as
 * `Uuid.toString()` prints them and as `src/protocol/primitives.ts` decodes them).
 */

export interface AssignmentMemberSpec {
  memberId: string;
  /** `group.instance.id` of a static member, null for a dynamic one. */
  instanceId: string | null;
  rackId: string | null;
  subscribedTopicIds: ReadonlySet<string>;
  /** Current target assignment of the member: topicId -> partitions. */
  assignedPartitions: ReadonlyMap<string, ReadonlySet<number>>;
}

/**
 * How the assignors order what Kafka iterates in hash order.
 *
 * - `'java'` (default): members, topic sets, assignment maps and partition sets are iterated
 *   in the order a `java.util.HashMap`/`HashSet` built the way Kafka's coordinator builds them
 *   would iterate them (see `java-order.ts`). This is what a real broker does.
 * - `'insertion'`: the JavaScript insertion order of the given maps and sets is used as is.
 *   Kafka's own unit tests pass `TreeMap`/`LinkedHashMap` inputs; this mode reproduces those
 *   tests exactly when the inputs are inserted in the same order.
 */
export type IterationOrder = 'java' | 'insertion';

export interface GroupSpec {
  members: ReadonlyMap<string, AssignmentMemberSpec>;
  subscriptionType: 'HOMOGENEOUS' | 'HETEROGENEOUS';
  /** Extension: see {@link IterationOrder}. Defaults to `'java'`. */
  iterationOrder?: IterationOrder;
}

export interface SubscribedTopicDescriber {
  /** Number of partitions of the topic, -1 if the topic is unknown. */
  numPartitions(topicId: string): number;
  /** Racks of the replicas of a partition; absent or empty means no rack information. */
  racksForPartition?(topicId: string, partition: number): ReadonlySet<string>;
}

/**
 * The computed target assignment: memberId -> (topicId -> partitions).
 *
 * As in Kafka, a member may be absent from `members` (e.g. when no member subscribes to any
 * topic Kafka returns an empty map); callers treat an absent member as an empty assignment.
 * Topics with no partitions never appear with an empty set.
 */
export interface GroupAssignment {
  members: Map<string, Map<string, Set<number>>>;
}

export interface ConsumerGroupPartitionAssignor {
  readonly name: string;
  assign(group: GroupSpec, topics: SubscribedTopicDescriber): GroupAssignment;
}

/** Kafka's `PartitionAssignorException`: the assignment cannot be computed. */
export class PartitionAssignorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PartitionAssignorError';
  }
}
