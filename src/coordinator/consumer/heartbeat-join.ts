/**
 * A ConsumerGroupHeartbeat that joins or stays in a group (any epoch but -1 and -2): Kafka 4.3's
 * `GroupMetadataManager.consumerGroupHeartbeat` with the group lookup (creation, conversion of a
 * classic group), the capacity check, the member lookup (`getOrMaybeSubscribeDynamicConsumerGroupMember`,
 * `getOrMaybeSubscribeStaticConsumerGroupMember`, `replaceMember`) and the response.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { ConsumerGroupHeartbeatRequest } from '../../protocol/messages/ConsumerGroupHeartbeatRequest.js';
import type { ConsumerGroupHeartbeatResponse } from '../../protocol/messages/ConsumerGroupHeartbeatResponse.js';
import type { CoordinatorRecord } from '../records.js';
import { assignmentToResponse, assignmentToTargetRecord, assignmentsEqual } from './assignment.js';
import { ConsumerGroup } from './consumer-group.js';
import type { ConsumerContext, ConsumerRequestContext, Emit } from './context.js';
import { ConsumerGroupError, consumerGroupNotFound, instanceIdFenced } from './errors.js';
import { throwIfMemberEpochIsInvalid } from './heartbeat-validation.js';
import {
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
  assignedPartitions,
  currentAssignmentValue,
  memberMetadataValue,
  newMember,
  normalizeTopicNames,
  randomMemberId,
  useClassicProtocol,
  type ConsumerGroupMember,
} from './member.js';
import { convertToConsumerGroup, planUpgrade, type UpgradePlan } from './online-upgrade.js';
import { updateAndReconcile } from './reconciliation.js';
import { throwIfNewSubscribedTopicRegexIsInvalid } from './regex-refresh.js';

export function consumerGroupHeartbeatJoin(
  ctx: ConsumerContext,
  req: ConsumerGroupHeartbeatRequest,
  client: ConsumerRequestContext,
  records: CoordinatorRecord[],
): ConsumerGroupHeartbeatResponse {
  const { groupId, memberEpoch } = req;
  const now = ctx.time.now();
  const createIfNotExists = memberEpoch === 0;
  const memberId = req.memberId === '' ? randomMemberId() : req.memberId;

  // Group lookup, conversion of an empty classic group, capacity.
  let group = ctx.store.get(groupId);
  const classicStatus = group ? 'none' : (ctx.classic?.classicGroupStatus(groupId) ?? 'none');
  if (!group) {
    if (!createIfNotExists) throw consumerGroupNotFound(groupId);
  }
  // Online upgrade of a non-empty classic group (`validateOnlineUpgrade`, `fromClassicGroup`).
  const upgrade = !group && classicStatus === 'non-empty' ? planUpgrade(ctx, groupId) : null;
  if (upgrade && upgrade.members.length >= ctx.settings.maxSize && !upgrade.members.some((m) => m.memberId === memberId)) {
    throw new ConsumerGroupError(ErrorCode.GROUP_MAX_SIZE_REACHED, `The consumer group has reached its maximum capacity of ${ctx.settings.maxSize} members.`);
  }
  // `throwIfConsumerGroupIsFull(group, memberId)`: no exemption for a static member rejoining under a new member id.
  if (group && group.numMembers >= ctx.settings.maxSize && !group.members.has(memberId)) {
    throw new ConsumerGroupError(ErrorCode.GROUP_MAX_SIZE_REACHED, `The consumer group has reached its maximum capacity of ${ctx.settings.maxSize} members.`);
  }

  // The member lookup runs against the group as it will be: Kafka converts the classic group
  // first, so a static member reusing a classic static member's instance id replaces it. We look
  // up in a throwaway view holding the upgrade plan's members, so nothing is applied before every
  // check has passed.
  const view = group ?? upgradeView(groupId, upgrade);
  const { member, replacing } = lookUpMember(view, req, memberId, createIfNotExists);
  // Kafka validates a new regex last, but rolls back what came before; we check it before the
  // group is created, converted or a static member replaced.
  throwIfNewSubscribedTopicRegexIsInvalid(view, member, req.subscribedTopicRegex ?? member.subscribedTopicRegex);

  // From here on, records are built and applied.
  const emit = ctx.store.emitInto(records);
  if (!group && upgrade) {
    group = convertToConsumerGroup(ctx, groupId, upgrade, records);
  }
  if (!group) {
    if (classicStatus === 'empty' && ctx.classic) {
      records.push(...ctx.classic.removeEmptyClassicGroup(groupId));
      ctx.log.info({ groupId }, 'converted an empty classic group to a consumer group');
    }
    group = ctx.store.getOrCreate(groupId);
  }
  if (group.hasLegacyPartitionMetadata) emit({ kind: 'cg-partition-metadata', groupId, value: null });
  if (replacing) replaceMember(ctx, group, replacing, member, emit);
  const before = member;

  // 1. Member metadata and subscription.
  let updated: ConsumerGroupMember = {
    ...member,
    instanceId: req.instanceId ?? member.instanceId,
    rackId: req.rackId ?? member.rackId,
    rebalanceTimeoutMs: req.rebalanceTimeoutMs !== -1 ? req.rebalanceTimeoutMs : member.rebalanceTimeoutMs,
    serverAssignor: req.serverAssignor ?? member.serverAssignor,
    subscribedTopicNames: req.subscribedTopicNames !== null ? normalizeTopicNames(req.subscribedTopicNames) : member.subscribedTopicNames,
    subscribedTopicRegex: req.subscribedTopicRegex ?? member.subscribedTopicRegex,
    clientId: client.clientId,
    clientHost: client.clientHost,
    classicMemberMetadata: null,
  };
  updated = updateAndReconcile(ctx, group, member, updated, req.topicPartitions, now, emit, { client });

  ctx.timers.cancelJoin(groupId, memberId);
  ctx.timers.scheduleSession(groupId, memberId);

  const response: ConsumerGroupHeartbeatResponse = {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    memberId,
    memberEpoch: updated.memberEpoch,
    heartbeatIntervalMs: ctx.groupSettings(groupId).heartbeatIntervalMs,
    assignment: null,
  };
  const isFullRequest =
    req.rebalanceTimeoutMs !== -1 && (req.subscribedTopicNames !== null || req.subscribedTopicRegex !== null) && req.topicPartitions !== null;
  if (memberEpoch === 0 || isFullRequest || !assignmentsEqual(assignedPartitions(before), assignedPartitions(updated))) {
    response.assignment = { topicPartitions: assignmentToResponse(assignedPartitions(updated)) };
  }
  return response;
}

/** The group to look members up in when no consumer group exists yet: the planned upgrade's members, or none. */
function upgradeView(groupId: string, upgrade: UpgradePlan | null): ConsumerGroup {
  const view = new ConsumerGroup(groupId);
  for (const m of upgrade?.members ?? []) view.updateMember(m);
  return view;
}

