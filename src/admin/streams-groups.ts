/**
 * Streams groups (KIP-1071) as the admin API shows them: StreamsGroupDescribe's view (state, epochs,
 * members with their epochs and states). A member's `assignment` and `targetAssignment` are the
 * partitions its active tasks read (owned and target), so the offsets show their owners as a
 * consumer group's do; `streamsTasks` lists its process and its owned and target tasks as
 * `<subtopology>_<partition>`.
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
  // The partitions a task reads: its partition of each source and repartition source topic of its
  // subtopology that has it (as EndpointToPartitionsManager maps tasks for interactive queries).
  const readsOf = new Map<string, string[]>();
  for (const sub of group.topology?.subtopologies ?? []) readsOf.set(sub.subtopologyId, [...sub.sourceTopics, ...sub.repartitionSourceTopics.map((t) => t.name)]);
  const partitionsOf = (m: ReadonlyMap<string, { keys(): Iterable<number> }>): Array<{ topic: string; partitions: number[] }> => {
    const byTopic = new Map<string, number[]>();
    for (const [id, parts] of m) {
      for (const topic of readsOf.get(id) ?? []) {
        const count = broker.topics.get(topic)?.partitionCount ?? 0;
        const list = byTopic.get(topic) ?? [];
        for (const p of parts.keys()) if (p < count) list.push(p);
        byTopic.set(topic, list);
      }
    }
    return [...byTopic].filter(([, ps]) => ps.length > 0).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([topic, ps]) => ({ topic, partitions: ps.sort((x, y) => x - y) }));
  };
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
      assignment: partitionsOf(m.assigned.active),
      memberEpoch: m.memberEpoch,
      memberState: STREAMS_MEMBER_STATE_NAMES[m.state] ?? 'unknown',
      rackId: m.rackId,
      subscribedTopicNames: null,
      subscribedTopicRegex: null,
      targetAssignment: partitionsOf(group.targetOf(m.memberId).active),
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
