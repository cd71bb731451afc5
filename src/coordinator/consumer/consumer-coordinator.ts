/**
 * The KIP-848 consumer group coordinator: Kafka 4.3's `GroupMetadataManager.consumerGroupHeartbeat`,
 * `consumerGroupLeave`, `consumerGroupFenceMember`, the session and rebalance timers, the
 * `ConsumerGroupDescribe` / ListGroups / DeleteGroups parts for consumer groups and
 * `ConsumerGroup.validateOffsetCommit/Fetch`.
 *
 * State changes only by applying records (`ConsumerGroupStore.apply`, also used by log replay): a
 * heartbeat builds records 5, 3, 7, 6, 8 (and 16 for regexes) in Kafka's order, applies each to
 * the latest groups as it is built, and the response waits until the coordinator runtime has made
 * them durable; a failed write (or an error after the first record) is reverted by the runtime.
 * Reads (ConsumerGroupDescribe, ListGroups, the admin API) see the committed groups.
 *
 * This class is the facade: it reads the settings, builds the shared `ConsumerContext`, maps
 * request errors to responses, and delegates the group logic to the modules next to this file.
 */
import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ConsumerGroupHeartbeatRequest } from '../../protocol/messages/ConsumerGroupHeartbeatRequest.js';
import type { ConsumerGroupHeartbeatResponse } from '../../protocol/messages/ConsumerGroupHeartbeatResponse.js';
import type { DescribedGroup as CgDescribedGroup } from '../../protocol/messages/ConsumerGroupDescribeResponse.js';
import type { ListedGroup } from '../../protocol/messages/ListGroupsResponse.js';
import type { JoinGroupRequest } from '../../protocol/messages/JoinGroupRequest.js';
import type { JoinGroupResponse } from '../../protocol/messages/JoinGroupResponse.js';
import type { SyncGroupRequest } from '../../protocol/messages/SyncGroupRequest.js';
import type { SyncGroupResponse } from '../../protocol/messages/SyncGroupResponse.js';
import type { HeartbeatRequest } from '../../protocol/messages/HeartbeatRequest.js';
import type { MemberIdentity } from '../../protocol/messages/LeaveGroupRequest.js';
import type { LeaveGroupResult } from '../classic/leave-group.js';
import type { Time } from '../../util/time.js';
import type { CoordinatorRecord } from '../records.js';
import type { RetentionGroupSource } from '../offsets/retention.js';
import { operationErrorMessage, writeErrorCode, type CoordinatorWriter } from '../runtime.js';
import type { GroupView } from '../group-map.js';
import { loadAssignors, parseAssignorNames } from './assignors.js';
import { classicJoin } from './classic-join.js';
import { classicHeartbeat, classicLeave, classicSync } from './classic-members.js';
import { ConsumerGroupState, type ConsumerGroup } from './consumer-group.js';
import type { ClassicGroupBridge, ConsumerContext, ConsumerGroupSettings, ConsumerOffsets, ConsumerRequestContext, ConsumerSettings, ConsumerTopicSource } from './context.js';
import { describeConsumerGroup, listConsumerGroups } from './describe.js';
import { ConsumerGroupError } from './errors.js';
import { consumerRetentionSource, deleteConsumerGroup, takeEmptyGroupForClassicJoin } from './group-deletion.js';
import { ConsumerGroupStore } from './group-store.js';
import { consumerGroupHeartbeatJoin } from './heartbeat-join.js';
import { throwIfConsumerGroupHeartbeatRequestIsInvalid } from './heartbeat-validation.js';
import { consumerGroupLeave } from './leave.js';
import { LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH } from './member.js';
import { MemberTimers } from './member-timers.js';
import { RegexRefresher } from './regex-refresh.js';
import { subscribedTopicNames } from './subscriptions.js';
import { validateOffsetCommit, validateOffsetFetch, type OffsetCommitValidation } from './offset-validation.js';

