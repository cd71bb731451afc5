/**
 * The common part of a ConsumerGroupHeartbeat and of a classic JoinGroup into a consumer group:
 * Kafka 4.3's `GroupMetadataManager.consumerGroupHeartbeat` steps 1-3 (member metadata and
 * `maybeUpdateRegularExpressions`, group epoch through `updateSubscriptionMetadata`,
 * `updateTargetAssignment` and `maybeReconcile` through `CurrentAssignmentBuilder`).
 */
import type { TopicPartitions as RequestTopicPartitions } from '../../protocol/messages/ConsumerGroupHeartbeatRequest.js';
import type { ClassicMemberMetadata } from '../../records/schemas/ConsumerGroupMemberMetadataValue.js';
import type { ConsumerGroup } from './consumer-group.js';
import type { ConsumerContext, ConsumerRequestContext, Emit } from './context.js';
import { reconcile } from './current-assignment-builder.js';
import {
  MemberState,
  assignmentStateChanged,
  currentAssignmentValue,
  isReconciledTo,
  memberMetadataValue,
  metadataChanged,
  sameTopicNames,
  subscriptionChanged,
  useClassicProtocol,
  type ConsumerGroupMember,
} from './member.js';
import { RegexUpdateStatus } from './regex-status.js';
import { subscribedTopicIds, subscriptionMetadataHash } from './subscriptions.js';
import { updateTargetAssignment } from './target-assignment.js';

/**
 * Steps 1-3 of a heartbeat or of a classic JoinGroup into the consumer group: the member's
 * record 5 (and regex), the group epoch, the target assignment and the member's reconciliation.
 * With `stopWhenStale` (a classic JoinGroup that downgrades the group), a group epoch above the
 * target epoch ends it after step 1 (no target, no reconciliation), as Kafka 4.3's
 * `classicGroupJoinToConsumerGroup` does.
 *
 * How a group converges, as in Kafka 4.3.1 (checked answer by answer against a 4.3.1 broker,
 * test/e2e/consumer-group-formation.test.ts and the conformance suite): every join (any change of
 * subscribed topic names) bumps the group epoch, one epoch per join. The heartbeat that bumped it
 * computes the new target at once when `group.consumer.assignment.interval.ms` has passed since
 * the last target was computed (always with 0); otherwise nothing is scheduled: the first heartbeat
 * of any member after the interval computes it, for the group epoch of that moment. A member moves
 * only on its own heartbeats: it first gives up what the target takes away (staying at its epoch
 * until it reports no longer owning it), then moves to the target epoch with the partitions nobody
 * holds; the rest come on a later heartbeat, once their owners released them. The answer carries
 * the assignment only when it changed (or on a join or full request), and the client acknowledges
 * a new assignment at once. So N members joining together, interval 0: N epochs, 4 heartbeats per
 * member that gets partitions (join, acknowledgement, the heartbeat an interval later that brings
 * the partitions the first member released, acknowledgement); with Kafka's defaults (interval 1 s,
 * heartbeat 5 s) the joins after the first reconcile to the first target's epoch (2) with nothing,
 * and it takes 5 heartbeats and two heartbeat intervals.
 */
