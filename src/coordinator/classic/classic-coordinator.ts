import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { JoinGroupRequest } from '../../protocol/messages/JoinGroupRequest.js';
import type { JoinGroupResponse } from '../../protocol/messages/JoinGroupResponse.js';
import type { SyncGroupRequest } from '../../protocol/messages/SyncGroupRequest.js';
import type { SyncGroupResponse } from '../../protocol/messages/SyncGroupResponse.js';
import type { HeartbeatRequest } from '../../protocol/messages/HeartbeatRequest.js';
import type { HeartbeatResponse } from '../../protocol/messages/HeartbeatResponse.js';
import type { MemberIdentity } from '../../protocol/messages/LeaveGroupRequest.js';
import type { DescribedGroup } from '../../protocol/messages/DescribeGroupsResponse.js';
import type { ListedGroup } from '../../protocol/messages/ListGroupsResponse.js';
import type { DeletableGroupResult } from '../../protocol/messages/DeleteGroupsResponse.js';
import type { GroupMetadataValue } from '../../records/schemas/GroupMetadataValue.js';
import type { Time } from '../../util/time.js';
import type { CoordinatorRecord, GroupMetadataRecord } from '../records.js';
import { writeErrorCode, type CoordinatorShard, type CoordinatorWriter } from '../runtime.js';
import { GroupMap, type GroupView } from '../group-map.js';
import type { OffsetStore } from '../offsets/offset-store.js';
import { ClassicGroup, errorJoin, errorSync, type ClassicGroupEnv, type SavedGroupState } from './classic-group.js';
import type { ClassicContext, ClassicSettings } from './context.js';
import { ClassicGroupState } from './group-state.js';
import { groupTombstoneRecord, membersFromValue, snapshotFromValue } from './group-metadata.js';
import { buildFromConsumerGroup, type ClassicDowngradePlan, type PreparedDowngrade } from './from-consumer-group.js';
import { KeyedTimers, groupTimersPrefix, heartbeatKey } from './keyed-timers.js';
import { Rebalancer } from './rebalancer.js';
import { joinClassicGroup } from './join-group.js';
import { syncClassicGroup } from './sync-group.js';
import { heartbeatClassicGroup } from './heartbeat.js';
import { leaveClassicGroup, type LeaveGroupResult } from './leave-group.js';
import { CLASSIC_GROUP_TYPE, deleteGroupError, describeGroup, listedGroup } from './admin.js';
import { nextTurn, runInSlices, runNow, Slicer } from '../../util/slices.js';
import { LIST_GROUPS_PER_SLICE, listedGroupsInSlices } from '../group-views.js';

/**
 * Groups a DeleteGroups deletes per turn of the event loop (each one's tombstones built and
 * appended, some 30 µs): a request naming 100,000 leaves the other connections their turns.
 */
export const DELETE_GROUPS_PER_SLICE = 1024;

/** The classic groups of a group map. */
export function classicGroupsOf(map: GroupMap): GroupView<ClassicGroup> {
  return map.view((g): g is ClassicGroup => g instanceof ClassicGroup);
}

/** Kafka's `classicGroupNewMemberJoinTimeoutMs`: 5 minutes, fixed (not a broker config). */
const NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000;

/** The offsets the coordinator consults: which groups hold offsets, and deleting them with a group. */
export type ClassicOffsets = Pick<OffsetStore, 'hasOffsets' | 'tombstoneGroup'> & { groupIds?(): Iterable<string>; hasPendingOffsets?(groupId: string): boolean };

export interface ClassicGroupCoordinatorOptions {
  config: BrokerConfig;
  log: Logger;
  time: Time;
  /** The coordinator runtime the group records are written through. */
  writer: CoordinatorWriter;
  offsets: ClassicOffsets;
  /** The classic groups' view of the broker's one group map (default: a map of its own). */
  groups?: GroupView<ClassicGroup>;
}

