/**
 * A classic-protocol JoinGroup into a non-empty consumer group: Kafka 4.3's
 * `GroupMetadataManager.classicGroupJoinToConsumerGroup`.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { TopicPartitions as RequestTopicPartitions } from '../../protocol/messages/ConsumerGroupHeartbeatRequest.js';
import type { JoinGroupRequest } from '../../protocol/messages/JoinGroupRequest.js';
import type { JoinGroupResponse } from '../../protocol/messages/JoinGroupResponse.js';
import type { CoordinatorRecord } from '../records.js';
import { decodeSubscription } from '../classic/consumer-protocol.js';
import { CONSUMER_PROTOCOL_TYPE } from './consumer-group.js';
import type { ConsumerContext, ConsumerRequestContext } from './context.js';
import { ConsumerGroupError } from './errors.js';
import { newMember, normalizeTopicNames, randomMemberId, type ConsumerGroupMember } from './member.js';
import { updateAndReconcile } from './reconciliation.js';

/**
 * `classicGroupJoinToConsumerGroup`: a classic member (re)joins a non-empty consumer group. Its
 * subscription and owned partitions come from the first protocol's ConsumerProtocol metadata;
 * the answer carries its member epoch as the generation and no member list (the assignment
 * comes from the target, returned by SyncGroup).
 */
export async function classicJoin(ctx: ConsumerContext, req: JoinGroupRequest, client: ConsumerRequestContext): Promise<JoinGroupResponse> {
  const fail = (errorCode: number, memberId = req.memberId): JoinGroupResponse => ({
    throttleTimeMs: 0, errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', skipAssignment: false, memberId, members: [],
  });
  const group = ctx.store.get(req.groupId);
  if (!group) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
  const { groupId } = group;
  const isUnknownMember = req.memberId === '';
  const memberId = isUnknownMember ? randomMemberId() : req.memberId;
  const records: CoordinatorRecord[] = [];
  let response: JoinGroupResponse;
  try {
    if (!group.members.has(memberId) && group.numMembers >= ctx.settings.maxSize) {
      throw new ConsumerGroupError(ErrorCode.GROUP_MAX_SIZE_REACHED, 'The consumer group is full.');
    }
    if (req.protocolType !== CONSUMER_PROTOCOL_TYPE || req.protocols.length === 0) {
      throw new ConsumerGroupError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, 'The protocol type or protocols are not supported.');
    }
    if (ctx.settings.migrationPolicy === 'disabled') {
      throw new ConsumerGroupError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, 'Classic members may not join a non-empty consumer group.');
    }
    // `JoinGroupRequest.requiresKnownMemberId`.
    if (isUnknownMember && req.groupInstanceId === null && client.apiVersion >= 4) return fail(ErrorCode.MEMBER_ID_REQUIRED, memberId);
    let member: ConsumerGroupMember;
    if (req.groupInstanceId === null) {
      const existing = group.members.get(memberId);
      if (!existing && !isUnknownMember) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
      member = existing ?? newMember(memberId);
    } else {
      const existing = group.staticMember(req.groupInstanceId);
      if (!existing) {
        if (!isUnknownMember) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.groupInstanceId} is unknown.`);
        member = newMember(memberId);
      } else if (existing.memberId === memberId) {
        member = existing;
      } else {
        throw new ConsumerGroupError(ErrorCode.FENCED_INSTANCE_ID, `Static member ${memberId} with instance id ${req.groupInstanceId} is fenced.`);
      }
    }
    const subscription = decodeSubscription(req.protocols[0]!.metadata);
    if (subscription === null) throw new ConsumerGroupError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, 'The embedded consumer protocol is malformed.');
    const owned: RequestTopicPartitions[] = subscription.ownedPartitions.flatMap((tp) => {
      const topic = ctx.topics.get(tp.topic);
      return topic ? [{ topicId: topic.topicId, partitions: [...tp.partitions] }] : [];
    });
    const now = ctx.time.now();
    const emit = ctx.store.emitInto(records);
    if (group.hasLegacyPartitionMetadata) emit({ kind: 'cg-partition-metadata', groupId, value: null });
    const rebalanceTimeoutMs = client.apiVersion === 0 ? req.sessionTimeoutMs : req.rebalanceTimeoutMs;
    const updated: ConsumerGroupMember = {
      ...member,
      instanceId: req.groupInstanceId ?? member.instanceId,
      rackId: subscription.rackId ?? member.rackId,
      rebalanceTimeoutMs: rebalanceTimeoutMs !== -1 ? rebalanceTimeoutMs : member.rebalanceTimeoutMs,
      subscribedTopicNames: normalizeTopicNames(subscription.topics),
      clientId: client.clientId,
      clientHost: client.clientHost,
      classicMemberMetadata: { sessionTimeoutMs: req.sessionTimeoutMs, supportedProtocols: req.protocols.map((p) => ({ name: p.name, metadata: p.metadata })) },
    };
    const reconciled = updateAndReconcile(ctx, group, member, updated, owned, now, emit);
    response = {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      generationId: reconciled.memberEpoch,
      protocolType: CONSUMER_PROTOCOL_TYPE,
      protocolName: req.protocols[0]!.name,
      leader: '',
      skipAssignment: false,
      memberId,
      members: [],
    };
  } catch (err) {
    if (err instanceof ConsumerGroupError) return fail(err.errorCode);
    throw err;
  }
  try {
    if (records.length > 0) await ctx.writer.append(records);
  } catch (err) {
    ctx.log.error({ err, groupId }, 'failed to write consumer group records');
    return fail(ErrorCode.NOT_COORDINATOR);
  }
  ctx.timers.cancelJoin(groupId, memberId);
  ctx.timers.scheduleSession(groupId, memberId, req.sessionTimeoutMs);
  return response;
}
