/**
 * The streams group coordinator (KIP-1071): Kafka 4.3's `GroupMetadataManager.streamsGroupHeartbeat`,
 * `streamsGroupLeave`, `streamsGroupFenceMember`, the session, rebalance and initial-delay timers,
 * StreamsGroupDescribe, the ListGroups and DeleteGroups parts for streams groups, and
 * `StreamsGroup.validateOffsetCommit/Fetch`. State changes only by applying records 17 and 19-23
 * (streams-group-store.ts), through the coordinator runtime; a request answers once they are durable.
 *
 * Kafka 4.3 serves dynamic members only: a request with an instance id, task offsets, warm-up tasks
 * or source topic regexes is refused with Kafka's INVALID_REQUEST messages, as Kafka's is.
 */
import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { StreamsGroupHeartbeatRequest } from '../../protocol/messages/StreamsGroupHeartbeatRequest.js';
import { defaultStreamsGroupHeartbeatResponse, type StreamsGroupHeartbeatResponse } from '../../protocol/messages/StreamsGroupHeartbeatResponse.js';
import type { DescribedGroup } from '../../protocol/messages/StreamsGroupDescribeResponse.js';
import type { ListedGroup } from '../../protocol/messages/ListGroupsResponse.js';
import type { Time } from '../../util/time.js';
import type { CoordinatorRecord, StreamsGroupRecord } from '../records.js';
import { operationErrorMessage, writeErrorCode, type CoordinatorWriter } from '../runtime.js';
import type { GroupView } from '../group-map.js';
import { listedGroupsInSlices, modernListedGroup } from '../group-views.js';
import { KeyedTimers, groupTimerKey, groupTimersPrefix } from '../classic/keyed-timers.js';
import { COMMIT_TIMESTAMP_EXPIRATION } from '../offsets/expiration-condition.js';
import type { RetentionGroupSource } from '../offsets/retention.js';
import type { OffsetCommitValidation } from '../consumer/offset-validation.js';
import { StickyTaskAssignor } from './assignor/sticky-task-assignor.js';
import type { StreamsClassicBridge, StreamsContext, StreamsSettings, StreamsTimers, StreamsTopicSource } from './context.js';
import { describeStreamsGroup, describedGroupError } from './describe.js';
import { StreamsGroupError } from './errors.js';
import { StreamsInvalidTopologyError } from './topics/topic-errors.js';
import { throwIfStreamsGroupHeartbeatRequestIsInvalid } from './heartbeat-validation.js';
import { StreamsGroupStore } from './streams-group-store.js';
import { STREAMS_GROUP_TYPE, STREAMS_PROTOCOL_TYPE, StreamsGroupState, streamsStateFilterName, type StreamsGroup } from './streams-group.js';
import { maybeUpdateTargetAssignment, requiredTopics, streamsGroupHeartbeatJoin, type StreamsClient } from './streams-heartbeat.js';
import { LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH, StreamsMemberState, type StreamsGroupMember } from './streams-member.js';
import type { CreatableTopic } from './topics/types.js';

export interface StreamsGroupCoordinatorOptions {
  config: BrokerConfig;
  /** A group config's effective value (the group's own, else the broker's synonym). */
  groupConfig: (groupId: string, name: string) => string;
  log: Logger;
  time: Time;
  writer: CoordinatorWriter;
  topics: StreamsTopicSource;
  groups?: GroupView<StreamsGroup>;
  classic?: StreamsClassicBridge;
  /** Whether a consumer or share group holds the id. */
  otherTypeHolds: (groupId: string) => boolean;
  /** Offsets: whether a group holds any, and their tombstones when the group is deleted. */
  offsets: { hasOffsets(groupId: string): boolean; tombstoneGroup(groupId: string): CoordinatorRecord[] };
}

/** A heartbeat's answer and the internal topics the API layer is to create. */
export interface StreamsHeartbeatAnswer {
  response: StreamsGroupHeartbeatResponse;
  internalTopicsToCreate: ReadonlyMap<string, CreatableTopic>;
}