/** A non-empty classic group as the online upgrade reads it. */
export interface ClassicUpgradeView {
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  members: Array<{
    memberId: string;
    groupInstanceId: string | null;
    clientId: string;
    clientHost: string;
    rebalanceTimeoutMs: number;
    sessionTimeoutMs: number;
    supportedProtocols: readonly { name: string; metadata: Buffer }[];
    /** The metadata of the group's protocol; null when there is none. */
    metadata: Buffer | null;
    assignment: Buffer;
  }>;
}

/** The parts of a request context the coordinator uses (a full `RequestContext` fits). */
export interface ClassicRequestContext {
  readonly apiVersion: number;
  readonly clientId: string;
  readonly clientHost: string;
}

/**
 * The classic group coordinator (the classic-protocol half of Kafka's `GroupCoordinatorService`
 * and `GroupMetadataManager`): JoinGroup, SyncGroup, Heartbeat, LeaveGroup, DescribeGroups,
 * ListGroups and DeleteGroups, plus what OffsetCommit/OffsetFetch need. This broker coordinates
 * every group, so there is no NOT_COORDINATOR routing. Request-level checks that Kafka's service
 * layer makes (group id, session timeout bounds) are made here; the group logic lives in the
 * per-API modules next to this file.
 *
 * As a shard of the coordinator runtime it replays GroupMetadata records at start. Live, its
 * operations change groups themselves and undo a failed write in the write's failure callback, as
 * Kafka's classic-group operations do with their append futures; the one undo the runtime drives
 * is bringing back a group whose tombstone failed (`revert`).
 */
export class ClassicGroupCoordinator implements CoordinatorShard<'group-metadata'> {
  readonly kinds = ['group-metadata'] as const;
  private readonly ctx: ClassicContext;
  /** Groups a downgrade installed whose GroupMetadata record is still in flight, to remove if it fails. */
  private readonly installedBy = new Map<GroupMetadataRecord, ClassicGroup>();
  /** Groups removed by a tombstone still in flight, to bring back if it fails. */
  private readonly removedByTombstone = new Map<GroupMetadataRecord, { group: ClassicGroup; saved: SavedGroupState }>();
  private readonly offsets: ClassicOffsets;

  constructor(options: ClassicGroupCoordinatorOptions) {
    const { config, log, time } = options;
    const settings: ClassicSettings = {
      initialRebalanceDelayMs: config.int('group.initial.rebalance.delay.ms'),
      minSessionTimeoutMs: config.int('group.min.session.timeout.ms'),
      maxSessionTimeoutMs: config.int('group.max.session.timeout.ms'),
      maxSize: config.int('group.max.size'),
      newMemberJoinTimeoutMs: NEW_MEMBER_JOIN_TIMEOUT_MS,
    };
    const groups = options.groups ?? classicGroupsOf(new GroupMap());
    // Timer operations wait behind the requests already read, as Kafka queues them (keyed-timers.ts).
    const timers = new KeyedTimers(time, { behindReceivedRequests: true });
    const writer = options.writer;
    let rebalancer!: Rebalancer;
    const groupEnv: ClassicGroupEnv = {
      time,
      log,
      onMemberActivity: (group, member) => rebalancer.rescheduleHeartbeat(group, member),
    };
    this.ctx = {
      settings,
      time,
      log,
      groups,
      timers,
      writer,
      groupEnv,
      noteInstalled: (record, group) => void this.installedBy.set(record, group),
      get rebalancer() {
        return rebalancer;
      },
    };
    rebalancer = new Rebalancer(this.ctx);
    this.offsets = options.offsets;
  }

  // ---- group APIs -------------------------------------------------------------------------