export function updateAndReconcile(
  ctx: ConsumerContext,
  group: ConsumerGroup,
  member: ConsumerGroupMember,
  updated: ConsumerGroupMember,
  owned: readonly RequestTopicPartitions[] | null,
  now: number,
  emit: Emit,
  { stopWhenStale = false, client }: { stopWhenStale?: boolean; client?: ConsumerRequestContext } = {},
): ConsumerGroupMember {
  const { groupId } = group;
  const { memberId } = updated;
  const isNew = !group.members.has(memberId);
  // `hasMemberSubscriptionChanged`: record 5 when anything changed; only topic names bump the epoch.
  let bumpGroupEpoch = false;
  if (isNew || metadataChanged(member, updated) || classicMetadataChanged(member.classicMemberMetadata, updated.classicMemberMetadata)) {
    emit({ kind: 'cg-member-metadata', groupId, memberId, value: memberMetadataValue(updated) });
    if (!sameTopicNames(member.subscribedTopicNames, updated.subscribedTopicNames)) bumpGroupEpoch = true;
  }
  // `maybeUpdateRegularExpressions`: a new regex is resolved later, off the heartbeat; taking a
  // regex already resolved, or dropping one, bumps the epoch now (a classic member's JoinGroup
  // bumps on any regex change, as `classicGroupJoinToConsumerGroup` does).
  const regexStatus = ctx.regexes.maybeUpdateRegularExpressions(group, member, updated, emit, client);
  if (regexStatus === RegexUpdateStatus.REGEX_UPDATED_AND_RESOLVED) bumpGroupEpoch = true;
  if (useClassicProtocol(updated) && regexStatus !== RegexUpdateStatus.NO_CHANGE) bumpGroupEpoch = true;

  // Group epoch (`updateSubscriptionMetadata`): the metadata hash is recomputed when the epoch
  // bumps or the group's metadata expired (a subscribed topic was created or deleted, or the group
  // is new or reloaded), and a changed hash bumps the epoch too.
  let groupEpoch = group.groupEpoch;
  if (bumpGroupEpoch || group.metadataExpired) {
    const metadataHash = subscriptionMetadataHash(ctx, group);
    group.metadataExpired = false;
    if (bumpGroupEpoch || metadataHash !== group.metadataHash) {
      groupEpoch += 1;
      emit({ kind: 'cg-metadata', groupId, value: { epoch: groupEpoch, metadataHash } });
      ctx.log.info({ groupId, groupEpoch }, 'bumped consumer group epoch');
    }
  }

  if (stopWhenStale && groupEpoch > group.assignmentEpoch) return group.members.get(memberId) ?? updated;

  // 2. Target assignment.
  if (groupEpoch > group.assignmentEpoch && canComputeTargetAssignment(ctx, group, now)) {
    updateTargetAssignment(ctx, group, groupEpoch, now, emit);
  }

  // 3. Reconciliation.
  // `maybeReconcile`: a subscription change (names or regex) reconciles even a member already at
  // the target epoch, so partitions of topics it dropped are revoked before the next target.
  updated = group.members.get(memberId) ?? updated;
  const hasSubscriptionChanged = subscriptionChanged(member, updated);
  if (hasSubscriptionChanged || !isReconciledTo(updated, group.assignmentEpoch)) {
    const reconciled = reconcile({
      member: updated,
      targetEpoch: group.assignmentEpoch,
      target: group.targetOf(memberId),
      currentPartitionEpoch: (t, p) => group.currentPartitionEpoch(t, p),
      owned,
      subscribedTopicIds: subscribedTopicIds(ctx, group, updated),
      hasSubscriptionChanged,
    });
    if (assignmentStateChanged(updated, reconciled)) {
      emit({ kind: 'cg-current-assignment', groupId, memberId, value: currentAssignmentValue(reconciled) });
      if (reconciled.state === MemberState.UNREVOKED_PARTITIONS) {
        ctx.timers.scheduleRebalance(groupId, memberId, reconciled.memberEpoch, reconciled.rebalanceTimeoutMs);
      } else {
        ctx.timers.cancelRebalance(groupId, memberId);
      }
    }
    updated = reconciled;
  }

  return updated;
}

/** Kafka 4.3 (KIP-1263): a new target at most every `consumer.assignment.interval.ms` (the group's, else the broker's). */
function canComputeTargetAssignment(ctx: ConsumerContext, group: ConsumerGroup, now: number): boolean {
  const intervalMs = ctx.groupSettings(group.groupId).assignmentIntervalMs;
  if (intervalMs === 0 || group.assignmentTimestamp === 0n) return true;
  return BigInt(now) >= group.assignmentTimestamp + BigInt(intervalMs);
}

function classicMetadataChanged(a: ClassicMemberMetadata | null, b: ClassicMemberMetadata | null): boolean {
  if (a === null || b === null) return a !== b;
  if (a.sessionTimeoutMs !== b.sessionTimeoutMs || a.supportedProtocols.length !== b.supportedProtocols.length) return true;
  return a.supportedProtocols.some((p, i) => p.name !== b.supportedProtocols[i]!.name || !p.metadata.equals(b.supportedProtocols[i]!.metadata));
}
