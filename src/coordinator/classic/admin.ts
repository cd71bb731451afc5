import { ErrorCode } from '../../protocol/errors.js';
import type { DescribedGroup, DescribedGroupMember } from '../../protocol/messages/DescribeGroupsResponse.js';
import type { ListedGroup } from '../../protocol/messages/ListGroupsResponse.js';
import type { DeletableGroupResult } from '../../protocol/messages/DeleteGroupsResponse.js';
import { EMPTY_BYTES } from '../../protocol/primitives.js';
import type { ClassicGroup } from './classic-group.js';
import { ClassicGroupState } from './group-state.js';

/** The group type ListGroups v5+ reports for every group this coordinator holds (`GroupType.CLASSIC`). */
export const CLASSIC_GROUP_TYPE = 'classic';

/** What DescribeGroups answers before v3 and when authorized operations were not requested. */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

/**
 * One DescribeGroups entry (`GroupMetadataManager.describeGroups`): member metadata and the
 * protocol name only when Stable (otherwise they may be mid-change); assignments always.
 * An unknown group is "Dead" with NONE up to v5, and GROUP_ID_NOT_FOUND with a message in v6
 * (KIP-1043, Kafka 4.0+).
 */
export function describeGroup(groupId: string, group: ClassicGroup | undefined, version: number): DescribedGroup {
  if (!group) {
    return {
      errorCode: version >= 6 ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.NONE,
      errorMessage: version >= 6 ? `Group ${groupId} not found.` : null,
      groupId,
      groupState: ClassicGroupState.DEAD,
      protocolType: '',
      protocolData: '',
      members: [],
      authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
    };
  }
  const stable = group.isInState(ClassicGroupState.STABLE);
  const members: DescribedGroupMember[] = group.allMembers().map((m) => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    memberMetadata: stable ? m.metadata(group.protocolName ?? '') : EMPTY_BYTES,
    memberAssignment: m.assignment,
  }));
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    groupId,
    groupState: group.state,
    protocolType: group.protocolType ?? '',
    protocolData: stable ? (group.protocolName ?? '') : '',
    members,
    authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  };
}

/** A classic group's ListGroups entry: its own protocol type (none for a simple group). */
export function listedGroup(group: ClassicGroup): ListedGroup {
  return { groupId: group.groupId, protocolType: group.protocolType ?? '', groupState: group.state, groupType: CLASSIC_GROUP_TYPE };
}

/**
 * Why a group cannot be deleted (`ClassicGroup.validateDeleteGroup`): unknown or Dead ->
 * GROUP_ID_NOT_FOUND, members present -> NON_EMPTY_GROUP; NONE when it can go.
 */
export function deleteGroupError(group: ClassicGroup | undefined): number {
  if (!group || group.isInState(ClassicGroupState.DEAD)) return ErrorCode.GROUP_ID_NOT_FOUND;
  return group.isInState(ClassicGroupState.EMPTY) ? ErrorCode.NONE : ErrorCode.NON_EMPTY_GROUP;
}

export type { DeletableGroupResult };
