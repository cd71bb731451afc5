/**
 * The consumer groups the coordinator holds, rebuilt only by applying records: Kafka 4.3's
 * `GroupMetadataManager.replay` for records 3, 4, 5, 6, 7, 8 and 16 (used live as each record is
 * built, and when the log is replayed at start) and `ConsumerGroup.createGroupTombstoneRecords`.
 */
import type { ConsumerGroupRecord, CoordinatorRecord } from '../records.js';
import type { CoordinatorShard } from '../runtime.js';
import { CONSUMER_OFFSETS_RECORD_KINDS } from '../../records/schemas/record-types.js';
import { GroupMap, type GroupView } from '../group-map.js';
import { revertGroups } from '../group-views.js';
import { assignmentFromTargetRecord } from './assignment.js';
import { ConsumerGroup } from './consumer-group.js';
import { LEAVE_GROUP_MEMBER_EPOCH, applyCurrentAssignment, applyMemberMetadata, newMember } from './member.js';

/** Builds a record into the group: applies it at once and keeps it for the append. */
export type Emit = (record: ConsumerGroupRecord) => void;

const noop = (): void => {};

/** What `applyRecord` needs of a map of groups: the latest view (the group map) or the committed `Map`. */
type GroupsOf<T> = Pick<Map<string, T>, 'get' | 'delete'> & { set(groupId: string, group: T): unknown };

/** The consumer groups of a group map. */
export function consumerGroupsOf(map: GroupMap): GroupView<ConsumerGroup> {
  return map.view((g): g is ConsumerGroup => g instanceof ConsumerGroup);
}

/**
 * Applies one consumer-group record to a map of groups; `onGroupDeleted` runs when record 3 is
 * tombstoned. The one replay function: live, at start-up and for the committed view.
 */
function applyRecord(groups: GroupsOf<ConsumerGroup>, record: ConsumerGroupRecord, onGroupDeleted: (groupId: string) => void): void {
  const { groupId } = record;
  if (record.value === null) {
    const group = groups.get(groupId);
    if (!group) return;
    switch (record.kind) {
      case 'cg-metadata':
        groups.delete(groupId);
        onGroupDeleted(groupId);
        return;
      case 'cg-partition-metadata':
        group.hasLegacyPartitionMetadata = false;
        return;
      case 'cg-member-metadata':
        group.removeMember(record.memberId);
        return;
      case 'cg-target-metadata':
        return;
      case 'cg-target-member':
        group.targetAssignment.delete(record.memberId);
        return;
      case 'cg-current-assignment': {
        const m = group.members.get(record.memberId);
        if (m) {
          group.updateMember({ ...m, memberEpoch: LEAVE_GROUP_MEMBER_EPOCH, previousMemberEpoch: LEAVE_GROUP_MEMBER_EPOCH, assigned: new Map(), pendingRevocation: new Map() });
        }
        return;
      }
      case 'cg-regex':
        group.resolvedRegexes.delete(record.regex);
        return;
    }
  }
  let group = groups.get(groupId);
  if (!group) groups.set(groupId, (group = new ConsumerGroup(groupId)));
  switch (record.kind) {
    case 'cg-metadata':
      group.groupEpoch = record.value.epoch;
      group.metadataHash = record.value.metadataHash;
      return;
    case 'cg-partition-metadata':
      group.hasLegacyPartitionMetadata = true;
      return;
    case 'cg-member-metadata':
      group.updateMember(applyMemberMetadata(group.members.get(record.memberId) ?? newMember(record.memberId), record.value));
      return;
    case 'cg-target-metadata':
      group.assignmentEpoch = record.value.assignmentEpoch;
      group.assignmentTimestamp = record.value.assignmentTimestamp;
      return;
    case 'cg-target-member':
      group.targetAssignment.set(record.memberId, assignmentFromTargetRecord(record.value.topicPartitions));
      return;
    case 'cg-current-assignment':
      group.updateMember(applyCurrentAssignment(group.members.get(record.memberId) ?? newMember(record.memberId), record.value));
      return;
    case 'cg-regex':
      group.resolvedRegexes.set(record.regex, record.value);
      return;
  }
}


/**
 * The consumer groups (a shard of the coordinator runtime), in two views: the latest groups,
 * which operations read and change by applying the records they build (`apply`, through `Emit`),
 * and the committed groups, which take a write's records once they are durable and which reads
 * (describe, list, the admin API) see. A failed write puts each group it touched back to its
 * committed state with the writes still in flight replayed over it (`revert`).
 */
