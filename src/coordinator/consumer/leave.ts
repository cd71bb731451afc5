/**
 * A ConsumerGroupHeartbeat with member epoch -1 (leave) or -2 (static member leaving for a
 * while): Kafka 4.3's `GroupMetadataManager.consumerGroupLeave` and
 * `consumerGroupStaticMemberGroupLeave`.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { ConsumerGroupHeartbeatResponse } from '../../protocol/messages/ConsumerGroupHeartbeatResponse.js';
import type { CoordinatorRecord } from '../records.js';
import type { ConsumerContext } from './context.js';
import { ConsumerGroupError, instanceIdFenced } from './errors.js';
import { fenceMember } from './fencing.js';
import { LEAVE_GROUP_STATIC_MEMBER_EPOCH, currentAssignmentValue, type ConsumerGroupMember } from './member.js';

export function consumerGroupLeave(
  ctx: ConsumerContext,
  groupId: string,
  memberId: string,
  instanceId: string | null,
  memberEpoch: number,
  records: CoordinatorRecord[],
): ConsumerGroupHeartbeatResponse {
  const group = ctx.store.get(groupId);
  // `consumerGroupLeave` -> `consumerGroup(groupId)` -> `group(groupId)`: "Group X not found." (not the heartbeat's "Consumer group X not found.").
  if (!group) throw new ConsumerGroupError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
  const respond = (): ConsumerGroupHeartbeatResponse => ({
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    memberId,
    memberEpoch,
    heartbeatIntervalMs: 0,
    assignment: null,
  });
  let member: ConsumerGroupMember;
  if (instanceId === null) {
    const found = group.members.get(memberId);
    if (!found) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
    member = found;
  } else {
    const found = group.staticMember(instanceId);
    if (!found) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${instanceId} is unknown.`);
    if (found.memberId !== memberId) {
      throw instanceIdFenced(memberId, instanceId, found.memberId);
    }
    member = found;
    if (memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      // `consumerGroupStaticMemberGroupLeave`: keep the assignment, epoch -2, its assignment epochs
      // reset to 0 (`resetAssignedPartitionsEpochsToZero`, KIP-1251); the session timer runs on.
      const left: ConsumerGroupMember = {
        ...member,
        memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH,
        pendingRevocation: new Map(),
        assigned: new Map([...member.assigned].map(([topicId, parts]) => [topicId, new Map([...parts.keys()].map((p) => [p, 0]))])),
      };
      ctx.store.emitInto(records)({ kind: 'cg-current-assignment', groupId, memberId, value: currentAssignmentValue(left) });
      ctx.timers.cancelRebalance(groupId, memberId);
      ctx.log.info({ groupId, memberId, instanceId }, 'static member left the consumer group temporarily');
      return respond();
    }
  }
  records.push(...fenceMember(ctx, group, member, 'the member left the group'));
  return respond();
}
