/**
 * Streams groups (KIP-1071) as the admin API shows them: StreamsGroupDescribe's view (state, epochs,
 * members with their epochs and states). Tasks are not topic partitions: a member's
 * `assignment` and `targetAssignment` are null and its `streamsTasks` lists its process and its
 * owned and target tasks as `<subtopology>_<partition>`.
 */
import type { Broker } from '../broker.js';
import type { StreamsGroup } from '../coordinator/streams/streams-group.js';
import { STREAMS_MEMBER_STATE_NAMES } from '../coordinator/streams/streams-member.js';
import { expiresIn, type GroupHeader, type GroupSummary } from './views.js';

/** A streams group's `GET /groups` entry. */
export function streamsGroupSummary(group: StreamsGroup, committedPartitions: number): GroupSummary {
  return { groupId: group.groupId, type: 'streams', state: group.state, protocolType: 'streams', members: group.members.size, committedPartitions, groupEpoch: group.groupEpoch };
}

/** A streams group as `describeGroupHeader` has groups; null when `groupId` is no streams group. */
export function streamsGroupHeader(broker: Broker, groupId: string): GroupHeader | null {
  const group = broker.streams.committedGroup(groupId);
  if (!group) return null;
  const tasks = (m: ReadonlyMap<string, { keys(): Iterable<number> }>) =>
    [...m].flatMap(([id, parts]) => [...parts.keys()].sort((a, b) => a - b).map((p) => `${id}_${p}`)).sort();
  return {
    groupId,
    type: 'streams',
    state: group.state,
    protocolType: 'streams',
    protocol: null,
    generationId: -1,
    leaderId: null,
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    assignor: 'sticky',
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.instanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      sessionTimeoutMs: null,
      sessionExpiresInMs: expiresIn(broker, broker.streams.sessionDueAt(groupId, m.memberId)),
      upgraded: null,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      assignment: null,
      memberEpoch: m.memberEpoch,
      memberState: STREAMS_MEMBER_STATE_NAMES[m.state] ?? 'unknown',
      rackId: m.rackId,
      subscribedTopicNames: null,
      subscribedTopicRegex: null,
      targetAssignment: null,
      connectAssignment: null,
      streamsTasks: {
        processId: m.processId,
        active: tasks(m.assigned.active),
        standby: tasks(m.assigned.standby),
        targetActive: tasks(group.targetOf(m.memberId).active),
        targetStandby: tasks(group.targetOf(m.memberId).standby),
      },
    })),
    sharePartitions: null,
    offsetsTopicPartition: broker.groupLog.partitionFor(groupId),
    coordinatorId: broker.cluster.coordinatorOf(groupId),
  };
}
