/**
 * A KIP-848 group member (Kafka's `ConsumerGroupMember`): identity and subscription (record 5)
 * plus epochs, reconciliation state and current assignment (record 8). Values are immutable:
 * changes build a new member, so "did anything change" is a comparison.
 */
import type { ClassicMemberMetadata } from '../../records/schemas/ConsumerGroupMemberMetadataValue.js';
import type { ConsumerGroupMemberMetadataValue } from '../../records/schemas/ConsumerGroupMemberMetadataValue.js';
import type { ConsumerGroupCurrentMemberAssignmentValue } from '../../records/schemas/ConsumerGroupCurrentMemberAssignmentValue.js';
import { EMPTY_EPOCHS, epochAssignmentsEqual, epochsFromRecord, epochsToRecord, partitionsOf, type Assignment, type EpochAssignment } from './assignment.js';

/** Kafka's `MemberState` (stored as int8 in record 8). */
export const MemberState = {
  STABLE: 0,
  UNREVOKED_PARTITIONS: 1,
  UNRELEASED_PARTITIONS: 2,
  UNKNOWN: 127,
} as const;
export type MemberStateValue = (typeof MemberState)[keyof typeof MemberState];

export const MEMBER_STATE_NAMES: Record<number, string> = { 0: 'stable', 1: 'unrevoked_partitions', 2: 'unreleased_partitions', 127: 'unknown' };

export const LEAVE_GROUP_MEMBER_EPOCH = -1;
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

export interface ConsumerGroupMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  /** Sorted, without duplicates. */
  readonly subscribedTopicNames: readonly string[];
  /** "" when the member subscribes by names only (what Kafka stores). */
  readonly subscribedTopicRegex: string;
  readonly rebalanceTimeoutMs: number;
  readonly serverAssignor: string | null;
  /** Set for members using the classic protocol inside a consumer group (not served here yet). */
  readonly classicMemberMetadata: ClassicMemberMetadata | null;
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly state: MemberStateValue;
  readonly assigned: EpochAssignment;
  readonly pendingRevocation: EpochAssignment;
}

export function newMember(memberId: string): ConsumerGroupMember {
  return {
    memberId,
    instanceId: null,
    rackId: null,
    clientId: '',
    clientHost: '',
    subscribedTopicNames: [],
    subscribedTopicRegex: '',
    rebalanceTimeoutMs: -1,
    serverAssignor: null,
    classicMemberMetadata: null,
    memberEpoch: 0,
    previousMemberEpoch: 0,
    state: MemberState.STABLE,
    assigned: EMPTY_EPOCHS,
    pendingRevocation: EMPTY_EPOCHS,
  };
}

/** A member id as Kafka's `Uuid.randomUuid().toString()` prints it (base64url, 22 characters). */
export function randomMemberId(): string {
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(16))).toString('base64url');
}

export const assignedPartitions = (m: ConsumerGroupMember): Assignment => partitionsOf(m.assigned);
export const pendingRevocationPartitions = (m: ConsumerGroupMember): Assignment => partitionsOf(m.pendingRevocation);

/** `ConsumerGroupMember.isReconciledTo`. */
export function isReconciledTo(m: ConsumerGroupMember, targetEpoch: number): boolean {
  return m.state === MemberState.STABLE && m.memberEpoch === targetEpoch;
}

export function useClassicProtocol(m: ConsumerGroupMember): boolean {
  return m.classicMemberMetadata !== null;
}

/** Two normalized (sorted) topic name lists are the same. */
export const sameTopicNames = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** Whether the record-5 part (identity and subscription) differs. */
export function metadataChanged(a: ConsumerGroupMember, b: ConsumerGroupMember): boolean {
  return (
    a.instanceId !== b.instanceId ||
    a.rackId !== b.rackId ||
    a.clientId !== b.clientId ||
    a.clientHost !== b.clientHost ||
    !sameTopicNames(a.subscribedTopicNames, b.subscribedTopicNames) ||
    a.subscribedTopicRegex !== b.subscribedTopicRegex ||
    a.rebalanceTimeoutMs !== b.rebalanceTimeoutMs ||
    a.serverAssignor !== b.serverAssignor ||
    (a.classicMemberMetadata === null) !== (b.classicMemberMetadata === null)
  );
}

/** Whether the record-8 part (epochs, state, assignment) differs. */
export function assignmentStateChanged(a: ConsumerGroupMember, b: ConsumerGroupMember): boolean {
  return (
    a.memberEpoch !== b.memberEpoch ||
    a.previousMemberEpoch !== b.previousMemberEpoch ||
    a.state !== b.state ||
    !epochAssignmentsEqual(a.assigned, b.assigned) ||
    !epochAssignmentsEqual(a.pendingRevocation, b.pendingRevocation)
  );
}

export function subscriptionChanged(a: ConsumerGroupMember, b: ConsumerGroupMember): boolean {
  return !sameTopicNames(a.subscribedTopicNames, b.subscribedTopicNames) || a.subscribedTopicRegex !== b.subscribedTopicRegex;
}

export function normalizeTopicNames(names: readonly string[]): string[] {
  return [...new Set(names)].sort();
}

// ---- record conversion (GroupCoordinatorRecordHelpers) -------------------------------------

export function memberMetadataValue(m: ConsumerGroupMember): ConsumerGroupMemberMetadataValue {
  return {
    instanceId: m.instanceId,
    rackId: m.rackId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    subscribedTopicNames: [...m.subscribedTopicNames],
    subscribedTopicRegex: m.subscribedTopicRegex,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    serverAssignor: m.serverAssignor,
    classicMemberMetadata: m.classicMemberMetadata,
  };
}

export function currentAssignmentValue(m: ConsumerGroupMember): ConsumerGroupCurrentMemberAssignmentValue {
  return {
    memberEpoch: m.memberEpoch,
    previousMemberEpoch: m.previousMemberEpoch,
    state: m.state,
    assignedPartitions: epochsToRecord(m.assigned),
    partitionsPendingRevocation: epochsToRecord(m.pendingRevocation),
  };
}

export function applyMemberMetadata(m: ConsumerGroupMember, v: ConsumerGroupMemberMetadataValue): ConsumerGroupMember {
  return {
    ...m,
    instanceId: v.instanceId,
    rackId: v.rackId,
    clientId: v.clientId,
    clientHost: v.clientHost,
    subscribedTopicNames: normalizeTopicNames(v.subscribedTopicNames),
    subscribedTopicRegex: v.subscribedTopicRegex ?? '',
    rebalanceTimeoutMs: v.rebalanceTimeoutMs,
    serverAssignor: v.serverAssignor,
    classicMemberMetadata: v.classicMemberMetadata,
  };
}

export function applyCurrentAssignment(m: ConsumerGroupMember, v: ConsumerGroupCurrentMemberAssignmentValue): ConsumerGroupMember {
  const known = Object.values(MemberState) as number[];
  return {
    ...m,
    memberEpoch: v.memberEpoch,
    previousMemberEpoch: v.previousMemberEpoch,
    state: (known.includes(v.state) ? v.state : MemberState.UNKNOWN) as MemberStateValue,
    assigned: epochsFromRecord(v.assignedPartitions, v.memberEpoch),
    pendingRevocation: epochsFromRecord(v.partitionsPendingRevocation, v.memberEpoch),
  };
}
