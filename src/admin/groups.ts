import type { Broker } from '../broker.js';
import { decodeAssignment } from '../coordinator/classic/consumer-protocol.js';
import type { ClassicGroup } from '../coordinator/classic/classic-group.js';
import type { ConsumerGroup } from '../coordinator/consumer/consumer-group.js';
import { MEMBER_STATE_NAMES } from '../coordinator/consumer/member.js';

import type { GroupDescription, GroupMemberView, GroupOffsetView, GroupSummary } from './views.js';
import { pendingOffsetsOfGroup } from './transactions.js';
import { describeShareGroup, shareGroupSummaries } from './share-groups.js';
import { Slicer } from '../util/slices.js';

export type { GroupDescription, GroupMemberView, GroupOffsetView, GroupSummary } from './views.js';

function classicGroups(broker: Broker): Map<string, ClassicGroup> {
  return new Map(broker.classic.allGroups().map((g) => [g.groupId, g]));
}

function consumerGroups(broker: Broker): Map<string, ConsumerGroup> {
  return new Map(broker.consumer.allGroups().map((g) => [g.groupId, g]));
}

/** The groups `listGroups` covers, ids sorted, and what summarizing one of them needs. */
interface GroupIndex {
  ids: string[];
  classic: Map<string, ClassicGroup>;
  consumer: Map<string, ConsumerGroup>;
  share: Map<string, GroupSummary>;
}

function groupIndex(broker: Broker): GroupIndex {
  const classic = classicGroups(broker);
  const consumer = consumerGroups(broker);
  const share = new Map(shareGroupSummaries(broker).map((s) => [s.groupId, s]));
  const ids = [...new Set<string>([...consumer.keys(), ...classic.keys(), ...share.keys(), ...broker.offsets.groupIds()])].sort();
  return { ids, classic, consumer, share };
}

/** One group's summary; null for a classic group that is Dead. */
function summarize(broker: Broker, index: GroupIndex, groupId: string): GroupSummary | null {
  const sg = index.share.get(groupId);
  if (sg) return sg;
  // A count, not a read of the offsets: GET /metrics summarizes every group and reads its offsets once, elsewhere.
  const committedPartitions = broker.offsets.committedCount(groupId);
  const cg = index.consumer.get(groupId);
  if (cg) {
    return { groupId, type: 'consumer', state: cg.state, protocolType: 'consumer', members: cg.numMembers, committedPartitions, groupEpoch: cg.groupEpoch };
  }
  const g = index.classic.get(groupId);
  if (g?.state === 'Dead') return null;
  return { groupId, type: 'classic', state: g?.state ?? 'Empty', protocolType: g?.protocolType ?? '', members: g?.numMembers ?? 0, committedPartitions, groupEpoch: null };
}

/** Every group the broker knows: consumer (KIP-848), share (KIP-932) and classic groups, plus groups known only by their committed offsets. */
export function listGroups(broker: Broker): GroupSummary[] {
  const index = groupIndex(broker);
  return index.ids.flatMap((groupId) => summarize(broker, index, groupId) ?? []);
}

/**
 * The groups known now, ids sorted as `listGroups` lists them, and each one's summary when asked
 * (null: a classic group Dead since): a view that several passes over the groups can share.
 */
export function groupsKnownNow(broker: Broker): { ids: readonly string[]; summary: (groupId: string) => GroupSummary | null } {
  const index = groupIndex(broker);
  return { ids: index.ids, summary: (groupId) => summarize(broker, index, groupId) };
}

/** Groups summarized per turn of the event loop at most (plus `SLICE_BUDGET_MS`) by `eachGroupInSlices`. */
const GROUPS_PER_SLICE = 500;

/**
 * Calls `fn` with each group's summary, as `listGroups` lists them, yielding a turn of the event
 * loop between slices (issue #16: ten thousand groups held the Kafka port 200 ms per listing).
 * The groups are those known when it begins, each summarized when its slice comes.
 */
export async function eachGroupInSlices(broker: Broker, fn: (group: GroupSummary) => void): Promise<void> {
  const index = groupIndex(broker);
  const slicer = new Slicer(GROUPS_PER_SLICE);
  for (const groupId of index.ids) {
    await slicer.next();
    const summary = summarize(broker, index, groupId);
    if (summary) fn(summary);
  }
}

/** `listGroups`, in slices (`eachGroupInSlices`). */
export async function listGroupsInSlices(broker: Broker): Promise<GroupSummary[]> {
  const groups: GroupSummary[] = [];
  await eachGroupInSlices(broker, (g) => groups.push(g));
  return groups;
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
      offsetsTopicPartition: broker.groupLog.partitionFor(groupId),
      coordinatorId: broker.cluster.coordinatorOf(groupId),
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
    offsetsTopicPartition: broker.groupLog.partitionFor(groupId),
    coordinatorId: broker.cluster.coordinatorOf(groupId),
  };
}
