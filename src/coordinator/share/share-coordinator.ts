/**
 * The share-group coordinator (KIP-932): Kafka 4.3's `GroupMetadataManager` share-group paths with
 * the `GroupCoordinatorService` steps around them — ShareGroupHeartbeat (then InitializeShareGroupState
 * through the persister for newly subscribed partitions, and record 15 once it succeeded), the
 * session timeout (`scheduleShareGroupSessionTimeout` on the coordinator clock), ShareGroupDescribe
 * (`ShareGroup.asDescribedGroup`), the share part of ListGroups, and DeleteGroups (share state
 * deleted through the persister first, then the group's records tombstoned).
 *
 * State changes only by applying records (share-group-store.ts); responses are sent once the
 * records are durable; reads see the committed groups.
 */
import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ShareGroupHeartbeatRequest } from '../../protocol/messages/ShareGroupHeartbeatRequest.js';
import type { ShareGroupHeartbeatResponse } from '../../protocol/messages/ShareGroupHeartbeatResponse.js';
import type { DescribedGroup } from '../../protocol/messages/ShareGroupDescribeResponse.js';
import type { ListedGroup } from '../../protocol/messages/ListGroupsResponse.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from '../../protocol/acl-operations.js';
import { javaHashSetOrder } from '../../util/java-hash.js';
import type { Time } from '../../util/time.js';
import type { SharePersister } from '../../share/persister.js';
import { KeyedTimers, groupTimerKey, groupTimersPrefix } from '../classic/keyed-timers.js';
import type { GroupView } from '../group-map.js';
import type { CoordinatorRecord } from '../records.js';
import { operationErrorMessage, writeErrorCode, type CoordinatorWriter } from '../runtime.js';
import { SIMPLE_ASSIGNOR_NAME } from './simple-assignor.js';
import { listedGroupsInSlices, modernListedGroup } from '../group-views.js';
import { ShareGroupStore } from './share-group-store.js';
import { combineInitMaps, partitionsToRecord, SHARE_GROUP_TYPE, SHARE_PROTOCOL_TYPE, stateMetadataValue, type ShareGroup } from './share-group.js';
import { ShareGroupError, type ShareContext, type ShareSettings, type ShareTimers, type ShareTopicSource } from './share-context.js';
import { NO_MESSAGE, fenceShareMember, shareGroupHeartbeatJoin, shareGroupLeave, throwIfShareGroupHeartbeatRequestIsInvalid } from './share-heartbeat.js';
import { markInitialized, markUninitialized, persisterEntries, type InitializeRequest } from './share-state-init.js';
import { describeShareGroupOffsets } from './share-offsets.js';
import { alterShareGroupOffsets, deleteShareGroupOffsets } from './share-offsets-admin.js';
import type { AlterShareGroupOffsetsRequestTopic } from '../../protocol/messages/AlterShareGroupOffsetsRequest.js';
import type { AlterShareGroupOffsetsResponse } from '../../protocol/messages/AlterShareGroupOffsetsResponse.js';
import type { DeleteShareGroupOffsetsResponse } from '../../protocol/messages/DeleteShareGroupOffsetsResponse.js';
import type { DescribeShareGroupOffsetsRequestGroup } from '../../protocol/messages/DescribeShareGroupOffsetsRequest.js';
import type { DescribeShareGroupOffsetsResponseGroup } from '../../protocol/messages/DescribeShareGroupOffsetsResponse.js';

export interface ShareGroupCoordinatorOptions {
  config: BrokerConfig;
  /** A group config's effective value (`share.session.timeout.ms`, ...): the group's own, else its broker synonym's. */
  groupConfig(groupId: string, name: string): string;
  log: Logger;
  time: Time;
  writer: CoordinatorWriter;
  topics: ShareTopicSource;
  persister: SharePersister;
  /** The share groups' view of the broker's one group map. */
  groups?: GroupView<ShareGroup>;
  /** Whether a group of any type holds the id (the one group map). */
  groupTaken(groupId: string): boolean;
}

const sessionKey = (groupId: string, memberId: string) => groupTimerKey(groupId, 'share-session', memberId);

export class ShareGroupCoordinator {
  private readonly ctx: ShareContext;
  private readonly timers: KeyedTimers;
  private readonly groupTaken: (groupId: string) => boolean;
  /** Share-state initializations waiting for the persister (`initializationsSettled`). */
  private readonly initializing = new Set<Promise<void>>();

