/**
 * The group coordinator the API handlers call (Kafka 4.3's `GroupCoordinatorService` with the
 * routing of `GroupMetadataManager`): it answers which type of group holds an id, sends each group
 * API to the classic or the KIP-848 coordinator accordingly (a classic-protocol member of a
 * consumer group is served by the consumer coordinator, an empty consumer group becomes classic on
 * a JoinGroup), and serves the offset APIs for every group type. Handlers only decode, call one
 * method here and shape the answer for their wire version.
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../protocol/errors.js';
import type { JoinGroupRequest } from '../protocol/messages/JoinGroupRequest.js';
import type { JoinGroupResponse } from '../protocol/messages/JoinGroupResponse.js';
import type { SyncGroupRequest } from '../protocol/messages/SyncGroupRequest.js';
import type { SyncGroupResponse } from '../protocol/messages/SyncGroupResponse.js';
import type { HeartbeatRequest } from '../protocol/messages/HeartbeatRequest.js';
import type { HeartbeatResponse } from '../protocol/messages/HeartbeatResponse.js';
import type { MemberIdentity } from '../protocol/messages/LeaveGroupRequest.js';
import type { LeaveGroupResult } from './classic/leave-group.js';
import type { DescribedGroup } from '../protocol/messages/DescribeGroupsResponse.js';
import type { ListedGroup } from '../protocol/messages/ListGroupsResponse.js';
import type { DeletableGroupResult } from '../protocol/messages/DeleteGroupsResponse.js';
import type { ConsumerGroupHeartbeatRequest } from '../protocol/messages/ConsumerGroupHeartbeatRequest.js';
import type { ConsumerGroupHeartbeatResponse } from '../protocol/messages/ConsumerGroupHeartbeatResponse.js';
import type { DescribedGroup as ConsumerDescribedGroup } from '../protocol/messages/ConsumerGroupDescribeResponse.js';
import type { OffsetCommitRequest } from '../protocol/messages/OffsetCommitRequest.js';
import type { OffsetCommitResponse } from '../protocol/messages/OffsetCommitResponse.js';
import type { OffsetFetchRequest } from '../protocol/messages/OffsetFetchRequest.js';
import type { OffsetFetchResponse } from '../protocol/messages/OffsetFetchResponse.js';
import type { OffsetDeleteRequest } from '../protocol/messages/OffsetDeleteRequest.js';
import type { OffsetDeleteResponse } from '../protocol/messages/OffsetDeleteResponse.js';
import type { Time } from '../util/time.js';
import type { ClassicGroupCoordinator, ClassicRequestContext } from './classic/classic-coordinator.js';
import { lacksMandatoryProtocol } from './classic/classic-coordinator.js';
import { ELEMENTS_PER_SLICE } from '../protocol/primitives.js';
import { mapInSlices } from '../util/slices.js';
import { ClassicGroupState } from './classic/group-state.js';
import { errorJoin, errorSync } from './classic/classic-group.js';
import type { ConsumerGroupCoordinator } from './consumer/consumer-coordinator.js';
import type { ConsumerRequestContext } from './consumer/context.js';
import type { OffsetCommitValidation } from './consumer/offset-validation.js';
import type { ShareGroupCoordinator } from './share/share-coordinator.js';
import type { ShareGroupHeartbeatRequest } from '../protocol/messages/ShareGroupHeartbeatRequest.js';
import type { ShareGroupHeartbeatResponse } from '../protocol/messages/ShareGroupHeartbeatResponse.js';
import type { DescribedGroup as ShareDescribedGroup } from '../protocol/messages/ShareGroupDescribeResponse.js';
import { describedGroupError as shareDescribedGroupError } from './share/share-coordinator.js';
import type { StreamsGroupCoordinator, StreamsHeartbeatAnswer } from './streams/streams-coordinator.js';
import type { StreamsGroupHeartbeatRequest } from '../protocol/messages/StreamsGroupHeartbeatRequest.js';
import type { DescribedGroup as StreamsDescribedGroup } from '../protocol/messages/StreamsGroupDescribeResponse.js';
import { describedGroupError } from './consumer/describe.js';
import type { OffsetStore } from './offsets/offset-store.js';
import { commitOffsets, type OffsetCommitContext, type OffsetTopics } from './offsets/offset-commit.js';
import { fetchOffsets } from './offsets/offset-fetch.js';
import { deleteOffsets } from './offsets/offset-delete.js';
import { commitTransactionalOffsets } from './offsets/txn-offset-commit.js';
import type { TxnOffsetCommitRequest } from '../protocol/messages/TxnOffsetCommitRequest.js';
import type { TxnOffsetCommitResponse } from '../protocol/messages/TxnOffsetCommitResponse.js';
import { GROUP_METADATA_TOPIC_NAME } from '../topics/topic-name.js';
import { groupsByOffsetsPartition } from './group-views.js';
import type { DescribeShareGroupOffsetsRequestGroup } from '../protocol/messages/DescribeShareGroupOffsetsRequest.js';
import type { DescribeShareGroupOffsetsResponseGroup } from '../protocol/messages/DescribeShareGroupOffsetsResponse.js';
import type { AlterShareGroupOffsetsRequestTopic } from '../protocol/messages/AlterShareGroupOffsetsRequest.js';
import type { AlterShareGroupOffsetsResponse } from '../protocol/messages/AlterShareGroupOffsetsResponse.js';
import type { DeleteShareGroupOffsetsResponse } from '../protocol/messages/DeleteShareGroupOffsetsResponse.js';

/** The group types ListGroups and DescribeGroups name (`GroupType`). */
export type GroupType = 'classic' | 'consumer' | 'share' | 'streams';

