import type { GroupMetadataValue, MemberMetadata } from '../../records/schemas/GroupMetadataValue.js';
import type { GroupMetadataRecord } from '../records.js';
import type { ClassicGroup, ClassicGroupSnapshot } from './classic-group.js';
import { ClassicGroupMember } from './classic-member.js';
import { ClassicGroupState } from './group-state.js';

/**
 * GroupMetadata records of classic groups (Kafka's `GroupCoordinatorRecordHelpers.newGroupMetadataRecord`,
 * `newEmptyGroupMetadataRecord`, `newGroupMetadataTombstoneRecord`) and the reverse mapping used
 * when the log is replayed (`GroupMetadataManager.replay(GroupMetadataKey, GroupMetadataValue)`).
 * Values follow GroupMetadataValue v3 (records.ts encodes the version).
 */

/**
 * The group with every member and the given assignments; `assignments` must hold every member
 * (the caller fills the missing ones with empty bytes, as Kafka does).
 */
export function groupMetadataRecord(group: ClassicGroup, assignments: ReadonlyMap<string, Buffer>): GroupMetadataRecord {
  const members: MemberMetadata[] = group.allMembers().map((m) => {
    const assignment = assignments.get(m.memberId);
    if (group.protocolName === null) throw new Error(`group ${group.groupId} has members but no protocol`);
    if (assignment === undefined) throw new Error(`member ${m.memberId} of group ${group.groupId} has no assignment`);
    return {
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeout: m.rebalanceTimeoutMs,
      sessionTimeout: m.sessionTimeoutMs,
      subscription: m.metadata(group.protocolName),
      assignment,
    };
  });
  return {
    kind: 'group-metadata',
    groupId: group.groupId,
    value: {
      protocolType: group.protocolType ?? '',
      generation: group.generationId,
      protocol: group.protocolName,
      leader: group.leaderId,
      currentStateTimestamp: BigInt(group.currentStateTimestamp ?? -1),
      members,
    },
  };
}

/** What Kafka writes when a JoinGroup creates a group: generation 0, type "", no members. */
export function emptyGroupMetadataRecord(group: ClassicGroup): GroupMetadataRecord {
  return {
    kind: 'group-metadata',
    groupId: group.groupId,
    value: {
      protocolType: '',
      generation: 0,
      protocol: null,
      leader: null,
      currentStateTimestamp: BigInt(group.currentStateTimestamp ?? -1),
      members: [],
    },
  };
}

export function groupTombstoneRecord(groupId: string): GroupMetadataRecord {
  return { kind: 'group-metadata', groupId, value: null };
}

/** The assignments the group's members hold now, keyed by member id. */
export function currentAssignments(group: ClassicGroup): Map<string, Buffer> {
  return new Map(group.allMembers().map((m) => [m.memberId, m.assignment]));
}

/**
 * What a loaded group starts as: Stable with the stored generation when it has members, Empty
 * otherwise; an empty protocol type means none (a simple group).
 */
export function snapshotFromValue(value: GroupMetadataValue): ClassicGroupSnapshot {
  const ts = Number(value.currentStateTimestamp);
  return {
    state: value.members.length === 0 ? ClassicGroupState.EMPTY : ClassicGroupState.STABLE,
    generationId: value.generation,
    protocolType: value.protocolType === '' ? null : value.protocolType,
    protocolName: value.protocol,
    leaderId: value.leader,
    currentStateTimestamp: ts === -1 ? null : ts,
  };
}

/**
 * Members of a loaded group: each supports only the stored protocol with its stored subscription;
 * records older than v1 have no rebalance timeout (-1), for which Kafka uses the session timeout.
 */
export function membersFromValue(value: GroupMetadataValue): ClassicGroupMember[] {
  return value.members.map(
    (m) =>
      new ClassicGroupMember({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeout === -1 ? m.sessionTimeout : m.rebalanceTimeout,
        sessionTimeoutMs: m.sessionTimeout,
        protocolType: value.protocolType,
        supportedProtocols: [{ name: value.protocol ?? '', metadata: m.subscription }],
        assignment: m.assignment,
      }),
  );
}
