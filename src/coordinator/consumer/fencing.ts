/**
 * Removing members from a consumer group: Kafka 4.3's `GroupMetadataManager.consumerGroupFenceMembers`
 * and `consumerGroupFenceMember` (for a leave, an expired session, a rebalance, join or sync
 * timeout, or a classic LeaveGroup), which turn the group into a classic group instead when only
 * classic-protocol members would remain (online downgrade).
 */
import type { CoordinatorRecord } from '../records.js';
import type { ConsumerGroup } from './consumer-group.js';
import type { ConsumerContext } from './context.js';
import type { ConsumerGroupMember } from './member.js';
import { convertToClassicGroup, prepareDowngrade, validateOnlineDowngradeWithFencedMembers } from './online-downgrade.js';
import { subscriptionMetadataHash } from './subscriptions.js';

/**
 * `consumerGroupFenceMembers`: with the online downgrade allowed
 * (`validateOnlineDowngradeWithFencedMembers`), the group becomes a classic group without
 * `members`, which then rebalances; otherwise every member's records are tombstoned (8, 7, 5),
 * regexes nobody uses any more are dropped (16) and the group epoch is bumped once (3). Applies
 * the records and returns them; throws a `ConsumerGroupError` (nothing changed) when the
 * downgrade cannot build the classic group.
 */
export function fenceMembers(ctx: ConsumerContext, group: ConsumerGroup, members: readonly ConsumerGroupMember[], reason: string): CoordinatorRecord[] {
  const fenced = [...new Map(members.map((m) => [m.memberId, m])).values()];
  const { groupId } = group;
  const out: CoordinatorRecord[] = [];
  if (fenced.length === 0) return out;
  if (validateOnlineDowngradeWithFencedMembers(ctx, group, fenced)) {
    const prepared = prepareDowngrade(ctx, group, new Set(fenced.map((m) => m.memberId)), null);
    ctx.log.info({ groupId, memberIds: fenced.map((m) => m.memberId), reason }, 'members leave the consumer group; downgrading it to a classic group');
    convertToClassicGroup(ctx, group, prepared, `Downgrade group ${groupId} from consumer to classic for member leaving.`, out);
    return out;
  }
  const emit = ctx.store.emitInto(out);
  for (const { memberId } of fenced) {
    emit({ kind: 'cg-current-assignment', groupId, memberId, value: null });
    emit({ kind: 'cg-target-member', groupId, memberId, value: null });
    emit({ kind: 'cg-member-metadata', groupId, memberId, value: null });
  }
  // `maybeDeleteResolvedRegularExpressions`: the fenced members' regexes no remaining member uses.
  for (const regex of new Set(fenced.map((m) => m.subscribedTopicRegex))) {
    if (regex !== '' && ![...group.members.values()].some((m) => m.subscribedTopicRegex === regex)) {
      emit({ kind: 'cg-regex', groupId, regex, value: null });
    }
  }
  emit({ kind: 'cg-metadata', groupId, value: { epoch: group.groupEpoch + 1, metadataHash: subscriptionMetadataHash(ctx, group) } });
  for (const { memberId } of fenced) ctx.timers.cancelMember(groupId, memberId);
  ctx.log.info({ groupId, memberIds: fenced.map((m) => m.memberId), groupEpoch: group.groupEpoch }, `members removed from the consumer group: ${reason}`);
  return out;
}

/** `consumerGroupFenceMember`: `fenceMembers` for one member. */
export function fenceMember(ctx: ConsumerContext, group: ConsumerGroup, member: ConsumerGroupMember, reason: string): CoordinatorRecord[] {
  return fenceMembers(ctx, group, [member], reason);
}