  constructor(options: ShareGroupCoordinatorOptions) {
    const { config, log, time } = options;
    const int = (groupId: string, name: string) => Number(options.groupConfig(groupId, name));
    const settings: ShareSettings = {
      sessionTimeoutMs: (g) => int(g, 'share.session.timeout.ms'),
      heartbeatIntervalMs: (g) => int(g, 'share.heartbeat.interval.ms'),
      assignmentIntervalMs: (g) => int(g, 'share.assignment.interval.ms'),
      maxSize: config.int('group.share.max.size'),
      initializeRetryIntervalMs: config.int('group.share.initialize.retry.interval.ms'),
    };
    // Behind the requests already read, as Kafka queues a timer's operation (keyed-timers.ts).
    this.timers = new KeyedTimers(time, { behindReceivedRequests: true });
    this.groupTaken = options.groupTaken;
    const timers: ShareTimers = {
      scheduleSession: (groupId, memberId, extraMs = 0) =>
        this.timers.schedule(sessionKey(groupId, memberId), extraMs + settings.sessionTimeoutMs(groupId), () => this.onSessionExpired(groupId, memberId)),
      cancelSession: (groupId, memberId) => this.timers.cancel(sessionKey(groupId, memberId)),
      cancelGroup: (groupId) => this.timers.cancelPrefix(groupTimersPrefix(groupId)),
    };
    const store = new ShareGroupStore(
      () => time.now(),
      options.groups,
      (groupId) => timers.cancelGroup(groupId),
      (group) => this.restartGroup(group),
    );
    this.ctx = { settings, time, log, store, writer: options.writer, topics: options.topics, persister: options.persister, timers };
  }

  /** The shard the runtime replays share-group records into. */
  get shard(): ShareGroupStore {
    return this.ctx.store;
  }

  /** When a member's session expires unless it heartbeats (server clock, ms); undefined without a session timer. */
  sessionDueAt(groupId: string, memberId: string): number | undefined {
    return this.timers.dueAt(sessionKey(groupId, memberId));
  }

  /** Expires the member's session now, as if its timeout had passed (a test's action); false when it has no session timer. */
  expireSessionNow(groupId: string, memberId: string): boolean {
    return this.timers.fireNow(sessionKey(groupId, memberId));
  }

  hasGroup(groupId: string): boolean {
    return this.ctx.store.has(groupId);
  }

  /** The latest group (records applied, durable or not). */
  group(groupId: string): ShareGroup | undefined {
    return this.ctx.store.get(groupId);
  }

  committedGroup(groupId: string): ShareGroup | undefined {
    return this.ctx.store.committed(groupId);
  }

  allGroups(): ShareGroup[] {
    return this.ctx.store.allCommitted();
  }

  /** The ids of `allGroups`, live (reads that go through them in slices: the admin API). */
  groupIds(): IterableIterator<string> {
    return this.ctx.store.committedIds();
  }

  /** After the log is replayed (`onLoaded`): every member's session timer starts now. */
  onLoaded(): void {
    for (const group of this.ctx.store.all()) this.restartGroup(group);
  }

  shutdown(): void {
    this.timers.cancelAll();
  }

  /** Holds the member timers of the groups still loading (`extraMsOf(group)` > 0: the load's ms left) and starts them again, whole, in the others (`GroupCoordinator.loadChanged`); `groupId` null: every group. */
  restartTimers(groupId: string | null, extraMsOf: (groupId: string) => number): void {
    const groups = groupId === null ? this.ctx.store.all() : [this.ctx.store.get(groupId)].filter((g) => g !== undefined);
    // Still loading: the session timers are held; loaded: they start again, whole.
    for (const group of groups) {
      if (extraMsOf(group.groupId) > 0) for (const memberId of group.members.keys()) this.ctx.timers.cancelSession(group.groupId, memberId);
      else this.restartGroup(group);
    }
  }

  private restartGroup(group: ShareGroup, extraMs = 0): void {
    for (const memberId of group.members.keys()) this.ctx.timers.scheduleSession(group.groupId, memberId, extraMs);
  }

  // ---- ShareGroupHeartbeat ----------------------------------------------------------------

  /** ShareGroupHeartbeat (76): the response once the records are durable; share state initialized after. */
  async heartbeat(req: ShareGroupHeartbeatRequest, client: { clientId: string; clientHost: string }): Promise<ShareGroupHeartbeatResponse> {
    const records: CoordinatorRecord[] = [];
    let response: ShareGroupHeartbeatResponse;
    let initialize: InitializeRequest | null = null;
    try {
      throwIfShareGroupHeartbeatRequestIsInvalid(req);
      if (req.memberEpoch === -1) {
        response = shareGroupLeave(this.ctx, req, records, this.groupTaken);
      } else {
        ({ response, initialize } = shareGroupHeartbeatJoin(this.ctx, req, client, records, this.groupTaken));
      }
    } catch (err) {
      this.ctx.writer.abandon(records);
      if (err instanceof ShareGroupError) return errorResponse(err.errorCode, err.message);
      throw err;
    }
    try {
      await this.ctx.writer.append(records);
    } catch (err) {
      this.ctx.log.error({ err, groupId: req.groupId }, 'failed to write share group records');
      return errorResponse(writeErrorCode(err), null);
    }
    // GroupCoordinatorService: the persister is called after the response, on a timer task.
    if (initialize) {
      const initializing = this.initializeState(initialize);
      this.initializing.add(initializing);
      void initializing.finally(() => this.initializing.delete(initializing));
    }
    return response;
  }