export interface GroupCoordinatorOptions {
  classic: ClassicGroupCoordinator;
  consumer: ConsumerGroupCoordinator;
  share: ShareGroupCoordinator;
  streams: StreamsGroupCoordinator;
  offsets: OffsetStore;
  topics: OffsetTopics;
  /** `offsets.topic.num.partitions` (OffsetDelete knows `__consumer_offsets` as a topic). */
  offsetsPartitions: number;
  /** `offset.metadata.max.bytes` */
  maxMetadataSize: number;
  /** `message.max.bytes` (default: no limit): an OffsetCommit whose records cannot fit one batch is refused before they are built. */
  maxBatchBytes?: number;
  time: Time;
  log: Logger;
}

export class GroupCoordinator {
  readonly classic: ClassicGroupCoordinator;
  readonly consumer: ConsumerGroupCoordinator;
  readonly share: ShareGroupCoordinator;
  readonly streams: StreamsGroupCoordinator;
  private readonly offsets: OffsetStore;
  private readonly topics: OffsetTopics;
  private readonly offsetsPartitions: number;
  private readonly maxMetadataSize: number;
  private readonly log: Logger;
  /** What OffsetCommit needs, built once (the commit path allocates nothing for it per request). */
  private commitContext: OffsetCommitContext;

  constructor(options: GroupCoordinatorOptions) {
    this.classic = options.classic;
    this.consumer = options.consumer;
    this.share = options.share;
    this.streams = options.streams;
    this.offsets = options.offsets;
    this.topics = options.topics;
    this.offsetsPartitions = options.offsetsPartitions;
    this.maxMetadataSize = options.maxMetadataSize;
    this.log = options.log;
    const time = options.time;
    this.commitContext = { groups: this, topics: this.topics, offsets: this.offsets, maxMetadataSize: this.maxMetadataSize, maxBatchBytes: options.maxBatchBytes ?? Infinity, now: () => time.now(), log: this.log };
  }

  /**
   * A simulated coordinator load of `groupId` (every group when null) began, ended or changed
   * (`ClusterControl.coordinatorLoadInProgress`); `loadingMs(group)` is how long each group is
   * still loading under every load window (0: loaded). A coordinator loading its partition holds
   * no timers, and once loaded Kafka 4.3's `GroupMetadataManager.onLoaded` starts every member's
   * timers (classic heartbeats, consumer and streams group session and rebalance timeouts, share
   * sessions) again: so a loading group's member timers are held (cancelled: a manual clock
   * advanced during the load fires none of them; adversarial trial, session 34) and start again
   * whole once its load ends (new-user trial
   * 25: a Connect worker lost its membership to a session timeout during an 8 s load).
   */
  loadChanged(groupId: string | null, loadingMs: (groupId: string) => number): void {
    this.classic.restartTimers(groupId, loadingMs);
    this.consumer.restartTimers(groupId, loadingMs);
    this.share.restartTimers(groupId, loadingMs);
    this.streams.restartTimers(groupId, loadingMs);
  }

