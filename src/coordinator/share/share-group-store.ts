/**
 * The share groups (a shard of the coordinator runtime), rebuilt only by applying records 10-15:
 * Kafka 4.3's `GroupMetadataManager.replay` for the share-group records (live as each record is
 * built, at start-up, and for the committed view) and `ShareGroup.createGroupTombstoneRecords`.
 * Two views as the consumer groups' store: the latest groups (what operations decide on) and the
 * committed groups (what describe, list and the admin API read); a failed write puts a group back.
 */
import type { CoordinatorRecord, ShareGroupRecord } from '../records.js';
import type { CoordinatorShard } from '../runtime.js';
import { CONSUMER_OFFSETS_RECORD_KINDS } from '../../records/schemas/record-types.js';
import { GroupMap, type GroupView } from '../group-map.js';
import { revertGroups } from '../group-views.js';
import {
  ShareGroup,
  SHARE_LEAVE_GROUP_MEMBER_EPOCH,
  applyCurrentAssignment,
  applyMemberMetadata,
  newShareMember,
  partitionsFromRecord,
  stateMetadataFromRecord,
} from './share-group.js';

/** Builds a record into the group: applies it at once and keeps it for the append. */
export type ShareEmit = (record: ShareGroupRecord) => void;

type GroupsOf<T> = Pick<Map<string, T>, 'get' | 'delete'> & { set(groupId: string, group: T): unknown };

/** The share groups of a group map. */
export function shareGroupsOf(map: GroupMap): GroupView<ShareGroup> {
  return map.view((g): g is ShareGroup => g instanceof ShareGroup);
}

const noop = (): void => {};

/** Applies one share-group record to a map of groups (the one replay function). */
function applyRecord(groups: GroupsOf<ShareGroup>, record: ShareGroupRecord, now: number, onGroupDeleted: (groupId: string) => void): void {
  const { groupId } = record;
  let group = groups.get(groupId);
  if (record.value === null) {
    if (!group) return;
    switch (record.kind) {
      case 'share-group-metadata':
        groups.delete(groupId);
        onGroupDeleted(groupId);
        return;
      case 'share-group-member-metadata':
        group.members.delete(record.memberId);
        return;
      case 'share-group-target-assignment-metadata':
        group.assignmentEpoch = -1;
        group.assignmentTimestamp = 0n;
        return;
      case 'share-group-target-assignment-member':
        group.targetAssignment.delete(record.memberId);
        return;
      case 'share-group-current-member-assignment': {
        const m = group.members.get(record.memberId);
        if (m) group.members.set(m.memberId, { ...m, memberEpoch: SHARE_LEAVE_GROUP_MEMBER_EPOCH, previousMemberEpoch: SHARE_LEAVE_GROUP_MEMBER_EPOCH, assigned: new Map() });
        return;
      }
      case 'share-group-state-partition-metadata':
        group.stateMetadata = null;
        return;
    }
  }
  if (!group) groups.set(groupId, (group = new ShareGroup(groupId)));
  switch (record.kind) {
    case 'share-group-metadata':
      group.groupEpoch = record.value.epoch;
      group.metadataHash = record.value.metadataHash;
      return;
    case 'share-group-member-metadata':
      group.members.set(record.memberId, applyMemberMetadata(group.members.get(record.memberId) ?? newShareMember(record.memberId), record.value));
      return;
    case 'share-group-target-assignment-metadata':
      group.assignmentEpoch = record.value.assignmentEpoch;
      group.assignmentTimestamp = record.value.assignmentTimestamp;
      return;
    case 'share-group-target-assignment-member':
      group.targetAssignment.set(record.memberId, partitionsFromRecord(record.value.topicPartitions));
      return;
    case 'share-group-current-member-assignment':
      group.members.set(record.memberId, applyCurrentAssignment(group.members.get(record.memberId) ?? newShareMember(record.memberId), record.value));
      return;
    case 'share-group-state-partition-metadata':
      group.stateMetadata = stateMetadataFromRecord(record.value, now);
      return;
  }
}

