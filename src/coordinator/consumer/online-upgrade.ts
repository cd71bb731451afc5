/**
 * Online upgrade of a non-empty classic group to a consumer group (KIP-848): Kafka 4.3's
 * `GroupMetadataManager.validateOnlineUpgrade`, `ConsumerGroup.fromClassicGroup` and
 * `GroupMetadataManager.convertToConsumerGroup`.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { CoordinatorRecord } from '../records.js';
import { LengthPastEndError } from '../../protocol/primitives.js';
import { readAssignment, readSubscription } from '../classic/consumer-protocol.js';
import { assignmentToTargetRecord, type EpochAssignment } from './assignment.js';
import { CONSUMER_PROTOCOL_TYPE, type ConsumerGroup } from './consumer-group.js';
import type { ConsumerContext } from './context.js';
import { ConsumerGroupError } from './errors.js';
import { MemberState, assignedPartitions, currentAssignmentValue, memberMetadataValue, newMember, normalizeTopicNames, type ConsumerGroupMember } from './member.js';
import { subscriptionMetadataHash } from './subscriptions.js';

/** The consumer group a classic group becomes: its generation and its members. */
export interface UpgradePlan {
  generationId: number;
  members: ConsumerGroupMember[];
}

/**
 * `validateOnlineUpgrade` plus the parsing `ConsumerGroup.fromClassicGroup` does: the members
 * the consumer group starts with, or GROUP_ID_NOT_FOUND when the policy forbids the upgrade,
 * the group does not use the consumer protocol, is too large, or its embedded protocol cannot
 * be converted; UNKNOWN_SERVER_ERROR when the group's first join phase is still open. No record
 * is built here, but once the validation passed the classic group's parked JoinGroup and
 * SyncGroup requests are answered REBALANCE_IN_PROGRESS, as Kafka 4.3's `convertToConsumerGroup`
 * answers them (`completeAllJoinFutures`, `completeAllSyncFutures`) before `fromClassicGroup`
 * reads the members: an upgrade failing after that (or a later check of the heartbeat failing)
 * reverts the shard's state, never those answers.
 */
export function planUpgrade(ctx: ConsumerContext, groupId: string): UpgradePlan {
  const notFound = (why: string) => new ConsumerGroupError(ErrorCode.GROUP_ID_NOT_FOUND, why);
  const unknownServerError = () => new ConsumerGroupError(ErrorCode.UNKNOWN_SERVER_ERROR, 'The server experienced an unexpected error when processing the request.');
  const policy = ctx.settings.migrationPolicy;
  const view = ctx.classic?.upgradeView?.(groupId) ?? null;
  if (!view || (policy !== 'bidirectional' && policy !== 'upgrade')) throw notFound(`Group ${groupId} is not a consumer group.`);
  if (view.protocolType !== CONSUMER_PROTOCOL_TYPE) throw notFound(`Group ${groupId} is not a consumer group.`);
  if (view.members.length > ctx.settings.maxSize) throw notFound(`Group ${groupId} is not a consumer group.`);
  ctx.classic?.answerParkedForUpgrade?.(groupId);
  const malformed = () => notFound(`Cannot upgrade classic group ${groupId} to consumer group because the embedded consumer protocol is malformed.`);
  // Kafka turns a buffer underflow (or a bad version) into SchemaException -> GROUP_ID_NOT_FOUND;
  // a count or bytes length past the end fails earlier with a RuntimeException /
  // IllegalArgumentException that `convertToConsumerGroup` does not catch -> UNKNOWN_SERVER_ERROR
  // (checked against Kafka 4.3.1: an assignment whose userData length is too long).
  const parse = <T>(read: () => T): T => {
    try {
      return read();
    } catch (err) {
      if (err instanceof LengthPastEndError) throw unknownServerError();
      throw malformed();
    }
  };
  const members = view.members.map((cm): ConsumerGroupMember => {
    // No protocol chosen yet (the group's first join is still open): Kafka's
    // `protocolName().get()` throws NoSuchElementException there, which answers UNKNOWN_SERVER_ERROR.
    if (cm.metadata === null) throw unknownServerError();
    const metadata = cm.metadata;
    const subscription = parse(() => readSubscription(metadata));
    const assigned: EpochAssignment = new Map();
    if (cm.assignment.length > 0) {
      const assignment = parse(() => readAssignment(cm.assignment));
      if (assignment.userData !== null && assignment.userData.length > 0) {
        throw notFound(
          `Cannot upgrade classic group ${groupId} to consumer group because an unsupported custom assignor is in use. Please refer to the documentation or switch to a default assignor before re-attempting the upgrade.`,
        );
      }
      for (const tp of assignment.assignedPartitions) {
        const topic = ctx.topics.get(tp.topic);
        if (!topic) continue;
        const parts = assigned.get(topic.topicId) ?? new Map<number, number>();
        for (const p of tp.partitions) parts.set(p, view.generationId);
        assigned.set(topic.topicId, parts);
      }
    }
    return {
      ...newMember(cm.memberId),
      instanceId: cm.groupInstanceId,
      rackId: subscription.rackId,
      clientId: cm.clientId,
      clientHost: cm.clientHost,
      subscribedTopicNames: normalizeTopicNames(subscription.topics),
      rebalanceTimeoutMs: cm.rebalanceTimeoutMs,
      classicMemberMetadata: {
        sessionTimeoutMs: cm.sessionTimeoutMs,
        supportedProtocols: cm.supportedProtocols.map((p) => ({ name: p.name, metadata: p.metadata })),
      },
      memberEpoch: view.generationId,
      previousMemberEpoch: view.generationId,
      state: MemberState.STABLE,
      assigned,
    };
  });
  return { generationId: view.generationId, members };
}

/**
 * `convertToConsumerGroup`: the classic group's parked requests get REBALANCE_IN_PROGRESS and
 * its GroupMetadata is tombstoned, then `createConsumerGroupRecords` writes every member's
 * record 5, the group epoch (3, the classic generation), every target (7, the member's classic
 * assignment), the target epoch (6, timestamp 0) and every current assignment (8).
 */
export function convertToConsumerGroup(ctx: ConsumerContext, groupId: string, plan: UpgradePlan, records: CoordinatorRecord[]): ConsumerGroup {
  records.push(...(ctx.classic?.takeGroupForUpgrade?.(groupId) ?? []));
  const emit = ctx.store.emitInto(records);
  const group = ctx.store.getOrCreate(groupId);
  for (const m of plan.members) emit({ kind: 'cg-member-metadata', groupId, memberId: m.memberId, value: memberMetadataValue(m) });
  emit({ kind: 'cg-metadata', groupId, value: { epoch: plan.generationId, metadataHash: subscriptionMetadataHash(ctx, group) } });
  for (const m of plan.members) {
    emit({ kind: 'cg-target-member', groupId, memberId: m.memberId, value: { topicPartitions: assignmentToTargetRecord(assignedPartitions(m)) } });
  }
  emit({ kind: 'cg-target-metadata', groupId, value: { assignmentEpoch: plan.generationId, assignmentTimestamp: 0n } });
  for (const m of plan.members) emit({ kind: 'cg-current-assignment', groupId, memberId: m.memberId, value: currentAssignmentValue(m) });
  for (const m of plan.members) ctx.timers.scheduleSession(groupId, m.memberId, m.classicMemberMetadata?.sessionTimeoutMs);
  ctx.log.info({ groupId, members: plan.members.length, generationId: plan.generationId }, 'converted a non-empty classic group to a consumer group');
  return group;
}
