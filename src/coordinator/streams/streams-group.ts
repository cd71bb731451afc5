/**
 * A streams group (KIP-1071; Kafka 4.3's `org.apache.kafka.coordinator.group.streams.StreamsGroup`):
 * every field but the configured topology, the endpoint information epoch and `metadataExpired` is
 * rebuilt from records 17, 19-23 and changes only by applying them (streams-group-store.ts).
 */
import type { StreamsGroupTopologyValue } from '../../records/schemas/StreamsGroupTopologyValue.js';
import type { ConfiguredTopology } from './topics/types.js';
import { NO_TARGET, type TargetTasks } from './tasks.js';
import { isReconciledTo, type StreamsGroupMember } from './streams-member.js';

/** `StreamsGroup.StreamsGroupState`, as ListGroups and StreamsGroupDescribe name them. */
export const StreamsGroupState = {
  EMPTY: 'Empty',
  NOT_READY: 'NotReady',
  ASSIGNING: 'Assigning',
  RECONCILING: 'Reconciling',
  STABLE: 'Stable',
  DEAD: 'Dead',
} as const;
export type StreamsGroupStateName = (typeof StreamsGroupState)[keyof typeof StreamsGroupState];

/** The names ListGroups' state filter matches (`StreamsGroupState.toLowerCaseString`: `not_ready`). */
export const streamsStateFilterName = (state: StreamsGroupStateName): string => (state === StreamsGroupState.NOT_READY ? 'not_ready' : state.toLowerCase());

/** The group type ListGroups reports (`GroupType.STREAMS`) and the protocol type of streams groups. */
export const STREAMS_GROUP_TYPE = 'streams';
export const STREAMS_PROTOCOL_TYPE = 'streams';

const key = (subtopologyId: string, partition: number) => `${subtopologyId}\u0000${partition}`;

export class StreamsGroup {
  /**
   * Record 17. A new group starts at epoch 1 and target assignment epoch 1 (Kafka 4.3,
   * KAFKA-20268: `TargetAssignmentMetadata.INITIAL`), so its first bump writes epoch 2.
   */
  groupEpoch = 1;
  metadataHash = 0n;
  /** Record 17 tag 0: the topology epoch the configured topology was validated at (0 before any record). */
  validatedTopologyEpoch = 0;
  /** Record 17 tag 1: the assignment configs the last target assignment was computed with. */
  lastAssignmentConfigs: ReadonlyMap<string, string> = new Map();
  /** Record 23 (null until a member joined with a topology). */
  topology: StreamsGroupTopologyValue | null = null;
  assignmentEpoch = 1;
  assignmentTimestamp = 0n;
  readonly members = new Map<string, StreamsGroupMember>();
  readonly targetAssignment = new Map<string, TargetTasks>();
  readonly staticMembers = new Map<string, string>();
  /**
   * In memory only, as Kafka's: the topology configured against the topics as they were at the last
   * epoch bump or metadata refresh (`StreamsGroup.configuredTopology`); null until computed.
   */
  configuredTopology: ConfiguredTopology | null = null;
  /** In memory only: bumped when a member's assigned tasks change, so members learn whose endpoints hold what. */
  endpointInformationEpoch = 0;
  /** In memory only: the member that asked every member to shut down (`setShutdownRequestMemberId`). */
  shutdownRequestMemberId: string | null = null;
  /** Kafka's `hasMetadataExpired`: a heartbeat recomputes the metadata hash when the group epoch bumps or this is set. */
  metadataExpired = true;
  /** Owner of each active task (assigned or pending revocation): its process id. */
  private readonly activeOwners = new Map<string, string>();
  /** Processes holding each task as a standby or a warm-up. */
  private readonly standbyOwners = new Map<string, Set<string>>();
  private readonly warmupOwners = new Map<string, Set<string>>();

  constructor(readonly groupId: string) {}

  /** A copy sharing nothing mutable (members and assignments are replaced, never changed in place). */
  clone(): StreamsGroup {
    const copy = new StreamsGroup(this.groupId);
    copy.groupEpoch = this.groupEpoch;
    copy.metadataHash = this.metadataHash;
    copy.validatedTopologyEpoch = this.validatedTopologyEpoch;
    copy.lastAssignmentConfigs = this.lastAssignmentConfigs;
    copy.topology = this.topology;
    copy.assignmentEpoch = this.assignmentEpoch;
    copy.assignmentTimestamp = this.assignmentTimestamp;
    for (const m of this.members.values()) copy.updateMember(m);
    for (const [k, v] of this.targetAssignment) copy.targetAssignment.set(k, v);
    copy.configuredTopology = this.configuredTopology;
    copy.endpointInformationEpoch = this.endpointInformationEpoch;
    copy.shutdownRequestMemberId = this.shutdownRequestMemberId;
    return copy;
  }