export class ShareGroupStore implements CoordinatorShard<ShareGroupRecord['kind']> {
  readonly kinds = CONSUMER_OFFSETS_RECORD_KINDS['share-group'];
  private readonly committedGroups = new Map<string, ShareGroup>();

  /**
   * `now`: the coordinator clock (record 15's initializing partitions are stamped with the time they
   * are replayed at, as Kafka's); `onGroupDeleted` runs when a latest group's record 11 is
   * tombstoned; `onGroupReverted` when a failed write put a group back (timers restart).
   */
  constructor(
    private readonly now: () => number,
    private readonly groups: GroupView<ShareGroup> = shareGroupsOf(new GroupMap()),
    private readonly onGroupDeleted: (groupId: string) => void = noop,
    private readonly onGroupReverted: (group: ShareGroup) => void = noop,
  ) {}

  get(groupId: string): ShareGroup | undefined {
    return this.groups.get(groupId);
  }

  has(groupId: string): boolean {
    return this.groups.has(groupId);
  }

  all(): ShareGroup[] {
    return [...this.groups.values()];
  }

  /** A new group is put in the map at once (Kafka's `getOrMaybeCreatePersistedShareGroup`). */
  getOrCreate(groupId: string): ShareGroup {
    let group = this.groups.get(groupId);
    if (!group) this.groups.set(groupId, (group = new ShareGroup(groupId)));
    return group;
  }

  /** An `Emit` that collects into `records` and applies each record to the latest view. */
  emitInto(records: CoordinatorRecord[]): ShareEmit {
    return (r) => {
      records.push(r);
      this.apply(r);
    };
  }

  apply(record: ShareGroupRecord): void {
    applyRecord(this.groups, record, this.now(), this.onGroupDeleted);
  }

  committed(groupId: string): ShareGroup | undefined {
    return this.committedGroups.get(groupId);
  }

  allCommitted(): ShareGroup[] {
    return [...this.committedGroups.values()];
  }

  /** The ids of `allCommitted`, live (a group created or deleted while iterating shows or goes). */
  committedIds(): IterableIterator<string> {
    return this.committedGroups.keys();
  }

  load(record: ShareGroupRecord): void {
    this.apply(record);
    applyRecord(this.committedGroups, record, this.now(), noop);
  }

  onDurable(records: readonly ShareGroupRecord[]): void {
    for (const r of records) applyRecord(this.committedGroups, r, this.now(), noop);
  }

  revert(failed: readonly ShareGroupRecord[], pending: readonly ShareGroupRecord[]): void {
    revertGroups(this.groups, this.committedGroups, failed, pending, {
      apply: (r) => this.apply(r),
      onDeleted: this.onGroupDeleted,
      onReverted: this.onGroupReverted,
    });
  }

  /**
   * `ShareGroup.createGroupTombstoneRecords` (4.3): 14 and 13 per member, 12, 10 per member, 15,
   * then 11; applied at once.
   */
  createGroupTombstoneRecords(group: ShareGroup): ShareGroupRecord[] {
    const { groupId } = group;
    const ids = [...group.members.keys()];
    const out: ShareGroupRecord[] = [];
    for (const memberId of ids) out.push({ kind: 'share-group-current-member-assignment', groupId, memberId, value: null });
    for (const memberId of ids) out.push({ kind: 'share-group-target-assignment-member', groupId, memberId, value: null });
    out.push({ kind: 'share-group-target-assignment-metadata', groupId, value: null });
    for (const memberId of ids) out.push({ kind: 'share-group-member-metadata', groupId, memberId, value: null });
    out.push({ kind: 'share-group-state-partition-metadata', groupId, value: null });
    out.push({ kind: 'share-group-metadata', groupId, value: null });
    for (const r of out) this.apply(r);
    return out;
  }
}
