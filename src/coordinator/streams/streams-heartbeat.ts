/**
 * A StreamsGroupHeartbeat that joins or stays in a group (any epoch but -1 and -2): Kafka 4.3's
 * `GroupMetadataManager.streamsGroupHeartbeat`. As Kafka's, it decides on the group as it was
 * before the request and returns the records (member 19, topology 23, group 17, target 21/20,
 * current assignment 22, in that order); the caller applies them once every check has passed, so a
 * request that fails changes nothing. The internal topics the configured topology lacks are
 * returned beside the response, for the API layer to create (`KafkaApis`).
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { StreamsGroupHeartbeatRequest, TaskIds as RequestTaskIds } from '../../protocol/messages/StreamsGroupHeartbeatRequest.js';
import type { EndpointToPartitions, Status, StreamsGroupHeartbeatResponse } from '../../protocol/messages/StreamsGroupHeartbeatResponse.js';
import type { CoordinatorRecord, StreamsGroupRecord } from '../records.js';
import { computeMetadataHash } from '../consumer/metadata-hash.js';
import type { StreamsContext } from './context.js';
import { StreamsGroupError } from './errors.js';
import { throwIfMemberEpochIsInvalid } from './heartbeat-validation.js';
import { reconcile } from './reconcile.js';
import { StreamsGroup } from './streams-group.js';
import { assignmentStateChanged, currentAssignmentValue, memberMetadataValue, metadataChanged, newStreamsMember, tasksEqual, StreamsMemberState, type StreamsGroupMember } from './streams-member.js';
import { buildTargetAssignment } from './target-assignment.js';
import { fromTaskIds, toTaskIds, type TargetTasks, NO_TARGET } from './tasks.js';
import { configureTopics } from './topics/configure-topics.js';
import { StreamsStatus, type ConfiguredTopology, type CreatableTopic } from './topics/types.js';
import type { StreamsGroupTopologyValue } from '../../records/schemas/StreamsGroupTopologyValue.js';
import { TaskAssignorError } from './assignor/types.js';
import { IllegalTopologyStateError } from './topics/topic-errors.js';

export interface StreamsHeartbeatResult {
  response: StreamsGroupHeartbeatResponse;
  /** Internal topics to create (`StreamsGroupHeartbeatResult.creatableTopics`). */
  internalTopicsToCreate: ReadonlyMap<string, CreatableTopic>;
}

/** The request's client, as the coordinator records it. */
export interface StreamsClient {
  readonly clientId: string;
  readonly clientHost: string;
}