  /** A new `message.max.bytes` (a dynamic change) for the OffsetCommits and OffsetDeletes from now on. */
  setMaxBatchBytes(bytes: number): void {
    this.commitContext = { ...this.commitContext, maxBatchBytes: bytes };
  }

  /** The type of the group holding `groupId` now (the latest state), or null when none does. */
  typeOf(groupId: string): GroupType | null {
    if (this.consumer.hasGroup(groupId)) return 'consumer';
    if (this.share.hasGroup(groupId)) return 'share';
    if (this.streams.hasGroup(groupId)) return 'streams';
    return this.classic.group(groupId) ? 'classic' : null;
  }

  // ---- classic group APIs ------------------------------------------------------------------

  /**
   * JoinGroup (`GroupCoordinatorService.joinGroup`): the request checks every group type shares
   * (INVALID_GROUP_ID, INVALID_SESSION_TIMEOUT); a non-empty consumer group takes the member as a
   * classic-protocol member; an empty one becomes a classic group, whatever the migration policy;
   * otherwise the classic coordinator serves it.
   */
  async joinGroup(req: JoinGroupRequest, ctx: ConsumerRequestContext): Promise<JoinGroupResponse> {
    const invalid = this.classic.joinGroupRequestError(req);
    if (invalid) return invalid;
    // `classicGroupJoin`: a share group's id answers INCONSISTENT_GROUP_PROTOCOL with no member id.
    if (this.share.hasGroup(req.groupId)) return errorJoin(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, '');
    // A streams group: INCONSISTENT_GROUP_PROTOCOL while it has members; an empty one becomes a classic group.
    if (this.streams.hasGroup(req.groupId)) {
      const converted = this.streams.takeEmptyGroupForClassicJoin(req.groupId);
      return converted === null ? errorJoin(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, '') : this.classic.joinGroup(req, ctx, converted);
    }
    if (this.consumer.servesClassicJoin(req.groupId)) return this.consumer.classicJoin(req, ctx);
    if (!this.consumer.hasGroup(req.groupId)) return this.classic.joinGroup(req, ctx);
    // An empty consumer group becomes a classic group in the same operation as the join, as in
    // Kafka's single coordinator step: its tombstones and the classic group's first record are one
    // write (a failure puts the consumer group back), and a ConsumerGroupHeartbeat arriving while
    // it is written finds the classic group, never no group at all.
    const converted = this.consumer.takeEmptyGroupForClassicJoin(req.groupId);
    if (converted === null) return errorJoin(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, req.memberId);
    return this.classic.joinGroup(req, ctx, converted);
  }

