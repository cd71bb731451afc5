import type { Broker } from '../broker.js';
import { decodeAssignment } from '../coordinator/classic/consumer-protocol.js';
import type { ClassicGroup } from '../coordinator/classic/classic-group.js';

/** One group in `GET /groups`. */
export interface GroupSummary {
  groupId: string;
  /** `classic` (JoinGroup/SyncGroup groups and standalone committers). */
  type: string;
  state: string;
  protocolType: string;
  members: number;
  /** Partitions with a committed offset. */
  committedPartitions: number;
}

export interface GroupMemberView {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  /** Decoded ConsumerProtocol assignment (protocol type `consumer`); null when not readable. */
  assignment: Array<{ topic: string; partitions: number[] }> | null;
}

export interface GroupOffsetView {
  topic: string;
  partition: number;
  committedOffset: number;
  /** Log-end offset of the partition (null when the topic or partition is gone). */
  logEndOffset: number | null;
  /** logEndOffset - committedOffset (null when unknown). */
  lag: number | null;
  leaderEpoch: number;
  metadata: string;
  /** Commit time (ISO 8601, server clock). */
  commitTimestamp: string;
  /** Owner per the current assignment, or null. */
  memberId: string | null;
}

/** `GET /groups/{groupId}`. */
export interface GroupDescription {
  groupId: string;
  type: string;
  state: string;
  protocolType: string;
  protocol: string | null;
  generationId: number;
  leaderId: string | null;
  members: GroupMemberView[];
  offsets: GroupOffsetView[];
  /** Sum of known lags. */
  totalLag: number;
}

function classicGroups(broker: Broker): Map<string, ClassicGroup> {
  return new Map(broker.classic.allGroups().map((g) => [g.groupId, g]));
}

/** Every group the broker knows: classic groups plus groups known only by their committed offsets. */
export function listGroups(broker: Broker): GroupSummary[] {
  const groups = classicGroups(broker);
  const ids = new Set<string>([...groups.keys(), ...broker.offsets.groupIds()]);
  return [...ids].sort().flatMap((groupId) => {
    const g = groups.get(groupId);
    if (g?.state === 'Dead') return [];
    return [
      {
        groupId,
        type: 'classic',
        state: g?.state ?? 'Empty',
        protocolType: g?.protocolType ?? '',
        members: g?.numMembers ?? 0,
        committedPartitions: broker.offsets.offsetsOf(groupId).length,
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

/** A group with members, assignments, committed offsets, log-end offsets and lag; null when unknown. */
export function describeGroup(broker: Broker, groupId: string): GroupDescription | null {
  const g = classicGroups(broker).get(groupId);
  const committed = broker.offsets.offsetsOf(groupId);
  if ((!g || g.state === 'Dead') && committed.length === 0) return null;
  const members: GroupMemberView[] = (g?.allMembers() ?? []).map((m) => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    sessionTimeoutMs: m.sessionTimeoutMs,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    assignment: assignmentOf(m.assignment, g?.protocolType ?? null),
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
  return {
    groupId,
    type: 'classic',
    state: g?.state ?? 'Empty',
    protocolType: g?.protocolType ?? '',
    protocol: g?.protocolName ?? null,
    generationId: g?.generationId ?? -1,
    leaderId: g?.leaderId ?? null,
    members,
    offsets,
    totalLag,
  };
}
