/**
 * The admin views of consumer groups: ConsumerGroupDescribe (Kafka 4.3's
 * `GroupMetadataManager.consumerGroupDescribe` and `ConsumerGroup.asDescribedGroup`) and the
 * consumer-group part of ListGroups (`GroupMetadataManager.listGroups`).
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { DescribedGroup as CgDescribedGroup, Member as CgDescribedMember, Assignment as CgDescribedAssignment } from '../../protocol/messages/ConsumerGroupDescribeResponse.js';
import type { ListedGroup } from '../../protocol/messages/ListGroupsResponse.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from '../../protocol/acl-operations.js';
import { assignmentToResponse, partitionsOf, type Assignment } from './assignment.js';
import { CONSUMER_GROUP_TYPE, CONSUMER_PROTOCOL_TYPE } from './consumer-group.js';
import type { ConsumerContext } from './context.js';
import { useClassicProtocol } from './member.js';
import { listedGroupsInSlices, modernListedGroup } from '../group-views.js';

/** Kafka's `ConsumerGroupDescribeResponseData` member types (v1). */
const MEMBER_TYPE_CLASSIC = 0;
const MEMBER_TYPE_CONSUMER = 1;

/** The entry of a group that cannot be described: only the id and the error. */
export function describedGroupError(groupId: string, errorCode: number, errorMessage: string | null): CgDescribedGroup {
  return {
    errorCode,
    errorMessage,
    groupId,
    groupState: '',
    groupEpoch: 0,
    assignmentEpoch: 0,
    assignorName: '',
    members: [],
    authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  };
}

/** ConsumerGroupDescribe (key 69) for one group (`ConsumerGroup.asDescribedGroup`). */
export function describeConsumerGroup(ctx: ConsumerContext, groupId: string, includeAuthorizedOperations: boolean, authorizedOperations: number): CgDescribedGroup {
  const group = ctx.store.committed(groupId);
  if (!group) {
    const classic = ctx.classic?.classicGroupStatus(groupId) ?? 'none';
    const errorMessage = classic === 'none' ? `Group ${groupId} not found.` : `Group ${groupId} is not a consumer group.`;
    return describedGroupError(groupId, ErrorCode.GROUP_ID_NOT_FOUND, errorMessage);
  }
  const describeAssignment = (a: Assignment): CgDescribedAssignment => ({
    topicPartitions: assignmentToResponse(a).flatMap((tp) => {
      const topic = ctx.topics.getById(tp.topicId);
      return topic ? [{ topicId: tp.topicId, topicName: topic.name, partitions: tp.partitions }] : [];
    }),
  });
  const members: CgDescribedMember[] = [...group.members.values()].map((m) => ({
    memberId: m.memberId,
    instanceId: m.instanceId,
    rackId: m.rackId,
    memberEpoch: m.memberEpoch,
    clientId: m.clientId,
    clientHost: m.clientHost,
    subscribedTopicNames: [...m.subscribedTopicNames],
    // Kafka reports the stored value: "" for a member subscribed by names.
    subscribedTopicRegex: m.subscribedTopicRegex,
    // `asConsumerGroupDescribeMember`: the partitions still pending revocation are listed too.
    assignment: describeAssignment(mergeAssignments(partitionsOf(m.assigned), partitionsOf(m.pendingRevocation))),
    targetAssignment: describeAssignment(group.targetOf(m.memberId)),
    memberType: useClassicProtocol(m) ? MEMBER_TYPE_CLASSIC : MEMBER_TYPE_CONSUMER,
  }));
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    groupId,
    groupState: group.state,
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    assignorName: group.preferredServerAssignor() ?? ctx.assignors.defaultAssignor.name,
    members,
    authorizedOperations: includeAuthorizedOperations ? authorizedOperations : AUTHORIZED_OPERATIONS_OMITTED,
  };
}

/** ListGroups entries for consumer groups passing the state (case-insensitive) and type filters, in slices. */
export function listConsumerGroups(ctx: ConsumerContext, statesFilter: readonly string[], typesFilter: readonly string[]): Promise<ListedGroup[]> {
  return listedGroupsInSlices(ctx.store.allCommitted(), statesFilter, typesFilter, CONSUMER_GROUP_TYPE, modernListedGroup(CONSUMER_GROUP_TYPE, CONSUMER_PROTOCOL_TYPE));
}

function mergeAssignments(a: Assignment, b: Assignment): Assignment {
  const out: Assignment = new Map();
  for (const x of [a, b]) {
    for (const [topicId, parts] of x) {
      const set = out.get(topicId) ?? new Set<number>();
      for (const p of parts) set.add(p);
      out.set(topicId, set);
    }
  }
  return out;
}