  /**
   * SyncGroup: as `KafkaApis.handleSyncGroupRequest`, a v5+ request without protocol type or name
   * is refused with INCONSISTENT_GROUP_PROTOCOL before any group is asked.
   */
  syncGroup(req: SyncGroupRequest, ctx: Pick<ClassicRequestContext, 'apiVersion'>): Promise<SyncGroupResponse> {
    if (lacksMandatoryProtocol(req, ctx.apiVersion)) return Promise.resolve(errorSync(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    if (req.groupId !== '' && this.consumer.hasGroup(req.groupId)) return this.consumer.classicSync(req);
    return this.classic.syncGroup(req, ctx);
  }

  heartbeat(req: HeartbeatRequest, ctx: Pick<ClassicRequestContext, 'apiVersion'>): Promise<HeartbeatResponse> {
    if (req.groupId !== '' && this.consumer.hasGroup(req.groupId)) return Promise.resolve({ throttleTimeMs: 0, errorCode: this.consumer.classicHeartbeat(req) });
    return this.classic.heartbeat(req, ctx);
  }

  /** LeaveGroup for the members named (a v0-2 request names one): a group error or per-member results. */
  leaveGroup(groupId: string, members: readonly MemberIdentity[]): Promise<LeaveGroupResult> {
    if (groupId !== '' && this.consumer.hasGroup(groupId)) return this.consumer.classicLeave(groupId, members);
    return this.classic.leaveGroup(groupId, members);
  }

  /**
   * DescribeGroups: the classic coordinator's view of each id (a consumer group is no classic
   * group: "Dead", and from v6 GROUP_ID_NOT_FOUND with Kafka's message). A request naming
   * `ELEMENTS_PER_SLICE` ids or more is answered in slices, one per turn of the event loop (issue
   * #16): each group as it stands when its slice runs.
   */
  describeGroups(groupIds: readonly string[], apiVersion: number): Promise<DescribedGroup[]> {
    return mapInSlices(groupIds, ELEMENTS_PER_SLICE, (groupId) => {
      const g = this.classic.describeGroup(groupId, apiVersion);
      if (apiVersion >= 6 && (this.consumer.hasGroup(groupId) || this.share.hasGroup(groupId) || this.streams.hasGroup(groupId))) g.errorMessage = `Group ${groupId} is not a classic group.`;
      return g;
    });
  }

  /** ListGroups: every group of every type passing the state and type filters, in slices. */
  async listGroups(statesFilter: readonly string[], typesFilter: readonly string[]): Promise<ListedGroup[]> {
    return [...(await this.classic.listGroups(statesFilter, typesFilter)), ...(await this.consumer.listGroups(statesFilter, typesFilter)), ...(await this.share.listGroups(statesFilter, typesFilter)), ...(await this.streams.listGroups(statesFilter, typesFilter))];
  }

  /**
   * DeleteGroups: one result per distinct id, in the order the ids first appear, from the
   * coordinator of the id's group type. An id named twice is answered once, as Kafka's
   * `DeletableGroupResultCollection` (keyed by group id) keeps the first result.
   */
  async deleteGroups(requested: readonly string[]): Promise<DeletableGroupResult[]> {
    const groupIds = [...new Set(requested)];
    const modern = new Map<string, () => Promise<number>>();
    for (const id of groupIds) {
      if (this.consumer.hasGroup(id)) modern.set(id, () => this.consumer.deleteGroup(id));
      else if (this.share.hasGroup(id)) modern.set(id, () => this.share.deleteGroup(id, () => this.offsets.tombstoneGroup(id)));
      else if (this.streams.hasGroup(id)) modern.set(id, () => this.streams.deleteGroup(id));
    }
    const classicResults = await this.classic.deleteGroups(groupIds.filter((id) => !modern.has(id)));
    const modernResults = new Map(await Promise.all([...modern].map(async ([id, del]) => [id, await del()] as const)));
    let next = 0;
    return groupIds.map((groupId) => (modernResults.has(groupId) ? { groupId, errorCode: modernResults.get(groupId)! } : classicResults[next++]!));
  }

  // ---- KIP-848 consumer group APIs -----------------------------------------------------------

  consumerGroupHeartbeat(req: ConsumerGroupHeartbeatRequest, ctx: ConsumerRequestContext): Promise<ConsumerGroupHeartbeatResponse> {
    // `getOrMaybeCreateConsumerGroup`: an id held by a share group is no consumer group.
    if (req.groupId !== '' && (this.share.hasGroup(req.groupId) || this.streams.hasGroup(req.groupId))) {
      return Promise.resolve({ throttleTimeMs: 0, errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${req.groupId} is not a consumer group.`, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null });
    }
    return this.consumer.heartbeat(req, ctx);
  }

  /** ConsumerGroupDescribe: INVALID_GROUP_ID for "", else the consumer coordinator's description. */
  consumerGroupDescribe(groupIds: readonly string[], includeAuthorizedOperations: boolean, authorizedOperations: number): ConsumerDescribedGroup[] {
    return groupIds.map((groupId) => {
      if (groupId === '') return describedGroupError(groupId, ErrorCode.INVALID_GROUP_ID, null);
      if (this.share.committedGroup(groupId) || this.streams.committedGroup(groupId)) return describedGroupError(groupId, ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
      return this.consumer.describe(groupId, includeAuthorizedOperations, authorizedOperations);
    });
  }

  // ---- share groups (KIP-932) ----------------------------------------------------------------

  shareGroupHeartbeat(req: ShareGroupHeartbeatRequest, ctx: { clientId: string; clientHost: string }): Promise<ShareGroupHeartbeatResponse> {
    return this.share.heartbeat(req, ctx);
  }

  /**
   * ShareGroupDescribe in `GroupCoordinatorService.shareGroupDescribe`'s order: INVALID_GROUP_ID for
   * each "" first, then the groups by `__consumer_offsets` partition (a Java HashMap of
   * TopicPartition), each partition's in request order.
   */
  shareGroupDescribe(groupIds: readonly string[], includeAuthorizedOperations: boolean, authorizedOperations: number): ShareDescribedGroup[] {
    const invalid = groupIds.filter((id) => id === '').map((id) => shareDescribedGroupError(id, ErrorCode.INVALID_GROUP_ID, null));
    const byPartition = groupsByOffsetsPartition(groupIds.filter((id) => id !== ''), this.offsetsPartitions);
    return [...invalid, ...byPartition.map((groupId) => this.share.describe(groupId, includeAuthorizedOperations, authorizedOperations))];
  }

  /** DescribeShareGroupOffsets for one group (`latestOffset`: a partition's high watermark); see `share/share-offsets.ts`. */
  describeShareGroupOffsets(req: DescribeShareGroupOffsetsRequestGroup, latestOffset: (topic: string, partition: number) => bigint | null): Promise<DescribeShareGroupOffsetsResponseGroup> {
    return this.share.describeOffsets(req, latestOffset);
  }

  /** AlterShareGroupOffsets (91) for the topics that exist; see `share/share-offsets-admin.ts`. */
  alterShareGroupOffsets(groupId: string, topics: readonly AlterShareGroupOffsetsRequestTopic[]): Promise<AlterShareGroupOffsetsResponse> {
    return this.share.alterOffsets(groupId, topics);
  }

  /** DeleteShareGroupOffsets (92); see `share/share-offsets-admin.ts`. */
  deleteShareGroupOffsets(groupId: string, topicNames: readonly string[]): Promise<DeleteShareGroupOffsetsResponse> {
    return this.share.deleteOffsets(groupId, topicNames);
  }

  // ---- streams groups (KIP-1071) -------------------------------------------------------------

  /** StreamsGroupHeartbeat: the answer and the internal topics the API layer is to create. */
  streamsGroupHeartbeat(req: StreamsGroupHeartbeatRequest, ctx: { clientId: string; clientHost: string }): Promise<StreamsHeartbeatAnswer> {
    return this.streams.heartbeat(req, ctx);
  }

  /** StreamsGroupDescribe, in the order `GroupCoordinatorService` answers (INVALID_GROUP_ID first, then by `__consumer_offsets` partition). */
  streamsGroupDescribe(groupIds: readonly string[], includeAuthorizedOperations: boolean, authorizedOperations: number): StreamsDescribedGroup[] {
    const invalid = groupIds.filter((id) => id === '');
    const byPartition = groupsByOffsetsPartition(groupIds.filter((id) => id !== ''), this.offsetsPartitions);
    return [...invalid, ...byPartition].map((groupId) => this.streams.describe(groupId, includeAuthorizedOperations, authorizedOperations));
  }

  // ---- offsets -------------------------------------------------------------------------------

  commitOffsets(req: OffsetCommitRequest, apiVersion: number): Promise<OffsetCommitResponse> {
    return commitOffsets(this.commitContext, req, apiVersion);
  }

  /**
   * TxnOffsetCommit (offsets/txn-offset-commit.ts); `verify` is the transaction coordinator's check
   * of the group's `__consumer_offsets` partition (added to the transaction when `implicitAdd`).
   */
  commitTransactionalOffsets(req: TxnOffsetCommitRequest, apiVersion: number, verify: (req: TxnOffsetCommitRequest, implicitAdd: boolean) => Promise<number>): Promise<TxnOffsetCommitResponse> {
    return commitTransactionalOffsets(
      { topics: this.topics, offsets: this.offsets, validateGroup: (r) => this.validateTransactionalCommit(r), verify, maxMetadataSize: this.maxMetadataSize, log: this.log },
      req,
      apiVersion,
    );
  }

  /**
   * `OffsetMetadataManager.validateTransactionalOffsetCommit`: an unknown group passes with a
   * negative generation (a simple group), else ILLEGAL_GENERATION; a consumer group checks the
   * member (a stale epoch is ILLEGAL_GENERATION); a classic group checks member, instance and
   * generation for a transactional commit.
   */
  private validateTransactionalCommit(req: TxnOffsetCommitRequest): OffsetCommitValidation {
    // A stale member epoch is ILLEGAL_GENERATION to a transactional commit, the group's and each
    // partition's (`OffsetMetadataManager.validateTransactionalOffsetCommit`).
    const illegal = (code: number) => (code === ErrorCode.STALE_MEMBER_EPOCH ? ErrorCode.ILLEGAL_GENERATION : code);
    const transactional = (v: OffsetCommitValidation): OffsetCommitValidation => {
      const partitionError = v.partitionError;
      return partitionError ? { errorCode: illegal(v.errorCode), partitionError: (topicId, p) => illegal(partitionError(topicId, p)) } : { errorCode: illegal(v.errorCode) };
    };
    if (this.streams.hasGroup(req.groupId)) {
      return transactional(this.streams.validateOffsetCommit(req.groupId, req.memberId, req.generationId, Number.MAX_SAFE_INTEGER, true, req.groupInstanceId));
    }
    if (this.consumer.hasGroup(req.groupId)) {
      // The transactional path has no version floor for KIP-848 members (isTransactional).
      return transactional(this.consumer.validateOffsetCommit(req.groupId, req.memberId, req.generationId, Number.MAX_SAFE_INTEGER));
    }
    const group = this.classic.group(req.groupId);
    if (!group) return { errorCode: req.generationId < 0 ? ErrorCode.NONE : ErrorCode.ILLEGAL_GENERATION };
    return { errorCode: group.validateOffsetCommit(req.memberId, req.groupInstanceId, req.generationId, true, Number.MAX_SAFE_INTEGER) };
  }

  fetchOffsets(req: OffsetFetchRequest, apiVersion: number): Promise<OffsetFetchResponse> {
    // `Group.validateOffsetFetch` of whichever group holds the id (an unknown group passes).
    const validateMember = (groupId: string, memberId: string | null, memberEpoch: number): number | null => {
      if (this.consumer.hasGroup(groupId)) return this.consumer.validateOffsetFetch(groupId, memberId, memberEpoch);
      // `ShareGroup.validateOffsetFetch` throws GroupIdNotFoundException, which
      // `OffsetMetadataManager.fetchOffsets` answers as a group without offsets (error 0; named
      // partitions -1, none listed for all): a share group commits none, so its (empty) offsets do.
      if (this.share.hasGroup(groupId)) return null;
      if (this.streams.hasGroup(groupId)) return this.streams.validateOffsetFetch(groupId, memberId, memberEpoch);
      return this.classic.existingGroup(groupId)?.validateOffsetFetch(memberId, memberEpoch) ?? null;
    };
    return fetchOffsets({ topics: this.topics, offsets: this.offsets, validateMember }, req, apiVersion);
  }

  deleteOffsets(req: OffsetDeleteRequest): Promise<OffsetDeleteResponse> {
    return deleteOffsets(
      {
        offsets: this.offsets,
        partitionCount: (topic) => (topic === GROUP_METADATA_TOPIC_NAME ? this.offsetsPartitions : this.topics.get(topic)?.partitionCount),
        subscriptionOf: (groupId) => this.subscriptionOf(groupId),
        log: this.log,
        maxBatchBytes: this.commitContext.maxBatchBytes,
      },
      req,
    );
  }

  /**
   * `GroupMetadataManager.group(id)` then `Group.validateOffsetDelete()`: an error code, or the
   * group's `isSubscribedToTopic`.
   */
  private subscriptionOf(groupId: string): number | ((topic: string) => boolean) {
    // `ShareGroup.validateOffsetDelete`: "Group g is not a consumer group."
    if (this.share.hasGroup(groupId)) return ErrorCode.GROUP_ID_NOT_FOUND;
    // `StreamsGroup.validateOffsetDelete` accepts any state.
    if (this.streams.hasGroup(groupId)) return (topic) => this.streams.isSubscribedToTopic(groupId, topic);
    if (this.consumer.hasGroup(groupId)) {
      // ConsumerGroup.validateOffsetDelete accepts any state; ModernGroup.isSubscribedToTopic.
      const view = this.consumer.retentionSource().group(groupId);
      return view ? (topic) => view.isSubscribedToTopic(topic) : ErrorCode.GROUP_ID_NOT_FOUND;
    }
    const group = this.classic.group(groupId);
    if (!group || group.isInState(ClassicGroupState.DEAD)) return ErrorCode.GROUP_ID_NOT_FOUND;
    // ClassicGroup.validateOffsetDelete: Stable, PreparingRebalance and CompletingRebalance groups
    // must use the consumer protocol; Empty groups always pass.
    if (!group.isInState(ClassicGroupState.EMPTY) && !group.usesConsumerProtocol()) return ErrorCode.NON_EMPTY_GROUP;
    return (topic) => group.isSubscribedToTopic(topic);
  }
}