const sessionKey = (groupId: string, memberId: string) => groupTimerKey(groupId, 'sg-session', memberId);
const rebalanceKey = (groupId: string, memberId: string) => groupTimerKey(groupId, 'sg-rebalance', memberId);
const initialDelayKey = (groupId: string) => groupTimerKey(groupId, 'sg-initial-delay', '');

export class StreamsGroupCoordinator {
  private readonly ctx: StreamsContext;
  private readonly timers: KeyedTimers;
  private readonly offsets: StreamsGroupCoordinatorOptions['offsets'];

  constructor(options: StreamsGroupCoordinatorOptions) {
    const { config, log, time } = options;
    const int = (groupId: string, name: string) => Number(options.groupConfig(groupId, name));
    const settings: StreamsSettings = {
      sessionTimeoutMs: (g) => int(g, 'streams.session.timeout.ms'),
      heartbeatIntervalMs: (g) => int(g, 'streams.heartbeat.interval.ms'),
      numStandbyReplicas: (g) => int(g, 'streams.num.standby.replicas'),
      initialRebalanceDelayMs: (g) => int(g, 'streams.initial.rebalance.delay.ms'),
      assignmentIntervalMs: (g) => int(g, 'streams.assignment.interval.ms'),
      maxSize: config.int('group.streams.max.size'),
    };
    // Behind the requests already read, as Kafka queues a timer's operation (keyed-timers.ts).
    this.timers = new KeyedTimers(time, { behindReceivedRequests: true });
    this.offsets = options.offsets;
    const t = this.timers;
    const timers: StreamsTimers = {
      scheduleSession: (groupId, memberId, extraMs = 0) => t.schedule(sessionKey(groupId, memberId), extraMs + settings.sessionTimeoutMs(groupId), () => this.fenceOnTimer(groupId, memberId, 'the member session expired')),
      scheduleRebalance: (groupId, memberId, memberEpoch, timeoutMs) =>
        t.schedule(rebalanceKey(groupId, memberId), Math.max(0, timeoutMs), () =>
          this.fenceOnTimer(groupId, memberId, `it failed to transition from epoch ${memberEpoch} within ${timeoutMs}ms`, (m) => m.memberEpoch === memberEpoch),
        ),
      cancelRebalance: (groupId, memberId) => t.cancel(rebalanceKey(groupId, memberId)),
      cancelMember: (groupId, memberId) => {
        t.cancel(sessionKey(groupId, memberId));
        t.cancel(rebalanceKey(groupId, memberId));
      },
      cancelGroup: (groupId) => t.cancelPrefix(groupTimersPrefix(groupId)),
      isInitialDelayScheduled: (groupId) => t.has(initialDelayKey(groupId)),
      scheduleInitialDelayIfAbsent: (groupId, delayMs) => {
        if (!t.has(initialDelayKey(groupId))) t.schedule(initialDelayKey(groupId), delayMs, () => this.computeDelayedTargetAssignment(groupId));
      },
    };
    const store = new StreamsGroupStore(options.groups, (groupId) => timers.cancelGroup(groupId), (group) => this.restartGroup(group));
    this.ctx = {
      settings,
      time,
      log,
      store,
      writer: options.writer,
      topics: options.topics,
      timers,
      assignor: new StickyTaskAssignor(),
      classic: options.classic,
      otherTypeHolds: options.otherTypeHolds,
    };
  }

  /** The shard the runtime replays streams-group records into. */
  get shard(): StreamsGroupStore {
    return this.ctx.store;
  }

  hasGroup(groupId: string): boolean {
    return this.ctx.store.has(groupId);
  }

  /** The latest group (records applied, durable or not). */
  group(groupId: string): StreamsGroup | undefined {
    return this.ctx.store.get(groupId);
  }

  committedGroup(groupId: string): StreamsGroup | undefined {
    return this.ctx.store.committed(groupId);
  }

  allGroups(): StreamsGroup[] {
    return this.ctx.store.allCommitted();
  }

  /** The ids of `allGroups`, live (reads that go through them in slices: the admin API). */
  groupIds(): IterableIterator<string> {
    return this.ctx.store.committedIds();
  }

  /** The group's heartbeat interval (ms): its `streams.heartbeat.interval.ms`, else the broker's. */
  heartbeatIntervalMs(groupId: string): number {
    return this.ctx.settings.heartbeatIntervalMs(groupId);
  }