export type { ClassicGroupBridge, ConsumerRequestContext, ConsumerTopicSource } from './context.js';

export interface ConsumerGroupCoordinatorOptions {
  config: BrokerConfig;
  log: Logger;
  time: Time;
  /** The coordinator runtime the group records are written through. */
  writer: CoordinatorWriter;
  topics: ConsumerTopicSource;
  offsets: ConsumerOffsets;
  classic?: ClassicGroupBridge;
  /** The consumer groups' view of the broker's one group map (default: a map of its own). */
  groups?: GroupView<ConsumerGroup>;
  /** A group's own configs (GROUP config resources), as stored: name → value. Default: none. */
  groupConfigs?: (groupId: string) => Readonly<Record<string, string>>;
}

export class ConsumerGroupCoordinator {
  private readonly ctx: ConsumerContext;

  constructor(options: ConsumerGroupCoordinatorOptions) {
    const { config, log, time } = options;
    const settings: ConsumerSettings = {
      sessionTimeoutMs: config.int('group.consumer.session.timeout.ms'),
      heartbeatIntervalMs: config.int('group.consumer.heartbeat.interval.ms'),
      assignmentIntervalMs: config.int('group.consumer.assignment.interval.ms'),
      maxSize: config.int('group.consumer.max.size'),
      migrationPolicy: config.string('group.consumer.migration.policy'),
      regexRefreshIntervalMs: config.int('group.consumer.regex.refresh.interval.ms'),
    };
    const ownConfigs = options.groupConfigs ?? (() => ({}));
    let timers!: MemberTimers;
    let regexes!: RegexRefresher;
    this.ctx = {
      settings,
      groupSettings: (groupId) => groupSettingsOf(settings, ownConfigs(groupId)),
      time,
      log,
      store: new ConsumerGroupStore(
        (groupId) => timers.cancelGroup(groupId),
        (group) => timers.restartGroup(group),
        options.groups,
      ),
      get timers() {
        return timers;
      },
      get regexes() {
        return regexes;
      },
      writer: options.writer,
      topics: options.topics,
      offsets: options.offsets,
      classic: options.classic,
      assignors: loadAssignors(parseAssignorNames(config.string('group.consumer.assignors'))),
    };
    timers = new MemberTimers(this.ctx);
    regexes = new RegexRefresher(this.ctx);
  }

  // ---- lookups ----------------------------------------------------------------------------

  /** The latest group: its records applied, durable or not (for tests and internal checks). */
  group(groupId: string): ConsumerGroup | undefined {
    return this.ctx.store.get(groupId);
  }

  /** The group as its durable records make it (reads: the admin API). */
  committedGroup(groupId: string): ConsumerGroup | undefined {
    return this.ctx.store.committed(groupId);
  }

  /** When a member's session expires unless it heartbeats (server clock, ms); undefined without a session timer. */
  sessionDueAt(groupId: string, memberId: string): number | undefined {
    return this.ctx.timers.sessionDueAt(groupId, memberId);
  }

  /** Expires the member's session now, as if its timeout had passed (a test's action); false when it has no session timer. */
  expireSessionNow(groupId: string, memberId: string): boolean {
    return this.ctx.timers.expireSessionNow(groupId, memberId);
  }

  /** Whether a consumer group holds the id (the latest view: for routing a request). */
  hasGroup(groupId: string): boolean {
    return this.ctx.store.has(groupId);
  }

  /** Every group as its durable records make it (reads: the admin API). */
  allGroups(): ConsumerGroup[] {
    return this.ctx.store.allCommitted();
  }

  /** The ids of `allGroups`, live (reads that go through them in slices: the admin API). */
  groupIds(): IterableIterator<string> {
    return this.ctx.store.committedIds();
  }

  /** The shard the runtime replays consumer-group records into. */
  get shard(): ConsumerGroupStore {
    return this.ctx.store;
  }

  get defaultAssignorName(): string {
    return this.ctx.assignors.defaultAssignor.name;
  }