export function streamsGroupHeartbeatJoin(ctx: StreamsContext, req: StreamsGroupHeartbeatRequest, client: StreamsClient, records: CoordinatorRecord[]): StreamsHeartbeatResult {
  const { groupId, memberId, memberEpoch } = req;
  const now = ctx.time.now();
  const statuses: Status[] = [];
  const isJoining = memberEpoch === 0;

  // The group: created on a join (taking over an empty classic group), else it must exist.
  const existing = ctx.store.get(groupId);
  let group: StreamsGroup;
  if (existing) group = existing;
  else if (ctx.otherTypeHolds(groupId)) throw notAStreamsGroup(groupId);
  else if (!isJoining) {
    const classic = ctx.classic?.classicGroupStatus(groupId) ?? 'none';
    throw classic === 'none' ? new StreamsGroupError(ErrorCode.GROUP_ID_NOT_FOUND, `Streams group ${groupId} not found.`) : notAStreamsGroup(groupId);
  } else {
    const classic = ctx.classic?.classicGroupStatus(groupId) ?? 'none';
    if (classic === 'non-empty') throw notAStreamsGroup(groupId);
    if (classic === 'empty') {
      records.push(...ctx.classic!.removeEmptyClassicGroup(groupId));
      ctx.log.info({ groupId }, 'converted the empty classic group to a streams group');
    }
    group = new StreamsGroup(groupId);
  }
  if (isJoining && group.numMembers >= ctx.settings.maxSize) {
    throw new StreamsGroupError(ErrorCode.GROUP_MAX_SIZE_REACHED, `The streams group has reached its maximum capacity of ${ctx.settings.maxSize} members.`);
  }
  const known = group.members.get(memberId);
  if (!known && !isJoining) throw new StreamsGroupError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
  const member = known ?? newStreamsMember(memberId);
  throwIfMemberEpochIsInvalid(member, memberEpoch, { active: req.activeTasks, standby: req.standbyTasks, warmup: req.warmupTasks });
  if (isJoining && !known) ctx.log.info({ groupId, memberId }, 'member joins the streams group');

  // 1. The member's metadata.
  let updated: StreamsGroupMember = {
    ...member,
    rackId: req.rackId ?? member.rackId,
    rebalanceTimeoutMs: req.rebalanceTimeoutMs !== -1 ? req.rebalanceTimeoutMs : member.rebalanceTimeoutMs,
    topologyEpoch: req.topology !== null ? req.topology.epoch : member.topologyEpoch,
    clientId: client.clientId,
    clientHost: client.clientHost,
    processId: req.processId ?? member.processId,
    clientTags: req.clientTags !== null ? sortedTags(req.clientTags) : member.clientTags,
    userEndpoint: req.userEndpoint !== null ? { host: req.userEndpoint.host, port: req.userEndpoint.port } : member.userEndpoint,
  };
  const emit = (r: StreamsGroupRecord) => records.push(r);
  let bumpGroupEpoch = false;
  if (!known || metadataChanged(member, updated)) {
    emit({ kind: 'streams-group-member-metadata', groupId, memberId, value: memberMetadataValue(updated) });
    bumpGroupEpoch = true;
  }

  // 2. The topology: set by the first member, the same for every later one.
  const topology = maybeUpdateTopology(group, req, emit);
  if (group.topology !== null && updated.topologyEpoch < group.topology.epoch) {
    statuses.push({ statusCode: StreamsStatus.STALE_TOPOLOGY, statusDetail: `The member's topology epoch ${updated.topologyEpoch} is behind the group's topology epoch ${group.topology.epoch}.` });
  }

  // 3. The topology configured against the topics, again when the topics it needs changed.
  let configured: ConfiguredTopology;
  let reconfigure = group.topology === null;
  let metadataHash = group.metadataHash;
  if (reconfigure || group.configuredTopology === null || group.metadataExpired) {
    metadataHash = computeMetadataHash(requiredTopics(topology).flatMap((name: string) => ctx.topics.get(name) ?? []));
    if (metadataHash !== group.metadataHash) {
      bumpGroupEpoch = true;
      reconfigure = true;
    }
    if (reconfigure || group.configuredTopology === null) {
      configured = configureTopics(topology, metadataHash, (name) => ctx.topics.get(name)?.partitionCount);
      group.configuredTopology = configured;
    } else {
      configured = group.configuredTopology;
    }
  } else {
    configured = group.configuredTopology;
  }
  let validatedTopologyEpoch = -1;
  if (configured.isReady && configured.subtopologies !== null) {
    validatedTopologyEpoch = topology.epoch;
    for (const tasks of [req.activeTasks, req.standbyTasks, req.warmupTasks]) throwIfInvalidTasks(configured, tasks);
  }
  if (validatedTopologyEpoch !== group.validatedTopologyEpoch) bumpGroupEpoch = true;
  const assignmentConfigs = new Map([['num.standby.replicas', String(ctx.settings.numStandbyReplicas(groupId))]]);
  if (!bumpGroupEpoch && !sameConfigs(assignmentConfigs, group.lastAssignmentConfigs)) bumpGroupEpoch = true;

  let groupEpoch = group.groupEpoch;
  if (bumpGroupEpoch) {
    groupEpoch += 1;
    emit({
      kind: 'streams-group-metadata',
      groupId,
      value: { epoch: groupEpoch, metadataHash, validatedTopologyEpoch, lastAssignmentConfigs: [...assignmentConfigs].map(([key, value]) => ({ key, value })) },
    });
    ctx.log.info({ groupId, memberId, groupEpoch }, 'bumped the streams group epoch');
    // Kafka's metadata refresh deadline is set on a bump (to never): topic changes expire it again.
    group.metadataExpired = false;
  }

  // The first members of a new group wait `streams.initial.rebalance.delay.ms` for the others.
  if (group.isEmpty()) {
    const delayMs = ctx.settings.initialRebalanceDelayMs(groupId);
    if (delayMs > 0) ctx.timers.scheduleInitialDelayIfAbsent(groupId, delayMs);
  }

  // 4. The target assignment.
  const { targetEpoch, target } = maybeUpdateTargetAssignment(ctx, group, groupEpoch, updated, configured, assignmentConfigs, now, emit, statuses);

  // 5. Reconciliation.
  updated = maybeReconcile(ctx, group, updated, targetEpoch, target, req, emit);

  ctx.timers.scheduleSession(groupId, memberId);
  if (req.shutdownApplication) group.shutdownRequestMemberId = memberId;

  const response: StreamsGroupHeartbeatResponse = {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    memberId: updated.memberId,
    memberEpoch: updated.memberEpoch,
    heartbeatIntervalMs: ctx.settings.heartbeatIntervalMs(groupId),
    acceptableRecoveryLag: 0,
    taskOffsetIntervalMs: 0,
    status: null,
    activeTasks: null,
    standbyTasks: null,
    warmupTasks: null,
    endpointInformationEpoch: 0,
    partitionsByUserEndpoint: null,
  };
  if (memberEpoch === 0 || !tasksEqual(member.assigned, updated.assigned)) {
    response.activeTasks = toTaskIds(fromEpochs(updated.assigned.active));
    response.standbyTasks = toTaskIds(updated.assigned.standby);
    response.warmupTasks = toTaskIds(updated.assigned.warmup);
    if (updated.userEndpoint !== null) group.endpointInformationEpoch += 1;
  }
  if (group.endpointInformationEpoch !== req.endpointInformationEpoch) response.partitionsByUserEndpoint = endpointToPartitions(ctx, group, configured, updated);
  // A group created by this request is not in the map yet: its endpoint epoch is not kept (Kafka answers 0).
  if (existing) response.endpointInformationEpoch = group.endpointInformationEpoch;
  if (configured.topicConfigurationError !== null) statuses.push({ statusCode: configured.topicConfigurationError.status, statusDetail: configured.topicConfigurationError.message });
  if (group.shutdownRequestMemberId !== null) {
    statuses.push({
      statusCode: StreamsStatus.SHUTDOWN_APPLICATION,
      statusDetail: `Streams group member ${group.shutdownRequestMemberId} encountered a fatal error and requested a shutdown for the entire application.`,
    });
  }
  response.status = statuses;
  return { response, internalTopicsToCreate: configured.topicConfigurationError !== null ? configured.internalTopicsToBeCreated : new Map() };
}

