/**
 * A new target assignment for a consumer group: Kafka 4.3's `TargetAssignmentBuilder` as
 * `GroupMetadataManager.updateTargetAssignment` runs it (records 7 and 6).
 */
import { assignmentToTargetRecord, assignmentsEqual, type Assignment } from './assignment.js';
import type { AssignmentMemberSpec } from './assignor/types.js';
import type { ConsumerGroup } from './consumer-group.js';
import type { ConsumerContext, Emit } from './context.js';
import { subscribedTopicIds } from './subscriptions.js';

/** `TargetAssignmentBuilder`: runs the group's assignor and writes the changed targets (7) and the epoch (6). */
export function updateTargetAssignment(ctx: ConsumerContext, group: ConsumerGroup, groupEpoch: number, now: number, emit: Emit): void {
  const { groupId } = group;
  const assignorName = group.preferredServerAssignor();
  const assignor = (assignorName !== null ? ctx.assignors.byName.get(assignorName) : undefined) ?? ctx.assignors.defaultAssignor;
  const specs = new Map<string, AssignmentMemberSpec>();
  const topicCounts = new Map<string, number>();
  // Members mostly share one subscription: its topic ids are looked up once (the assignors only read them).
  const idsBySubscription = new Map<string, ReadonlySet<string>>();
  for (const m of group.members.values()) {
    const subscription = `${m.subscribedTopicRegex}\u0000${namesKey(m.subscribedTopicNames)}`;
    let ids = idsBySubscription.get(subscription);
    if (ids === undefined) idsBySubscription.set(subscription, (ids = subscribedTopicIds(ctx, group, m)));
    for (const id of ids) topicCounts.set(id, (topicCounts.get(id) ?? 0) + 1);
    specs.set(m.memberId, {
      memberId: m.memberId,
      instanceId: m.instanceId,
      rackId: m.rackId,
      subscribedTopicIds: ids,
      assignedPartitions: group.targetOf(m.memberId),
    });
  }
  const homogeneous = [...topicCounts.values()].every((n) => n === group.numMembers);
  const result = assignor.assign(
    { members: specs, subscriptionType: homogeneous ? 'HOMOGENEOUS' : 'HETEROGENEOUS' },
    { numPartitions: (topicId) => ctx.topics.getById(topicId)?.partitionCount ?? -1 },
  );
  for (const memberId of group.members.keys()) {
    const next: Assignment = result.members.get(memberId) ?? new Map();
    const prev = group.targetAssignment.get(memberId);
    if (prev === undefined || !assignmentsEqual(prev, next)) {
      emit({ kind: 'cg-target-member', groupId, memberId, value: { topicPartitions: assignmentToTargetRecord(next) } });
    }
  }
  emit({ kind: 'cg-target-metadata', groupId, value: { assignmentEpoch: groupEpoch, assignmentTimestamp: BigInt(now) } });
  ctx.log.info({ groupId, assignmentEpoch: groupEpoch, assignor: assignor.name }, 'computed new target assignment');
}

/**
 * The topic names of a subscription as one string, kept per names array: a member's array lives
 * as long as its subscription, and every target assignment visits every member (1,000 joins of a
 * 1,000-member group joined names a million times).
 */
const joinedNames = new WeakMap<readonly string[], string>();
function namesKey(names: readonly string[]): string {
  let key = joinedNames.get(names);
  if (key === undefined) joinedNames.set(names, (key = names.join('\u0000')));
  return key;
}
