/**
 * ShareGroupHeartbeat (KIP-932) as Kafka 4.3's `GroupMetadataManager.shareGroupHeartbeat`,
 * `shareGroupLeave` and `shareGroupFenceMember`: join at epoch 0 with a client-generated member id,
 * heartbeat at the current (or previous) epoch, leave with -1. A subscription change or a new
 * metadata hash bumps the group epoch (record 11); a new target assignment is computed with the
 * `simple` assignor over the partitions whose share state is initialized (records 13, 12); the
 * member moves straight to the target (record 14: share partitions need no revocation). Partitions
 * subscribed to but not yet initialized are recorded as initializing (record 15) and returned for
 * the persister to initialize once the records are durable.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { ShareGroupHeartbeatRequest } from '../../protocol/messages/ShareGroupHeartbeatRequest.js';
import type { ShareGroupHeartbeatResponse } from '../../protocol/messages/ShareGroupHeartbeatResponse.js';
import { javaHashSetOrder } from '../../util/java-hash.js';
import { computeMetadataHash } from '../consumer/metadata-hash.js';
import { PartitionAssignorError } from '../consumer/assignor/types.js';
import type { CoordinatorRecord } from '../records.js';
import { assignSimple, type ShareAssignorMember } from './simple-assignor.js';
import type { ShareEmit } from './share-group-store.js';
import {
  ShareGroup,
  SHARE_LEAVE_GROUP_MEMBER_EPOCH,
  SHARE_MEMBER_STABLE,
  currentAssignmentValue,
  memberMetadataValue,
  membersEqual,
  newShareMember,
  partitionsEqual,
  partitionsToRecord,
  sameNames,
  uniqueNames,
  type Partitions,
  type ShareGroupMember,
} from './share-group.js';
import { ShareGroupError, type ShareContext } from './share-context.js';
import { initializingPartitions, type InitializeRequest } from './share-state-init.js';

export interface HeartbeatClient {
  readonly clientId: string;
  readonly clientHost: string;
}

export interface HeartbeatResult {
  response: ShareGroupHeartbeatResponse;
  /** Partitions to initialize through the persister once the records are durable. */
  initialize: InitializeRequest | null;
}

const invalid = (message: string) => new ShareGroupError(ErrorCode.INVALID_REQUEST, message);
/** An error answered without a message (`errorMessage` null). */
export const NO_MESSAGE = '';

/**
 * `KafkaApis.handleShareGroupHeartbeatRequest` (member id present and at most 36 characters) and
 * `GroupCoordinatorService.throwIfShareGroupHeartbeatRequestIsInvalid`.
 */
export function throwIfShareGroupHeartbeatRequestIsInvalid(req: ShareGroupHeartbeatRequest): void {
  // KafkaApis answers with `getErrorResponse(exception)`, which carries the code and no message.
  if (req.memberId === '' || req.memberId.length > 36) throw new ShareGroupError(ErrorCode.INVALID_REQUEST, NO_MESSAGE);
  const blank = (s: string | null) => s !== null && s.trim() === '';
  if (blank(req.memberId)) throw invalid("MemberId can't be empty.");
  if (blank(req.groupId)) throw invalid("GroupId can't be empty.");
  if (blank(req.rackId)) throw invalid("RackId can't be empty.");
  if (req.memberEpoch === 0) {
    if (req.subscribedTopicNames === null || req.subscribedTopicNames.length === 0) throw invalid('SubscribedTopicNames must be set in first request.');
  } else if (req.memberEpoch < SHARE_LEAVE_GROUP_MEMBER_EPOCH) {
    throw invalid('MemberEpoch is invalid.');
  }
}

/** `GroupMetadataManager.shareGroup(groupId)` on the latest state: the group, or GROUP_ID_NOT_FOUND. */
export function existingShareGroup(ctx: ShareContext, groupId: string, groupTaken: (groupId: string) => boolean): ShareGroup {
  const group = ctx.store.get(groupId);
  if (group) return group;
  if (groupTaken(groupId)) throw new ShareGroupError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a share group.`);
  throw new ShareGroupError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
}

function memberOf(group: ShareGroup, memberId: string): ShareGroupMember {
  const m = group.members.get(memberId);
  if (!m) throw new ShareGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${group.groupId}.`);
  return m;
}