  // ---- ConsumerGroupHeartbeat -------------------------------------------------------------

  async heartbeat(req: ConsumerGroupHeartbeatRequest, ctx: ConsumerRequestContext): Promise<ConsumerGroupHeartbeatResponse> {
    const records: CoordinatorRecord[] = [];
    let response: ConsumerGroupHeartbeatResponse;
    try {
      throwIfConsumerGroupHeartbeatRequestIsInvalid(req, ctx.apiVersion, this.ctx.assignors);
      if (req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
        response = consumerGroupLeave(this.ctx, req.groupId, req.memberId, req.instanceId, req.memberEpoch, records);
      } else {
        response = consumerGroupHeartbeatJoin(this.ctx, req, ctx, records);
      }
    } catch (err) {
      this.ctx.writer.abandon(records);
      if (err instanceof ConsumerGroupError) return errorResponse(err.errorCode, err.message);
      throw err;
    }
    try {
      await this.ctx.writer.append(records);
    } catch (err) {
      this.ctx.log.error({ err, groupId: req.groupId }, 'failed to write consumer group records');
      return errorResponse(writeErrorCode(err), null);
    }
    return response;
  }

  // ---- classic-protocol members inside a consumer group --------------------------------------

  /** Whether classic JoinGroup requests for this group are served here (a non-empty consumer group). */
  servesClassicJoin(groupId: string): boolean {
    const group = this.ctx.store.get(groupId);
    return group !== undefined && !group.isEmpty();
  }

  /** JoinGroup from a classic member of a non-empty consumer group; see `classicJoin`. */
  classicJoin(req: JoinGroupRequest, ctx: ConsumerRequestContext): Promise<JoinGroupResponse> {
    return classicJoin(this.ctx, req, ctx);
  }

  /** SyncGroup from a classic member of a consumer group; see `classicSync`. */
  classicSync(req: SyncGroupRequest): Promise<SyncGroupResponse> {
    return classicSync(this.ctx, req);
  }

  /** Heartbeat from a classic member of a consumer group: the error code; see `classicHeartbeat`. */
  classicHeartbeat(req: HeartbeatRequest): number {
    return classicHeartbeat(this.ctx, req);
  }

  /** LeaveGroup for classic members of a consumer group; see `classicLeave`. */
  classicLeave(groupId: string, members: readonly MemberIdentity[]): Promise<LeaveGroupResult> {
    return classicLeave(this.ctx, groupId, members);
  }

  /**
   * After the log is replayed (`GroupCoordinatorShard.onLoaded`): the metadata version resumes
   * above the replayed regex resolutions, and the members' timers start.
   */
  onLoaded(): void {
    this.ctx.regexes.onLoaded(this.ctx.store.maxRegexVersion);
    this.ctx.timers.onLoaded();
  }

  /** Holds the member timers of the groups still loading (`extraMsOf(group)` > 0: the load's ms left) and starts them again, whole, in the others (`GroupCoordinator.loadChanged`); `groupId` null: every group. */
  restartTimers(groupId: string | null, extraMsOf: (groupId: string) => number): void {
    const groups = groupId === null ? this.ctx.store.all() : [this.ctx.store.get(groupId)].filter((g) => g !== undefined);
    // Still loading: the session and rebalance timers are held; loaded: they start again, whole.
    for (const group of groups) {
      if (extraMsOf(group.groupId) > 0) this.ctx.timers.holdGroup(group);
      else this.ctx.timers.restartGroup(group);
    }
  }

  shutdown(): void {
    this.ctx.timers.cancelAll();
    this.ctx.regexes.cancelAll();
  }

  // ---- topic changes (`GroupMetadataManager.onMetadataUpdate`) -------------------------------

  /** A topic was created: a new metadata version with new topics, and the groups subscribed to its name refresh their metadata. */
  onTopicCreated(name: string): void {
    this.ctx.regexes.onTopicCreated();
    this.requestMetadataRefresh(name);
  }

