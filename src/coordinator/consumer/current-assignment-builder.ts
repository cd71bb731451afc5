/**
 * Reconciliation of a member's current assignment towards its target, as Kafka's
 * `CurrentAssignmentBuilder` (4.3, with KIP-1251 assignment epochs):
 * - kept = assigned ∩ target; revoke = assigned − target; add = target − kept − partitions still
 *   held by another member (partition epoch != -1).
 * - While revoked partitions are still reported owned, the member stays at its epoch in
 *   UNREVOKED_PARTITIONS and is told only `kept`.
 * - Otherwise it moves to the target epoch and gets `add`: STABLE, or UNRELEASED_PARTITIONS while
 *   part of its target is still owned elsewhere (a partition it has pending revocation itself is
 *   not "elsewhere").
 * So a partition is never assigned to a new owner before its old owner has released it.
 * Kept and pending partitions keep the epoch they were assigned at; added ones get the new epoch.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { Assignment, EpochAssignment } from './assignment.js';
import { MemberState, type ConsumerGroupMember } from './member.js';
import { ConsumerGroupError } from './errors.js';

export interface OwnedTopicPartitions {
  topicId: string;
  partitions: number[];
}

export interface ReconcileInput {
  member: ConsumerGroupMember;
  targetEpoch: number;
  target: Assignment;
  /** The epoch of the member currently holding a partition, or -1 when free. */
  currentPartitionEpoch: (topicId: string, partition: number) => number;
  /** What the member reported owning (null: not reported in this heartbeat). */
  owned: readonly OwnedTopicPartitions[] | null;
}

export function reconcile(input: ReconcileInput): ConsumerGroupMember {
  const { member, targetEpoch } = input;
  switch (member.state) {
    case MemberState.STABLE:
      return member.memberEpoch !== targetEpoch ? computeNext(input, member.memberEpoch) : member;
    case MemberState.UNREVOKED_PARTITIONS:
      if (ownsAny(input.owned, member.pendingRevocation)) return member;
      return computeNext(input, member.memberEpoch);
    case MemberState.UNRELEASED_PARTITIONS:
      return computeNext(input, member.memberEpoch);
    default:
      if (input.owned === null || input.owned.some((t) => t.partitions.length > 0)) {
        throw new ConsumerGroupError(ErrorCode.FENCED_MEMBER_EPOCH, 'The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.');
      }
      return computeNext(input, targetEpoch);
  }
}

function ownsAny(owned: readonly OwnedTopicPartitions[] | null, revoked: EpochAssignment): boolean {
  if (owned === null) return true;
  for (const tp of owned) {
    const pending = revoked.get(tp.topicId);
    if (!pending) continue;
    for (const p of tp.partitions) if (pending.has(p)) return true;
  }
  return false;
}

function computeNext(input: ReconcileInput, memberEpoch: number): ConsumerGroupMember {
  const { member, target, targetEpoch, currentPartitionEpoch } = input;
  let hasUnreleased = false;
  const assigned: EpochAssignment = new Map();
  const pendingRevocation: EpochAssignment = new Map();
  const pendingAssignment = new Map<string, number[]>();
  const topicIds = new Set<string>([...target.keys(), ...member.assigned.keys()]);
  for (const topicId of topicIds) {
    const targetParts = target.get(topicId) ?? new Set<number>();
    const current = member.assigned.get(topicId) ?? new Map<number, number>();
    const kept = new Map<number, number>();
    const revoke = new Map<number, number>();
    for (const [p, e] of current) (targetParts.has(p) ? kept : revoke).set(p, e);
    const toAdd: number[] = [];
    for (const p of targetParts) {
      if (kept.has(p)) continue;
      // Held elsewhere, unless it is this member's own partition pending revocation (back in its target).
      if (currentPartitionEpoch(topicId, p) !== -1 && !member.pendingRevocation.get(topicId)?.has(p)) hasUnreleased = true;
      else toAdd.push(p);
    }
    if (kept.size > 0) assigned.set(topicId, kept);
    if (revoke.size > 0) pendingRevocation.set(topicId, revoke);
    if (toAdd.length > 0) pendingAssignment.set(topicId, toAdd);
  }

  if (pendingRevocation.size > 0 && ownsAny(input.owned, pendingRevocation)) {
    return withEpoch(member, memberEpoch, { state: MemberState.UNREVOKED_PARTITIONS, assigned, pendingRevocation });
  }
  if (pendingAssignment.size > 0) {
    for (const [topicId, parts] of pendingAssignment) {
      const m = assigned.get(topicId) ?? new Map<number, number>();
      for (const p of parts) m.set(p, targetEpoch);
      assigned.set(topicId, m);
    }
  }
  const state = hasUnreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE;
  return withEpoch(member, targetEpoch, { state, assigned, pendingRevocation: new Map() });
}

/** `ConsumerGroupMember.Builder.updateMemberEpoch`: the previous epoch becomes the old current one. */
function withEpoch(
  member: ConsumerGroupMember,
  epoch: number,
  rest: Pick<ConsumerGroupMember, 'state' | 'assigned' | 'pendingRevocation'>,
): ConsumerGroupMember {
  return { ...member, ...rest, previousMemberEpoch: member.memberEpoch, memberEpoch: epoch };
}