  get numMembers(): number {
    return this.members.size;
  }

  isEmpty(): boolean {
    return this.members.size === 0;
  }

  /** `StreamsGroup.maybeUpdateGroupState`: NotReady until the topology's epoch is the validated one. */
  get state(): StreamsGroupStateName {
    if (this.members.size === 0) return StreamsGroupState.EMPTY;
    if (this.topology === null || this.topology.epoch !== this.validatedTopologyEpoch) return StreamsGroupState.NOT_READY;
    if (this.groupEpoch > this.assignmentEpoch) return StreamsGroupState.ASSIGNING;
    for (const m of this.members.values()) if (!isReconciledTo(m, this.assignmentEpoch)) return StreamsGroupState.RECONCILING;
    return StreamsGroupState.STABLE;
  }

  staticMember(instanceId: string): StreamsGroupMember | undefined {
    const id = this.staticMembers.get(instanceId);
    return id === undefined ? undefined : this.members.get(id);
  }

  targetOf(memberId: string): TargetTasks {
    return this.targetAssignment.get(memberId) ?? NO_TARGET;
  }

  /** The process owning an active task (assigned or pending revocation), or undefined. */
  activeTaskProcessId(subtopologyId: string, partition: number): string | undefined {
    return this.activeOwners.get(key(subtopologyId, partition));
  }

  /** The processes holding a task as a standby. */
  standbyTaskProcessIds(subtopologyId: string, partition: number): ReadonlySet<string> {
    return this.standbyOwners.get(key(subtopologyId, partition)) ?? EMPTY_SET;
  }

  /** The processes holding a task as a warm-up. */
  warmupTaskProcessIds(subtopologyId: string, partition: number): ReadonlySet<string> {
    return this.warmupOwners.get(key(subtopologyId, partition)) ?? EMPTY_SET;
  }

  updateMember(member: StreamsGroupMember): void {
    const old = this.members.get(member.memberId);
    if (old) this.release(old);
    this.members.set(member.memberId, member);
    if (old?.instanceId && old.instanceId !== member.instanceId && this.staticMembers.get(old.instanceId) === member.memberId) this.staticMembers.delete(old.instanceId);
    if (member.instanceId !== null) this.staticMembers.set(member.instanceId, member.memberId);
    this.hold(member);
  }

  removeMember(memberId: string): void {
    const old = this.members.get(memberId);
    if (!old) return;
    this.release(old);
    this.members.delete(memberId);
    if (old.instanceId !== null && this.staticMembers.get(old.instanceId) === memberId) this.staticMembers.delete(old.instanceId);
  }

  private hold(m: StreamsGroupMember): void {
    for (const tasks of [m.assigned, m.pendingRevocation]) {
      for (const [id, parts] of tasks.active) for (const p of parts.keys()) this.activeOwners.set(key(id, p), m.processId);
      for (const [owners, set] of [
        [this.standbyOwners, tasks.standby],
        [this.warmupOwners, tasks.warmup],
      ] as const) {
        for (const [id, parts] of set) {
          for (const p of parts) {
            const k = key(id, p);
            let procs = owners.get(k);
            if (!procs) owners.set(k, (procs = new Set()));
            procs.add(m.processId);
          }
        }
      }
    }
  }

  private release(m: StreamsGroupMember): void {
    for (const tasks of [m.assigned, m.pendingRevocation]) {
      for (const [id, parts] of tasks.active) {
        for (const p of parts.keys()) {
          const k = key(id, p);
          if (this.activeOwners.get(k) === m.processId) this.activeOwners.delete(k);
        }
      }
      for (const [owners, set] of [
        [this.standbyOwners, tasks.standby],
        [this.warmupOwners, tasks.warmup],
      ] as const) {
        for (const [id, parts] of set) {
          for (const p of parts) {
            const k = key(id, p);
            const procs = owners.get(k);
            procs?.delete(m.processId);
            if (procs?.size === 0) owners.delete(k);
          }
        }
      }
    }
  }
}

const EMPTY_SET: ReadonlySet<string> = new Set();