  /** Partitions were added to a topic (CreatePartitions): its groups refresh their metadata, so the new hash bumps the group epoch. */
  onPartitionsAdded(name: string): void {
    this.requestMetadataRefresh(name);
  }

  /** A topic was deleted: the groups subscribed to its name refresh their metadata. */
  onTopicDeleted(name: string): void {
    this.requestMetadataRefresh(name);
  }

  /** `requestMetadataRefresh` for every group subscribed to `name` (by name or through a resolved regex). */
  private requestMetadataRefresh(name: string): void {
    for (const group of this.ctx.store.all()) {
      if (subscribedTopicNames(group).has(name)) group.metadataExpired = true;
    }
  }

  // ---- admin: describe, list, delete --------------------------------------------------------

  /** ConsumerGroupDescribe (key 69) for one group (`ConsumerGroup.asDescribedGroup`). */
  describe(groupId: string, includeAuthorizedOperations: boolean, authorizedOperations: number): CgDescribedGroup {
    return describeConsumerGroup(this.ctx, groupId, includeAuthorizedOperations, authorizedOperations);
  }

  /** ListGroups entries for consumer groups passing the state (case-insensitive) and type filters, in slices. */
  listGroups(statesFilter: readonly string[] = [], typesFilter: readonly string[] = []): Promise<ListedGroup[]> {
    return listConsumerGroups(this.ctx, statesFilter, typesFilter);
  }

  /** DeleteGroups for a consumer group: NON_EMPTY_GROUP unless Empty; else offsets and group tombstoned. */
  deleteGroup(groupId: string): Promise<number> {
    return deleteConsumerGroup(this.ctx, groupId);
  }

  /** Converts an empty consumer group for a classic JoinGroup; see `takeEmptyGroupForClassicJoin`. */
  takeEmptyGroupForClassicJoin(groupId: string): CoordinatorRecord[] | null {
    return takeEmptyGroupForClassicJoin(this.ctx, groupId);
  }

  /** The offsets retention sweep's view of consumer groups. */
  retentionSource(): RetentionGroupSource {
    return consumerRetentionSource(this.ctx);
  }

  // ---- OffsetCommit / OffsetFetch ------------------------------------------------------------

  /** `ConsumerGroup.validateOffsetCommit` (4.3, KIP-1251): a group-level error or a per-partition check. */
  validateOffsetCommit(groupId: string, memberId: string, memberEpoch: number, apiVersion: number): OffsetCommitValidation {
    return validateOffsetCommit(this.ctx.store, groupId, memberId, memberEpoch, apiVersion);
  }

  /** `ConsumerGroup.validateOffsetFetch`: null id with a negative epoch skips the check. */
  validateOffsetFetch(groupId: string, memberId: string | null, memberEpoch: number): number {
    return validateOffsetFetch(this.ctx.store, groupId, memberId, memberEpoch);
  }

  /** The latest group (records applied whether or not durable yet), for tests. */
  snapshot(groupId: string): ConsumerGroup | undefined {
    return this.group(groupId);
  }
}

function errorResponse(errorCode: number, message: string | null): ConsumerGroupHeartbeatResponse {
  return { throttleTimeMs: 0, errorCode, errorMessage: operationErrorMessage(errorCode, message), memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
}

export { ConsumerGroupState };

/** `settings` with a group's own `consumer.*` configs applied (GroupConfigManager: a group config, else the broker's). */
function groupSettingsOf(settings: ConsumerSettings, own: Readonly<Record<string, string>>): ConsumerGroupSettings {
  const int = (name: string, fallback: number): number => (own[name] === undefined ? fallback : Number(own[name]));
  return {
    sessionTimeoutMs: int('consumer.session.timeout.ms', settings.sessionTimeoutMs),
    heartbeatIntervalMs: int('consumer.heartbeat.interval.ms', settings.heartbeatIntervalMs),
    assignmentIntervalMs: int('consumer.assignment.interval.ms', settings.assignmentIntervalMs),
  };
}