  /** When a member's session expires unless it heartbeats (server clock, ms); undefined without a session timer. */
  sessionDueAt(groupId: string, memberId: string): number | undefined {
    return this.timers.dueAt(sessionKey(groupId, memberId));
  }

  /** Expires the member's session now, as if its timeout had passed (a test's action); false when it has no session timer. */
  expireSessionNow(groupId: string, memberId: string): boolean {
    return this.timers.fireNow(sessionKey(groupId, memberId));
  }

  // ---- StreamsGroupHeartbeat -----------------------------------------------------------------

  /**
   * StreamsGroupHeartbeat (88): the request checks, then a leave (-1) or a join/heartbeat. Errors are
   * answered as Kafka's: GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH,
   * GROUP_MAX_SIZE_REACHED, INVALID_REQUEST, STREAMS_INVALID_TOPOLOGY, a failed write's code.
   */
  async heartbeat(req: StreamsGroupHeartbeatRequest, client: StreamsClient): Promise<StreamsHeartbeatAnswer> {
    const records: CoordinatorRecord[] = [];
    let answer: StreamsHeartbeatAnswer;
    try {
      throwIfStreamsGroupHeartbeatRequestIsInvalid(req);
      if (req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
        answer = { response: this.leave(req, records), internalTopicsToCreate: new Map() };
      } else {
        answer = streamsGroupHeartbeatJoin(this.ctx, req, client, records);
        for (const r of records) if (isStreamsRecord(r)) this.ctx.store.apply(r);
      }
    } catch (err) {
      this.ctx.writer.abandon(records);
      if (err instanceof StreamsGroupError) return { response: errorResponse(err.errorCode, err.message), internalTopicsToCreate: new Map() };
      if (err instanceof StreamsInvalidTopologyError) return { response: errorResponse(ErrorCode.STREAMS_INVALID_TOPOLOGY, err.message), internalTopicsToCreate: new Map() };
      // Anything else (a topology Kafka's classes cannot take: a duplicate subtopology id, a bad
      // copartition index, a negative epoch) is answered as Kafka's `handleOperationException`
      // answers an unexpected exception: UNKNOWN_SERVER_ERROR without a message, and an error line.
      this.ctx.log.error({ err, groupId: req.groupId, memberId: req.memberId }, 'streams group heartbeat hit an unexpected exception');
      return { response: errorResponse(ErrorCode.UNKNOWN_SERVER_ERROR, null), internalTopicsToCreate: new Map() };
    }
    try {
      await this.ctx.writer.append(records);
    } catch (err) {
      this.ctx.log.error({ err, groupId: req.groupId }, 'failed to write streams group records');
      return { response: errorResponse(writeErrorCode(err), null), internalTopicsToCreate: new Map() };
    }
    return answer;
  }