  /**
   * Resolves once every share-state initialization started so far has been answered by the
   * persister and its records handed to the runtime (tests and shutdown wait on it; records may
   * still be in flight: `runtime.flush()` waits for those).
   */
  async initializationsSettled(): Promise<void> {
    while (this.initializing.size > 0) await Promise.all([...this.initializing]);
  }

  /** `persisterInitialize` then `initialize-share-group-state` / `uninitialize-share-group-state`. */
  private async initializeState(req: InitializeRequest): Promise<void> {
    let failed = false;
    try {
      const results = await this.ctx.persister.initializeState(req.groupId, persisterEntries(req));
      const error = results.find((r) => r.errorCode !== ErrorCode.NONE);
      if (error) {
        this.ctx.log.error({ groupId: req.groupId, errorCode: error.errorCode }, 'received an error while calling initialize state on the persister');
        failed = true;
      }
    } catch (err) {
      this.ctx.log.error({ err, groupId: req.groupId }, 'unable to initialize share group state');
      failed = true;
    }
    const group = this.ctx.store.get(req.groupId);
    if (!group) return;
    const records: CoordinatorRecord[] = [];
    const emit = this.ctx.store.emitInto(records);
    if (failed) markUninitialized(this.ctx, group, req.partitions, emit);
    else markInitialized(this.ctx, group, req.partitions, emit);
    if (records.length > 0) this.ctx.writer.appendLogged(records, failed ? 'share group state uninitialization' : 'share group state initialization');
  }

  /** The session timer fired: the member is fenced (`shareGroupFenceMemberOperation`). */
  private onSessionExpired(groupId: string, memberId: string): void {
    const group = this.ctx.store.get(groupId);
    const member = group?.members.get(memberId);
    if (!group || !member) return;
    this.ctx.log.info({ groupId, memberId }, 'member fenced from the share group because the member session expired');
    const records: CoordinatorRecord[] = [];
    fenceShareMember(this.ctx, group, member, this.ctx.store.emitInto(records));
    this.ctx.writer.appendLogged(records, 'share group session expiry');
  }

  // ---- topic changes ------------------------------------------------------------------------

  /** A topic was created, deleted or grew: the groups subscribed to it recompute their metadata hash on the next heartbeat. */
  onTopicChanged(name: string): void {
    for (const group of this.ctx.store.all()) {
      for (const m of group.members.values()) {
        if (m.subscribedTopicNames.includes(name)) {
          group.metadataExpired = true;
          break;
        }
      }
    }
  }

  // ---- admin --------------------------------------------------------------------------------