/**
 * Member lookup (throws before any record is built): the member the heartbeat updates, and the
 * static member it replaces when a new member id takes over an instance id that was left with -2.
 */
function lookUpMember(
  view: ConsumerGroup,
  req: ConsumerGroupHeartbeatRequest,
  memberId: string,
  createIfNotExists: boolean,
): { member: ConsumerGroupMember; replacing: ConsumerGroupMember | null } {
  const { groupId } = view;
  const { memberEpoch } = req;
  if (req.instanceId === null) {
    const existing = view.members.get(memberId);
    if (!existing && !createIfNotExists) {
      throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
    }
    if (existing) throwIfMemberEpochIsInvalid(existing, memberEpoch, req.topicPartitions);
    return { member: existing ?? newMember(memberId), replacing: null };
  }
  const existingStatic = view.staticMember(req.instanceId);
  if (createIfNotExists) {
    if (!existingStatic) {
      const existing = view.members.get(memberId);
      if (existing) throwIfMemberEpochIsInvalid(existing, memberEpoch, req.topicPartitions);
      return { member: existing ?? newMember(memberId), replacing: null };
    }
    if (!useClassicProtocol(existingStatic) && existingStatic.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      throw new ConsumerGroupError(
        ErrorCode.UNRELEASED_INSTANCE_ID,
        `Static member ${memberId} with instance id ${req.instanceId} cannot join the group because the instance id is owned by ${existingStatic.memberId} member.`,
      );
    }
    return { member: { ...existingStatic, memberId, memberEpoch: 0, previousMemberEpoch: 0 }, replacing: existingStatic };
  }
  if (!existingStatic) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`);
  if (existingStatic.memberId !== memberId) {
    throw instanceIdFenced(memberId, req.instanceId, existingStatic.memberId);
  }
  throwIfMemberEpochIsInvalid(existingStatic, memberEpoch, req.topicPartitions);
  return { member: existingStatic, replacing: null };
}

/** `replaceMember`: the new member id takes over the instance, its target and its assignment. */
export function replaceMember(ctx: ConsumerContext, group: ConsumerGroup, replacing: ConsumerGroupMember, member: ConsumerGroupMember, emit: Emit): void {
  const { groupId } = group;
  const { memberId } = member;
  const oldTarget = group.targetOf(replacing.memberId);
  emit({ kind: 'cg-current-assignment', groupId, memberId: replacing.memberId, value: null });
  emit({ kind: 'cg-target-member', groupId, memberId: replacing.memberId, value: null });
  emit({ kind: 'cg-member-metadata', groupId, memberId: replacing.memberId, value: null });
  ctx.timers.cancelMember(groupId, replacing.memberId);
  emit({ kind: 'cg-member-metadata', groupId, memberId, value: memberMetadataValue(member) });
  emit({ kind: 'cg-target-member', groupId, memberId, value: { topicPartitions: assignmentToTargetRecord(oldTarget) } });
  emit({ kind: 'cg-current-assignment', groupId, memberId, value: currentAssignmentValue(member) });
}
