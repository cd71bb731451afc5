/**
 * Classic-protocol members inside a consumer group once they have joined: Kafka 4.3's
 * `GroupMetadataManager.classicGroupSyncToConsumerGroup`, `classicGroupHeartbeatToConsumerGroup`
 * and `classicGroupLeaveToConsumerGroup`, with the member validation they share.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { SyncGroupRequest } from '../../protocol/messages/SyncGroupRequest.js';
import type { SyncGroupResponse } from '../../protocol/messages/SyncGroupResponse.js';
import type { HeartbeatRequest } from '../../protocol/messages/HeartbeatRequest.js';
import type { MemberIdentity } from '../../protocol/messages/LeaveGroupRequest.js';
import type { MemberResponse as LeaveMemberResponse } from '../../protocol/messages/LeaveGroupResponse.js';
import type { LeaveGroupResult } from '../classic/leave-group.js';
import * as ConsumerProtocolAssignmentSchema from '../../records/schemas/ConsumerProtocolAssignment.js';
import type { CoordinatorRecord } from '../records.js';
import { encodeAssignment } from '../classic/consumer-protocol.js';
import { toConsumerProtocolPartitions, type Assignment } from './assignment.js';
import { CONSUMER_PROTOCOL_TYPE, type ConsumerGroup } from './consumer-group.js';
import type { ConsumerContext } from './context.js';
import { ConsumerGroupError, instanceIdFenced } from './errors.js';
import { fenceMembers } from './fencing.js';
import { MemberState, assignedPartitions, useClassicProtocol, type ConsumerGroupMember } from './member.js';
import { writeErrorCode } from '../runtime.js';

/** `validateConsumerGroupMember` + `throwIfMemberDoesNotUseClassicProtocol`. */
function classicMember(group: ConsumerGroup, memberId: string, instanceId: string | null): ConsumerGroupMember {
  let member: ConsumerGroupMember | undefined;
  if (instanceId === null) {
    member = group.members.get(memberId);
    if (!member) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${group.groupId}.`);
  } else {
    member = group.staticMember(instanceId);
    if (!member) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member with instance id ${instanceId} is not a member of group ${group.groupId}.`);
    if (member.memberId !== memberId) throw instanceIdFenced(memberId, instanceId, member.memberId);
  }
  if (!useClassicProtocol(member)) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} does not use the classic protocol.`);
  return member;
}

/**
 * `classicGroupSyncToConsumerGroup`: the member's current assignment as ConsumerProtocolAssignment
 * bytes, at the version of its first protocol's subscription.
 */
export async function classicSync(ctx: ConsumerContext, req: SyncGroupRequest): Promise<SyncGroupResponse> {
  const fail = (errorCode: number): SyncGroupResponse => ({ throttleTimeMs: 0, errorCode, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) });
  const group = ctx.store.get(req.groupId);
  if (!group) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
  try {
    const member = classicMember(group, req.memberId, req.groupInstanceId);
    if (req.generationId !== member.memberEpoch) throw new ConsumerGroupError(ErrorCode.ILLEGAL_GENERATION, 'Illegal generation.');
    const protocols = member.classicMemberMetadata!.supportedProtocols;
    // `throwIfClassicProtocolUnmatched`: the protocol name must be the member's first protocol,
    // the one its JoinGroup was answered with (null type or name pass: v0-4 requests).
    const joinedProtocol = protocols[0]?.name;
    if (req.protocolType !== null && req.protocolType !== CONSUMER_PROTOCOL_TYPE) {
      throw new ConsumerGroupError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `The protocol type ${req.protocolType} from member ${member.memberId} request is not equal to the group protocol type ${CONSUMER_PROTOCOL_TYPE}.`);
    }
    if (req.protocolName !== null && req.protocolName !== joinedProtocol) {
      throw new ConsumerGroupError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `The protocol name ${req.protocolName} from member ${member.memberId} request is not equal to the protocol name ${joinedProtocol} returned in the join response.`);
    }
    if (group.assignmentEpoch > member.memberEpoch && member.state !== MemberState.UNREVOKED_PARTITIONS) {
      ctx.timers.scheduleJoinIfAbsent(group.groupId, member.memberId, member.rebalanceTimeoutMs);
      throw new ConsumerGroupError(ErrorCode.REBALANCE_IN_PROGRESS, 'A new rebalance is triggered.');
    }
    ctx.timers.cancelSync(group.groupId, member.memberId);
    ctx.timers.scheduleSession(group.groupId, member.memberId, member.classicMemberMetadata!.sessionTimeoutMs);
    const version = protocols[0] && protocols[0].metadata.length >= 2 ? protocols[0].metadata.readInt16BE(0) : 0;
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, protocolType: req.protocolType, protocolName: req.protocolName, assignment: serializeAssignment(ctx, assignedPartitions(member), version) };
  } catch (err) {
    if (err instanceof ConsumerGroupError) return fail(err.errorCode);
    throw err;
  }
}

function serializeAssignment(ctx: ConsumerContext, assignment: Assignment, version: number): Buffer {
  const v = Math.max(0, Math.min(version, ConsumerProtocolAssignmentSchema.MAX_VERSION));
  return encodeAssignment(toConsumerProtocolPartitions(assignment, (id) => ctx.topics.getById(id)?.name), v);
}

/**
 * `classicGroupHeartbeatToConsumerGroup`: REBALANCE_IN_PROGRESS when the member must rejoin
 * (behind the target epoch, revoking, or its unreleased partitions are free), else NONE.
 */
export function classicHeartbeat(ctx: ConsumerContext, req: HeartbeatRequest): number {
  const group = ctx.store.get(req.groupId);
  if (!group) return ErrorCode.UNKNOWN_MEMBER_ID;
  try {
    const member = classicMember(group, req.memberId, req.groupInstanceId);
    if (req.generationId !== member.memberEpoch) return ErrorCode.ILLEGAL_GENERATION;
    ctx.timers.scheduleSession(group.groupId, member.memberId, member.classicMemberMetadata!.sessionTimeoutMs);
    if (
      member.memberEpoch < group.assignmentEpoch ||
      member.state === MemberState.UNREVOKED_PARTITIONS ||
      (member.state === MemberState.UNRELEASED_PARTITIONS && !waitingOnUnreleasedPartition(group, member))
    ) {
      ctx.timers.scheduleJoinIfAbsent(group.groupId, member.memberId, member.rebalanceTimeoutMs);
      return ErrorCode.REBALANCE_IN_PROGRESS;
    }
    return ErrorCode.NONE;
  } catch (err) {
    if (err instanceof ConsumerGroupError) return err.errorCode;
    throw err;
  }
}

/** `ConsumerGroup.waitingOnUnreleasedPartition`: part of the member's target is still held by another member. */
function waitingOnUnreleasedPartition(group: ConsumerGroup, member: ConsumerGroupMember): boolean {
  for (const [topicId, parts] of group.targetOf(member.memberId)) {
    for (const p of parts) {
      if (member.assigned.get(topicId)?.has(p)) continue;
      if (group.currentPartitionEpoch(topicId, p) !== -1) return true;
    }
  }
  return false;
}

/**
 * `classicGroupLeaveToConsumerGroup`: every named member (by member id, or by instance id with
 * member id "" or its own) is looked up, whatever protocol it uses, and answered with the member
 * id it was named by; the members found are fenced together (`consumerGroupFenceMembers`: one
 * epoch bump, or the online downgrade). A downgrade that fails is the request's error.
 */
export async function classicLeave(ctx: ConsumerContext, groupId: string, identities: readonly MemberIdentity[]): Promise<LeaveGroupResult> {
  const group = ctx.store.get(groupId);
  const leaving: ConsumerGroupMember[] = [];
  const results: LeaveMemberResponse[] = identities.map((id) => {
    const result: LeaveMemberResponse = { memberId: id.memberId, groupInstanceId: id.groupInstanceId, errorCode: ErrorCode.NONE };
    if (!group) return { ...result, errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
    try {
      let member: ConsumerGroupMember | undefined;
      if (id.groupInstanceId === null) {
        member = group.members.get(id.memberId);
        if (!member) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, 'unknown member');
      } else {
        member = group.staticMember(id.groupInstanceId);
        if (!member) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, 'unknown instance id');
        if (id.memberId !== '' && member.memberId !== id.memberId) throw new ConsumerGroupError(ErrorCode.FENCED_INSTANCE_ID, 'fenced');
      }
      ctx.log.info({ groupId, memberId: member.memberId, instanceId: id.groupInstanceId, reason: id.reason ?? 'not provided' }, 'member left the consumer group through LeaveGroup');
      leaving.push(member);
      return result;
    } catch (err) {
      if (err instanceof ConsumerGroupError) return { ...result, errorCode: err.errorCode };
      throw err;
    }
  });
  let records: CoordinatorRecord[] = [];
  try {
    if (group) records = fenceMembers(ctx, group, leaving, 'the member left the group through LeaveGroup');
  } catch (err) {
    ctx.writer.abandon(records);
    if (err instanceof ConsumerGroupError) return { errorCode: err.errorCode, members: [] };
    throw err;
  }
  try {
    await ctx.writer.append(records);
  } catch (err) {
    ctx.log.error({ err, groupId }, 'failed to write consumer group records');
    return { errorCode: writeErrorCode(err), members: [] };
  }
  return { errorCode: ErrorCode.NONE, members: results };
}