  /** ShareGroupDescribe (77) for one group (`shareGroupDescribe`, committed state). */
  describe(groupId: string, includeAuthorizedOperations: boolean, authorizedOperations: number): DescribedGroup {
    const group = this.ctx.store.committed(groupId);
    if (!group) {
      const message = this.groupTaken(groupId) ? `Group ${groupId} is not a share group.` : `Group ${groupId} not found.`;
      return describedGroupError(groupId, ErrorCode.GROUP_ID_NOT_FOUND, message);
    }
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      groupId,
      groupState: group.state,
      groupEpoch: group.groupEpoch,
      assignmentEpoch: group.assignmentEpoch,
      assignorName: SIMPLE_ASSIGNOR_NAME,
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        rackId: m.rackId,
        memberEpoch: m.memberEpoch,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: javaHashSetOrder(m.subscribedTopicNames),
        assignment: {
          topicPartitions: partitionsToRecord(m.assigned).flatMap((tp) => {
            const topic = this.ctx.topics.getById(tp.topicId);
            return topic ? [{ topicId: tp.topicId, topicName: topic.name, partitions: tp.partitions }] : [];
          }),
        },
      })),
      authorizedOperations: includeAuthorizedOperations ? authorizedOperations : AUTHORIZED_OPERATIONS_OMITTED,
    };
  }

  /** DescribeShareGroupOffsets (90) for one group: start offsets and lag from the persister's state summary. */
  describeOffsets(req: DescribeShareGroupOffsetsRequestGroup, latestOffset: (topic: string, partition: number) => bigint | null): Promise<DescribeShareGroupOffsetsResponseGroup> {
    return describeShareGroupOffsets(
      {
        persister: this.ctx.persister,
        topicByName: (name) => this.ctx.topics.get(name),
        topicNameById: (topicId) => this.ctx.topics.getById(topicId)?.name,
        initializedPartitions: (groupId) => new Map([...(this.ctx.store.committed(groupId)?.stateMetadata?.initialized ?? [])].map(([id, t]) => [id, t.partitions])),
        latestOffset,
      },
      req,
    );
  }

  /** AlterShareGroupOffsets (91) for one group's existing topics (share-offsets-admin.ts). */
  alterOffsets(groupId: string, topics: readonly AlterShareGroupOffsetsRequestTopic[]): Promise<AlterShareGroupOffsetsResponse> {
    return alterShareGroupOffsets(this.ctx, groupId, topics, !this.ctx.store.has(groupId) && this.groupTaken(groupId));
  }

  /** DeleteShareGroupOffsets (92) for one group (share-offsets-admin.ts). */
  deleteOffsets(groupId: string, topicNames: readonly string[]): Promise<DeleteShareGroupOffsetsResponse> {
    return deleteShareGroupOffsets(this.ctx, groupId, topicNames, !this.ctx.store.has(groupId) && this.groupTaken(groupId));
  }

  /** ListGroups entries for share groups passing the state (case-insensitive) and type filters, in slices. */
  listGroups(statesFilter: readonly string[], typesFilter: readonly string[]): Promise<ListedGroup[]> {
    return listedGroupsInSlices(this.ctx.store.allCommitted(), statesFilter, typesFilter, SHARE_GROUP_TYPE, modernListedGroup(SHARE_GROUP_TYPE, SHARE_PROTOCOL_TYPE));
  }

  /**
   * DeleteGroups for a share group (`GroupCoordinatorService.deleteShareGroups`, then
   * `deleteGroups`): NON_EMPTY_GROUP unless Empty; the share state of every initialized or
   * initializing partition is marked deleting (record 15) and deleted through the persister; a
   * persister error is the group's answer; then the group's records are tombstoned.
   * `tombstoneOffsets` gives the offset tombstones Kafka writes with any deleted group.
   */
  async deleteGroup(groupId: string, tombstoneOffsets: () => CoordinatorRecord[]): Promise<number> {
    const group = this.ctx.store.get(groupId);
    if (!group) return ErrorCode.GROUP_ID_NOT_FOUND;
    if (!group.isEmpty()) return ErrorCode.NON_EMPTY_GROUP;
    const info = group.stateMetadata;
    if (info) {
      const candidates = combineInitMaps(info.initialized, info.initializing);
      for (const topicId of info.deleting) {
        const topic = this.ctx.topics.getById(topicId);
        if (topic) candidates.set(topicId, { name: topic.name, partitions: new Set(Array.from({ length: topic.partitionCount }, (_, p) => p)), timestamp: -1 });
      }
      const records: CoordinatorRecord[] = [];
      this.ctx.store.emitInto(records)({
        kind: 'share-group-state-partition-metadata',
        groupId,
        value: stateMetadataValue(new Map(), new Map(), new Map([...candidates].map(([topicId, t]) => [topicId, t.name]))),
      });
      try {
        await this.ctx.writer.append(records);
      } catch (err) {
        return writeErrorCode(err);
      }
      if (candidates.size > 0) {
        const partitions = [...candidates].flatMap(([topicId, t]) => [...t.partitions].sort((a, b) => a - b).map((partition) => ({ topicId, partition })));
        try {
          const results = await this.ctx.persister.deleteState(groupId, partitions);
          const error = results.find((r) => r.errorCode !== ErrorCode.NONE);
          if (error) return error.errorCode;
        } catch (err) {
          this.ctx.log.error({ err, groupId }, 'unable to delete share group partitions');
          return ErrorCode.UNKNOWN_SERVER_ERROR;
        }
      }
    }
    const current = this.ctx.store.get(groupId);
    if (!current) return ErrorCode.GROUP_ID_NOT_FOUND;
    if (!current.isEmpty()) return ErrorCode.NON_EMPTY_GROUP;
    const records = [...tombstoneOffsets(), ...this.ctx.store.createGroupTombstoneRecords(current)];
    try {
      await this.ctx.writer.append(records);
    } catch (err) {
      this.ctx.log.error({ err, groupId }, 'failed to write share group deletion');
      return writeErrorCode(err);
    }
    this.ctx.log.info({ groupId }, 'share group deleted');
    return ErrorCode.NONE;
  }
}

export function describedGroupError(groupId: string, errorCode: number, errorMessage: string | null): DescribedGroup {
  return { errorCode, errorMessage, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
}

function errorResponse(errorCode: number, message: string | null): ShareGroupHeartbeatResponse {
  return { throttleTimeMs: 0, errorCode, errorMessage: message === NO_MESSAGE ? null : operationErrorMessage(errorCode, message), memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
}
