import type { Broker } from '../broker.js';
import { decodeAssignment } from '../coordinator/classic/consumer-protocol.js';
import type { ClassicGroup } from '../coordinator/classic/classic-group.js';
import type { ConsumerGroup } from '../coordinator/consumer/consumer-group.js';
import { MEMBER_STATE_NAMES } from '../coordinator/consumer/member.js';

import type { GroupDescription, GroupMemberView, GroupOffsetView, GroupSummary } from './views.js';
import { pendingOffsetsOfGroup } from './transactions.js';
import { describeShareGroup, shareGroupSummaries } from './share-groups.js';

export type { GroupDescription, GroupMemberView, GroupOffsetView, GroupSummary } from './views.js';

function classicGroups(broker: Broker): Map<string, ClassicGroup> {
  return new Map(broker.classic.allGroups().map((g) => [g.groupId, g]));
}

function consumerGroups(broker: Broker): Map<string, ConsumerGroup> {
  return new Map(broker.consumer.allGroups().map((g) => [g.groupId, g]));
}

/** Every group the broker knows: consumer (KIP-848), share (KIP-932) and classic groups, plus groups known only by their committed offsets. */
export function listGroups(broker: Broker): GroupSummary[] {
  const groups = classicGroups(broker);
  const consumer = consumerGroups(broker);
  const share = new Map(shareGroupSummaries(broker).map((s) => [s.groupId, s]));
  const ids = new Set<string>([...consumer.keys(), ...groups.keys(), ...share.keys(), ...broker.offsets.groupIds()]);
  return [...ids].sort().flatMap((groupId): GroupSummary[] => {
    const sg = share.get(groupId);
    if (sg) return [sg];
    const committedPartitions = broker.offsets.offsetsOf(groupId).length;
    const cg = consumer.get(groupId);
    if (cg) {
      return [{ groupId, type: 'consumer', state: cg.state, protocolType: 'consumer', members: cg.numMembers, committedPartitions, groupEpoch: cg.groupEpoch }];
    }
    const g = groups.get(groupId);
    if (g?.state === 'Dead') return [];
    return [
      {
        groupId,
        type: 'classic',
        state: g?.state ?? 'Empty',
        protocolType: g?.protocolType ?? '',
        members: g?.numMembers ?? 0,
        committedPartitions,
        groupEpoch: null,
      },
    ];
  });
}

function assignmentOf(buffer: Buffer, protocolType: string | null): GroupMemberView['assignment'] {
  if (protocolType !== 'consumer') return null;
  const decoded = decodeAssignment(buffer);
  if (!decoded) return buffer.length === 0 ? [] : null;
  return decoded.assignedPartitions.map((tp) => ({ topic: tp.topic, partitions: [...tp.partitions] }));
}

/** ConsumerGroupDescribe's assignment (topic names, sorted partitions), topics sorted by name. */
function namedAssignment(a: { topicPartitions: Array<{ topicName: string; partitions: number[] }> }): Array<{ topic: string; partitions: number[] }> {
  return a.topicPartitions
    .map((tp) => ({ topic: tp.topicName, partitions: [...tp.partitions].sort((x, y) => x - y) }))
    .sort((x, y) => (x.topic < y.topic ? -1 : x.topic > y.topic ? 1 : 0));
}

