/**
 * The streams groups (a shard of the coordinator runtime), rebuilt only by applying records 17 and
 * 19-23: Kafka 4.3's `GroupMetadataManager.replay` for the streams-group records (live as each
 * record is built, at start-up, and for the committed view) and `StreamsGroup.createGroupTombstoneRecords`.
 * Two views, as the other modern groups' stores: the latest groups (what operations decide on) and
 * the committed groups (what describe, list and the admin API read); a failed write puts a group back.
 */
import type { CoordinatorRecord, StreamsGroupRecord } from '../records.js';
import type { CoordinatorShard } from '../runtime.js';
import { CONSUMER_OFFSETS_RECORD_KINDS } from '../../records/schemas/record-types.js';
import { GroupMap, type GroupView } from '../group-map.js';
import { revertGroups } from '../group-views.js';
import { StreamsGroup } from './streams-group.js';
import { LEAVE_GROUP_MEMBER_EPOCH, applyCurrentAssignment, applyMemberMetadata, newStreamsMember } from './streams-member.js';
import { NO_TASKS, fromTaskIds } from './tasks.js';

/** Builds a record into the group: applies it at once and keeps it for the append. */
export type StreamsEmit = (record: StreamsGroupRecord) => void;

type GroupsOf<T> = Pick<Map<string, T>, 'get' | 'delete'> & { set(groupId: string, group: T): unknown };

/** The streams groups of a group map. */
export function streamsGroupsOf(map: GroupMap): GroupView<StreamsGroup> {
  return map.view((g): g is StreamsGroup => g instanceof StreamsGroup);
}

const noop = (): void => {};

/** Applies one streams-group record to a map of groups (the one replay function). */
function applyRecord(groups: GroupsOf<StreamsGroup>, record: StreamsGroupRecord, onGroupDeleted: (groupId: string) => void): void {
  const { groupId } = record;
  let group = groups.get(groupId);
  if (record.value === null) {
    if (!group) return;
    switch (record.kind) {
      case 'streams-group-metadata':
        groups.delete(groupId);
        onGroupDeleted(groupId);
        return;
      case 'streams-group-member-metadata':
        group.removeMember(record.memberId);
        return;
      case 'streams-group-target-assignment-metadata':
        return;
      case 'streams-group-target-assignment-member':
        group.targetAssignment.delete(record.memberId);
        return;
      case 'streams-group-current-member-assignment': {
        const m = group.members.get(record.memberId);
        if (m) group.updateMember({ ...m, memberEpoch: LEAVE_GROUP_MEMBER_EPOCH, previousMemberEpoch: LEAVE_GROUP_MEMBER_EPOCH, assigned: NO_TASKS, pendingRevocation: NO_TASKS });
        return;
      }
      case 'streams-group-topology':
        group.topology = null;
        group.configuredTopology = null;
        return;
    }
  }
  if (!group) groups.set(groupId, (group = new StreamsGroup(groupId)));
  switch (record.kind) {
    case 'streams-group-metadata':
      group.groupEpoch = record.value.epoch;
      group.metadataHash = record.value.metadataHash;
      group.validatedTopologyEpoch = record.value.validatedTopologyEpoch;
      group.lastAssignmentConfigs = new Map((record.value.lastAssignmentConfigs ?? []).map((c) => [c.key, c.value]));
      return;
    case 'streams-group-member-metadata':
      group.updateMember(applyMemberMetadata(group.members.get(record.memberId) ?? newStreamsMember(record.memberId), record.value));
      return;
    case 'streams-group-target-assignment-metadata':
      group.assignmentEpoch = record.value.assignmentEpoch;
      group.assignmentTimestamp = record.value.assignmentTimestamp;
      return;
    case 'streams-group-target-assignment-member':
      group.targetAssignment.set(record.memberId, {
        active: fromTaskIds(record.value.activeTasks),
        standby: fromTaskIds(record.value.standbyTasks),
        warmup: fromTaskIds(record.value.warmupTasks),
      });
      return;
    case 'streams-group-current-member-assignment':
      group.updateMember(applyCurrentAssignment(group.members.get(record.memberId) ?? newStreamsMember(record.memberId), record.value));
      return;
    case 'streams-group-topology':
      group.topology = record.value;
      group.configuredTopology = null;
      group.metadataExpired = true;
      return;
  }
}

