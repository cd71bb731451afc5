/**
 * StreamsGroupHeartbeat checks made before the coordinator looks at the group (Kafka 4.3's
 * `GroupCoordinatorService.throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures`, then
 * `throwIfStreamsGroupHeartbeatRequestIsInvalid` and `throwIfInvalidTopology`), and the member
 * epoch check (`GroupMetadataManager.throwIfStreamsGroupMemberEpochIsInvalid`). Messages are Kafka's.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { StreamsGroupHeartbeatRequest, TaskIds } from '../../protocol/messages/StreamsGroupHeartbeatRequest.js';
import type { EpochAssignment, Assignment } from '../consumer/assignment.js';
import { StreamsGroupError } from './errors.js';
import { LEAVE_GROUP_STATIC_MEMBER_EPOCH, type StreamsGroupMember } from './streams-member.js';

const invalid = (message: string) => new StreamsGroupError(ErrorCode.INVALID_REQUEST, message);
/** Java's `String.trim().isEmpty()`: only characters up to U+0020. */
const blank = (s: string | null): boolean => s !== null && /^[\u0000-\u0020]*$/.test(s);

export function throwIfStreamsGroupHeartbeatRequestIsInvalid(req: StreamsGroupHeartbeatRequest): void {
  // Features Kafka 4.3 does not serve yet, checked first.
  if (req.instanceId !== null) throw invalid('Static membership is not yet supported.');
  if (req.taskOffsets !== null) throw invalid('TaskOffsets are not supported yet.');
  if (req.taskEndOffsets !== null) throw invalid('TaskEndOffsets are not supported yet.');
  if (req.warmupTasks !== null && req.warmupTasks.length > 0) throw invalid('WarmupTasks are not supported yet.');
  for (const s of req.topology?.subtopologies ?? []) {
    if (s.sourceTopicRegex.length > 0) throw invalid('Regular expressions for source topics are not supported yet.');
  }

  if (blank(req.memberId)) throw invalid("MemberId can't be empty.");
  if (blank(req.groupId)) throw invalid("GroupId can't be empty.");
  if (blank(req.instanceId)) throw invalid("InstanceId can't be empty.");
  if (blank(req.rackId)) throw invalid("RackId can't be empty.");
  if (req.memberEpoch === 0) {
    if (req.rebalanceTimeoutMs === -1) throw invalid('RebalanceTimeoutMs must be provided in first request.');
    if (req.activeTasks === null || req.activeTasks.length > 0) throw invalid('ActiveTasks must be empty when (re-)joining.');
    if (req.standbyTasks === null || req.standbyTasks.length > 0) throw invalid('StandbyTasks must be empty when (re-)joining.');
    if (req.warmupTasks === null || req.warmupTasks.length > 0) throw invalid('WarmupTasks must be empty when (re-)joining.');
    if (req.topology === null) throw invalid('Topology must be non-null when (re-)joining.');
    for (const s of req.topology.subtopologies) {
      for (const t of s.stateChangelogTopics) {
        if (t.partitions !== 0) {
          throw new StreamsGroupError(ErrorCode.STREAMS_INVALID_TOPOLOGY, `Changelog topic ${t.name} must have an undefined partition count, but it is set to ${t.partitions}.`);
        }
      }
    }
  } else if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    if (req.instanceId === null) throw invalid("InstanceId can't be null.");
  } else if (req.memberEpoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    throw invalid(`MemberEpoch is ${req.memberEpoch}, but must be greater than or equal to -2.`);
  }
  if (req.activeTasks !== null || req.standbyTasks !== null || req.warmupTasks !== null) {
    if (req.activeTasks === null || req.standbyTasks === null || req.warmupTasks === null) throw invalid('If one task-type is non-null, all must be non-null.');
  }
  if (req.memberEpoch !== 0 && req.topology !== null) throw invalid('Topology can only be provided when (re-)joining.');
}

/**
 * `throwIfStreamsGroupMemberEpochIsInvalid`: a member ahead of the coordinator, or behind it other
 * than by one epoch whose response may have been lost (it then owns no task it was not given), is
 * fenced.
 */
export function throwIfMemberEpochIsInvalid(
  member: StreamsGroupMember,
  received: number,
  owned: { active: readonly TaskIds[] | null; standby: readonly TaskIds[] | null; warmup: readonly TaskIds[] | null },
): void {
  if (received === 0) return;
  const fenced = (relation: string) =>
    new StreamsGroupError(
      ErrorCode.FENCED_MEMBER_EPOCH,
      `The streams group member has a ${relation} member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
  if (received > member.memberEpoch) throw fenced('greater');
  if (received < member.memberEpoch) {
    if (
      received !== member.previousMemberEpoch ||
      !containedIn(owned.active, member.assigned.active) ||
      !containedIn(owned.standby, member.assigned.standby) ||
      !containedIn(owned.warmup, member.assigned.warmup)
    ) {
      throw fenced('smaller');
    }
  }
}

/** `areOwnedTasksContainedInAssignedTasks`: tasks not reported (null) are not contained, nor a subtopology the member was not given. */
function containedIn(owned: readonly TaskIds[] | null, assigned: Assignment | EpochAssignment): boolean {
  if (owned === null) return false;
  return owned.every((t) => {
    const parts = assigned.get(t.subtopologyId);
    return parts !== undefined && t.partitions.every((p) => parts.has(p));
  });
}
