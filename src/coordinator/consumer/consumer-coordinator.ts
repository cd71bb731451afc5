/**
 * The KIP-848 consumer group coordinator: Kafka 4.3's `GroupMetadataManager.consumerGroupHeartbeat`,
 * `consumerGroupLeave`, `consumerGroupFenceMember`, the session and rebalance timers, the
 * `ConsumerGroupDescribe` / ListGroups / DeleteGroups parts for consumer groups and
 * `ConsumerGroup.validateOffsetCommit/Fetch`.
 *
 * State changes only by applying records (`apply`, also used by log replay): a heartbeat builds
 * records 5, 3, 7, 6, 8 (and 16 for regexes) in Kafka's order, applies each as it is built (all
 * validation happens before the first one), and the response waits until they are durable.
 */
import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ConsumerGroupHeartbeatRequest, TopicPartitions as RequestTopicPartitions } from '../../protocol/messages/ConsumerGroupHeartbeatRequest.js';
import type { ConsumerGroupHeartbeatResponse } from '../../protocol/messages/ConsumerGroupHeartbeatResponse.js';
import type { DescribedGroup as CgDescribedGroup, Member as CgDescribedMember, Assignment as CgDescribedAssignment } from '../../protocol/messages/ConsumerGroupDescribeResponse.js';
import type { ListedGroup } from '../../protocol/messages/ListGroupsResponse.js';
import type { Time } from '../../util/time.js';
import type { GroupLog } from '../group-log.js';
import type { ConsumerGroupRecord, CoordinatorRecord } from '../records.js';
import type { OffsetStore } from '../offsets/offset-store.js';
import { COMMIT_TIMESTAMP_EXPIRATION } from '../offsets/expiration-condition.js';
import type { RetentionGroupSource } from '../offsets/retention.js';
import { KeyedTimers } from '../classic/keyed-timers.js';
import type { ClassicUpgradeView } from '../classic/classic-coordinator.js';
import { decodeAssignment, decodeSubscription } from '../classic/consumer-protocol.js';
import type { JoinGroupRequest } from '../../protocol/messages/JoinGroupRequest.js';
import type { JoinGroupResponse } from '../../protocol/messages/JoinGroupResponse.js';
import type { SyncGroupRequest } from '../../protocol/messages/SyncGroupRequest.js';
import type { SyncGroupResponse } from '../../protocol/messages/SyncGroupResponse.js';
import type { HeartbeatRequest } from '../../protocol/messages/HeartbeatRequest.js';
import type { LeaveGroupRequest, MemberIdentity } from '../../protocol/messages/LeaveGroupRequest.js';
import type { LeaveGroupResponse, MemberResponse as LeaveMemberResponse } from '../../protocol/messages/LeaveGroupResponse.js';
import { Writer } from '../../protocol/primitives.js';
import * as ConsumerProtocolAssignmentSchema from '../../records/schemas/ConsumerProtocolAssignment.js';
import type { ClassicMemberMetadata } from '../../records/schemas/ConsumerGroupMemberMetadataValue.js';
import { RecordWriter } from '../classic/record-writer.js';
import {
  assignmentFromTargetRecord,
  assignmentToResponse,
  assignmentToTargetRecord,
  assignmentsEqual,
  partitionsOf,
  type Assignment,
  type EpochAssignment,
} from './assignment.js';
import { loadAssignors, parseAssignorNames, type AssignorSet } from './assignors.js';
import type { AssignmentMemberSpec } from './assignor/types.js';
import { ConsumerGroup, ConsumerGroupState, CONSUMER_GROUP_TYPE, CONSUMER_PROTOCOL_TYPE } from './consumer-group.js';
import { reconcile } from './current-assignment-builder.js';
import { ConsumerGroupError } from './errors.js';
import {
  LEAVE_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
  MemberState,
  applyCurrentAssignment,
  applyMemberMetadata,
  assignedPartitions,
  currentAssignmentValue,
  memberMetadataValue,
  metadataChanged,
  assignmentStateChanged,
  newMember,
  normalizeTopicNames,
  subscriptionChanged,
  useClassicProtocol,
  type ConsumerGroupMember,
} from './member.js';
import { computeMetadataHash } from './metadata-hash.js';
import { compileRegex, resolveRegex } from './regex.js';

/** What the coordinator needs to know about topics (a `TopicStore` fits). */
export interface ConsumerTopicSource {
  get(name: string): { name: string; topicId: string; partitionCount: number } | undefined;
  getById(topicId: string): { name: string; topicId: string; partitionCount: number } | undefined;
  list(): Array<{ name: string; topicId: string; partitionCount: number }>;
}

/** The classic coordinator, as far as group type conversion needs it. */
export interface ClassicGroupBridge {
  /** 'none' (no classic group), 'empty' (convertible whatever the policy) or 'non-empty'. */
  classicGroupStatus(groupId: string): 'none' | 'empty' | 'non-empty';
  /** Forgets an empty classic group and returns the records that delete it (its GroupMetadata tombstone). */
  removeEmptyClassicGroup(groupId: string): CoordinatorRecord[];
  /** A non-empty classic group as the online upgrade reads it (absent: no online upgrade). */
  upgradeView?(groupId: string): ClassicUpgradeView | null;
  /** Completes parked requests with REBALANCE_IN_PROGRESS, forgets the group, returns its tombstone. */
  takeGroupForUpgrade?(groupId: string): CoordinatorRecord[];
}

export interface ConsumerGroupCoordinatorOptions {
  config: BrokerConfig;
  log: Logger;
  time: Time;
  groupLog: Pick<GroupLog, 'append'>;
  topics: ConsumerTopicSource;
  offsets: Pick<OffsetStore, 'hasOffsets' | 'deleteGroupOffsets'>;
  classic?: ClassicGroupBridge;
}

export interface ConsumerRequestContext {
  readonly apiVersion: number;
  readonly clientId: string;
  readonly clientHost: string;
}

/** Kafka's `ConsumerGroupDescribeResponseData` member types (v1). */
const MEMBER_TYPE_CLASSIC = 0;
const MEMBER_TYPE_CONSUMER = 1;
const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

const sessionKey = (groupId: string, memberId: string) => `${groupId}\u0000cg-session\u0000${memberId}`;
const rebalanceKey = (groupId: string, memberId: string) => `${groupId}\u0000cg-rebalance\u0000${memberId}`;
const joinKey = (groupId: string, memberId: string) => `${groupId}\u0000cg-join\u0000${memberId}`;
const groupPrefix = (groupId: string) => `${groupId}\u0000`;

interface Settings {
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  assignmentIntervalMs: number;
  maxSize: number;
  migrationPolicy: string;
}

export class ConsumerGroupCoordinator {
  private readonly groups = new Map<string, ConsumerGroup>();
  private readonly settings: Settings;
  private readonly assignors: AssignorSet;
  private readonly timers: KeyedTimers;
  private readonly writer: RecordWriter;
  private readonly log: Logger;
  private readonly time: Time;
  private readonly topics: ConsumerTopicSource;
  private readonly offsets: ConsumerGroupCoordinatorOptions['offsets'];
  private readonly classic: ClassicGroupBridge | undefined;
  /** Sorted topic names at the last regex refresh, per group. */
  private readonly regexTopicSignature = new Map<string, string>();
  private regexVersion = 0n;

