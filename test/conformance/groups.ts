/** Request builders shared by the group scenarios (classic and KIP-848). */
import { Writer } from '../../src/protocol/primitives.js';
import type { Session } from './runner.js';

/** ConsumerProtocol Subscription v0: the topics a classic consumer subscribes to. */
export function subscription(topics: string[]): Buffer {
  const w = new Writer();
  w.int16(0);
  w.int32(topics.length);
  for (const t of topics) w.nullableString(t, false);
  w.int32(-1); // user data: null
  return Buffer.from(w.finish());
}

/** ConsumerProtocol Assignment v0. */
export function assignment(parts: Record<string, number[]>): Buffer {
  const w = new Writer();
  w.int16(0);
  const entries = Object.entries(parts);
  w.int32(entries.length);
  for (const [t, ps] of entries) {
    w.nullableString(t, false);
    w.int32(ps.length);
    for (const p of ps) w.int32(p);
  }
  w.int32(-1);
  return Buffer.from(w.finish());
}

export function join(groupId: string, memberId: string, topics: string[], extra: { groupInstanceId?: string | null; sessionTimeoutMs?: number; rebalanceTimeoutMs?: number } = {}) {
  return {
    groupId,
    sessionTimeoutMs: extra.sessionTimeoutMs ?? 10_000,
    rebalanceTimeoutMs: extra.rebalanceTimeoutMs ?? 10_000,
    memberId,
    groupInstanceId: extra.groupInstanceId ?? null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: subscription(topics) }],
    reason: null,
  };
}

export function sync(groupId: string, generationId: number, memberId: string, assignments: Array<{ memberId: string; assignment: Buffer }> = [], groupInstanceId: string | null = null) {
  return { groupId, generationId, memberId, groupInstanceId, protocolType: 'consumer', protocolName: 'range', assignments };
}

export function heartbeat(groupId: string, generationId: number, memberId: string, groupInstanceId: string | null = null) {
  return { groupId, generationId, memberId, groupInstanceId };
}

export function commit(groupId: string, generation: number, memberId: string, topic: string, offsets: Array<[partition: number, offset: bigint, metadata?: string]>, topicId = '') {
  return {
    groupId,
    generationIdOrMemberEpoch: generation,
    memberId,
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [
      {
        name: topic,
        topicId: topicId || 'AAAAAAAAAAAAAAAAAAAAAA',
        partitions: offsets.map(([partitionIndex, committedOffset, committedMetadata]) => ({ partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: committedMetadata ?? '' })),
      },
    ],
  };
}

/** OffsetFetch v8+ for several groups. */
export function fetchGroups(groups: Array<{ groupId: string; topics: Array<{ name: string; topicId?: string; partitionIndexes: number[] }> | null; memberId?: string | null; memberEpoch?: number }>, requireStable = false) {
  return {
    groupId: '',
    topics: [],
    requireStable,
    groups: groups.map((g) => ({
      groupId: g.groupId,
      memberId: g.memberId ?? null,
      memberEpoch: g.memberEpoch ?? -1,
      topics: g.topics === null ? null : g.topics.map((t) => ({ name: t.name, topicId: t.topicId ?? 'AAAAAAAAAAAAAAAAAAAAAA', partitionIndexes: t.partitionIndexes })),
    })),
  };
}

/** A stable classic group with one member (the leader); returns its member id. */
export async function stableGroup(s: Session, groupId: string, topic: string, label = 'A'): Promise<string> {
  const first = await s.send(11, 9, join(groupId, '', [topic]));
  const id = s.alias(first.memberId, label);
  const j = await s.send(11, 9, join(groupId, id, [topic]));
  if (j.errorCode !== 0) throw new Error(`${s.target}: JoinGroup ${groupId}: ${j.errorCode}`);
  const sy = await s.send(14, 5, sync(groupId, j.generationId, id, [{ memberId: id, assignment: assignment({ [topic]: [0] }) }]));
  if (sy.errorCode !== 0) throw new Error(`${s.target}: SyncGroup ${groupId}: ${sy.errorCode}`);
  return id;
}