export class ConsumerGroupStore implements CoordinatorShard<ConsumerGroupRecord['kind']> {
  readonly kinds = CONSUMER_OFFSETS_RECORD_KINDS['consumer-group'];
  private readonly groups: GroupView<ConsumerGroup>;
  private readonly committedGroups = new Map<string, ConsumerGroup>();
  private regexVersion = 0n;

  /**
   * `onGroupDeleted` runs when a latest group's record 3 is tombstoned (its timers must stop);
   * `onGroupReverted` when a failed write put a group back (its members' timers must run again).
   */
  constructor(
    private readonly onGroupDeleted: (groupId: string) => void,
    private readonly onGroupReverted: (group: ConsumerGroup) => void = noop,
    groups: GroupView<ConsumerGroup> = consumerGroupsOf(new GroupMap()),
  ) {
    this.groups = groups;
  }

  // ---- the latest view: what operations decide on -------------------------------------------

  get(groupId: string): ConsumerGroup | undefined {
    return this.groups.get(groupId);
  }

  has(groupId: string): boolean {
    return this.groups.has(groupId);
  }

  /** Every group held, in creation order. */
  all(): ConsumerGroup[] {
    return [...this.groups.values()];
  }

  ids(): string[] {
    return [...this.groups.keys()];
  }

  getOrCreate(groupId: string): ConsumerGroup {
    let group = this.groups.get(groupId);
    if (!group) this.groups.set(groupId, (group = new ConsumerGroup(groupId)));
    return group;
  }

  /** An `Emit` that collects into `records` (what the caller appends) and applies each record. */
  emitInto(records: CoordinatorRecord[]): Emit {
    return (r) => {
      records.push(r);
      this.apply(r);
    };
  }

  /** The highest record 16 `version` applied so far (0 when none): where the metadata version resumes at load. */
  get maxRegexVersion(): bigint {
    return this.regexVersion;
  }

  /** Live replay: applies one record to the latest view. */
  apply(record: ConsumerGroupRecord): void {
    applyRecord(this.groups, record, this.onGroupDeleted);
    if (record.kind === 'cg-regex' && record.value !== null && record.value.version > this.regexVersion) this.regexVersion = record.value.version;
  }

  // ---- the committed view: what reads see ----------------------------------------------------

  /** The group as its durable records make it. */
  committed(groupId: string): ConsumerGroup | undefined {
    return this.committedGroups.get(groupId);
  }

  /** Every group as its durable records make it, in creation order. */
  allCommitted(): ConsumerGroup[] {
    return [...this.committedGroups.values()];
  }

  /** The ids of `allCommitted`, live (a group created or deleted while iterating shows or goes). */
  committedIds(): IterableIterator<string> {
    return this.committedGroups.keys();
  }

  // ---- the runtime shard ----------------------------------------------------------------------

  load(record: ConsumerGroupRecord): void {
    this.apply(record);
    applyRecord(this.committedGroups, record, noop);
  }

  onDurable(records: readonly ConsumerGroupRecord[]): void {
    for (const r of records) applyRecord(this.committedGroups, r, noop);
  }

  revert(failed: readonly ConsumerGroupRecord[], pending: readonly ConsumerGroupRecord[]): void {
    revertGroups(this.groups, this.committedGroups, failed, pending, {
      apply: (r) => this.apply(r),
      onDeleted: this.onGroupDeleted,
      onReverted: this.onGroupReverted,
    });
  }

  /**
   * `ConsumerGroup.createGroupTombstoneRecords` (4.3): for every member 8 and 7, then 6, every 5,
   * the resolved regexes (16), the legacy subscription metadata (4, written whether or not the
   * group ever had one), then 3; applied at once (the group is forgotten).
   */
  createGroupTombstoneRecords(group: ConsumerGroup): ConsumerGroupRecord[] {
    const { groupId } = group;
    const out: ConsumerGroupRecord[] = [];
    for (const memberId of group.members.keys()) out.push({ kind: 'cg-current-assignment', groupId, memberId, value: null });
    for (const memberId of group.members.keys()) out.push({ kind: 'cg-target-member', groupId, memberId, value: null });
    out.push({ kind: 'cg-target-metadata', groupId, value: null });
    for (const memberId of group.members.keys()) out.push({ kind: 'cg-member-metadata', groupId, memberId, value: null });
    for (const regex of group.resolvedRegexes.keys()) out.push({ kind: 'cg-regex', groupId, regex, value: null });
    out.push({ kind: 'cg-partition-metadata', groupId, value: null });
    out.push({ kind: 'cg-metadata', groupId, value: null });
    for (const r of out) this.apply(r);
    return out;
  }
}
