/** The shapes of the admin API answers the page reads (see /openapi.json); the group views are the server's own. */
export type { Overview, GroupDescription as Group, GroupHistory, GroupMemberView as GroupMember, GroupOffsetView, UncommittedPartitionView, TimelineEvent, ChangeNotice, TransactionSummary, TransactionDescription, ConnectAssignmentView, ConnectTasksView } from '../../src/admin/views.js';

/** A member's partitions, as the group views list them. */
export type Assignment = Array<{ topic: string; partitions: number[] }>;

export interface FaultRule {
  id: string;
  description?: string;
  match: Record<string, unknown>;
  action: { type: string; [key: string]: unknown };
  times: number | 'unlimited';
  fired: number;
  matched: number;
  remaining: number | 'unlimited';
  state: string;
  createdAt: string;
}

export interface RequestEntry {
  seq: number;
  time: string;
  api: string;
  version: number;
  brokerId: number;
  clientId: string;
  group: string | null;
  memberId: string | null;
  topics: string[];
  error: string | null;
  faults: string[];
  outcome: string;
  durationMs: number | null;
}

export interface Clock {
  mode: string;
  now: number;
  nowIso: string;
  pendingTimers: number | null;
}