  /**
   * JoinGroup (v0-9): the request checks of `joinGroupRequestError`, then `joinClassicGroup`.
   * v0 has no rebalance timeout, so the session timeout stands in (`JoinGroupRequest`).
   * `converted`: the tombstones of the empty consumer group this join turns into a classic group
   * (already applied), written with the new group's first record as one write.
   */
  async joinGroup(req: JoinGroupRequest, ctx: ClassicRequestContext, converted: readonly CoordinatorRecord[] = []): Promise<JoinGroupResponse> {
    const invalid = this.joinGroupRequestError(req);
    if (invalid) {
      this.ctx.writer.abandon(converted);
      return invalid;
    }
    const request = ctx.apiVersion === 0 ? { ...req, rebalanceTimeoutMs: req.sessionTimeoutMs } : req;
    // Materialises an offsets-only group, as Kafka holds one after load; not for a group converted
    // from a consumer group, which Kafka creates anew (its records go with the conversion's).
    if (converted.length === 0) this.group(req.groupId);
    return joinClassicGroup(this.ctx, request, ctx, converted);
  }

  /**
   * The checks Kafka's `GroupCoordinatorService.joinGroup` makes before the request reaches any
   * group, classic or consumer: INVALID_GROUP_ID for an empty group id, INVALID_SESSION_TIMEOUT
   * outside `group.min.session.timeout.ms`..`group.max.session.timeout.ms`; null when it passes.
   */
  joinGroupRequestError(req: JoinGroupRequest): JoinGroupResponse | null {
    if (req.groupId === '') return errorJoin(ErrorCode.INVALID_GROUP_ID, req.memberId);
    const { minSessionTimeoutMs, maxSessionTimeoutMs } = this.ctx.settings;
    if (req.sessionTimeoutMs < minSessionTimeoutMs || req.sessionTimeoutMs > maxSessionTimeoutMs) {
      return errorJoin(ErrorCode.INVALID_SESSION_TIMEOUT, req.memberId);
    }
    return null;
  }

