/**
 * A classic-protocol JoinGroup into a non-empty consumer group: Kafka 4.3's
 * `GroupMetadataManager.classicGroupJoinToConsumerGroup`, with the static member replacement of
 * `getOrMaybeSubscribeStaticConsumerGroupMember` and the online downgrade it may trigger.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { TopicPartitions as RequestTopicPartitions } from '../../protocol/messages/ConsumerGroupHeartbeatRequest.js';
import type { JoinGroupRequest, JoinGroupRequestProtocol } from '../../protocol/messages/JoinGroupRequest.js';
import type { JoinGroupResponse } from '../../protocol/messages/JoinGroupResponse.js';
import type { CoordinatorRecord } from '../records.js';
import type { PreparedDowngrade } from '../classic/from-consumer-group.js';
import { decodeSubscription } from '../classic/consumer-protocol.js';
import { CONSUMER_PROTOCOL_TYPE, type ConsumerGroup } from './consumer-group.js';
import type { ConsumerContext, ConsumerRequestContext } from './context.js';
import { ConsumerGroupError, instanceIdFenced } from './errors.js';
import { replaceMember } from './heartbeat-join.js';
import { newMember, normalizeTopicNames, randomMemberId, useClassicProtocol, type ConsumerGroupMember } from './member.js';
import { convertToClassicGroup, prepareDowngrade, validateOnlineDowngradeWithReplacedMember } from './online-downgrade.js';
import { updateAndReconcile } from './reconciliation.js';
import { writeErrorCode } from '../runtime.js';

/**
 * `classicGroupJoinToConsumerGroup`: a classic member (re)joins a non-empty consumer group. Its
 * subscription and owned partitions come from the first protocol's ConsumerProtocol metadata;
 * the answer carries its member epoch as the generation and no member list (the assignment
 * comes from the target, returned by SyncGroup). A static member joining without a member id
 * replaces the member holding its instance id (it takes over its target and assignment); when
 * that member was the last one using the consumer protocol, the group is downgraded to a
 * classic group (rebalancing when the target assignment is stale). Otherwise the member's
 * session and sync timers start once the records are written.
 */
