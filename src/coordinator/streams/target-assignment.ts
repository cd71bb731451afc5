/**
 * A streams group's new target assignment (Kafka 4.3's
 * `org.apache.kafka.coordinator.group.streams.TargetAssignmentBuilder`): every member's spec (its
 * last target, or the one of the static member it replaces), the assignor run over the configured
 * topology (or every member given nothing while the topology is not ready), then record 21 for each
 * member whose target changed (always for one that had none) and record 20 with the new epoch.
 * Members go to the assignor and their records are written in the order Kafka's `HashMap` of
 * member ids iterates them, so the assignor breaks ties as Kafka's does.
 */
import { javaHashMapOrder, javaStringHashCode } from '../../util/java-hash.js';
import type { StreamsGroupRecord } from '../records.js';
import type { AssignmentMemberSpec, TaskAssignor, TopologyDescriber } from './assignor/types.js';
import type { StreamsGroup } from './streams-group.js';
import type { StreamsGroupMember } from './streams-member.js';
import { NO_TARGET, targetsEqual, toTaskIds, type TargetTasks } from './tasks.js';
import type { ConfiguredSubtopology, ConfiguredTopology } from './topics/types.js';

export interface TargetAssignmentResult {
  records: StreamsGroupRecord[];
  /** member id -> its new target. */
  targetAssignment: Map<string, TargetTasks>;
}

export interface TargetAssignmentInput {
  group: StreamsGroup;
  groupEpoch: number;
  assignor: TaskAssignor;
  assignmentConfigs: ReadonlyMap<string, string>;
  topology: ConfiguredTopology;
  /** The member the heartbeat updated (replacing the group's copy), if any. */
  updatedMember: StreamsGroupMember | null;
  /** Server clock, ms (record 20's timestamp). */
  now: number;
}

export function buildTargetAssignment(input: TargetAssignmentInput): TargetAssignmentResult {
  const { group, groupEpoch, assignor, topology, updatedMember } = input;
  const specs = new Map<string, AssignmentMemberSpec>();
  for (const [memberId, member] of group.members) specs.set(memberId, memberSpec(member, group.targetOf(memberId)));
  if (updatedMember) {
    let target = group.targetOf(updatedMember.memberId);
    // A new static member taking over a departed one's instance starts from its target.
    const previous = updatedMember.instanceId === null ? undefined : group.staticMembers.get(updatedMember.instanceId);
    if (previous !== undefined && previous !== updatedMember.memberId) target = group.targetOf(previous);
    specs.set(updatedMember.memberId, memberSpec(updatedMember, target));
  }
  const order = javaHashMapOrder([...specs.keys()], javaStringHashCode);
  const orderedSpecs = new Map(order.map((id) => [id, specs.get(id)!]));

  const assigned = topology.isReady && topology.subtopologies !== null ? assignor.assign({ members: orderedSpecs, assignmentConfigs: input.assignmentConfigs }, describer(topology.subtopologies)).members : null;

  const records: StreamsGroupRecord[] = [];
  const targetAssignment = new Map<string, TargetTasks>();
  for (const memberId of order) {
    const a = assigned?.get(memberId);
    const next: TargetTasks = a ? { active: a.activeTasks, standby: a.standbyTasks, warmup: a.warmupTasks } : NO_TARGET;
    targetAssignment.set(memberId, next);
    const old = group.targetAssignment.get(memberId);
    if (old === undefined || !targetsEqual(old, next)) {
      records.push({
        kind: 'streams-group-target-assignment-member',
        groupId: group.groupId,
        memberId,
        value: { activeTasks: toTaskIds(next.active), standbyTasks: toTaskIds(next.standby), warmupTasks: toTaskIds(next.warmup) },
      });
    }
  }
  records.push({ kind: 'streams-group-target-assignment-metadata', groupId: group.groupId, value: { assignmentEpoch: groupEpoch, assignmentTimestamp: BigInt(input.now) } });
  return { records, targetAssignment };
}

function memberSpec(member: StreamsGroupMember, target: TargetTasks): AssignmentMemberSpec {
  return {
    instanceId: member.instanceId,
    rackId: member.rackId,
    activeTasks: target.active,
    standbyTasks: target.standby,
    warmupTasks: target.warmup,
    processId: member.processId,
    clientTags: new Map(member.clientTags.map((t) => [t.key, t.value])),
    taskOffsets: new Map(),
    taskEndOffsets: new Map(),
  };
}

/** `TopologyMetadata`: the assignor's view of the configured subtopologies. */
function describer(subtopologies: ReadonlyMap<string, ConfiguredSubtopology>): TopologyDescriber {
  const get = (id: string): ConfiguredSubtopology => {
    const s = subtopologies.get(id);
    if (!s) throw new Error(`Topology does not contain subtopology ${id}`);
    return s;
  };
  return {
    subtopologies: () => [...subtopologies.keys()],
    maxNumInputPartitions: (id) => get(id).numberOfTasks,
    isStateful: (id) => get(id).stateChangelogTopics.size > 0,
  };
}