  constructor(options: ConsumerGroupCoordinatorOptions) {
    const { config } = options;
    this.settings = {
      sessionTimeoutMs: config.int('group.consumer.session.timeout.ms'),
      heartbeatIntervalMs: config.int('group.consumer.heartbeat.interval.ms'),
      assignmentIntervalMs: config.int('group.consumer.assignment.interval.ms'),
      maxSize: config.int('group.consumer.max.size'),
      migrationPolicy: config.string('group.consumer.migration.policy'),
    };
    this.assignors = loadAssignors(parseAssignorNames(config.string('group.consumer.assignors')));
    this.log = options.log;
    this.time = options.time;
    this.timers = new KeyedTimers(options.time);
    this.writer = new RecordWriter(options.groupLog, options.log);
    this.topics = options.topics;
    this.offsets = options.offsets;
    this.classic = options.classic;
  }

  // ---- lookups ----------------------------------------------------------------------------

  group(groupId: string): ConsumerGroup | undefined {
    return this.groups.get(groupId);
  }

  hasGroup(groupId: string): boolean {
    return this.groups.has(groupId);
  }

  allGroups(): ConsumerGroup[] {
    return [...this.groups.values()];
  }

  get defaultAssignorName(): string {
    return this.assignors.defaultAssignor.name;
  }

  // ---- ConsumerGroupHeartbeat -------------------------------------------------------------

  async heartbeat(req: ConsumerGroupHeartbeatRequest, ctx: ConsumerRequestContext): Promise<ConsumerGroupHeartbeatResponse> {
    const records: CoordinatorRecord[] = [];
    let response: ConsumerGroupHeartbeatResponse;
    try {
      this.validateRequest(req, ctx.apiVersion);
      if (req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
        response = this.leave(req.groupId, req.memberId, req.instanceId, req.memberEpoch, records);
      } else {
        response = this.join(req, ctx, records);
      }
    } catch (err) {
      if (err instanceof ConsumerGroupError) return errorResponse(err.errorCode, err.message);
      throw err;
    }
    try {
      if (records.length > 0) await this.writer.append(records);
    } catch (err) {
      this.log.error({ err, groupId: req.groupId }, 'failed to write consumer group records');
      return errorResponse(ErrorCode.NOT_COORDINATOR, 'The coordinator could not write the group records.');
    }
    return response;
  }

