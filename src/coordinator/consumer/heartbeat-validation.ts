/**
 * The checks a ConsumerGroupHeartbeat passes before anything changes: Kafka 4.3's
 * `GroupMetadataManager.throwIfConsumerGroupHeartbeatRequestIsInvalid` and
 * `throwIfConsumerGroupMemberEpochIsInvalid`.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { ConsumerGroupHeartbeatRequest, TopicPartitions as RequestTopicPartitions } from '../../protocol/messages/ConsumerGroupHeartbeatRequest.js';
import type { AssignorSet } from './assignors.js';
import { ConsumerGroupError } from './errors.js';
import { LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH, type ConsumerGroupMember } from './member.js';

/** `throwIfConsumerGroupHeartbeatRequestIsInvalid` (4.x, with KIP-1082 member ids). */
export function throwIfConsumerGroupHeartbeatRequestIsInvalid(req: ConsumerGroupHeartbeatRequest, apiVersion: number, assignors: AssignorSet): void {
  const invalid = (message: string) => new ConsumerGroupError(ErrorCode.INVALID_REQUEST, message);
  const blank = (s: string | null) => s !== null && s.trim() === '';
  // The member id first (v1+, or a v0 member past its join or leaving with -1), then the others.
  if (apiVersion >= 1 || req.memberEpoch > 0 || req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH) {
    if (req.memberId.trim() === '') throw invalid("MemberId can't be empty.");
  }
  if (blank(req.groupId)) throw invalid("GroupId can't be empty.");
  if (blank(req.instanceId)) throw invalid("InstanceId can't be empty.");
  if (blank(req.rackId)) throw invalid("RackId can't be empty.");
  if (req.memberEpoch === 0) {
    if (req.rebalanceTimeoutMs === -1) throw invalid('RebalanceTimeoutMs must be provided in first request.');
    if (req.topicPartitions === null || req.topicPartitions.length > 0) throw invalid('TopicPartitions must be empty when (re-)joining.');
    if (req.subscribedTopicNames === null && req.subscribedTopicRegex === null) {
      throw invalid('Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.');
    }
  } else if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    if (req.instanceId === null) throw invalid("InstanceId can't be null.");
  } else if (req.memberEpoch < LEAVE_GROUP_MEMBER_EPOCH) {
    throw invalid('MemberEpoch is invalid.');
  }
  // No regex check here: Kafka validates a regex only when a member takes one new to its group
  // (`maybeUpdateRegularExpressions`, see `throwIfNewSubscribedTopicRegexIsInvalid`).
  if (req.serverAssignor !== null && !assignors.byName.has(req.serverAssignor)) {
    throw new ConsumerGroupError(
      ErrorCode.UNSUPPORTED_ASSIGNOR,
      `ServerAssignor ${req.serverAssignor} is not supported. Supported assignors: ${[...assignors.byName.keys()].join(', ')}.`,
    );
  }
}

/**
 * `throwIfConsumerGroupMemberEpochIsInvalid` (4.3): epoch 0 always passes, so a known member id
 * rejoins after being fenced (KAFKA-19233: KIP-848/KIP-1082 clients keep their member id and send
 * epoch 0); the previous epoch passes only with owned ⊆ assigned.
 */
export function throwIfMemberEpochIsInvalid(member: ConsumerGroupMember, received: number, owned: readonly RequestTopicPartitions[] | null): void {
  if (received === 0) return;
  if (received > member.memberEpoch) {
    throw new ConsumerGroupError(
      ErrorCode.FENCED_MEMBER_EPOCH,
      `The consumer group member has a greater member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
  }
  if (received < member.memberEpoch) {
    if (received !== member.previousMemberEpoch || !isSubset(owned, member)) {
      throw new ConsumerGroupError(
        ErrorCode.FENCED_MEMBER_EPOCH,
        `The consumer group member has a smaller member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
      );
    }
  }
}

function isSubset(owned: readonly RequestTopicPartitions[] | null, member: ConsumerGroupMember): boolean {
  if (owned === null) return false;
  for (const tp of owned) {
    const parts = member.assigned.get(tp.topicId);
    if (!parts) return false;
    for (const p of tp.partitions) if (!parts.has(p)) return false;
  }
  return true;
}