  /** `streamsGroupLeave`: the member is fenced (its records tombstoned, the group epoch bumped). */
  private leave(req: StreamsGroupHeartbeatRequest, records: CoordinatorRecord[]): StreamsGroupHeartbeatResponse {
    const group = this.ctx.store.get(req.groupId);
    if (!group) throw new StreamsGroupError(ErrorCode.GROUP_ID_NOT_FOUND, this.ctx.otherTypeHolds(req.groupId) ? `Group ${req.groupId} is not a streams group.` : `Group ${req.groupId} not found.`);
    if (req.shutdownApplication) group.shutdownRequestMemberId = req.memberId;
    const member = group.members.get(req.memberId);
    if (!member) throw new StreamsGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${req.groupId}.`);
    this.ctx.log.info({ groupId: req.groupId, memberId: req.memberId }, 'member left the streams group');
    this.fenceMember(group, member, records);
    return { ...defaultStreamsGroupHeartbeatResponse(), memberId: req.memberId, memberEpoch: req.memberEpoch, status: [] };
  }

  /** `streamsGroupFenceMember`: records 22, 21, 19 tombstoned and record 17 at the next epoch, applied. */
  private fenceMember(group: StreamsGroup, member: StreamsGroupMember, records: CoordinatorRecord[]): void {
    const { groupId } = group;
    const { memberId } = member;
    const out: StreamsGroupRecord[] = [
      { kind: 'streams-group-current-member-assignment', groupId, memberId, value: null },
      { kind: 'streams-group-target-assignment-member', groupId, memberId, value: null },
      { kind: 'streams-group-member-metadata', groupId, memberId, value: null },
      {
        kind: 'streams-group-metadata',
        groupId,
        value: {
          epoch: group.groupEpoch + 1,
          metadataHash: group.metadataHash,
          validatedTopologyEpoch: group.validatedTopologyEpoch,
          lastAssignmentConfigs: [...group.lastAssignmentConfigs].map(([key, value]) => ({ key, value })),
        },
      },
    ];
    this.ctx.timers.cancelMember(groupId, memberId);
    for (const r of out) {
      records.push(r);
      this.ctx.store.apply(r);
    }
  }

  /** A session or rebalance timer fired: the member is fenced when it is still there (and `still` holds). */
  private fenceOnTimer(groupId: string, memberId: string, reason: string, still: (m: StreamsGroupMember) => boolean = () => true): void {
    const group = this.ctx.store.get(groupId);
    const member = group?.members.get(memberId);
    if (!group || !member || !still(member)) return;
    this.ctx.log.info({ groupId, memberId }, `streams member fenced from the group because ${reason}`);
    const records: CoordinatorRecord[] = [];
    this.fenceMember(group, member, records);
    this.ctx.writer.appendLogged(records, 'streams group member fencing');
  }

  /** `computeDelayedTargetAssignment`: the initial delay ended; every member's target is computed. */
  private computeDelayedTargetAssignment(groupId: string): void {
    const group = this.ctx.store.get(groupId);
    if (!group || group.isEmpty() || group.configuredTopology === null || group.groupEpoch <= group.assignmentEpoch) return;
    const records: StreamsGroupRecord[] = [];
    try {
      maybeUpdateTargetAssignment(this.ctx, group, group.groupEpoch, null, group.configuredTopology, group.lastAssignmentConfigs, this.ctx.time.now(), (r) => records.push(r), null);
    } catch (err) {
      this.ctx.log.error({ err, groupId }, 'could not compute the delayed streams target assignment');
      return;
    }
    for (const r of records) this.ctx.store.apply(r);
    this.ctx.writer.appendLogged(records, 'streams group delayed target assignment');
  }

  /** After the log is replayed: every member's session timer starts now. */
  onLoaded(): void {
    for (const group of this.ctx.store.all()) this.restartGroup(group);
  }

  /** Holds the member timers of the groups still loading (`extraMsOf(group)` > 0: the load's ms left) and starts them again, whole, in the others (`GroupCoordinator.loadChanged`); `groupId` null: every group. */
  restartTimers(groupId: string | null, extraMsOf: (groupId: string) => number): void {
    const groups = groupId === null ? this.ctx.store.all() : [this.ctx.store.get(groupId)].filter((g) => g !== undefined);
    // Still loading: the session and rebalance timers are held; loaded: the sessions start again, whole.
    for (const group of groups) {
      if (extraMsOf(group.groupId) > 0) for (const memberId of group.members.keys()) this.ctx.timers.cancelMember(group.groupId, memberId);
      else this.restartGroup(group);
    }
  }

  /** Every member's session timer starts now, and members still revoking get their rebalance timer (`GroupMetadataManager.onLoaded`). */
  private restartGroup(group: StreamsGroup): void {
    for (const m of group.members.values()) {
      this.ctx.timers.scheduleSession(group.groupId, m.memberId);
      if (m.state === StreamsMemberState.UNREVOKED_TASKS) this.ctx.timers.scheduleRebalance(group.groupId, m.memberId, m.memberEpoch, m.rebalanceTimeoutMs);
    }
  }

  shutdown(): void {
    this.timers.cancelAll();
  }

  /** A topic was created, deleted or grew: groups whose topology needs it reconfigure on the next heartbeat (`requestMetadataRefresh`). */
  onTopicChanged(name: string): void {
    for (const group of this.ctx.store.all()) {
      if (group.topology !== null && requiredTopics(group.topology).includes(name)) group.metadataExpired = true;
    }
  }

  // ---- describe, list, delete ---------------------------------------------------------------

  /** StreamsGroupDescribe (89) of one group: GROUP_ID_NOT_FOUND for an unknown one or one of another type. */
  describe(groupId: string, includeAuthorizedOperations: boolean, authorizedOperations: number): DescribedGroup {
    if (groupId === '') return describedGroupError(groupId, ErrorCode.INVALID_GROUP_ID, null);
    const group = this.ctx.store.committed(groupId);
    if (!group) {
      return describedGroupError(groupId, ErrorCode.GROUP_ID_NOT_FOUND, this.ctx.otherTypeHolds(groupId) || (this.ctx.classic?.classicGroupStatus(groupId) ?? 'none') !== 'none' ? `Group ${groupId} is not a streams group.` : `Group ${groupId} not found.`);
    }
    return describeStreamsGroup(group, this.ctx.store.get(groupId), includeAuthorizedOperations, authorizedOperations);
  }

  /** ListGroups entries for streams groups passing the filters (the state filter names NotReady `not_ready`, as Kafka's). */
  listGroups(statesFilter: readonly string[] = [], typesFilter: readonly string[] = []): Promise<ListedGroup[]> {
    const states = new Set(statesFilter.map((s) => s.trim().toLowerCase()));
    const groups = this.ctx.store.allCommitted().filter((g) => states.size === 0 || states.has(streamsStateFilterName(g.state)));
    return listedGroupsInSlices(groups, [], typesFilter, STREAMS_GROUP_TYPE, modernListedGroup(STREAMS_GROUP_TYPE, STREAMS_PROTOCOL_TYPE));
  }

  /**
   * An empty streams group becomes a classic group on a JoinGroup (Kafka converts it, as an empty
   * consumer group): its tombstones, applied, for the caller to write with the classic group's
   * first record; null when the id holds no empty streams group.
   */
  takeEmptyGroupForClassicJoin(groupId: string): CoordinatorRecord[] | null {
    const group = this.ctx.store.get(groupId);
    if (!group || !group.isEmpty()) return null;
    this.ctx.timers.cancelGroup(groupId);
    return this.ctx.store.createGroupTombstoneRecords(group);
  }

  /** DeleteGroups for a streams group: NON_EMPTY_GROUP unless Empty; else offsets and group tombstoned. */
  async deleteGroup(groupId: string): Promise<number> {
    const group = this.ctx.store.get(groupId);
    if (!group) return ErrorCode.GROUP_ID_NOT_FOUND;
    if (group.state !== StreamsGroupState.EMPTY) return ErrorCode.NON_EMPTY_GROUP;
    const records = [...this.offsets.tombstoneGroup(groupId), ...this.ctx.store.createGroupTombstoneRecords(group)];
    try {
      await this.ctx.writer.append(records);
    } catch (err) {
      this.ctx.log.error({ err, groupId }, 'failed to write streams group deletion');
      return writeErrorCode(err);
    }
    this.ctx.log.info({ groupId }, 'streams group deleted');
    return ErrorCode.NONE;
  }

  /** The offsets retention sweep's view of streams groups (`StreamsGroup.isSubscribedToTopic`: source topics while not Empty). */
  retentionSource(): RetentionGroupSource {
    const ctx = this.ctx;
    return {
      groupIds: () => ctx.store.all().map((g) => g.groupId),
      group: (groupId) => {
        const group = ctx.store.get(groupId);
        if (!group) return undefined;
        return {
          offsetExpirationCondition: () => COMMIT_TIMESTAMP_EXPIRATION,
          isSubscribedToTopic: (topic: string) => isSubscribedToTopic(group, topic),
        };
      },
      deleteGroupIfEmpty: (groupId) => {
        const group = ctx.store.get(groupId);
        if (!group || !group.isEmpty() || this.offsets.hasOffsets(groupId)) return null;
        return ctx.writer.append(ctx.store.createGroupTombstoneRecords(group));
      },
    };
  }

  /** `StreamsGroup.isSubscribedToTopic`. */
  isSubscribedToTopic(groupId: string, topic: string): boolean {
    const group = this.ctx.store.get(groupId);
    return group !== undefined && isSubscribedToTopic(group, topic);
  }

  // ---- OffsetCommit / OffsetFetch ------------------------------------------------------------

  /**
   * `StreamsGroup.validateOffsetCommit` (4.3): an empty group takes commits of a negative epoch;
   * a member's commit needs OffsetCommit v9+ (transactional ones excepted); an older epoch may
   * commit only the partitions of tasks it has held since then.
   */
  validateOffsetCommit(groupId: string, memberId: string, memberEpoch: number, apiVersion: number, transactional: boolean, instanceId: string | null): OffsetCommitValidation {
    const group = this.ctx.store.get(groupId);
    if (!group) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND };
    if (memberEpoch < 0 && group.isEmpty()) return { errorCode: ErrorCode.NONE };
    if (transactional && memberEpoch === -1 && memberId === '' && instanceId === null) return { errorCode: ErrorCode.NONE };
    const member = group.members.get(memberId);
    if (!member) return { errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
    if (!transactional && apiVersion < 9) return { errorCode: ErrorCode.UNSUPPORTED_VERSION };
    if (memberEpoch === member.memberEpoch) return { errorCode: ErrorCode.NONE };
    if (memberEpoch > member.memberEpoch) return { errorCode: ErrorCode.STALE_MEMBER_EPOCH };
    const topology = group.topology;
    if (topology === null) return { errorCode: ErrorCode.STALE_MEMBER_EPOCH };
    // `StreamsTopology.sourceTopicMap`: source and repartition source topics.
    const subtopologyOfTopic = new Map<string, string>();
    for (const s of topology.subtopologies) {
      for (const t of s.sourceTopics) subtopologyOfTopic.set(t, s.subtopologyId);
      for (const t of s.repartitionSourceTopics) subtopologyOfTopic.set(t.name, s.subtopologyId);
    }
    return {
      errorCode: ErrorCode.NONE,
      partitionError: (topicId, partition) => {
        const name = this.ctx.topics.getById(topicId)?.name;
        const subtopologyId = name === undefined ? undefined : subtopologyOfTopic.get(name);
        if (subtopologyId === undefined) return ErrorCode.STALE_MEMBER_EPOCH;
        const assignedAt = member.assigned.active.get(subtopologyId)?.get(partition) ?? member.pendingRevocation.active.get(subtopologyId)?.get(partition);
        return assignedAt !== undefined && memberEpoch >= assignedAt ? ErrorCode.NONE : ErrorCode.STALE_MEMBER_EPOCH;
      },
    };
  }

  /** `StreamsGroup.validateOffsetFetch`: a null id with a negative epoch skips the check. */
  validateOffsetFetch(groupId: string, memberId: string | null, memberEpoch: number): number {
    const group = this.ctx.store.get(groupId);
    if (!group) return ErrorCode.NONE;
    if (memberId === null && memberEpoch < 0) return ErrorCode.NONE;
    const member = memberId === null ? undefined : group.members.get(memberId);
    if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
    return memberEpoch === member.memberEpoch ? ErrorCode.NONE : ErrorCode.STALE_MEMBER_EPOCH;
  }
}

/** `StreamsGroup.isSubscribedToTopic`: a source or repartition source topic of a group with members. */
function isSubscribedToTopic(group: StreamsGroup, topic: string): boolean {
  if (group.isEmpty() || group.topology === null) return false;
  return group.topology.subtopologies.some((s) => s.sourceTopics.includes(topic) || s.repartitionSourceTopics.some((t) => t.name === topic));
}

const STREAMS_KINDS: ReadonlySet<string> = new Set(['streams-group-metadata', 'streams-group-member-metadata', 'streams-group-target-assignment-metadata', 'streams-group-target-assignment-member', 'streams-group-current-member-assignment', 'streams-group-topology']);
const isStreamsRecord = (r: CoordinatorRecord): r is StreamsGroupRecord => STREAMS_KINDS.has(r.kind);

function errorResponse(errorCode: number, message: string | null): StreamsGroupHeartbeatResponse {
  return { ...defaultStreamsGroupHeartbeatResponse(), errorCode, errorMessage: operationErrorMessage(errorCode, message) };
}