const notAStreamsGroup = (groupId: string) => new StreamsGroupError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a streams group.`);

const sortedTags = (tags: ReadonlyArray<{ key: string; value: string }>) => {
  const byKey = new Map(tags.map((t) => [t.key, t.value]));
  return [...byKey].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([key, value]) => ({ key, value }));
};

function sameConfigs(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

/**
 * `maybeUpdateTopology`: the first topology initializes the group (record 23); a member with an
 * older topology epoch gets the group's (and STALE_TOPOLOGY); a different topology at the same or a
 * newer epoch is refused, as Kafka 4.3 does not update topologies yet.
 */
function maybeUpdateTopology(group: StreamsGroup, req: StreamsGroupHeartbeatRequest, emit: (r: StreamsGroupRecord) => void): StreamsGroupTopologyValue {
  if (req.topology !== null) {
    // `StreamsTopology.fromHeartbeatRequest` (subtopologies collected by id, the epoch checked) throws
    // for any topology it cannot hold, joined first or not: an unexpected exception to Kafka.
    if (req.topology.epoch < 0) throw new IllegalTopologyStateError('IllegalArgumentException', 'Topology epoch must be non-negative.');
    const ids = new Set<string>();
    for (const s of req.topology.subtopologies) {
      if (ids.has(s.subtopologyId)) throw new IllegalTopologyStateError('IllegalStateException', `Duplicate key ${s.subtopologyId}`);
      ids.add(s.subtopologyId);
    }
    const fromRequest: StreamsGroupTopologyValue = {
      epoch: req.topology.epoch,
      subtopologies: req.topology.subtopologies.map((s) => ({
        subtopologyId: s.subtopologyId,
        sourceTopics: [...s.sourceTopics],
        sourceTopicRegex: [...s.sourceTopicRegex],
        stateChangelogTopics: s.stateChangelogTopics.map(topicInfo),
        repartitionSinkTopics: [...s.repartitionSinkTopics],
        repartitionSourceTopics: s.repartitionSourceTopics.map(topicInfo),
        copartitionGroups: s.copartitionGroups.map((c) => ({ sourceTopics: [...c.sourceTopics], sourceTopicRegex: [...c.sourceTopicRegex], repartitionSourceTopics: [...c.repartitionSourceTopics] })),
      })),
    };
    if (group.topology === null) {
      emit({ kind: 'streams-group-topology', groupId: group.groupId, value: fromRequest });
      return fromRequest;
    }
    if (group.topology.epoch > req.topology.epoch) return group.topology;
    if (!sameTopology(group.topology, fromRequest)) throw new StreamsGroupError(ErrorCode.INVALID_REQUEST, 'Topology updates are not supported yet.');
    return group.topology;
  }
  if (group.topology !== null) return group.topology;
  throw new Error('The topology is null and the group topology is also null.');
}

function topicInfo(t: { name: string; partitions: number; replicationFactor: number; topicConfigs: ReadonlyArray<{ key: string; value: string }> }) {
  return { name: t.name, partitions: t.partitions, replicationFactor: t.replicationFactor, topicConfigs: t.topicConfigs.map((c) => ({ key: c.key, value: c.value })) };
}

/**
 * `StreamsTopology.equals`: the subtopologies by id, each compared as Kafka's generated record
 * compares (lists in order), whatever order the subtopologies came in.
 */
function sameTopology(a: StreamsGroupTopologyValue, b: StreamsGroupTopologyValue): boolean {
  if (a.epoch !== b.epoch || a.subtopologies.length !== b.subtopologies.length) return false;
  const byId = new Map(b.subtopologies.map((s) => [s.subtopologyId, JSON.stringify(s)]));
  return a.subtopologies.every((s) => byId.get(s.subtopologyId) === JSON.stringify(s));
}

/** `StreamsTopology.requiredTopics`: source, repartition source and changelog topics. */
export function requiredTopics(topology: StreamsGroupTopologyValue): string[] {
  const names = new Set<string>();
  for (const s of topology.subtopologies) {
    for (const t of s.sourceTopics) names.add(t);
    for (const t of s.repartitionSourceTopics) names.add(t.name);
    for (const t of s.stateChangelogTopics) names.add(t.name);
  }
  return [...names];
}

/** `throwIfRequestContainsInvalidTasks`. */
function throwIfInvalidTasks(configured: ConfiguredTopology, tasks: readonly RequestTaskIds[] | null): void {
  for (const t of tasks ?? []) {
    const subtopology = configured.subtopologies?.get(t.subtopologyId);
    if (!subtopology) throw new StreamsGroupError(ErrorCode.INVALID_REQUEST, `Subtopology ${t.subtopologyId} does not exist in the topology.`);
    for (const p of t.partitions) {
      if (p < 0 || p >= subtopology.numberOfTasks) {
        throw new StreamsGroupError(ErrorCode.INVALID_REQUEST, `Task ${p} for subtopology ${t.subtopologyId} is invalid. Number of tasks for this subtopology: ${subtopology.numberOfTasks}`);
      }
    }
  }
}

/**
 * `maybeUpdateStreamsTargetAssignment`: nothing while the initial delay runs (ASSIGNMENT_DELAYED);
 * the last target when it is up to date or the assignment interval has not passed
 * (ASSIGNMENT_DELAYED); else a new target from the assignor.
 */
export function maybeUpdateTargetAssignment(
  ctx: StreamsContext,
  group: StreamsGroup,
  groupEpoch: number,
  updated: StreamsGroupMember | null,
  configured: ConfiguredTopology,
  assignmentConfigs: ReadonlyMap<string, string>,
  now: number,
  emit: (r: StreamsGroupRecord) => void,
  statuses: Status[] | null,
): { targetEpoch: number; target: TargetTasks } {
  const last = () => ({ targetEpoch: group.assignmentEpoch, target: updated ? group.targetOf(updated.memberId) : NO_TARGET });
  if (ctx.timers.isInitialDelayScheduled(group.groupId)) {
    statuses?.push({ statusCode: StreamsStatus.ASSIGNMENT_DELAYED, statusDetail: 'Assignment delayed due to the configured initial rebalance delay.' });
    return { targetEpoch: group.assignmentEpoch, target: NO_TARGET };
  }
  if (group.assignmentEpoch >= groupEpoch) return last();
  const intervalMs = ctx.settings.assignmentIntervalMs(group.groupId);
  const timestamp = Number(group.assignmentTimestamp);
  if (timestamp !== 0 && intervalMs !== 0 && now < timestamp + intervalMs) {
    statuses?.push({ statusCode: StreamsStatus.ASSIGNMENT_DELAYED, statusDetail: 'Assignment delayed due to the configured assignment interval.' });
    return last();
  }
  try {
    const result = buildTargetAssignment({ group, groupEpoch, assignor: ctx.assignor, assignmentConfigs, topology: configured, updatedMember: updated, now });
    for (const r of result.records) emit(r);
    ctx.log.info({ groupId: group.groupId, groupEpoch, assignor: ctx.assignor.name }, 'computed a new streams target assignment');
    return { targetEpoch: groupEpoch, target: updated ? (result.targetAssignment.get(updated.memberId) ?? NO_TARGET) : NO_TARGET };
  } catch (err) {
    if (!(err instanceof TaskAssignorError)) throw err;
    throw new StreamsGroupError(ErrorCode.UNKNOWN_SERVER_ERROR, `Failed to compute a new target assignment for epoch ${groupEpoch}: ${err.message}`);
  }
}

/** `maybeReconcile`: record 22 when the member's assignment state moves, with its rebalance timer. */
function maybeReconcile(
  ctx: StreamsContext,
  group: StreamsGroup,
  member: StreamsGroupMember,
  targetEpoch: number,
  target: TargetTasks,
  req: StreamsGroupHeartbeatRequest,
  emit: (r: StreamsGroupRecord) => void,
): StreamsGroupMember {
  if (member.state === StreamsMemberState.STABLE && member.memberEpoch === targetEpoch) return member;
  const owned = req.activeTasks !== null && req.standbyTasks !== null && req.warmupTasks !== null ? { active: fromTaskIds(req.activeTasks), standby: fromTaskIds(req.standbyTasks), warmup: fromTaskIds(req.warmupTasks) } : null;
  const updated = reconcile({ member, targetEpoch, target, owners: group, owned });
  if (assignmentStateChanged(member, updated)) {
    emit({ kind: 'streams-group-current-member-assignment', groupId: group.groupId, memberId: member.memberId, value: currentAssignmentValue(updated) });
    if (updated.state === StreamsMemberState.UNREVOKED_TASKS) ctx.timers.scheduleRebalance(group.groupId, updated.memberId, updated.memberEpoch, updated.rebalanceTimeoutMs);
    else ctx.timers.cancelRebalance(group.groupId, updated.memberId);
  }
  return updated;
}

const fromEpochs = (a: Map<string, Map<number, number>>) => new Map([...a].map(([id, m]) => [id, new Set(m.keys())]));

/**
 * `StreamsGroup.buildEndpointToPartitions` (`EndpointToPartitionsManager`): for each member with a
 * user endpoint (the updated member last), the partitions of the source and repartition topics its
 * active and standby tasks read.
 */
function endpointToPartitions(ctx: StreamsContext, group: StreamsGroup, configured: ConfiguredTopology, updated: StreamsGroupMember): EndpointToPartitions[] {
  const members = [...[...group.members.values()].filter((m) => m.memberId !== updated.memberId), updated];
  const out: EndpointToPartitions[] = [];
  for (const m of members) {
    if (m.userEndpoint === null || configured.subtopologies === null) continue;
    const partitionsOf = (tasks: Map<string, Set<number>>) =>
      [...tasks].flatMap(([id, parts]) => {
        const s = configured.subtopologies!.get(id);
        if (!s) return [];
        return [...new Set([...s.sourceTopics, ...s.repartitionSourceTopics.keys()])].map((topic) => {
          const count = ctx.topics.get(topic)?.partitionCount ?? 0;
          const sorted = [...parts].sort((a, b) => a - b);
          return { topic, partitions: count < sorted.length ? sorted.slice(0, count) : sorted };
        });
      });
    out.push({ userEndpoint: { host: m.userEndpoint.host, port: m.userEndpoint.port }, activePartitions: partitionsOf(fromEpochs(m.assigned.active)), standbyPartitions: partitionsOf(m.assigned.standby) });
  }
  return out;
}