export class StreamsGroupStore implements CoordinatorShard<StreamsGroupRecord['kind']> {
  readonly kinds = CONSUMER_OFFSETS_RECORD_KINDS['streams-group'];
  private readonly committedGroups = new Map<string, StreamsGroup>();

  /** `onGroupDeleted` runs when a latest group's record 17 is tombstoned; `onGroupReverted` when a failed write put a group back. */
  constructor(
    private readonly groups: GroupView<StreamsGroup> = streamsGroupsOf(new GroupMap()),
    private readonly onGroupDeleted: (groupId: string) => void = noop,
    private readonly onGroupReverted: (group: StreamsGroup) => void = noop,
  ) {}

  get(groupId: string): StreamsGroup | undefined {
    return this.groups.get(groupId);
  }

  has(groupId: string): boolean {
    return this.groups.has(groupId);
  }

  all(): StreamsGroup[] {
    return [...this.groups.values()];
  }

  /** A new group is put in the map at once (`getOrCreateStreamsGroup`); its first record 17 follows in the same write. */
  getOrCreate(groupId: string): StreamsGroup {
    let group = this.groups.get(groupId);
    if (!group) this.groups.set(groupId, (group = new StreamsGroup(groupId)));
    return group;
  }

  /** An emit that collects into `records` and applies each record to the latest view. */
  emitInto(records: CoordinatorRecord[]): StreamsEmit {
    return (r) => {
      records.push(r);
      this.apply(r);
    };
  }

  apply(record: StreamsGroupRecord): void {
    applyRecord(this.groups, record, this.onGroupDeleted);
  }

  committed(groupId: string): StreamsGroup | undefined {
    return this.committedGroups.get(groupId);
  }

  allCommitted(): StreamsGroup[] {
    return [...this.committedGroups.values()];
  }

  committedIds(): IterableIterator<string> {
    return this.committedGroups.keys();
  }

  load(record: StreamsGroupRecord): void {
    this.apply(record);
    applyRecord(this.committedGroups, record, noop);
  }

  onDurable(records: readonly StreamsGroupRecord[]): void {
    for (const r of records) applyRecord(this.committedGroups, r, noop);
    // The committed view's configured topology follows the latest one's (it is derived, not recorded).
    for (const groupId of new Set(records.map((r) => r.groupId))) {
      const committed = this.committedGroups.get(groupId);
      const latest = this.groups.get(groupId);
      if (committed && latest && committed.topology === latest.topology) committed.configuredTopology = latest.configuredTopology;
    }
  }

  revert(failed: readonly StreamsGroupRecord[], pending: readonly StreamsGroupRecord[]): void {
    revertGroups(this.groups, this.committedGroups, failed, pending, {
      apply: (r) => this.apply(r),
      onDeleted: this.onGroupDeleted,
      onReverted: this.onGroupReverted,
    });
  }

  /**
   * `StreamsGroup.createGroupTombstoneRecords`: per member 22, 21 and 19 tombstones, then 20, 23
   * and 17; applied at once.
   */
  createGroupTombstoneRecords(group: StreamsGroup): StreamsGroupRecord[] {
    const { groupId } = group;
    const out: StreamsGroupRecord[] = [];
    for (const memberId of group.members.keys()) {
      out.push({ kind: 'streams-group-current-member-assignment', groupId, memberId, value: null });
      out.push({ kind: 'streams-group-target-assignment-member', groupId, memberId, value: null });
      out.push({ kind: 'streams-group-member-metadata', groupId, memberId, value: null });
    }
    out.push({ kind: 'streams-group-target-assignment-metadata', groupId, value: null });
    out.push({ kind: 'streams-group-topology', groupId, value: null });
    out.push({ kind: 'streams-group-metadata', groupId, value: null });
    for (const r of out) this.apply(r);
    return out;
  }
}