/** A consumer group's header fields and members, from the coordinator's ConsumerGroupDescribe view. */
function consumerGroupView(broker: Broker, group: ConsumerGroup): Pick<GroupDescription, 'state' | 'groupEpoch' | 'assignmentEpoch' | 'assignor' | 'members'> {
  const d = broker.consumer.describe(group.groupId, false, 0);
  return {
    state: d.groupState,
    groupEpoch: d.groupEpoch,
    assignmentEpoch: d.assignmentEpoch,
    assignor: d.assignorName,
    members: d.members.map((m) => {
      const stored = group.members.get(m.memberId);
      return {
        memberId: m.memberId,
        groupInstanceId: m.instanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        sessionTimeoutMs: stored?.classicMemberMetadata?.sessionTimeoutMs ?? null,
        upgraded: stored ? stored.classicMemberMetadata === null : null,
        rebalanceTimeoutMs: stored?.rebalanceTimeoutMs ?? -1,
        assignment: namedAssignment(m.assignment),
        memberEpoch: m.memberEpoch,
        memberState: stored ? (MEMBER_STATE_NAMES[stored.state] ?? 'unknown') : null,
        rackId: m.rackId,
        subscribedTopicNames: [...m.subscribedTopicNames],
        subscribedTopicRegex: m.subscribedTopicRegex === null || m.subscribedTopicRegex === '' ? null : m.subscribedTopicRegex,
        targetAssignment: namedAssignment(m.targetAssignment),
      };
    }),
  };
}

/** A group with members, assignments, committed offsets, log-end offsets and lag; null when unknown. */
export function describeGroup(broker: Broker, groupId: string): GroupDescription | null {
  const shareGroup = describeShareGroup(broker, groupId);
  if (shareGroup) return shareGroup;
  const cg = broker.consumer.committedGroup(groupId);
  const g = cg ? undefined : broker.classic.existingGroup(groupId);
  const committed = broker.offsets.offsetsOf(groupId);
  const pendingTransactionalOffsets = pendingOffsetsOfGroup(broker, groupId);
  if (!cg && (!g || g.state === 'Dead') && committed.length === 0 && pendingTransactionalOffsets.length === 0) return null;
  const consumerView = cg ? consumerGroupView(broker, cg) : null;
  const members: GroupMemberView[] = consumerView?.members ?? (g?.allMembers() ?? []).map((m) => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    sessionTimeoutMs: m.sessionTimeoutMs,
    upgraded: null,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    assignment: assignmentOf(m.assignment, g?.protocolType ?? null),
    memberEpoch: null,
    memberState: null,
    rackId: null,
    subscribedTopicNames: null,
    subscribedTopicRegex: null,
    targetAssignment: null,
  }));
  const owner = new Map<string, string>();
  for (const m of members) for (const a of m.assignment ?? []) for (const p of a.partitions) owner.set(`${a.topic}\u0000${p}`, m.memberId);
  let totalLag = 0;
  const offsets: GroupOffsetView[] = committed
    .map(({ topic, partition, offset }) => {
      const logEnd = broker.topics.get(topic)?.partition(partition)?.logEndOffset;
      const logEndOffset = logEnd === undefined ? null : Number(logEnd);
      const lag = logEndOffset === null ? null : Math.max(0, logEndOffset - Number(offset.committedOffset));
      if (lag !== null) totalLag += lag;
      return {
        topic,
        partition,
        committedOffset: Number(offset.committedOffset),
        logEndOffset,
        lag,
        leaderEpoch: offset.leaderEpoch,
        metadata: offset.metadata,
        commitTimestamp: new Date(Number(offset.commitTimestamp)).toISOString(),
        memberId: owner.get(`${topic}\u0000${partition}`) ?? null,
      };
    })
    .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  if (consumerView) {
    return {
      groupId,
      type: 'consumer',
      state: consumerView.state,
      protocolType: 'consumer',
      protocol: null,
      generationId: -1,
      leaderId: null,
      groupEpoch: consumerView.groupEpoch,
      assignmentEpoch: consumerView.assignmentEpoch,
      assignor: consumerView.assignor,
      members,
      offsets,
      pendingTransactionalOffsets,
      totalLag,
      sharePartitions: null,
    };
  }
  return {
    groupId,
    type: 'classic',
    state: g?.state ?? 'Empty',
    protocolType: g?.protocolType ?? '',
    protocol: g?.protocolName ?? null,
    generationId: g?.generationId ?? -1,
    leaderId: g?.leaderId ?? null,
    groupEpoch: null,
    assignmentEpoch: null,
    assignor: null,
    members,
    offsets,
    pendingTransactionalOffsets,
    totalLag,
    sharePartitions: null,
  };
}
