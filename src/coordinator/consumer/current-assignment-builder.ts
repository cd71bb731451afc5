/**
 * Reconciliation of a member's current assignment towards its target, as Kafka 4.3's
 * `org.apache.kafka.coordinator.group.modern.consumer.CurrentAssignmentBuilder` (checked against the
 * 4.3.1 kafka-group-coordinator jar; KIP-1251 assignment epochs):
 * - `computeNextAssignment`: kept = assigned ∩ target; revoke = assigned − target; add = target − kept
 *   − partitions still held by another member (partition epoch != -1). The target of a topic the
 *   member does not subscribe to (any more) counts as empty, so such partitions are revoked and never
 *   added, even when the target assignment is older than the subscription.
 * - While revoked partitions are still reported owned, the member stays at its epoch in
 *   UNREVOKED_PARTITIONS and is told only `kept`.
 * - Otherwise it moves to the target epoch and gets `add`: STABLE, or UNRELEASED_PARTITIONS while
 *   part of its target is still owned elsewhere (a partition it has pending revocation itself is
 *   not "elsewhere").
 * - `updateCurrentAssignment` (subscription changed, no newer target to move to: STABLE at the target
 *   epoch, or UNREVOKED_PARTITIONS still owning what it must revoke): partitions of topics the member
 *   no longer subscribes to leave `assigned` at once, without waiting for a new target; if the member
 *   still reports any of them (or did not report), they join `pendingRevocation` and the member goes
 *   to UNREVOKED_PARTITIONS at its current epoch; otherwise they are just dropped.
 * So a partition is never assigned to a new owner before its old owner has released it.
 * Kept and pending partitions keep the epoch they were assigned at; added ones get the new epoch.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { EMPTY_EPOCHS, type Assignment, type EpochAssignment } from './assignment.js';
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
  /**
   * The ids of the topics the member subscribes to now (Kafka's `subscribedTopicIds()`): its topic
   * names, plus the topics its regex resolved to, mapped to ids through the current topic metadata
   * (names of missing topics drop out). Partitions of other topics are revoked and target
   * partitions of other topics are ignored. Omitted: no subscription filtering (the pre-4.0
   * behaviour); Kafka always applies it, so callers should always pass it.
   */
  subscribedTopicIds?: ReadonlySet<string>;
  /**
   * Kafka's `withHasSubscriptionChanged`: the member's subscribed topic names or its regex changed
   * in this request. Lets a member with no newer target to move to drop unsubscribed topics at once.
   * Default false.
   */
  hasSubscriptionChanged?: boolean;
}

export function reconcile(input: ReconcileInput): ConsumerGroupMember {
  const { member, targetEpoch } = input;
  switch (member.state) {
    case MemberState.STABLE:
      if (member.memberEpoch !== targetEpoch) return computeNext(input, member.memberEpoch);
      return input.hasSubscriptionChanged ? updateCurrent(input, member.memberEpoch) : member;
    case MemberState.UNREVOKED_PARTITIONS:
      if (ownsAny(input.owned, member.pendingRevocation)) {
        return input.hasSubscriptionChanged ? updateCurrent(input, member.memberEpoch) : member;
      }
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

/**
 * `updateCurrentAssignment`: moves the partitions of topics outside the subscription from `assigned`
 * to `pendingRevocation` (keeping their epochs), without looking at the target.
 */
function updateCurrent(input: ReconcileInput, memberEpoch: number): ConsumerGroupMember {
  const { member, subscribedTopicIds: subscribed } = input;
  if (subscribed === undefined) return member;
  let assigned: EpochAssignment = member.assigned;
  let pendingRevocation: EpochAssignment = member.pendingRevocation;
  if (subscribed.size === 0 && member.pendingRevocation.size === 0) {
    // Kafka's shortcut: everything goes. Like Kafka's `Map.of()` check, a member still holding the
    // shared empty map counts as unchanged; any other (even empty) map gets rewritten.
    assigned = EMPTY_EPOCHS;
    pendingRevocation = member.assigned;
  } else {
    for (const [topicId, parts] of member.assigned) {
      if (subscribed.has(topicId)) continue;
      if (assigned === member.assigned) {
        assigned = new Map(member.assigned);
        pendingRevocation = new Map(member.pendingRevocation);
      }
      assigned.delete(topicId);
      pendingRevocation.set(topicId, new Map([...(pendingRevocation.get(topicId) ?? []), ...parts]));
    }
  }
  if (assigned === member.assigned) return member;
  if (pendingRevocation.size > 0 && ownsAny(input.owned, pendingRevocation)) {
    return withEpoch(member, memberEpoch, { state: MemberState.UNREVOKED_PARTITIONS, assigned, pendingRevocation });
  }
  // Already released by the member: shrink the assignment, keep state and pending revocation.
  return withEpoch(member, memberEpoch, { state: member.state, assigned, pendingRevocation: member.pendingRevocation });
}

function computeNext(input: ReconcileInput, memberEpoch: number): ConsumerGroupMember {
  const { member, target, targetEpoch, currentPartitionEpoch, subscribedTopicIds: subscribed } = input;
  let hasUnreleased = false;
  const assigned: EpochAssignment = new Map();
  const pendingRevocation: EpochAssignment = new Map();
  const pendingAssignment = new Map<string, number[]>();
  const topicIds = new Set<string>([...target.keys(), ...member.assigned.keys()]);
  for (const topicId of topicIds) {
    // A topic the member no longer subscribes to has an empty target, whatever the target says.
    const targetParts = (subscribed === undefined || subscribed.has(topicId) ? target.get(topicId) : undefined) ?? new Set<number>();
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
