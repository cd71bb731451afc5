/**
 * The task assignor's interface (Kafka 4.3's `org.apache.kafka.coordinator.group.streams.assignor`:
 * `TaskAssignor`, `GroupSpec`, `AssignmentMemberSpec`, `TopologyDescriber`, `MemberAssignment`,
 * `GroupAssignment`). Tasks are subtopology id -> partitions.
 */
export type Tasks = ReadonlyMap<string, ReadonlySet<number>>;

/** A task (`TaskId`): a subtopology id and a partition. */
export interface TaskId {
  readonly subtopologyId: string;
  readonly partition: number;
}

/** `AssignmentMemberSpec`: what the assignor knows of one member. */
export interface AssignmentMemberSpec {
  readonly instanceId: string | null;
  readonly rackId: string | null;
  /** The member's current target (what it was last given), per kind. */
  readonly activeTasks: Tasks;
  readonly standbyTasks: Tasks;
  readonly warmupTasks: Tasks;
  readonly processId: string;
  readonly clientTags: ReadonlyMap<string, string>;
  /** Keyed by `${subtopologyId}:${partition}`; Kafka 4.3's heartbeat fills none. */
  readonly taskOffsets: ReadonlyMap<string, bigint>;
  readonly taskEndOffsets: ReadonlyMap<string, bigint>;
}

/** `GroupSpec`: the members (a map in Kafka's iteration order: insertion order here) and the assignment configs. */
export interface GroupSpec {
  readonly members: ReadonlyMap<string, AssignmentMemberSpec>;
  /** e.g. `num.standby.replicas` -> "0". */
  readonly assignmentConfigs: ReadonlyMap<string, string>;
}

/** `TopologyDescriber`. */
export interface TopologyDescriber {
  /** Subtopology ids, sorted. */
  subtopologies(): readonly string[];
  /** The number of tasks of a subtopology; throws for an unknown one. */
  maxNumInputPartitions(subtopologyId: string): number;
  /** Whether the subtopology has state (changelog topics). */
  isStateful(subtopologyId: string): boolean;
}

/** `MemberAssignment`. */
export interface MemberAssignment {
  readonly activeTasks: Map<string, Set<number>>;
  readonly standbyTasks: Map<string, Set<number>>;
  readonly warmupTasks: Map<string, Set<number>>;
}

/** `GroupAssignment`: one entry per member of the spec. */
export interface GroupAssignment {
  readonly members: Map<string, MemberAssignment>;
}

/** `TaskAssignorException`: the heartbeat answers UNKNOWN_SERVER_ERROR with its message. */
export class TaskAssignorError extends Error {}

/** `TaskAssignor`. */
export interface TaskAssignor {
  readonly name: string;
  assign(groupSpec: GroupSpec, topology: TopologyDescriber): GroupAssignment;
}