  /** `throwIfConsumerGroupHeartbeatRequestIsInvalid` (4.x, with KIP-1082 member ids). */
  private validateRequest(req: ConsumerGroupHeartbeatRequest, apiVersion: number): void {
    const invalid = (message: string) => new ConsumerGroupError(ErrorCode.INVALID_REQUEST, message);
    const blank = (s: string | null) => s !== null && s.trim() === '';
    if (blank(req.groupId)) throw invalid("GroupId can't be empty.");
    if (blank(req.instanceId)) throw invalid("InstanceId can't be empty.");
    if (blank(req.rackId)) throw invalid("RackId can't be empty.");
    if (apiVersion >= 1 || req.memberEpoch !== 0) {
      if (req.memberId.trim() === '') throw invalid("MemberId can't be empty.");
    }
    if (req.memberEpoch === 0) {
      if (req.rebalanceTimeoutMs === -1) throw invalid('RebalanceTimeoutMs must be provided in first request.');
      if (req.topicPartitions === null || req.topicPartitions.length > 0) throw invalid('TopicPartitions must be empty when (re-)joining.');
      if (req.subscribedTopicNames === null && req.subscribedTopicRegex === null) {
        throw invalid('SubscribedTopicNames or SubscribedTopicRegex must be set in first request.');
      }
    } else if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      if (req.instanceId === null) throw invalid("InstanceId can't be null.");
    } else if (req.memberEpoch < LEAVE_GROUP_MEMBER_EPOCH) {
      throw invalid('MemberEpoch is invalid.');
    }
    if (req.subscribedTopicRegex !== null && req.subscribedTopicRegex !== '') compileRegex(req.subscribedTopicRegex);
    if (req.serverAssignor !== null && !this.assignors.byName.has(req.serverAssignor)) {
      throw new ConsumerGroupError(
        ErrorCode.UNSUPPORTED_ASSIGNOR,
        `ServerAssignor ${req.serverAssignor} is not supported. Supported assignors: ${[...this.assignors.byName.keys()].join(', ')}.`,
      );
    }
  }

  private join(req: ConsumerGroupHeartbeatRequest, ctx: ConsumerRequestContext, records: CoordinatorRecord[]): ConsumerGroupHeartbeatResponse {
    const { groupId, memberEpoch } = req;
    const now = this.time.now();
    const createIfNotExists = memberEpoch === 0;
    const memberId = req.memberId === '' ? randomMemberId() : req.memberId;

    // Group lookup, conversion of an empty classic group, capacity.
    let group = this.groups.get(groupId);
    const classicStatus = group ? 'none' : (this.classic?.classicGroupStatus(groupId) ?? 'none');
    if (!group) {
      if (!createIfNotExists) throw new ConsumerGroupError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
    }
    // Online upgrade of a non-empty classic group (`validateOnlineUpgrade`, `fromClassicGroup`).
    const upgrade = !group && classicStatus === 'non-empty' ? this.planUpgrade(groupId) : null;
    if (upgrade && upgrade.members.length >= this.settings.maxSize && !upgrade.members.some((m) => m.memberId === memberId)) {
      throw new ConsumerGroupError(ErrorCode.GROUP_MAX_SIZE_REACHED, `The consumer group has reached its maximum capacity of ${this.settings.maxSize} members.`);
    }
    if (group && group.numMembers >= this.settings.maxSize && !group.members.has(memberId) && !(req.instanceId !== null && group.staticMembers.has(req.instanceId))) {
      throw new ConsumerGroupError(ErrorCode.GROUP_MAX_SIZE_REACHED, `The consumer group has reached its maximum capacity of ${this.settings.maxSize} members.`);
    }

    // Member lookup (throws before any record is built).
    const view = group ?? new ConsumerGroup(groupId);
    let member: ConsumerGroupMember;
    let replacing: ConsumerGroupMember | null = null;
    if (req.instanceId === null) {
      const existing = view.members.get(memberId);
      if (!existing && !createIfNotExists) {
        throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
      }
      member = existing ?? newMember(memberId);
      if (existing) throwIfMemberEpochIsInvalid(existing, memberEpoch, req.topicPartitions);
    } else {
      const existingStatic = view.staticMember(req.instanceId);
      if (createIfNotExists) {
        if (!existingStatic) {
          const existing = view.members.get(memberId);
          member = existing ?? newMember(memberId);
          if (existing) throwIfMemberEpochIsInvalid(existing, memberEpoch, req.topicPartitions);
        } else {
          if (!useClassicProtocol(existingStatic) && existingStatic.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
            throw new ConsumerGroupError(
              ErrorCode.UNRELEASED_INSTANCE_ID,
              `Static member ${existingStatic.memberId} with instance id ${req.instanceId} cannot be replaced because it is still in the group.`,
            );
          }
          replacing = existingStatic;
          member = { ...existingStatic, memberId, memberEpoch: 0, previousMemberEpoch: 0 };
        }
      } else {
        if (!existingStatic) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`);
        if (existingStatic.memberId !== memberId) {
          throw new ConsumerGroupError(
            ErrorCode.FENCED_INSTANCE_ID,
            `Static member ${memberId} with instance id ${req.instanceId} is not the member ${existingStatic.memberId} that owns the instance id.`,
          );
        }
        throwIfMemberEpochIsInvalid(existingStatic, memberEpoch, req.topicPartitions);
        member = existingStatic;
      }
    }

    // From here on, records are built and applied.
    const emit = (r: ConsumerGroupRecord) => {
      records.push(r);
      this.apply(r);
    };
    if (!group && upgrade) {
      group = this.convertToConsumerGroup(groupId, upgrade, records);
    }
    if (!group) {
      if (classicStatus === 'empty' && this.classic) {
        records.push(...this.classic.removeEmptyClassicGroup(groupId));
        this.log.info({ groupId }, 'converted an empty classic group to a consumer group');
      }
      group = this.getOrCreateGroup(groupId);
    }
    if (group.hasLegacyPartitionMetadata) emit({ kind: 'cg-partition-metadata', groupId, value: null });
    if (replacing) {
      // `replaceMember`: the new member id takes over the instance, its target and its assignment.
      const oldTarget = group.targetOf(replacing.memberId);
      emit({ kind: 'cg-current-assignment', groupId, memberId: replacing.memberId, value: null });
      emit({ kind: 'cg-target-member', groupId, memberId: replacing.memberId, value: null });
      emit({ kind: 'cg-member-metadata', groupId, memberId: replacing.memberId, value: null });
      this.cancelMemberTimers(groupId, replacing.memberId);
      emit({ kind: 'cg-member-metadata', groupId, memberId, value: memberMetadataValue(member) });
      emit({ kind: 'cg-target-member', groupId, memberId, value: { topicPartitions: assignmentToTargetRecord(oldTarget) } });
      emit({ kind: 'cg-current-assignment', groupId, memberId, value: currentAssignmentValue(member) });
    }
    const before = member;

    // 1. Member metadata and subscription.
    let updated: ConsumerGroupMember = {
      ...member,
      instanceId: req.instanceId ?? member.instanceId,
      rackId: req.rackId ?? member.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs !== -1 ? req.rebalanceTimeoutMs : member.rebalanceTimeoutMs,
      serverAssignor: req.serverAssignor ?? member.serverAssignor,
      subscribedTopicNames: req.subscribedTopicNames !== null ? normalizeTopicNames(req.subscribedTopicNames) : member.subscribedTopicNames,
      subscribedTopicRegex: req.subscribedTopicRegex ?? member.subscribedTopicRegex,
      clientId: ctx.clientId,
      clientHost: ctx.clientHost,
      classicMemberMetadata: null,
    };
    updated = this.updateAndReconcile(group, member, updated, req.topicPartitions, now, emit);

    this.timers.cancel(joinKey(groupId, memberId));
    this.scheduleSessionTimeout(groupId, memberId);

    const response: ConsumerGroupHeartbeatResponse = {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      memberId,
      memberEpoch: updated.memberEpoch,
      heartbeatIntervalMs: this.settings.heartbeatIntervalMs,
      assignment: null,
    };
    const isFullRequest =
      req.rebalanceTimeoutMs !== -1 && (req.subscribedTopicNames !== null || req.subscribedTopicRegex !== null) && req.topicPartitions !== null;
    if (memberEpoch === 0 || isFullRequest || !assignmentsEqual(assignedPartitions(before), assignedPartitions(updated))) {
      response.assignment = { topicPartitions: assignmentToResponse(assignedPartitions(updated)) };
    }
    return response;
  }

  /**
   * Steps 1-3 of a heartbeat or of a classic JoinGroup into the consumer group: the member's
   * record 5 (and regex), the group epoch, the target assignment and the member's reconciliation.
   */
  private updateAndReconcile(
    group: ConsumerGroup,
    member: ConsumerGroupMember,
    updated: ConsumerGroupMember,
    owned: readonly RequestTopicPartitions[] | null,
    now: number,
    emit: (r: ConsumerGroupRecord) => void,
  ): ConsumerGroupMember {
    const { groupId } = group;
    const { memberId } = updated;
    const isNew = !group.members.has(memberId);
    let bumpGroupEpoch = false;
    if (isNew || metadataChanged(member, updated) || classicMetadataChanged(member.classicMemberMetadata, updated.classicMemberMetadata)) {
      emit({ kind: 'cg-member-metadata', groupId, memberId, value: memberMetadataValue(updated) });
      if (subscriptionChanged(member, updated)) bumpGroupEpoch = true;
    }
    if (this.maybeUpdateRegexes(group, member.subscribedTopicRegex, updated.subscribedTopicRegex, emit)) bumpGroupEpoch = true;

    // Group epoch: subscription change or subscribed topic metadata change.
    const metadataHash = this.subscriptionMetadataHash(group);
    let groupEpoch = group.groupEpoch;
    if (bumpGroupEpoch || metadataHash !== group.metadataHash) {
      groupEpoch += 1;
      emit({ kind: 'cg-metadata', groupId, value: { epoch: groupEpoch, metadataHash } });
      this.log.info({ groupId, groupEpoch }, 'bumped consumer group epoch');
    }

    // 2. Target assignment.
    if (groupEpoch > group.assignmentEpoch && this.canComputeTargetAssignment(group, now)) {
      this.updateTargetAssignment(group, groupEpoch, now, emit);
    }

    // 3. Reconciliation.
    updated = group.members.get(memberId) ?? updated;
    if (!(updated.state === MemberState.STABLE && updated.memberEpoch === group.assignmentEpoch)) {
      const reconciled = reconcile({
        member: updated,
        targetEpoch: group.assignmentEpoch,
        target: group.targetOf(memberId),
        currentPartitionEpoch: (t, p) => group.currentPartitionEpoch(t, p),
        owned,
      });
      if (assignmentStateChanged(updated, reconciled)) {
        emit({ kind: 'cg-current-assignment', groupId, memberId, value: currentAssignmentValue(reconciled) });
        if (reconciled.state === MemberState.UNREVOKED_PARTITIONS) {
          this.scheduleRebalanceTimeout(groupId, memberId, reconciled.memberEpoch, reconciled.rebalanceTimeoutMs);
        } else {
          this.timers.cancel(rebalanceKey(groupId, memberId));
        }
      }
      updated = reconciled;
    }

    return updated;
  }

  // ---- online upgrade: classic group -> consumer group ---------------------------------------

  /**
   * `validateOnlineUpgrade` plus the parsing `ConsumerGroup.fromClassicGroup` does: the members
   * the consumer group starts with, or GROUP_ID_NOT_FOUND when the policy forbids the upgrade,
   * the group does not use the consumer protocol, is too large, or its embedded protocol cannot
   * be converted. Nothing changes here.
   */
  private planUpgrade(groupId: string): { generationId: number; members: ConsumerGroupMember[] } {
    const notFound = (why: string) => new ConsumerGroupError(ErrorCode.GROUP_ID_NOT_FOUND, why);
    const policy = this.settings.migrationPolicy;
    const view = this.classic?.upgradeView?.(groupId) ?? null;
    if (!view || (policy !== 'bidirectional' && policy !== 'upgrade')) throw notFound(`Group ${groupId} is not a consumer group.`);
    if (view.protocolType !== CONSUMER_PROTOCOL_TYPE) throw notFound(`Group ${groupId} is not a consumer group.`);
    if (view.members.length > this.settings.maxSize) throw notFound(`Group ${groupId} is not a consumer group.`);
    const malformed = () => notFound(`Cannot upgrade classic group ${groupId} to consumer group because the embedded consumer protocol is malformed.`);
    const members = view.members.map((cm): ConsumerGroupMember => {
      if (cm.metadata === null) throw malformed();
      const subscription = decodeSubscription(cm.metadata);
      if (subscription === null) throw malformed();
      const assigned: EpochAssignment = new Map();
      if (cm.assignment.length > 0) {
        const assignment = decodeAssignment(cm.assignment);
        if (assignment === null) throw malformed();
        if (assignment.userData !== null && assignment.userData.length > 0) {
          throw notFound(
            `Cannot upgrade classic group ${groupId} to consumer group because an unsupported custom assignor is in use. Please refer to the documentation or switch to a default assignor before re-attempting the upgrade.`,
          );
        }
        for (const tp of assignment.assignedPartitions) {
          const topic = this.topics.get(tp.topic);
          if (!topic) continue;
          const parts = assigned.get(topic.topicId) ?? new Map<number, number>();
          for (const p of tp.partitions) parts.set(p, view.generationId);
          assigned.set(topic.topicId, parts);
        }
      }
      return {
        ...newMember(cm.memberId),
        instanceId: cm.groupInstanceId,
        rackId: subscription.rackId,
        clientId: cm.clientId,
        clientHost: cm.clientHost,
        subscribedTopicNames: normalizeTopicNames(subscription.topics),
        rebalanceTimeoutMs: cm.rebalanceTimeoutMs,
        classicMemberMetadata: {
          sessionTimeoutMs: cm.sessionTimeoutMs,
          supportedProtocols: cm.supportedProtocols.map((p) => ({ name: p.name, metadata: p.metadata })),
        },
        memberEpoch: view.generationId,
        previousMemberEpoch: view.generationId,
        state: MemberState.STABLE,
        assigned,
      };
    });
    return { generationId: view.generationId, members };
  }

  /**
   * `convertToConsumerGroup`: the classic group's parked requests get REBALANCE_IN_PROGRESS and
   * its GroupMetadata is tombstoned, then `createConsumerGroupRecords` writes every member's
   * record 5, the group epoch (3, the classic generation), every target (7, the member's classic
   * assignment), the target epoch (6, timestamp 0) and every current assignment (8).
   */
  private convertToConsumerGroup(groupId: string, plan: { generationId: number; members: ConsumerGroupMember[] }, records: CoordinatorRecord[]): ConsumerGroup {
    records.push(...(this.classic?.takeGroupForUpgrade?.(groupId) ?? []));
    const out: ConsumerGroupRecord[] = [];
    const emit = (r: ConsumerGroupRecord) => {
      out.push(r);
      records.push(r);
      this.apply(r);
    };
    const group = this.getOrCreateGroup(groupId);
    for (const m of plan.members) emit({ kind: 'cg-member-metadata', groupId, memberId: m.memberId, value: memberMetadataValue(m) });
    emit({ kind: 'cg-metadata', groupId, value: { epoch: plan.generationId, metadataHash: this.subscriptionMetadataHash(group) } });
    for (const m of plan.members) {
      emit({ kind: 'cg-target-member', groupId, memberId: m.memberId, value: { topicPartitions: assignmentToTargetRecord(assignedPartitions(m)) } });
    }
    emit({ kind: 'cg-target-metadata', groupId, value: { assignmentEpoch: plan.generationId, assignmentTimestamp: 0n } });
    for (const m of plan.members) emit({ kind: 'cg-current-assignment', groupId, memberId: m.memberId, value: currentAssignmentValue(m) });
    for (const m of plan.members) this.scheduleSessionTimeout(groupId, m.memberId, m.classicMemberMetadata?.sessionTimeoutMs);
    this.log.info({ groupId, members: plan.members.length, generationId: plan.generationId }, 'converted a non-empty classic group to a consumer group');
    return group;
  }

  // ---- classic-protocol members inside a consumer group --------------------------------------

  /** Whether classic JoinGroup requests for this group are served here (a non-empty consumer group). */
  servesClassicJoin(groupId: string): boolean {
    const group = this.groups.get(groupId);
    return group !== undefined && !group.isEmpty();
  }

  /** `validateConsumerGroupMember` + `throwIfMemberDoesNotUseClassicProtocol`. */
  private classicMember(group: ConsumerGroup, memberId: string, instanceId: string | null): ConsumerGroupMember {
    let member: ConsumerGroupMember | undefined;
    if (instanceId === null) {
      member = group.members.get(memberId);
      if (!member) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${group.groupId}.`);
    } else {
      member = group.staticMember(instanceId);
      if (!member) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member with instance id ${instanceId} is not a member of group ${group.groupId}.`);
      if (member.memberId !== memberId) throw new ConsumerGroupError(ErrorCode.FENCED_INSTANCE_ID, `Static member ${memberId} with instance id ${instanceId} is fenced.`);
    }
    if (!useClassicProtocol(member)) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} does not use the classic protocol.`);
    return member;
  }

  /**
   * `classicGroupJoinToConsumerGroup`: a classic member (re)joins a non-empty consumer group. Its
   * subscription and owned partitions come from the first protocol's ConsumerProtocol metadata;
   * the answer carries its member epoch as the generation and no member list (the assignment
   * comes from the target, returned by SyncGroup).
   */
  async classicJoin(req: JoinGroupRequest, ctx: ConsumerRequestContext): Promise<JoinGroupResponse> {
    const fail = (errorCode: number, memberId = req.memberId): JoinGroupResponse => ({
      throttleTimeMs: 0, errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', skipAssignment: false, memberId, members: [],
    });
    const group = this.groups.get(req.groupId);
    if (!group) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    const { groupId } = group;
    const isUnknownMember = req.memberId === '';
    const memberId = isUnknownMember ? randomMemberId() : req.memberId;
    const records: CoordinatorRecord[] = [];
    let response: JoinGroupResponse;
    try {
      if (!group.members.has(memberId) && group.numMembers >= this.settings.maxSize) {
        throw new ConsumerGroupError(ErrorCode.GROUP_MAX_SIZE_REACHED, 'The consumer group is full.');
      }
      if (req.protocolType !== CONSUMER_PROTOCOL_TYPE || req.protocols.length === 0) {
        throw new ConsumerGroupError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, 'The protocol type or protocols are not supported.');
      }
      if (this.settings.migrationPolicy === 'disabled') {
        throw new ConsumerGroupError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, 'Classic members may not join a non-empty consumer group.');
      }
      // `JoinGroupRequest.requiresKnownMemberId`.
      if (isUnknownMember && req.groupInstanceId === null && ctx.apiVersion >= 4) return fail(ErrorCode.MEMBER_ID_REQUIRED, memberId);
      let member: ConsumerGroupMember;
      if (req.groupInstanceId === null) {
        const existing = group.members.get(memberId);
        if (!existing && !isUnknownMember) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
        member = existing ?? newMember(memberId);
      } else {
        const existing = group.staticMember(req.groupInstanceId);
        if (!existing) {
          if (!isUnknownMember) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.groupInstanceId} is unknown.`);
          member = newMember(memberId);
        } else if (existing.memberId === memberId) {
          member = existing;
        } else {
          throw new ConsumerGroupError(ErrorCode.FENCED_INSTANCE_ID, `Static member ${memberId} with instance id ${req.groupInstanceId} is fenced.`);
        }
      }
      const subscription = decodeSubscription(req.protocols[0]!.metadata);
      if (subscription === null) throw new ConsumerGroupError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, 'The embedded consumer protocol is malformed.');
      const owned: RequestTopicPartitions[] = subscription.ownedPartitions.flatMap((tp) => {
        const topic = this.topics.get(tp.topic);
        return topic ? [{ topicId: topic.topicId, partitions: [...tp.partitions] }] : [];
      });
      const now = this.time.now();
      const emit = (r: ConsumerGroupRecord) => {
        records.push(r);
        this.apply(r);
      };
      if (group.hasLegacyPartitionMetadata) emit({ kind: 'cg-partition-metadata', groupId, value: null });
      const rebalanceTimeoutMs = ctx.apiVersion === 0 ? req.sessionTimeoutMs : req.rebalanceTimeoutMs;
      const updated: ConsumerGroupMember = {
        ...member,
        instanceId: req.groupInstanceId ?? member.instanceId,
        rackId: subscription.rackId ?? member.rackId,
        rebalanceTimeoutMs: rebalanceTimeoutMs !== -1 ? rebalanceTimeoutMs : member.rebalanceTimeoutMs,
        subscribedTopicNames: normalizeTopicNames(subscription.topics),
        clientId: ctx.clientId,
        clientHost: ctx.clientHost,
        classicMemberMetadata: { sessionTimeoutMs: req.sessionTimeoutMs, supportedProtocols: req.protocols.map((p) => ({ name: p.name, metadata: p.metadata })) },
      };
      const reconciled = this.updateAndReconcile(group, member, updated, owned, now, emit);
      response = {
        throttleTimeMs: 0,
        errorCode: ErrorCode.NONE,
        generationId: reconciled.memberEpoch,
        protocolType: CONSUMER_PROTOCOL_TYPE,
        protocolName: req.protocols[0]!.name,
        leader: '',
        skipAssignment: false,
        memberId,
        members: [],
      };
    } catch (err) {
      if (err instanceof ConsumerGroupError) return fail(err.errorCode);
      throw err;
    }
    try {
      if (records.length > 0) await this.writer.append(records);
    } catch (err) {
      this.log.error({ err, groupId }, 'failed to write consumer group records');
      return fail(ErrorCode.NOT_COORDINATOR);
    }
    this.timers.cancel(joinKey(groupId, memberId));
    this.scheduleSessionTimeout(groupId, memberId, req.sessionTimeoutMs);
    return response;
  }

  /**
   * `classicGroupSyncToConsumerGroup`: the member's current assignment as ConsumerProtocolAssignment
   * bytes, at the version of its first protocol's subscription.
   */
  async classicSync(req: SyncGroupRequest): Promise<SyncGroupResponse> {
    const fail = (errorCode: number): SyncGroupResponse => ({ throttleTimeMs: 0, errorCode, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) });
    const group = this.groups.get(req.groupId);
    if (!group) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    try {
      const member = this.classicMember(group, req.memberId, req.groupInstanceId);
      if (req.generationId !== member.memberEpoch) throw new ConsumerGroupError(ErrorCode.ILLEGAL_GENERATION, 'Illegal generation.');
      const protocols = member.classicMemberMetadata!.supportedProtocols;
      if ((req.protocolType !== null && req.protocolType !== CONSUMER_PROTOCOL_TYPE) || (req.protocolName !== null && !protocols.some((p) => p.name === req.protocolName))) {
        throw new ConsumerGroupError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, 'Inconsistent protocol.');
      }
      if (group.assignmentEpoch > member.memberEpoch && member.state !== MemberState.UNREVOKED_PARTITIONS) {
        this.scheduleJoinTimeoutIfAbsent(group.groupId, member.memberId, member.rebalanceTimeoutMs);
        throw new ConsumerGroupError(ErrorCode.REBALANCE_IN_PROGRESS, 'A new rebalance is triggered.');
      }
      this.scheduleSessionTimeout(group.groupId, member.memberId, member.classicMemberMetadata!.sessionTimeoutMs);
      const version = protocols[0] && protocols[0].metadata.length >= 2 ? protocols[0].metadata.readInt16BE(0) : 0;
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, protocolType: req.protocolType, protocolName: req.protocolName, assignment: this.serializeAssignment(assignedPartitions(member), version) };
    } catch (err) {
      if (err instanceof ConsumerGroupError) return fail(err.errorCode);
      throw err;
    }
  }

  private serializeAssignment(assignment: Assignment, version: number): Buffer {
    const v = Math.max(0, Math.min(version, ConsumerProtocolAssignmentSchema.MAX_VERSION));
    const assignedPartitions = [...assignment].flatMap(([topicId, parts]) => {
      const topic = this.topics.getById(topicId);
      return topic ? [{ topic: topic.name, partitions: [...parts].sort((a, b) => a - b) }] : [];
    });
    const w = new Writer();
    w.int16(v);
    ConsumerProtocolAssignmentSchema.encode(w, v, { assignedPartitions, userData: null });
    return w.finish();
  }

  /**
   * `classicGroupHeartbeatToConsumerGroup`: REBALANCE_IN_PROGRESS when the member must rejoin
   * (behind the target epoch, revoking, or its unreleased partitions are free), else NONE.
   */
  classicHeartbeat(req: HeartbeatRequest): number {
    const group = this.groups.get(req.groupId);
    if (!group) return ErrorCode.UNKNOWN_MEMBER_ID;
    try {
      const member = this.classicMember(group, req.memberId, req.groupInstanceId);
      if (req.generationId !== member.memberEpoch) return ErrorCode.ILLEGAL_GENERATION;
      this.scheduleSessionTimeout(group.groupId, member.memberId, member.classicMemberMetadata!.sessionTimeoutMs);
      if (
        member.memberEpoch < group.assignmentEpoch ||
        member.state === MemberState.UNREVOKED_PARTITIONS ||
        (member.state === MemberState.UNRELEASED_PARTITIONS && !this.waitingOnUnreleasedPartition(group, member))
      ) {
        this.scheduleJoinTimeoutIfAbsent(group.groupId, member.memberId, member.rebalanceTimeoutMs);
        return ErrorCode.REBALANCE_IN_PROGRESS;
      }
      return ErrorCode.NONE;
    } catch (err) {
      if (err instanceof ConsumerGroupError) return err.errorCode;
      throw err;
    }
  }

  /** `ConsumerGroup.waitingOnUnreleasedPartition`: part of the member's target is still held by another member. */
  private waitingOnUnreleasedPartition(group: ConsumerGroup, member: ConsumerGroupMember): boolean {
    for (const [topicId, parts] of group.targetOf(member.memberId)) {
      for (const p of parts) {
        if (member.assigned.get(topicId)?.has(p)) continue;
        if (group.currentPartitionEpoch(topicId, p) !== -1) return true;
      }
    }
    return false;
  }

  /** `classicGroupLeaveToConsumerGroup`: each named classic member is fenced (8, 7, 5 tombstones, epoch bump). */
  async classicLeave(req: LeaveGroupRequest, apiVersion: number): Promise<LeaveGroupResponse> {
    const group = this.groups.get(req.groupId);
    const batched = apiVersion >= 3;
    const identities: MemberIdentity[] = batched ? req.members : [{ memberId: req.memberId, groupInstanceId: null, reason: null }];
    const records: CoordinatorRecord[] = [];
    const results: LeaveMemberResponse[] = identities.map((id) => {
      const result: LeaveMemberResponse = { memberId: id.memberId, groupInstanceId: id.groupInstanceId, errorCode: ErrorCode.NONE };
      if (!group) return { ...result, errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
      try {
        let member: ConsumerGroupMember | undefined;
        if (id.groupInstanceId === null) {
          member = group.members.get(id.memberId);
          if (!member) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, 'unknown member');
        } else {
          member = group.staticMember(id.groupInstanceId);
          if (!member) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, 'unknown instance id');
          if (id.memberId !== '' && member.memberId !== id.memberId) throw new ConsumerGroupError(ErrorCode.FENCED_INSTANCE_ID, 'fenced');
        }
        if (!useClassicProtocol(member)) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, 'not a classic member');
        records.push(...this.fenceMember(group, member, 'the classic member left the group'));
        return { ...result, memberId: member.memberId };
      } catch (err) {
        if (err instanceof ConsumerGroupError) return { ...result, errorCode: err.errorCode };
        throw err;
      }
    });
    try {
      if (records.length > 0) await this.writer.append(records);
    } catch (err) {
      this.log.error({ err, groupId: req.groupId }, 'failed to write consumer group records');
      return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_COORDINATOR, members: [] };
    }
    if (batched) return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, members: results };
    return { throttleTimeMs: 0, errorCode: results[0]?.errorCode ?? ErrorCode.NONE, members: [] };
  }

  /** `scheduleConsumerGroupJoinTimeoutIfAbsent`: a classic member told to rejoin is fenced if it does not. */
  private scheduleJoinTimeoutIfAbsent(groupId: string, memberId: string, rebalanceTimeoutMs: number): void {
    const key = joinKey(groupId, memberId);
    if (this.timers.has(key)) return;
    this.timers.schedule(key, Math.max(0, rebalanceTimeoutMs), () => {
      const group = this.groups.get(groupId);
      const member = group?.members.get(memberId);
      if (!group || !member) return;
      this.writer.appendLogged(this.fenceMember(group, member, 'the classic member did not rejoin within the rebalance timeout'), 'consumer group join timeout');
    });
  }

  /** Kafka 4.3 (KIP-1263): a new target at most every `group.consumer.assignment.interval.ms`. */
  private canComputeTargetAssignment(group: ConsumerGroup, now: number): boolean {
    if (this.settings.assignmentIntervalMs === 0 || group.assignmentTimestamp === 0n) return true;
    return BigInt(now) >= group.assignmentTimestamp + BigInt(this.settings.assignmentIntervalMs);
  }

  /** The topic names a member subscribes to: its names plus what its regex resolved to. */
  private effectiveTopics(group: ConsumerGroup, m: ConsumerGroupMember): string[] {
    if (m.subscribedTopicRegex === '') return [...m.subscribedTopicNames];
    const resolved = group.resolvedRegexes.get(m.subscribedTopicRegex)?.topics ?? [];
    return [...new Set([...m.subscribedTopicNames, ...resolved])];
  }

  private subscribedTopicNames(group: ConsumerGroup): Set<string> {
    const names = new Set<string>();
    for (const m of group.members.values()) for (const t of this.effectiveTopics(group, m)) names.add(t);
    return names;
  }

  private subscriptionMetadataHash(group: ConsumerGroup): bigint {
    const topics = [...this.subscribedTopicNames(group)].flatMap((name) => {
      const t = this.topics.get(name);
      return t ? [{ name: t.name, topicId: t.topicId, partitionCount: t.partitionCount }] : [];
    });
    return computeMetadataHash(topics);
  }

  /**
   * Resolves a member's new regex (record 16), tombstones a regex nobody uses any more, and refreshes
   * every resolution when the set of topics changed (Kafka does this asynchronously; here it is
   * done within the heartbeat). Returns true when a resolution changed (the group epoch bumps).
   */
  private maybeUpdateRegexes(group: ConsumerGroup, oldRegex: string, newRegex: string, emit: (r: ConsumerGroupRecord) => void): boolean {
    const { groupId } = group;
    const topicNames = this.topics.list().map((t) => t.name).filter((n) => !n.startsWith('__')).sort();
    const signature = topicNames.join('\u0000');
    let changed = false;
    const resolve = (regex: string) => {
      const topics = resolveRegex(regex, topicNames);
      const prev = group.resolvedRegexes.get(regex);
      if (prev && prev.topics.length === topics.length && prev.topics.every((t, i) => t === topics[i])) return;
      this.regexVersion += 1n;
      emit({ kind: 'cg-regex', groupId, regex, value: { topics, version: this.regexVersion, timestamp: BigInt(this.time.now()) } });
      changed = true;
    };
    if (newRegex !== '' && !group.resolvedRegexes.has(newRegex)) resolve(newRegex);
    if (oldRegex !== '' && oldRegex !== newRegex && group.resolvedRegexes.has(oldRegex)) {
      const stillUsed = [...group.members.values()].some((m) => m.subscribedTopicRegex === oldRegex);
      if (!stillUsed) {
        emit({ kind: 'cg-regex', groupId, regex: oldRegex, value: null });
        changed = true;
      }
    }
    if (this.regexTopicSignature.get(groupId) !== signature) {
      this.regexTopicSignature.set(groupId, signature);
      for (const regex of [...group.resolvedRegexes.keys()]) resolve(regex);
    }
    return changed;
  }

  /** `TargetAssignmentBuilder`: runs the group's assignor and writes the changed targets (7) and the epoch (6). */
  private updateTargetAssignment(group: ConsumerGroup, groupEpoch: number, now: number, emit: (r: ConsumerGroupRecord) => void): void {
    const { groupId } = group;
    const assignorName = group.preferredServerAssignor();
    const assignor = (assignorName !== null ? this.assignors.byName.get(assignorName) : undefined) ?? this.assignors.defaultAssignor;
    const specs = new Map<string, AssignmentMemberSpec>();
    const topicCounts = new Map<string, number>();
    for (const m of group.members.values()) {
      const ids = new Set<string>();
      for (const name of this.effectiveTopics(group, m)) {
        const t = this.topics.get(name);
        if (t) ids.add(t.topicId);
      }
      for (const id of ids) topicCounts.set(id, (topicCounts.get(id) ?? 0) + 1);
      specs.set(m.memberId, {
        memberId: m.memberId,
        instanceId: m.instanceId,
        rackId: m.rackId,
        subscribedTopicIds: ids,
        assignedPartitions: group.targetOf(m.memberId),
      });
    }
    const homogeneous = [...topicCounts.values()].every((n) => n === group.numMembers);
    const result = assignor.assign(
      { members: specs, subscriptionType: homogeneous ? 'HOMOGENEOUS' : 'HETEROGENEOUS' },
      { numPartitions: (topicId) => this.topics.getById(topicId)?.partitionCount ?? -1 },
    );
    for (const memberId of group.members.keys()) {
      const next: Assignment = result.members.get(memberId) ?? new Map();
      const prev = group.targetAssignment.get(memberId);
      if (prev === undefined || !assignmentsEqual(prev, next)) {
        emit({ kind: 'cg-target-member', groupId, memberId, value: { topicPartitions: assignmentToTargetRecord(next) } });
      }
    }
    emit({ kind: 'cg-target-metadata', groupId, value: { assignmentEpoch: groupEpoch, assignmentTimestamp: BigInt(now) } });
    this.log.info({ groupId, assignmentEpoch: groupEpoch, assignor: assignor.name }, 'computed new target assignment');
  }

  // ---- leave and fencing -------------------------------------------------------------------

  private leave(groupId: string, memberId: string, instanceId: string | null, memberEpoch: number, records: CoordinatorRecord[]): ConsumerGroupHeartbeatResponse {
    const group = this.groups.get(groupId);
    if (!group) throw new ConsumerGroupError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
    const respond = (): ConsumerGroupHeartbeatResponse => ({
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      memberId,
      memberEpoch,
      heartbeatIntervalMs: 0,
      assignment: null,
    });
    let member: ConsumerGroupMember;
    if (instanceId === null) {
      const found = group.members.get(memberId);
      if (!found) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
      member = found;
    } else {
      const found = group.staticMember(instanceId);
      if (!found) throw new ConsumerGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${instanceId} is unknown.`);
      if (found.memberId !== memberId) {
        throw new ConsumerGroupError(
          ErrorCode.FENCED_INSTANCE_ID,
          `Static member ${memberId} with instance id ${instanceId} is not the member ${found.memberId} that owns the instance id.`,
        );
      }
      member = found;
      if (memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
        // `consumerGroupStaticMemberGroupLeave`: keep the assignment, epoch -2; the session timer runs on.
        const left: ConsumerGroupMember = { ...member, memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH, pendingRevocation: new Map() };
        const r: ConsumerGroupRecord = { kind: 'cg-current-assignment', groupId, memberId, value: currentAssignmentValue(left) };
        records.push(r);
        this.apply(r);
        this.timers.cancel(rebalanceKey(groupId, memberId));
        this.log.info({ groupId, memberId, instanceId }, 'static member left the consumer group temporarily');
        return respond();
      }
    }
    records.push(...this.fenceMember(group, member, 'the member left the group'));
    return respond();
  }

  /**
   * `consumerGroupFenceMember`: tombstones the member's records (8, 7, 5), drops a regex nobody
   * uses any more (16) and bumps the group epoch (3). Applies them and returns them.
   */
  private fenceMember(group: ConsumerGroup, member: ConsumerGroupMember, reason: string): CoordinatorRecord[] {
    const { groupId } = group;
    const { memberId } = member;
    const out: ConsumerGroupRecord[] = [];
    const emit = (r: ConsumerGroupRecord) => {
      out.push(r);
      this.apply(r);
    };
    emit({ kind: 'cg-current-assignment', groupId, memberId, value: null });
    emit({ kind: 'cg-target-member', groupId, memberId, value: null });
    emit({ kind: 'cg-member-metadata', groupId, memberId, value: null });
    const regex = member.subscribedTopicRegex;
    if (regex !== '' && group.resolvedRegexes.has(regex) && ![...group.members.values()].some((m) => m.subscribedTopicRegex === regex)) {
      emit({ kind: 'cg-regex', groupId, regex, value: null });
    }
    emit({ kind: 'cg-metadata', groupId, value: { epoch: group.groupEpoch + 1, metadataHash: this.subscriptionMetadataHash(group) } });
    this.cancelMemberTimers(groupId, memberId);
    this.log.info({ groupId, memberId, groupEpoch: group.groupEpoch }, `member removed from the consumer group: ${reason}`);
    return out;
  }

  private cancelMemberTimers(groupId: string, memberId: string): void {
    this.timers.cancel(joinKey(groupId, memberId));
    this.timers.cancel(sessionKey(groupId, memberId));
    this.timers.cancel(rebalanceKey(groupId, memberId));
  }

  private scheduleSessionTimeout(groupId: string, memberId: string, timeoutMs = this.settings.sessionTimeoutMs): void {
    this.timers.schedule(sessionKey(groupId, memberId), timeoutMs, () => {
      const group = this.groups.get(groupId);
      const member = group?.members.get(memberId);
      if (!group || !member) return;
      this.writer.appendLogged(this.fenceMember(group, member, 'the member session expired'), 'consumer group session expiry');
    });
  }

  private scheduleRebalanceTimeout(groupId: string, memberId: string, memberEpoch: number, rebalanceTimeoutMs: number): void {
    this.timers.schedule(rebalanceKey(groupId, memberId), Math.max(0, rebalanceTimeoutMs), () => {
      const group = this.groups.get(groupId);
      const member = group?.members.get(memberId);
      if (!group || !member) return;
      if (member.state === MemberState.UNREVOKED_PARTITIONS && member.memberEpoch === memberEpoch) {
        this.writer.appendLogged(this.fenceMember(group, member, 'the member failed to revoke partitions within the rebalance timeout'), 'consumer group rebalance timeout');
      }
    });
  }

  // ---- records ----------------------------------------------------------------------------

  private getOrCreateGroup(groupId: string): ConsumerGroup {
    let group = this.groups.get(groupId);
    if (!group) this.groups.set(groupId, (group = new ConsumerGroup(groupId)));
    return group;
  }

  /** Applies one consumer-group record: live, and when the log is replayed at start. */
  apply(record: ConsumerGroupRecord): void {
    const { groupId } = record;
    if (record.value === null) {
      const group = this.groups.get(groupId);
      if (!group) return;
      switch (record.kind) {
        case 'cg-metadata':
          this.groups.delete(groupId);
          this.timers.cancelPrefix(groupPrefix(groupId));
          this.regexTopicSignature.delete(groupId);
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
    const group = this.getOrCreateGroup(groupId);
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
        if (record.value.version > this.regexVersion) this.regexVersion = record.value.version;
        return;
    }
  }

  /**
   * After the log is replayed (`GroupMetadataManager.onLoaded`): every member's session timer
   * starts now, and members still revoking get their rebalance timer.
   */
  onLoaded(): void {
    for (const group of this.groups.values()) {
      for (const m of group.members.values()) {
        this.scheduleSessionTimeout(group.groupId, m.memberId, m.classicMemberMetadata?.sessionTimeoutMs ?? this.settings.sessionTimeoutMs);
        if (m.state === MemberState.UNREVOKED_PARTITIONS) this.scheduleRebalanceTimeout(group.groupId, m.memberId, m.memberEpoch, m.rebalanceTimeoutMs);
      }
    }
  }

  shutdown(): void {
    this.timers.cancelAll();
  }

  // ---- admin: describe, list, delete --------------------------------------------------------

  /** ConsumerGroupDescribe (key 69) for one group (`ConsumerGroup.asDescribedGroup`). */
  describe(groupId: string, includeAuthorizedOperations: boolean, authorizedOperations: number): CgDescribedGroup {
    const group = this.groups.get(groupId);
    if (!group) {
      const classic = this.classic?.classicGroupStatus(groupId) ?? 'none';
      return {
        errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
        errorMessage: classic === 'none' ? `Group ${groupId} not found.` : `Group ${groupId} is not a consumer group.`,
        groupId,
        groupState: '',
        groupEpoch: 0,
        assignmentEpoch: 0,
        assignorName: '',
        members: [],
        authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
      };
    }
    const describeAssignment = (a: Assignment): CgDescribedAssignment => ({
      topicPartitions: assignmentToResponse(a).flatMap((tp) => {
        const topic = this.topics.getById(tp.topicId);
        return topic ? [{ topicId: tp.topicId, topicName: topic.name, partitions: tp.partitions }] : [];
      }),
    });
    const members: CgDescribedMember[] = [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      rackId: m.rackId,
      memberEpoch: m.memberEpoch,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...m.subscribedTopicNames],
      // Kafka reports the stored value: "" for a member subscribed by names.
      subscribedTopicRegex: m.subscribedTopicRegex,
      // `asConsumerGroupDescribeMember`: the partitions still pending revocation are listed too.
      assignment: describeAssignment(mergeAssignments(partitionsOf(m.assigned), partitionsOf(m.pendingRevocation))),
      targetAssignment: describeAssignment(group.targetOf(m.memberId)),
      memberType: useClassicProtocol(m) ? MEMBER_TYPE_CLASSIC : MEMBER_TYPE_CONSUMER,
    }));
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      groupId,
      groupState: group.state,
      groupEpoch: group.groupEpoch,
      assignmentEpoch: group.assignmentEpoch,
      assignorName: group.preferredServerAssignor() ?? this.assignors.defaultAssignor.name,
      members,
      authorizedOperations: includeAuthorizedOperations ? authorizedOperations : AUTHORIZED_OPERATIONS_OMITTED,
    };
  }

  /** ListGroups entries for consumer groups passing the state (case-insensitive) and type filters. */
  listGroups(statesFilter: readonly string[] = [], typesFilter: readonly string[] = []): ListedGroup[] {
    const states = new Set(statesFilter.map((s) => s.trim().toLowerCase()));
    const types = new Set(typesFilter.map((t) => t.trim().toLowerCase()));
    if (types.size > 0 && !types.has(CONSUMER_GROUP_TYPE)) return [];
    return [...this.groups.values()]
      .filter((g) => states.size === 0 || states.has(g.state.toLowerCase()))
      .map((g) => ({ groupId: g.groupId, protocolType: CONSUMER_PROTOCOL_TYPE, groupState: g.state, groupType: CONSUMER_GROUP_TYPE }));
  }

  /** DeleteGroups for a consumer group: NON_EMPTY_GROUP unless Empty; else offsets and group tombstoned. */
  async deleteGroup(groupId: string): Promise<number> {
    const group = this.groups.get(groupId);
    if (!group) return ErrorCode.GROUP_ID_NOT_FOUND;
    if (!group.isEmpty()) return ErrorCode.NON_EMPTY_GROUP;
    const records = this.groupTombstones(group);
    try {
      await Promise.all([this.offsets.deleteGroupOffsets(groupId), this.writer.append(records)]);
    } catch (err) {
      this.log.error({ err, groupId }, 'failed to write consumer group deletion');
      return ErrorCode.NOT_COORDINATOR;
    }
    this.log.info({ groupId }, 'consumer group deleted');
    return ErrorCode.NONE;
  }

  /**
   * `ConsumerGroup.createGroupTombstoneRecords`: every 8, every 7, 6, every 5, the regexes (16),
   * a leftover 4, then 3; applied at once (the group is forgotten).
   */
  private groupTombstones(group: ConsumerGroup): ConsumerGroupRecord[] {
    const { groupId } = group;
    const out: ConsumerGroupRecord[] = [];
    for (const memberId of group.members.keys()) out.push({ kind: 'cg-current-assignment', groupId, memberId, value: null });
    for (const memberId of group.targetAssignment.keys()) out.push({ kind: 'cg-target-member', groupId, memberId, value: null });
    out.push({ kind: 'cg-target-metadata', groupId, value: null });
    for (const memberId of group.members.keys()) out.push({ kind: 'cg-member-metadata', groupId, memberId, value: null });
    for (const regex of group.resolvedRegexes.keys()) out.push({ kind: 'cg-regex', groupId, regex, value: null });
    if (group.hasLegacyPartitionMetadata) out.push({ kind: 'cg-partition-metadata', groupId, value: null });
    out.push({ kind: 'cg-metadata', groupId, value: null });
    for (const r of out) this.apply(r);
    return out;
  }

  /**
   * Converts an empty consumer group for a classic JoinGroup (Kafka converts an empty group in
   * either direction whatever the migration policy): returns the tombstones written, or null when
   * the group is not an empty consumer group.
   */
  removeEmptyGroupForClassicJoin(groupId: string): Promise<void> | null {
    const group = this.groups.get(groupId);
    if (!group || !group.isEmpty()) return null;
    const records = this.groupTombstones(group);
    this.log.info({ groupId }, 'converted an empty consumer group to a classic group');
    return this.writer.append(records);
  }

  /** The offsets retention sweep's view of consumer groups. */
  retentionSource(): RetentionGroupSource {
    return {
      groupIds: () => [...this.groups.keys()],
      group: (groupId) => {
        const group = this.groups.get(groupId);
        if (!group) return undefined;
        return {
          offsetExpirationCondition: () => COMMIT_TIMESTAMP_EXPIRATION,
          isSubscribedToTopic: (topic: string) => this.subscribedTopicNames(group).has(topic),
        };
      },
      deleteGroupIfEmpty: (groupId) => {
        const group = this.groups.get(groupId);
        if (!group || !group.isEmpty() || this.offsets.hasOffsets(groupId)) return null;
        return this.writer.append(this.groupTombstones(group));
      },
    };
  }

  // ---- OffsetCommit / OffsetFetch ------------------------------------------------------------

  /**
   * `ConsumerGroup.validateOffsetCommit` (4.3, KIP-1251). Returns a group-level error, or a
   * per-partition check: a member committing with an older epoch than its own may commit only the
   * partitions it has held since that epoch (assignment epoch <= the request's epoch).
   */
  validateOffsetCommit(
    groupId: string,
    memberId: string,
    memberEpoch: number,
    apiVersion: number,
  ): { errorCode: number; partitionError?: (topicId: string, partition: number) => number } {
    const group = this.groups.get(groupId);
    if (!group) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND };
    if (memberEpoch < 0 && group.isEmpty()) return { errorCode: ErrorCode.NONE };
    const member = group.members.get(memberId);
    if (!member) return { errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
    const classic = useClassicProtocol(member);
    if (!classic && apiVersion < 9) return { errorCode: ErrorCode.UNSUPPORTED_VERSION };
    if (classic) return { errorCode: memberEpoch === member.memberEpoch ? ErrorCode.NONE : ErrorCode.ILLEGAL_GENERATION };
    if (memberEpoch === member.memberEpoch) return { errorCode: ErrorCode.NONE };
    if (memberEpoch > member.memberEpoch || memberEpoch < 0) return { errorCode: ErrorCode.STALE_MEMBER_EPOCH };
    return {
      errorCode: ErrorCode.NONE,
      partitionError: (topicId, partition) => {
        const assignedAt = member.assigned.get(topicId)?.get(partition) ?? member.pendingRevocation.get(topicId)?.get(partition);
        return assignedAt !== undefined && assignedAt <= memberEpoch ? ErrorCode.NONE : ErrorCode.STALE_MEMBER_EPOCH;
      },
    };
  }

  /** `ConsumerGroup.validateOffsetFetch`: null id with a negative epoch skips the check. */
  validateOffsetFetch(groupId: string, memberId: string | null, memberEpoch: number): number {
    const group = this.groups.get(groupId);
    if (!group) return ErrorCode.NONE;
    if (memberId === null && memberEpoch < 0) return ErrorCode.NONE;
    const member = memberId === null ? undefined : group.members.get(memberId);
    if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (memberEpoch === member.memberEpoch) return ErrorCode.NONE;
    return useClassicProtocol(member) ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.STALE_MEMBER_EPOCH;
  }

  /** Member epochs in the group, for tests and admin views. */
  snapshot(groupId: string): ConsumerGroup | undefined {
    return this.groups.get(groupId);
  }
}

