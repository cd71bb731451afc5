/**
 * Removing a member from a consumer group: Kafka 4.3's `GroupMetadataManager.consumerGroupFenceMember`
 * (for a leave, an expired session, rebalance or join timeout, or a classic member's LeaveGroup).
 */
import type { CoordinatorRecord } from '../records.js';
import type { ConsumerGroup } from './consumer-group.js';
import type { ConsumerContext } from './context.js';
import type { ConsumerGroupMember } from './member.js';
import { subscriptionMetadataHash } from './subscriptions.js';

/**
 * `consumerGroupFenceMember`: tombstones the member's records (8, 7, 5), drops a regex nobody
 * uses any more (16) and bumps the group epoch (3). Applies them and returns them.
 */
export function fenceMember(ctx: ConsumerContext, group: ConsumerGroup, member: ConsumerGroupMember, reason: string): CoordinatorRecord[] {
  const { groupId } = group;
  const { memberId } = member;
  const out: CoordinatorRecord[] = [];
  const emit = ctx.store.emitInto(out);
  emit({ kind: 'cg-current-assignment', groupId, memberId, value: null });
  emit({ kind: 'cg-target-member', groupId, memberId, value: null });
  emit({ kind: 'cg-member-metadata', groupId, memberId, value: null });
  const regex = member.subscribedTopicRegex;
  if (regex !== '' && group.resolvedRegexes.has(regex) && ![...group.members.values()].some((m) => m.subscribedTopicRegex === regex)) {
    emit({ kind: 'cg-regex', groupId, regex, value: null });
  }
  emit({ kind: 'cg-metadata', groupId, value: { epoch: group.groupEpoch + 1, metadataHash: subscriptionMetadataHash(ctx, group) } });
  ctx.timers.cancelMember(groupId, memberId);
  ctx.log.info({ groupId, memberId, groupEpoch: group.groupEpoch }, `member removed from the consumer group: ${reason}`);
  return out;
}