/** `shareGroupLeave`: the member's records are tombstoned and the group epoch bumps. */
export function shareGroupLeave(ctx: ShareContext, req: ShareGroupHeartbeatRequest, records: CoordinatorRecord[], groupTaken: (groupId: string) => boolean): ShareGroupHeartbeatResponse {
  const group = existingShareGroup(ctx, req.groupId, groupTaken);
  const member = memberOf(group, req.memberId);
  ctx.log.info({ groupId: req.groupId, memberId: req.memberId }, 'member left the share group');
  fenceShareMember(ctx, group, member, ctx.store.emitInto(records));
  return response(req.memberId, req.memberEpoch, 0, null);
}

/** `shareGroupFenceMember`: records 14, 13 and 10 tombstoned, then record 11 with the next epoch and the hash without the member. */
export function fenceShareMember(ctx: ShareContext, group: ShareGroup, member: ShareGroupMember, emit: ShareEmit): void {
  const { groupId } = group;
  const { memberId } = member;
  const hash = metadataHashOf(ctx, group.subscriptionCounts(member, null));
  emit({ kind: 'share-group-current-member-assignment', groupId, memberId, value: null });
  emit({ kind: 'share-group-target-assignment-member', groupId, memberId, value: null });
  emit({ kind: 'share-group-member-metadata', groupId, memberId, value: null });
  emit({ kind: 'share-group-metadata', groupId, value: { epoch: group.groupEpoch + 1, metadataHash: hash } });
  ctx.timers.cancelSession(groupId, memberId);
}