/**
 * `throwIfConsumerGroupMemberEpochIsInvalid` (4.3): epoch 0 always passes, so a known member id
 * rejoins after being fenced (KAFKA-19233: KIP-848/KIP-1082 clients keep their member id and send
 * epoch 0); the previous epoch passes only with owned ⊆ assigned.
 */
function throwIfMemberEpochIsInvalid(member: ConsumerGroupMember, received: number, owned: readonly RequestTopicPartitions[] | null): void {
  if (received === 0) return;
  if (received > member.memberEpoch) {
    throw new ConsumerGroupError(
      ErrorCode.FENCED_MEMBER_EPOCH,
      `The consumer group member has a greater member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
  }
  if (received < member.memberEpoch) {
    if (received !== member.previousMemberEpoch || !isSubset(owned, member)) {
      throw new ConsumerGroupError(
        ErrorCode.FENCED_MEMBER_EPOCH,
        `The consumer group member has a smaller member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
      );
    }
  }
}

function classicMetadataChanged(a: ClassicMemberMetadata | null, b: ClassicMemberMetadata | null): boolean {
  if (a === null || b === null) return a !== b;
  if (a.sessionTimeoutMs !== b.sessionTimeoutMs || a.supportedProtocols.length !== b.supportedProtocols.length) return true;
  return a.supportedProtocols.some((p, i) => p.name !== b.supportedProtocols[i]!.name || !p.metadata.equals(b.supportedProtocols[i]!.metadata));
}

function mergeAssignments(a: Assignment, b: Assignment): Assignment {
  const out: Assignment = new Map();
  for (const x of [a, b]) {
    for (const [topicId, parts] of x) {
      const set = out.get(topicId) ?? new Set<number>();
      for (const p of parts) set.add(p);
      out.set(topicId, set);
    }
  }
  return out;
}

function isSubset(owned: readonly RequestTopicPartitions[] | null, member: ConsumerGroupMember): boolean {
  if (owned === null) return false;
  for (const tp of owned) {
    const parts = member.assigned.get(tp.topicId);
    if (!parts) return false;
    for (const p of tp.partitions) if (!parts.has(p)) return false;
  }
  return true;
}

function errorResponse(errorCode: number, message: string): ConsumerGroupHeartbeatResponse {
  return { throttleTimeMs: 0, errorCode, errorMessage: message, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
}

/** A member id as Kafka's `Uuid.randomUuid().toString()` prints it (base64url, 22 characters). */
function randomMemberId(): string {
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(16))).toString('base64url');
}

export { ConsumerGroupState };
