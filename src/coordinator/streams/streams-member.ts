/**
 * A streams group member (Kafka 4.3's `org.apache.kafka.coordinator.group.streams.StreamsGroupMember`):
 * identity, topology epoch, process and endpoint (record 19), epochs, reconciliation state, assigned
 * tasks and tasks pending revocation (record 22). Values are immutable: a change builds a new member.
 */
import type { StreamsGroupMemberMetadataValue, Endpoint, KeyValue } from '../../records/schemas/StreamsGroupMemberMetadataValue.js';
import type { StreamsGroupCurrentMemberAssignmentValue } from '../../records/schemas/StreamsGroupCurrentMemberAssignmentValue.js';
import { epochAssignmentsEqual, assignmentsEqual } from '../consumer/assignment.js';
import { NO_TASKS, epochTasksFromRecord, epochTasksToRecord, fromTaskIds, tasksToRecord, type MemberTasks } from './tasks.js';

/** `org.apache.kafka.coordinator.group.streams.MemberState` (stored as int8 in record 22). */
export const StreamsMemberState = {
  STABLE: 0,
  UNREVOKED_TASKS: 1,
  UNRELEASED_TASKS: 2,
  UNKNOWN: 127,
} as const;
export type StreamsMemberStateValue = (typeof StreamsMemberState)[keyof typeof StreamsMemberState];

export const STREAMS_MEMBER_STATE_NAMES: Record<number, string> = { 0: 'stable', 1: 'unrevoked_tasks', 2: 'unreleased_tasks', 127: 'unknown' };

export const LEAVE_GROUP_MEMBER_EPOCH = -1;
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

export interface StreamsGroupMember {
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly state: StreamsMemberStateValue;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly rebalanceTimeoutMs: number;
  readonly topologyEpoch: number;
  readonly processId: string;
  readonly userEndpoint: Endpoint | null;
  /** Sorted by key. */
  readonly clientTags: readonly KeyValue[];
  readonly assigned: MemberTasks;
  readonly pendingRevocation: MemberTasks;
}

export function newStreamsMember(memberId: string): StreamsGroupMember {
  return {
    memberId,
    memberEpoch: 0,
    previousMemberEpoch: 0,
    state: StreamsMemberState.STABLE,
    instanceId: null,
    rackId: null,
    clientId: '',
    clientHost: '',
    rebalanceTimeoutMs: -1,
    topologyEpoch: -1,
    processId: '',
    userEndpoint: null,
    clientTags: [],
    assigned: NO_TASKS,
    pendingRevocation: NO_TASKS,
  };
}

/** `StreamsGroupMember.isReconciledTo`. */
export function isReconciledTo(m: StreamsGroupMember, targetEpoch: number): boolean {
  return m.state === StreamsMemberState.STABLE && m.memberEpoch === targetEpoch;
}

const sameEndpoint = (a: Endpoint | null, b: Endpoint | null): boolean => a === b || (a !== null && b !== null && a.host === b.host && a.port === b.port);
const sameTags = (a: readonly KeyValue[], b: readonly KeyValue[]): boolean => a.length === b.length && a.every((t, i) => t.key === b[i]!.key && t.value === b[i]!.value);

/** Whether the record-19 part differs. */
export function metadataChanged(a: StreamsGroupMember, b: StreamsGroupMember): boolean {
  return (
    a.instanceId !== b.instanceId ||
    a.rackId !== b.rackId ||
    a.clientId !== b.clientId ||
    a.clientHost !== b.clientHost ||
    a.rebalanceTimeoutMs !== b.rebalanceTimeoutMs ||
    a.topologyEpoch !== b.topologyEpoch ||
    a.processId !== b.processId ||
    !sameEndpoint(a.userEndpoint, b.userEndpoint) ||
    !sameTags(a.clientTags, b.clientTags)
  );
}

export function tasksEqual(a: MemberTasks, b: MemberTasks): boolean {
  return epochAssignmentsEqual(a.active, b.active) && assignmentsEqual(a.standby, b.standby) && assignmentsEqual(a.warmup, b.warmup);
}

/** Whether the record-22 part differs. */
export function assignmentStateChanged(a: StreamsGroupMember, b: StreamsGroupMember): boolean {
  return (
    a.memberEpoch !== b.memberEpoch ||
    a.previousMemberEpoch !== b.previousMemberEpoch ||
    a.state !== b.state ||
    !tasksEqual(a.assigned, b.assigned) ||
    !tasksEqual(a.pendingRevocation, b.pendingRevocation)
  );
}

// ---- record conversion (StreamsCoordinatorRecordHelpers) -----------------------------------

export function memberMetadataValue(m: StreamsGroupMember): StreamsGroupMemberMetadataValue {
  return {
    instanceId: m.instanceId,
    rackId: m.rackId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    topologyEpoch: m.topologyEpoch,
    processId: m.processId,
    userEndpoint: m.userEndpoint,
    clientTags: m.clientTags.map((t) => ({ ...t })),
  };
}

export function currentAssignmentValue(m: StreamsGroupMember): StreamsGroupCurrentMemberAssignmentValue {
  return {
    memberEpoch: m.memberEpoch,
    previousMemberEpoch: m.previousMemberEpoch,
    state: m.state,
    activeTasks: epochTasksToRecord(m.assigned.active),
    standbyTasks: tasksToRecord(m.assigned.standby),
    warmupTasks: tasksToRecord(m.assigned.warmup),
    activeTasksPendingRevocation: epochTasksToRecord(m.pendingRevocation.active),
    standbyTasksPendingRevocation: tasksToRecord(m.pendingRevocation.standby),
    warmupTasksPendingRevocation: tasksToRecord(m.pendingRevocation.warmup),
  };
}

export function applyMemberMetadata(m: StreamsGroupMember, v: StreamsGroupMemberMetadataValue): StreamsGroupMember {
  return {
    ...m,
    instanceId: v.instanceId,
    rackId: v.rackId,
    clientId: v.clientId,
    clientHost: v.clientHost,
    rebalanceTimeoutMs: v.rebalanceTimeoutMs,
    topologyEpoch: v.topologyEpoch,
    processId: v.processId,
    userEndpoint: v.userEndpoint,
    clientTags: [...v.clientTags].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
  };
}

export function applyCurrentAssignment(m: StreamsGroupMember, v: StreamsGroupCurrentMemberAssignmentValue): StreamsGroupMember {
  const known = Object.values(StreamsMemberState) as number[];
  return {
    ...m,
    memberEpoch: v.memberEpoch,
    previousMemberEpoch: v.previousMemberEpoch,
    state: (known.includes(v.state) ? v.state : StreamsMemberState.UNKNOWN) as StreamsMemberStateValue,
    assigned: { active: epochTasksFromRecord(v.activeTasks, v.memberEpoch), standby: fromTaskIds(v.standbyTasks), warmup: fromTaskIds(v.warmupTasks) },
    pendingRevocation: {
      active: epochTasksFromRecord(v.activeTasksPendingRevocation, v.memberEpoch),
      standby: fromTaskIds(v.standbyTasksPendingRevocation),
      warmup: fromTaskIds(v.warmupTasksPendingRevocation),
    },
  };
}