export async function classicJoin(ctx: ConsumerContext, req: JoinGroupRequest, client: ConsumerRequestContext): Promise<JoinGroupResponse> {
  // Errors thrown by the group logic reach the client through `GroupCoordinatorService`'s
  // exception handler, which answers with the error code only (member id "").
  const fail = (errorCode: number, memberId = ''): JoinGroupResponse => ({
    throttleTimeMs: 0, errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', skipAssignment: false, memberId, members: [],
  });
  const group = ctx.store.get(req.groupId);
  if (!group) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
  const { groupId } = group;
  const isUnknownMember = req.memberId === '';
  const memberId = isUnknownMember ? randomMemberId() : req.memberId;
  const rebalanceTimeoutMs = client.apiVersion === 0 ? req.sessionTimeoutMs : req.rebalanceTimeoutMs;
  const records: CoordinatorRecord[] = [];
  let response: JoinGroupResponse;
  let downgraded = false;
  try {
    // `throwIfClassicMemberCannotJoinConsumerGroup`.
    if (ctx.settings.migrationPolicy === 'disabled') {
      throw new ConsumerGroupError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `Cannot join the consumer group ${groupId} with the classic protocol because the group migration is disabled.`);
    }
    // `throwIfConsumerGroupIsFull`.
    if (!group.members.has(memberId) && group.numMembers >= ctx.settings.maxSize) {
      throw new ConsumerGroupError(ErrorCode.GROUP_MAX_SIZE_REACHED, `The consumer group has reached its maximum capacity of ${ctx.settings.maxSize} members.`);
    }
    // `throwIfClassicProtocolIsNotSupported`.
    if (!supportsClassicProtocols(group, req.protocolType, req.protocols)) {
      throw new ConsumerGroupError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `Member ${memberId}'s protocols are not supported.`);
    }
    // `JoinGroupRequest.requiresKnownMemberId`.
    if (isUnknownMember && req.groupInstanceId === null && client.apiVersion >= 4) return fail(ErrorCode.MEMBER_ID_REQUIRED, memberId);
    const { member, replacing } = lookUpMember(group, req.groupInstanceId, memberId, isUnknownMember);

    // `deserializeSubscription`: unreadable metadata (empty, negative version, truncated) is a
    // SchemaException rethrown as IllegalStateException, which `GroupCoordinatorService`'s
    // handler (`Errors.forException`: not an ApiException) answers with UNKNOWN_SERVER_ERROR.
    // Nothing is built yet, so the group is left as it is.
    const subscription = decodeSubscription(req.protocols[0]!.metadata);
    if (subscription === null) {
      ctx.log.error({ groupId, memberId }, 'Operation classic-group-join hit an unexpected exception: Malformed embedded consumer protocol in subscription deserialization.');
      throw new ConsumerGroupError(ErrorCode.UNKNOWN_SERVER_ERROR, 'Malformed embedded consumer protocol in subscription deserialization.');
    }
    const owned: RequestTopicPartitions[] = subscription.ownedPartitions.flatMap((tp) => {
      const topic = ctx.topics.get(tp.topic);
      return topic ? [{ topicId: topic.topicId, partitions: [...tp.partitions] }] : [];
    });
    const updated: ConsumerGroupMember = {
      ...member,
      instanceId: req.groupInstanceId ?? member.instanceId,
      rackId: subscription.rackId ?? member.rackId,
      rebalanceTimeoutMs: rebalanceTimeoutMs !== -1 ? rebalanceTimeoutMs : member.rebalanceTimeoutMs,
      subscribedTopicNames: normalizeTopicNames(subscription.topics),
      // A classic member subscribes by names only; a regex of the member it replaces goes.
      subscribedTopicRegex: '',
      clientId: client.clientId,
      clientHost: client.clientHost,
      classicMemberMetadata: { sessionTimeoutMs: req.sessionTimeoutMs, supportedProtocols: req.protocols.map((p) => ({ name: p.name, metadata: p.metadata })) },
    };

    // The static member the join takes the place of (itself on a rejoin): when it is the last
    // member using the consumer protocol, the group is downgraded (`validateOnlineDowngradeWithReplacedMember`).
    // The classic group is built first (from the group as it is before the join), so a failure changes nothing.
    const existingStatic = req.groupInstanceId === null ? undefined : group.staticMember(req.groupInstanceId);
    let downgrade: PreparedDowngrade | null = null;
    if (existingStatic && validateOnlineDowngradeWithReplacedMember(ctx, group, existingStatic)) {
      downgrade = prepareDowngrade(ctx, group, new Set(), updated);
    }

    const now = ctx.time.now();
    const emit = ctx.store.emitInto(records);
    if (group.hasLegacyPartitionMetadata) emit({ kind: 'cg-partition-metadata', groupId, value: null });
    if (replacing) replaceMember(ctx, group, replacing, member, emit);
    // The downgrade skips the target assignment: a stale target (group epoch above it) is left
    // to the classic rebalance, else the member is reconciled towards the current target first.
    const reconciled = updateAndReconcile(ctx, group, member, updated, owned, now, emit, { stopWhenStale: downgrade !== null, client });
    if (downgrade) {
      const stale = group.groupEpoch > group.assignmentEpoch;
      convertToClassicGroup(ctx, group, downgrade, stale ? `Downgrade group ${groupId} from consumer to classic with stale assignment.` : null, records);
      downgraded = true;
    }
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
    ctx.writer.abandon(records);
    if (err instanceof ConsumerGroupError) return fail(err.errorCode);
    throw err;
  }
  try {
    await ctx.writer.append(records);
  } catch (err) {
    ctx.log.error({ err, groupId }, 'failed to write consumer group records');
    return fail(writeErrorCode(err));
  }
  ctx.timers.cancelJoin(groupId, memberId);
  if (!downgraded) {
    ctx.timers.scheduleSession(groupId, memberId, req.sessionTimeoutMs);
    ctx.timers.scheduleSync(groupId, memberId, rebalanceTimeoutMs);
  }
  return response;
}

/**
 * `ConsumerGroup.supportsClassicProtocols`: protocol type "consumer" and one protocol every
 * classic-protocol member of the group supports (any protocol while none is there).
 */
function supportsClassicProtocols(group: ConsumerGroup, protocolType: string, protocols: readonly JoinGroupRequestProtocol[]): boolean {
  if (protocolType !== CONSUMER_PROTOCOL_TYPE || protocols.length === 0) return false;
  const classicMembers = [...group.members.values()].filter(useClassicProtocol);
  return protocols.some((p) => classicMembers.every((m) => m.classicMemberMetadata!.supportedProtocols.some((s) => s.name === p.name)));
}

/**
 * `getOrMaybeSubscribeDynamicConsumerGroupMember` / `getOrMaybeSubscribeStaticConsumerGroupMember`
 * with the classic flags (throws before any record is built). A dynamic member is created when
 * its id is not in the group. A static member without a member id replaces the member holding
 * its instance id, whatever protocol that one uses and whatever its epoch (the replacement keeps
 * its data with epochs 0); with a member id, the instance id must be known (UNKNOWN_MEMBER_ID)
 * and held by that member id (FENCED_INSTANCE_ID).
 */
function lookUpMember(
  group: ConsumerGroup,
  instanceId: string | null,
  memberId: string,
  isUnknownMember: boolean,
): { member: ConsumerGroupMember; replacing: ConsumerGroupMember | null } {
  if (instanceId === null) return { member: group.members.get(memberId) ?? newMember(memberId), replacing: null };
  const existing = group.staticMember(instanceId);
  if (isUnknownMember) {
    if (!existing) return { member: group.members.get(memberId) ?? newMember(memberId), replacing: null };
    return { member: { ...existing, memberId, memberEpoch: 0, previousMemberEpoch: 0 }, replacing: existing };
  }
  if (!existing) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${instanceId} is unknown.`);
  if (existing.memberId !== memberId) {
    throw instanceIdFenced(memberId, instanceId, existing.memberId);
  }
  return { member: existing, replacing: null };
}