/** `shareGroupHeartbeat` for any epoch but -1. */
export function shareGroupHeartbeatJoin(
  ctx: ShareContext,
  req: ShareGroupHeartbeatRequest,
  client: HeartbeatClient,
  records: CoordinatorRecord[],
  groupTaken: (groupId: string) => boolean,
): HeartbeatResult {
  const { groupId, memberId, memberEpoch } = req;
  const now = ctx.time.now();
  const createIfNotExists = memberEpoch === 0;

  // getOrMaybeCreateShareGroup: a new group exists only once its first record is applied.
  let group = ctx.store.get(groupId);
  if (!group) {
    if (groupTaken(groupId)) throw new ShareGroupError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a share group.`);
    if (!createIfNotExists) throw new ShareGroupError(ErrorCode.GROUP_ID_NOT_FOUND, `Share group ${groupId} not found.`);
  }
  const view = group ?? new ShareGroup(groupId);
  if (view.members.size >= ctx.settings.maxSize && !view.members.has(memberId)) {
    throw new ShareGroupError(ErrorCode.GROUP_MAX_SIZE_REACHED, `The share group has reached its maximum capacity of ${ctx.settings.maxSize} members.`);
  }
  let member = view.members.get(memberId);
  if (!member) {
    if (!createIfNotExists) throw new ShareGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
    member = newShareMember(memberId);
    ctx.log.info({ groupId, memberId }, 'member joins the share group');
  }
  throwIfMemberEpochIsInvalid(member, memberEpoch);

  const emit = ctx.store.emitInto(records);
  let updated: ShareGroupMember = {
    ...member,
    rackId: req.rackId ?? member.rackId,
    subscribedTopicNames: req.subscribedTopicNames !== null ? uniqueNames(req.subscribedTopicNames) : member.subscribedTopicNames,
    clientId: client.clientId,
    clientHost: client.clientHost,
  };
  // hasMemberSubscriptionChanged: record 10 when anything of the member changed.
  let subscriptionChanged = false;
  if (!membersEqual(updated, member) || !view.members.has(memberId)) {
    emit({ kind: 'share-group-member-metadata', groupId, memberId, value: memberMetadataValue(updated) });
    subscriptionChanged = !sameNames(updated.subscribedTopicNames, member.subscribedTopicNames);
  }
  group = ctx.store.get(groupId) ?? view;
  let bumpGroupEpoch = subscriptionChanged;
  let groupEpoch = group.groupEpoch;
  if (group.assignmentEpoch >= groupEpoch) bumpGroupEpoch ||= initializedAssignmentPending(group);

  // Record 10 is applied already: the group's subscriptions include the member's new ones.
  const counts = group.subscriptionCounts();
  const homogeneous = isHomogeneous(counts, group.members.size);
  if (bumpGroupEpoch || group.metadataExpired || group.metadataEpoch > groupEpoch) {
    const hash = metadataHashOf(ctx, counts);
    if (hash !== group.metadataHash) bumpGroupEpoch = true;
    if (bumpGroupEpoch) {
      groupEpoch += 1;
      emit({ kind: 'share-group-metadata', groupId, value: { epoch: groupEpoch, metadataHash: hash } });
    }
    group.metadataExpired = false;
    group.metadataEpoch = groupEpoch;
  }

  const { epoch: targetEpoch, assignment: target } = maybeUpdateTargetAssignment(ctx, group, groupEpoch, updated, homogeneous, now, emit);
  updated = maybeReconcile(ctx, group, updated, targetEpoch, target, subscriptionChanged, emit);

  ctx.timers.scheduleSession(groupId, memberId);
  const assignmentChanged = !partitionsEqual(member.assigned, updated.assigned);
  const withAssignment = memberEpoch === 0 || req.subscribedTopicNames !== null || assignmentChanged;
  const initialize = initializingPartitions(ctx, ctx.store.get(groupId)!, groupEpoch, [...counts.keys()], now, emit);
  return { response: response(memberId, updated.memberEpoch, ctx.settings.heartbeatIntervalMs(groupId), withAssignment ? updated.assigned : null), initialize };
}

/** `throwIfShareGroupMemberEpochIsInvalid`: 0 always passes; the previous epoch passes too. */
function throwIfMemberEpochIsInvalid(member: ShareGroupMember, received: number): void {
  if (received === 0) return;
  if (received > member.memberEpoch) {
    throw new ShareGroupError(
      ErrorCode.FENCED_MEMBER_EPOCH,
      `The share group member has a greater member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
  }
  if (received < member.memberEpoch && received !== member.previousMemberEpoch) {
    throw new ShareGroupError(
      ErrorCode.FENCED_MEMBER_EPOCH,
      `The share group member has a smaller member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}), and it does not match the previous member epoch (${member.previousMemberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
  }
}

/** `ModernGroup.subscriptionType`: homogeneous when every subscribed topic is subscribed by every member. */
function isHomogeneous(counts: ReadonlyMap<string, number>, numMembers: number): boolean {
  for (const n of counts.values()) if (n !== numMembers) return false;
  return true;
}

/** `ModernGroup.computeMetadataHash` over the subscribed topics that exist. */
function metadataHashOf(ctx: ShareContext, counts: ReadonlyMap<string, number>): bigint {
  return computeMetadataHash(
    [...counts.keys()].flatMap((name) => {
      const t = ctx.topics.get(name);
      return t ? [{ name: t.name, topicId: t.topicId, partitionCount: t.partitionCount }] : [];
    }),
  );
}

/**
 * `initializedAssignmentPending`: an initialized topic the group subscribes to whose partitions are
 * not all in the target assignment (its share state was initialized since the last assignment).
 */
function initializedAssignmentPending(group: ShareGroup): boolean {
  if (group.isEmpty()) return false;
  const initialized = group.stateMetadata?.initialized;
  if (!initialized || initialized.size === 0) return false;
  const subscribed = group.subscriptionCounts();
  if (subscribed.size === 0) return false;
  const assigned = new Map<string, Set<number>>();
  for (const a of group.targetAssignment.values()) {
    for (const [topicId, parts] of a) {
      const set = assigned.get(topicId) ?? new Set<number>();
      for (const p of parts) set.add(p);
      assigned.set(topicId, set);
    }
  }
  for (const [topicId, topic] of initialized) {
    if (!subscribed.has(topic.name)) continue;
    const current = assigned.get(topicId);
    if (!current || current.size !== topic.partitions.size || [...topic.partitions].some((p) => !current.has(p))) return true;
  }
  return false;
}

/** `maybeUpdateTargetAssignment` (share): the member's target and its epoch. */
function maybeUpdateTargetAssignment(
  ctx: ShareContext,
  group: ShareGroup,
  groupEpoch: number,
  updated: ShareGroupMember,
  homogeneous: boolean,
  now: number,
  emit: ShareEmit,
): { epoch: number; assignment: Partitions } {
  const last = { epoch: group.assignmentEpoch, assignment: group.targetAssignment.get(updated.memberId) ?? new Map() };
  if (group.assignmentEpoch >= groupEpoch) return last;
  const interval = ctx.settings.assignmentIntervalMs(group.groupId);
  const ts = Number(group.assignmentTimestamp);
  if (!(ts === 0 || interval === 0 || now >= ts + interval)) return last;

  const assignable = new Map<string, Set<number>>();
  for (const [topicId, t] of group.stateMetadata?.initialized ?? []) assignable.set(topicId, new Set(t.partitions));
  const members = new Map<string, ShareAssignorMember>();
  const specOf = (m: ShareGroupMember): ShareAssignorMember => ({
    // `TopicIds` over the member's HashSet of names: Java's order of `new HashSet<>(names)`.
    subscribedTopicIds: javaHashSetOrder(m.subscribedTopicNames).flatMap((name) => {
      const t = ctx.topics.get(name);
      return t ? [t.topicId] : [];
    }),
    assignment: group.targetAssignment.get(m.memberId) ?? new Map(),
  });
  for (const m of group.members.values()) if (m.memberId !== updated.memberId) members.set(m.memberId, specOf(m));
  members.set(updated.memberId, specOf(updated));
  let result: Map<string, Map<string, Set<number>>>;
  try {
    result = assignSimple({
      members,
      homogeneous,
      assignable,
      numPartitions: (topicId) => ctx.topics.getById(topicId)?.partitionCount ?? -1,
    });
  } catch (err) {
    if (err instanceof PartitionAssignorError) {
      throw new ShareGroupError(ErrorCode.UNKNOWN_SERVER_ERROR, `Failed to compute a new target assignment for epoch ${groupEpoch}: ${err.message}`);
    }
    throw err;
  }
  const { groupId } = group;
  for (const memberId of javaHashSetOrder([...members.keys()])) {
    const next = result.get(memberId) ?? new Map<string, Set<number>>();
    const old = group.targetAssignment.get(memberId);
    if (!old || !partitionsEqual(old, next)) {
      emit({ kind: 'share-group-target-assignment-member', groupId, memberId, value: { topicPartitions: partitionsToRecord(next) } });
    }
  }
  emit({ kind: 'share-group-target-assignment-metadata', groupId, value: { assignmentEpoch: groupEpoch, assignmentTimestamp: BigInt(now) } });
  ctx.log.info({ groupId, epoch: groupEpoch }, "computed a new target assignment with the 'simple' assignor");
  return { epoch: groupEpoch, assignment: result.get(updated.memberId) ?? new Map() };
}

/**
 * `maybeReconcile` with `ShareGroupAssignmentBuilder`: a member behind the target epoch takes the
 * target (only the topics it subscribes to) and the epoch; a changed subscription re-filters it.
 */
function maybeReconcile(
  ctx: ShareContext,
  group: ShareGroup,
  member: ShareGroupMember,
  targetEpoch: number,
  target: Partitions,
  subscriptionChanged: boolean,
  emit: ShareEmit,
): ShareGroupMember {
  const reconciled = member.state === SHARE_MEMBER_STABLE && member.memberEpoch === targetEpoch;
  if (!subscriptionChanged && reconciled) return member;
  const subscribedIds = new Set(member.subscribedTopicNames.flatMap((n) => ctx.topics.get(n)?.topicId ?? []));
  const filtered: Partitions = new Map([...target].filter(([topicId]) => subscribedIds.has(topicId)));
  let next = member;
  if (targetEpoch !== member.memberEpoch) {
    next = { ...member, state: SHARE_MEMBER_STABLE, assigned: filtered, memberEpoch: targetEpoch, previousMemberEpoch: member.memberEpoch };
  } else if (subscriptionChanged) {
    next = { ...member, assigned: filtered };
  }
  if (!membersEqual(next, member)) {
    emit({ kind: 'share-group-current-member-assignment', groupId: group.groupId, memberId: member.memberId, value: currentAssignmentValue(next) });
  }
  return next;
}

function response(memberId: string, memberEpoch: number, heartbeatIntervalMs: number, assigned: Partitions | null): ShareGroupHeartbeatResponse {
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    memberId,
    memberEpoch,
    heartbeatIntervalMs,
    assignment: assigned === null ? null : { topicPartitions: partitionsToRecord(assigned) },
  };
}