  /**
   * SyncGroup (v0-5). INVALID_GROUP_ID for an empty group id; v5+ requests must name the protocol
   * type and name (INCONSISTENT_GROUP_PROTOCOL, as `KafkaApis.handleSyncGroupRequest`); then
   * `syncClassicGroup`.
   */
  async syncGroup(req: SyncGroupRequest, ctx: Pick<ClassicRequestContext, 'apiVersion'>): Promise<SyncGroupResponse> {
    if (req.groupId === '') return errorSync(ErrorCode.INVALID_GROUP_ID);
    if (lacksMandatoryProtocol(req, ctx.apiVersion)) return errorSync(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    return syncClassicGroup(this.ctx, req);
  }

  /** Heartbeat (v0-4): INVALID_GROUP_ID for an empty group id, then `heartbeatClassicGroup`. */
  async heartbeat(req: HeartbeatRequest, ctx?: Pick<ClassicRequestContext, 'apiVersion'>): Promise<HeartbeatResponse> {
    void ctx;
    const errorCode = req.groupId === '' ? ErrorCode.INVALID_GROUP_ID : heartbeatClassicGroup(this.ctx, req);
    return { throttleTimeMs: 0, errorCode };
  }

  /**
   * LeaveGroup for the members named (a v0-2 request names one): a group error or per-member
   * results; see `leaveClassicGroup`. INVALID_GROUP_ID for an empty group id.
   */
  leaveGroup(groupId: string, members: readonly MemberIdentity[]): Promise<LeaveGroupResult> {
    if (groupId === '') return Promise.resolve({ errorCode: ErrorCode.INVALID_GROUP_ID, members: [] });
    return leaveClassicGroup(this.ctx, groupId, members);
  }

  /** DescribeGroups (v0-6), one entry per requested id in request order; see `describeGroup`. */
  describeGroups(groupIds: readonly string[], version: number): DescribedGroup[] {
    return groupIds.map((id) => this.describeGroup(id, version));
  }

  /** One DescribeGroups entry (`describeGroup` in admin.ts). */
  describeGroup(groupId: string, version: number): DescribedGroup {
    return describeGroup(groupId, this.group(groupId), version);
  }

  /**
   * ListGroups (v0-5): every group (offsets-only groups included, materialised as simple groups
   * first, as Kafka's replay of their offsets creates them) passing the state and type filters,
   * in slices (`listedGroupsInSlices`).
   */
  async listGroups(statesFilter: readonly string[] = [], typesFilter: readonly string[] = []): Promise<ListedGroup[]> {
    const slicer = new Slicer(LIST_GROUPS_PER_SLICE);
    for (const id of this.offsets.groupIds?.() ?? []) {
      if (slicer.due()) await nextTurn();
      this.group(id);
    }
    return listedGroupsInSlices(this.ctx.groups.values(), statesFilter, typesFilter, CLASSIC_GROUP_TYPE, listedGroup, slicer);
  }

  /**
   * DeleteGroups (v0-2), as `GroupCoordinatorShard.deleteGroups`: GROUP_ID_NOT_FOUND for unknown or
   * Dead groups, NON_EMPTY_GROUP for groups with members; otherwise every offset of the group and
   * the group itself are tombstoned in one write, and the result waits until it is durable; a
   * failed write leaves the group and its offsets as they were and answers the write's error
   * (NOT_COORDINATOR for a storage error). More than `DELETE_GROUPS_PER_SLICE` ids are worked
   * on in slices, one per turn of the event loop (issue #16 item 5).
   */
  async deleteGroups(groupIds: readonly string[]): Promise<DeletableGroupResult[]> {
    const results: DeletableGroupResult[] = [];
    const writes: Promise<void>[] = [];
    const deleted: string[] = [];
    let offsetsRemoved = 0;
    const self = this;
    function* work(): Generator<void, void> {
      for (let i = 0; i < groupIds.length; i++) {
        if (i > 0 && i % DELETE_GROUPS_PER_SLICE === 0) yield;
        const groupId = groupIds[i]!;
        const group = self.group(groupId);
        const result: DeletableGroupResult = { groupId, errorCode: deleteGroupError(group) };
        results.push(result);
        if (result.errorCode !== ErrorCode.NONE || !group) continue;
        const offsets = self.offsets.tombstoneGroup(groupId);
        writes.push(
          self.ctx.writer.append([...offsets, self.tombstone(group)]).then(
            () => {
              deleted.push(groupId);
              offsetsRemoved += offsets.length;
            },
            (err: unknown) => {
              self.ctx.log.error({ err, groupId }, 'failed to write group deletion');
              result.errorCode = writeErrorCode(err);
            },
          ),
        );
      }
    }
    if (groupIds.length > DELETE_GROUPS_PER_SLICE) await runInSlices(work());
    else runNow(work());
    await Promise.all(writes);
    // One line for the request, Kafka's GroupCoordinatorShard.deleteGroups' (a line per group, written
    // synchronously to stdout, held the event loop most of a DeleteGroups of 100,000 ids).
    if (deleted.length > 0) this.ctx.log.info(`The following groups were deleted: ${deleted.join(', ')}. A total of ${offsetsRemoved} offsets were removed.`);
    return results;
  }

  /**
   * Deletes a group the offsets retention sweep found with nothing left (Kafka's
   * `GroupMetadataManager.maybeDeleteGroup`): only an Empty group holding no committed offsets
   * goes. It is forgotten at once (a later JoinGroup or commit starts a new group) and its
   * GroupMetadata tombstone is appended, as Kafka writes one for every deleted classic group.
   * Returns the durability promise of that tombstone, or null when the group was not deleted.
   */
  deleteGroupIfEmpty(groupId: string): Promise<void> | null {
    const group = this.ctx.groups.get(groupId);
    if (!group || !group.isEmpty() || this.offsets.hasOffsets(groupId)) return null;
    return this.ctx.writer.append([this.tombstone(group)]);
  }

  // ---- for OffsetCommit / OffsetFetch -----------------------------------------------------

  /** When a member's session expires unless it heartbeats (server clock, ms); undefined without a session timer. */
  sessionDueAt(groupId: string, memberId: string): number | undefined {
    return this.ctx.timers.dueAt(this.ctx.groups.get(groupId)?.member(memberId)?.sessionTimer?.key ?? heartbeatKey(groupId, memberId));
  }

  /** Expires the member's session now, as if its timeout had passed (a test's action); false when it has no session timer. */
  expireSessionNow(groupId: string, memberId: string): boolean {
    return this.ctx.timers.fireNow(this.ctx.groups.get(groupId)?.member(memberId)?.sessionTimer?.key ?? heartbeatKey(groupId, memberId));
  }

  /** The group held under the id, without materialising an offsets-only group. */
  existingGroup(groupId: string): ClassicGroup | undefined {
    return this.ctx.groups.get(groupId);
  }

  /**
   * The group, if known. A group that only has committed offsets (after a restart, nothing else
   * records it) or pending transactional ones is materialised as a simple group, as Kafka's
   * `OffsetMetadataManager.replay` creates one while replaying any offset commit record.
   */
  group(groupId: string): ClassicGroup | undefined {
    const group = this.ctx.groups.get(groupId);
    if (group) return group;
    const hasOffsets = this.offsets.hasOffsets(groupId) || this.offsets.hasPendingOffsets?.(groupId) === true;
    return hasOffsets && !this.ctx.groups.taken(groupId) ? this.getOrCreateSimpleGroup(groupId) : undefined;
  }

  /**
   * For group type conversion (KIP-848): 'none' when no classic group holds the id, 'empty' when
   * it is Empty (convertible whatever `group.consumer.migration.policy` says), else 'non-empty'.
   */
  classicGroupStatus(groupId: string): 'none' | 'empty' | 'non-empty' {
    const group = this.group(groupId);
    if (!group || group.isInState(ClassicGroupState.DEAD)) return 'none';
    return group.isInState(ClassicGroupState.EMPTY) ? 'empty' : 'non-empty';
  }

  /**
   * Forgets an Empty classic group that becomes a consumer group and returns its GroupMetadata
   * tombstone (`ClassicGroup.createGroupTombstoneRecords`) for the caller to append with the
   * consumer group's records. Committed offsets stay.
   */
  removeEmptyClassicGroup(groupId: string): CoordinatorRecord[] {
    const group = this.ctx.groups.get(groupId);
    return [group ? this.tombstone(group) : groupTombstoneRecord(groupId)];
  }

  /**
   * Online upgrade (KIP-848, `GroupMetadataManager.convertToConsumerGroup`): what the consumer
   * coordinator needs to know about a non-empty classic group to convert it; null when there is
   * no such group.
   */
  upgradeView(groupId: string): ClassicUpgradeView | null {
    const group = this.ctx.groups.get(groupId);
    if (!group || group.isInState(ClassicGroupState.DEAD) || group.isInState(ClassicGroupState.EMPTY)) return null;
    const protocolName = group.protocolName;
    return {
      generationId: group.generationId,
      protocolType: group.protocolType,
      protocolName,
      members: group.allMembers().map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        sessionTimeoutMs: m.sessionTimeoutMs,
        supportedProtocols: m.supportedProtocols,
        metadata: protocolName === null ? null : (m.supportedProtocols.find((p) => p.name === protocolName)?.metadata ?? null),
        assignment: m.assignment,
      })),
    };
  }

  /**
   * The first step of `convertToConsumerGroup`, taken before it reads the members (and kept when
   * the conversion then fails): parked JoinGroup/SyncGroup requests get REBALANCE_IN_PROGRESS.
   */
  answerParkedForUpgrade(groupId: string): void {
    const group = this.ctx.groups.get(groupId);
    group?.completeAllJoins(ErrorCode.REBALANCE_IN_PROGRESS);
    group?.completeAllSyncs(ErrorCode.REBALANCE_IN_PROGRESS);
  }

  /**
   * The classic half of `convertToConsumerGroup`: parked JoinGroup/SyncGroup requests get
   * REBALANCE_IN_PROGRESS (`answerParkedForUpgrade`), the group is forgotten (its timers stop)
   * and its GroupMetadata tombstone is returned for the caller to append before the consumer
   * group's records.
   */
  takeGroupForUpgrade(groupId: string): CoordinatorRecord[] {
    const group = this.ctx.groups.get(groupId);
    if (group) {
      this.answerParkedForUpgrade(groupId);
      return [this.tombstone(group)];
    }
    return [groupTombstoneRecord(groupId)];
  }

  /** `group.max.size`: a consumer group with more members is not downgraded (`validateOnlineDowngrade*`). */
  classicGroupMaxSize(): number {
    return this.ctx.settings.maxSize;
  }

  /**
   * Online downgrade (KIP-848, `GroupMetadataManager.convertToClassicGroup`): builds the classic
   * group a consumer group becomes (`buildFromConsumerGroup`) without changing anything; throws
   * `DowngradeError` when it cannot be built. `install` then puts it in place as Kafka does:
   * the group, every member's session timer (`rescheduleClassicGroupMemberHeartbeat`) and, with
   * a reason, `prepareRebalance`. The consumer group must be gone from the group map by then.
   */
  prepareDowngrade(plan: ClassicDowngradePlan): PreparedDowngrade {
    const { group, record } = buildFromConsumerGroup(this.ctx.groupEnv, plan);
    return {
      record,
      install: (prepareRebalanceReason) => {
        this.ctx.timers.cancelPrefix(groupTimersPrefix(group.groupId));
        this.ctx.groups.set(group.groupId, group);
        this.installedBy.set(record, group);
        for (const member of group.allMembers()) this.ctx.rebalancer.rescheduleHeartbeat(group, member);
        if (prepareRebalanceReason !== null) this.ctx.rebalancer.prepareRebalance(group, prepareRebalanceReason);
        this.ctx.log.info({ groupId: group.groupId, generationId: group.generationId, members: group.numMembers }, 'converted the consumer group to a classic group');
      },
    };
  }

  /**
   * The group, created if missing as a "simple" group (Empty, no protocol type, not persisted):
   * what Kafka creates for standalone commits (generation -1) and when replaying offsets.
   */
  getOrCreateSimpleGroup(groupId: string): ClassicGroup {
    let group = this.ctx.groups.get(groupId);
    if (!group) {
      group = new ClassicGroup(groupId, this.ctx.groupEnv);
      this.ctx.groups.set(groupId, group);
    }
    return group;
  }

  /** Every group held, in creation order. */
  allGroups(): ClassicGroup[] {
    return [...this.ctx.groups.values()];
  }

  /** The ids of `allGroups`, live (reads that go through them in slices: the admin API). */
  groupIds(): IterableIterator<string> {
    return this.ctx.groups.keys();
  }

  // ---- lifecycle --------------------------------------------------------------------------

  /**
   * Applies a GroupMetadata record read from the log at start (`GroupMetadataManager.replay` plus
   * `onLoaded`): a group with members is Stable with the stored generation and assignments and
   * every member's session timer starts now; without members it is Empty; a tombstone removes the
   * group. A later record of the same group replaces the earlier one. A loaded group above
   * `group.max.size` rebalances, as Kafka does on load.
   */
  replayGroupMetadata(groupId: string, value: GroupMetadataValue | null): void {
    this.ctx.timers.cancelPrefix(groupTimersPrefix(groupId));
    if (value === null) {
      this.ctx.groups.delete(groupId);
      return;
    }
    const group = new ClassicGroup(groupId, this.ctx.groupEnv, snapshotFromValue(value));
    for (const member of membersFromValue(value)) group.add(member);
    group.subscribedTopics = group.computeSubscribedTopics();
    this.ctx.groups.set(groupId, group);
    for (const member of group.allMembers()) this.ctx.rebalancer.rescheduleHeartbeat(group, member);
    if (group.numMembers > this.ctx.settings.maxSize) {
      this.ctx.rebalancer.prepareRebalance(group, `loaded group is over capacity ${this.ctx.settings.maxSize}`);
    }
  }

  /** Holds the member timers of the groups still loading (`extraMsOf(group)` > 0: the load's ms left) and starts them again, whole, in the others (`GroupCoordinator.loadChanged`); `groupId` null: every group. */
  restartTimers(groupId: string | null, extraMsOf: (groupId: string) => number): void {
    const groups = groupId === null ? [...this.ctx.groups.values()] : [this.ctx.groups.get(groupId)].filter((g) => g !== undefined);
    for (const group of groups) {
      // Still loading: the heartbeat timers are held; loaded: each starts again, whole.
      const loading = extraMsOf(group.groupId) > 0;
      for (const member of group.allMembers()) {
        if (loading) this.ctx.rebalancer.cancelHeartbeat(group, member.memberId);
        else this.ctx.rebalancer.rescheduleHeartbeat(group, member, member.sessionTimeoutMs);
      }
    }
  }

  /**
   * Stops every timer and answers parked JoinGroup/SyncGroup requests with NOT_COORDINATOR, the
   * answer Kafka gives them when it unloads a coordinator partition (`GroupMetadataManager.onUnloaded`),
   * so connections can drain. Group states are left as they are: the process is stopping.
   */
  shutdown(): void {
    this.ctx.timers.cancelAll();
    for (const group of this.ctx.groups.values()) {
      group.completeAllJoins(ErrorCode.NOT_COORDINATOR);
      group.completeAllSyncs(ErrorCode.NOT_COORDINATOR);
    }
  }

  // ---- the runtime shard -------------------------------------------------------------------

  /** Start-up replay; see `replayGroupMetadata`. */
  load(record: GroupMetadataRecord): void {
    this.replayGroupMetadata(record.groupId, record.value);
  }

  onDurable(records: readonly GroupMetadataRecord[]): void {
    for (const r of records) {
      this.removedByTombstone.delete(r);
      this.installedBy.delete(r);
    }
  }

  /**
   * A write with GroupMetadata records failed. A group a downgrade installed goes (its parked
   * requests get the error); a group a tombstone removed comes back as it was (its state before it
   * was marked Dead, its members' session timers restarted) unless the id has been taken
   * meanwhile. Other GroupMetadata writes are undone by their operations' failure callbacks.
   */
  revert(failed: readonly GroupMetadataRecord[]): void {
    for (const r of failed) {
      const installed = this.installedBy.get(r);
      this.installedBy.delete(r);
      if (installed && this.ctx.groups.get(r.groupId) === installed) {
        installed.completeAllJoins(ErrorCode.NOT_COORDINATOR);
        installed.completeAllSyncs(ErrorCode.NOT_COORDINATOR);
        this.forget(installed);
      }
    }
    for (const r of failed) {
      const removed = this.removedByTombstone.get(r);
      this.removedByTombstone.delete(r);
      if (!removed || this.ctx.groups.taken(r.groupId)) continue;
      const { group } = removed;
      group.restoreState(removed.saved);
      this.ctx.groups.set(r.groupId, group);
      for (const member of group.allMembers()) this.ctx.rebalancer.rescheduleHeartbeat(group, member);
      this.ctx.log.warn({ groupId: r.groupId }, 'group tombstone not written; the group is back');
    }
  }

  /** Marks a group Dead (references still held by parked work see it), stops its timers and forgets it. */
  private forget(group: ClassicGroup): void {
    group.transitionTo(ClassicGroupState.DEAD);
    this.ctx.timers.cancelPrefix(groupTimersPrefix(group.groupId));
    this.ctx.groups.delete(group.groupId);
  }

  /**
   * Marks a deleted group Dead (references still held by parked work see it), forgets it and
   * returns its GroupMetadata tombstone, remembering the group until the tombstone is durable.
   */
  private tombstone(group: ClassicGroup): GroupMetadataRecord {
    const saved = group.saveState();
    this.forget(group);
    const record = groupTombstoneRecord(group.groupId);
    this.removedByTombstone.set(record, { group, saved });
    return record;
  }
}

/**
 * `SyncGroupRequest.areMandatoryProtocolTypeAndNamePresent`: from v5 both must be set, else
 * `KafkaApis.handleSyncGroupRequest` answers INCONSISTENT_GROUP_PROTOCOL before any group is asked.
 */
export function lacksMandatoryProtocol(req: Pick<SyncGroupRequest, 'protocolType' | 'protocolName'>, apiVersion: number): boolean {
  return apiVersion >= 5 && (req.protocolType === null || req.protocolName === null);
}
