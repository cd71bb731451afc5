import { ErrorCode } from '../../protocol/errors.js';
import type { JoinGroupRequest } from '../../protocol/messages/JoinGroupRequest.js';
import type { JoinGroupResponse } from '../../protocol/messages/JoinGroupResponse.js';
import { ClassicGroup, errorJoin } from './classic-group.js';
import { ClassicGroupMember, type MemberProtocol } from './classic-member.js';
import type { ClassicContext } from './context.js';
import { ClassicGroupState } from './group-state.js';
import { currentAssignments, emptyGroupMetadataRecord, groupMetadataRecord } from './group-metadata.js';
import { writeErrorCode } from '../runtime.js';
import type { CoordinatorRecord } from '../records.js';
import { currentGenerationJoin } from './rebalancer.js';

const { EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD } = ClassicGroupState;

/** Who sent the JoinGroup: stored on the member and echoed by DescribeGroups. */
export interface JoinClient {
  readonly apiVersion: number;
  readonly clientId: string;
  readonly clientHost: string;
}

type Respond = (response: JoinGroupResponse) => void;

interface Join {
  readonly ctx: ClassicContext;
  readonly req: JoinGroupRequest;
  readonly client: JoinClient;
  readonly group: ClassicGroup;
  readonly respond: Respond;
  readonly protocols: readonly MemberProtocol[];
}

/**
 * JoinGroup for a classic group (Kafka's `GroupMetadataManager.classicGroupJoinToClassicGroup`
 * and the methods it calls). The group id and session timeout were validated by the caller.
 * Creates the group for an unknown member (writing an empty GroupMetadata record), else
 * UNKNOWN_MEMBER_ID. Errors: GROUP_MAX_SIZE_REACHED, COORDINATOR_NOT_AVAILABLE (Dead),
 * INCONSISTENT_GROUP_PROTOCOL, MEMBER_ID_REQUIRED (v4+ dynamic first join, with the new id),
 * UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID. A successful join resolves when the join phase completes.
 */
export async function joinClassicGroup(
  ctx: ClassicContext,
  req: JoinGroupRequest,
  client: JoinClient,
  converted: readonly CoordinatorRecord[] = [],
): Promise<JoinGroupResponse> {
  let respond!: Respond;
  const response = new Promise<JoinGroupResponse>((resolve) => (respond = resolve));
  const isUnknownMember = req.memberId === '';
  let group = ctx.groups.get(req.groupId);
  const isNewGroup = group === undefined;
  if (!group) {
    if (!isUnknownMember) {
      // Kafka's whole operation fails, the conversion with it.
      ctx.writer.abandon(converted);
      return errorJoin(ErrorCode.UNKNOWN_MEMBER_ID, req.memberId);
    }
    group = new ClassicGroup(req.groupId, ctx.groupEnv);
    ctx.groups.set(req.groupId, group);
  }
  const join: Join = { ctx, req, client, group, respond, protocols: req.protocols.map((p) => ({ name: p.name, metadata: p.metadata })) };

  if (!acceptJoiningMember(ctx, group, req.memberId)) {
    group.remove(req.memberId);
    respond(errorJoin(ErrorCode.GROUP_MAX_SIZE_REACHED));
  } else if (isUnknownMember) {
    joinNewMember(join);
  } else {
    joinExistingMember(join);
  }

  if (isNewGroup) {
    const created = group;
    const record = emptyGroupMetadataRecord(created);
    ctx.noteInstalled(record, created);
    const creation = ctx.writer.append([...converted, record]).then(
      () => null,
      (err: unknown) => {
        // Kafka reverts the shard to its snapshot when the creation record fails, so the group and
        // whatever joined it meanwhile are gone (the runtime's revert removed it, and put back a
        // consumer group it was converted from); the joins get the write's error.
        const errorCode = writeErrorCode(err);
        created.completeAllJoins(errorCode);
        created.completeAllSyncs(errorCode);
        return errorJoin(errorCode);
      },
    );
    // The creator's answer waits for the creation record: a join phase that completes meanwhile
    // (`group.initial.rebalance.delay.ms=0`) must not acknowledge a group that then never existed.
    // (Kafka 4.3 completes the answer within the operation and replaces it with the write's error
    // only if it is not sent yet.)
    const failed = await creation;
    if (failed) return failed;
  }
  // Every other answer goes as soon as the operation gives it, as Kafka's `responseFuture` is
  // completed inside `classicGroupJoin`: not after the writes other requests have in flight.
  return response;
}

/**
 * Group size guard (`acceptJoiningMember`): Empty always accepts; PreparingRebalance counts the
 * members already parked in JoinGroup (so the last rejoiners of an over-full group are refused);
 * CompletingRebalance and Stable count members.
 */
function acceptJoiningMember(ctx: ClassicContext, group: ClassicGroup, memberId: string): boolean {
  const max = ctx.settings.maxSize;
  switch (group.state) {
    case EMPTY:
    case DEAD:
      return true;
    case PREPARING_REBALANCE:
      return group.member(memberId)?.isAwaitingJoin === true || group.numAwaitingJoinResponse < max;
    case COMPLETING_REBALANCE:
    case STABLE:
      return group.hasMember(memberId) || group.numMembers < max;
  }
}

/** First join without a member id (`classicGroupJoinNewMember`). */
function joinNewMember(join: Join): void {
  const { group, req, client, respond } = join;
  if (group.isInState(DEAD)) {
    respond(errorJoin(ErrorCode.COORDINATOR_NOT_AVAILABLE));
  } else if (!group.supportsProtocols(req.protocolType, join.protocols.map((p) => p.name))) {
    respond(errorJoin(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
  } else {
    const newMemberId = group.generateMemberId(client.clientId, req.groupInstanceId);
    if (req.groupInstanceId !== null) joinNewStaticMember(join, req.groupInstanceId, newMemberId);
    else joinNewDynamicMember(join, newMemberId);
  }
}

/** A static member with no member id takes over its instance's slot, or is added (`classicGroupJoinNewStaticMember`). */
function joinNewStaticMember(join: Join, groupInstanceId: string, newMemberId: string): void {
  const existingMemberId = join.group.staticMemberId(groupInstanceId);
  if (existingMemberId !== undefined) {
    join.ctx.log.info(
      { groupId: join.group.groupId, groupInstanceId, oldMemberId: existingMemberId, newMemberId, state: join.group.state },
      'static member rejoined with an unknown member id; replacing its previous member id',
    );
    updateStaticMemberThenRebalanceOrCompleteJoin(join, groupInstanceId, existingMemberId, newMemberId);
  } else {
    addMemberThenRebalanceOrCompleteJoin(join, newMemberId);
  }
}

/**
 * A dynamic member's first join (`classicGroupJoinNewDynamicMember`): from v4 it only reserves
 * the id (pending, on a session timer) and answers MEMBER_ID_REQUIRED so the client rejoins with
 * it — a client that never comes back cannot bloat the group. v0-3 members are added at once.
 */
function joinNewDynamicMember(join: Join, newMemberId: string): void {
  const { group, ctx, req, client } = join;
  if (client.apiVersion >= 4) {
    ctx.log.info({ groupId: group.groupId, memberId: newMemberId }, 'new dynamic member must rejoin with its assigned member id');
    group.addPendingMember(newMemberId);
    ctx.rebalancer.schedulePendingMemberExpiry(group, newMemberId, req.sessionTimeoutMs);
    join.respond(errorJoin(ErrorCode.MEMBER_ID_REQUIRED, newMemberId));
  } else {
    addMemberThenRebalanceOrCompleteJoin(join, newMemberId);
  }
}

/** Join with a member id (`classicGroupJoinExistingMember`). */
function joinExistingMember(join: Join): void {
  const { group, req, respond } = join;
  const memberId = req.memberId;
  if (group.isInState(DEAD)) {
    respond(errorJoin(ErrorCode.COORDINATOR_NOT_AVAILABLE, memberId));
    return;
  }
  if (!group.supportsProtocols(req.protocolType, join.protocols.map((p) => p.name))) {
    respond(errorJoin(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, memberId));
    return;
  }
  if (group.isPendingMember(memberId)) {
    // The second half of the two-phase join. Pending ids are only handed to dynamic members.
    // Kafka throws IllegalStateException here, which the client sees as UNKNOWN_SERVER_ERROR.
    if (req.groupInstanceId !== null) {
      respond(errorJoin(ErrorCode.UNKNOWN_SERVER_ERROR, memberId));
      return;
    }
    addMemberThenRebalanceOrCompleteJoin(join, memberId);
    return;
  }
  const memberError = group.validateMember(memberId, req.groupInstanceId);
  if (memberError !== ErrorCode.NONE) {
    respond(errorJoin(memberError, memberId));
    return;
  }
  const member = group.member(memberId)!;
  const currentGeneration = (members: JoinGroupResponse['members']): JoinGroupResponse => currentGenerationJoin(group, memberId, members);
  switch (group.state) {
    case PREPARING_REBALANCE:
      updateMemberThenRebalanceOrCompleteJoin(join, member.memberId, `member ${memberId} joining during PreparingRebalance`);
      return;
    case COMPLETING_REBALANCE:
      if (member.matches(join.protocols)) {
        // Same metadata: the member probably lost its JoinGroup response; resend this generation.
        respond(currentGeneration(group.isLeader(memberId) ? group.currentMembersForJoin() : []));
      } else {
        updateMemberThenRebalanceOrCompleteJoin(join, memberId, `member ${memberId} changed metadata during CompletingRebalance`);
      }
      return;
    case STABLE:
      if (group.isLeader(memberId)) {
        // A leader rejoin forces a rebalance: it is how a consumer leader reacts to topic metadata changes.
        updateMemberThenRebalanceOrCompleteJoin(join, memberId, `leader ${memberId} rejoining during Stable`);
      } else if (!member.matches(join.protocols)) {
        updateMemberThenRebalanceOrCompleteJoin(join, memberId, `member ${memberId} changed metadata during Stable`);
      } else {
        respond(currentGeneration([]));
      }
      return;
    default:
      // Empty has no members, so validateMember already failed; kept for parity with Kafka.
      respond(errorJoin(ErrorCode.UNKNOWN_MEMBER_ID, memberId));
  }
}

function updateMemberThenRebalanceOrCompleteJoin(join: Join, memberId: string, reason: string): void {
  const member = join.group.member(memberId)!;
  join.group.updateMember(member, join.protocols, join.req.rebalanceTimeoutMs, join.req.sessionTimeoutMs, join.respond);
  join.ctx.rebalancer.maybePrepareRebalanceOrCompleteJoin(join.group, withReason(reason, join.req));
}

/**
 * Adds a member whose JoinGroup stays parked until the join phase completes
 * (`addMemberThenRebalanceOrCompleteJoin`). Its timer is the new-member join timeout rather than
 * the session timeout: it cannot heartbeat yet, and a client that gave up must not linger forever.
 */
function addMemberThenRebalanceOrCompleteJoin(join: Join, memberId: string): void {
  const { group, req, client, ctx } = join;
  const member = new ClassicGroupMember({
    memberId,
    groupInstanceId: req.groupInstanceId,
    clientId: client.clientId,
    clientHost: client.clientHost,
    rebalanceTimeoutMs: req.rebalanceTimeoutMs,
    sessionTimeoutMs: req.sessionTimeoutMs,
    protocolType: req.protocolType,
    supportedProtocols: join.protocols,
  });
  member.isNew = true;
  // Joining while the initial rebalance delay runs extends that delay.
  if (group.isInState(PREPARING_REBALANCE) && group.previousState === EMPTY) group.newMemberAdded = true;
  group.add(member, join.respond);
  ctx.rebalancer.rescheduleHeartbeat(group, member, ctx.settings.newMemberJoinTimeoutMs);
  ctx.rebalancer.maybePrepareRebalanceOrCompleteJoin(
    group,
    withReason(`adding new member ${memberId} with group instance id ${req.groupInstanceId ?? 'none'}`, req),
  );
}

/**
 * A known static member rejoined with no member id (`updateStaticMemberThenRebalanceOrCompleteJoin`).
 * The old id is fenced. In Stable, when the group's protocol choice is unchanged, there is no
 * rebalance: GroupMetadata is rewritten with the new id and the current generation returned (v9+:
 * a leader gets the members and skipAssignment=true; older versions get the previous leader id so
 * the client does not recompute an assignment). In CompletingRebalance the leader may already be
 * assigning for the old id, so a rebalance is forced.
 */
function updateStaticMemberThenRebalanceOrCompleteJoin(join: Join, groupInstanceId: string, oldMemberId: string, newMemberId: string): void {
  const { group, req, ctx, client } = join;
  const previousLeader = group.leaderId ?? '';
  const member = group.replaceStaticMember(groupInstanceId, oldMemberId, newMemberId);
  ctx.rebalancer.cancelHeartbeat(group, oldMemberId);
  ctx.rebalancer.rescheduleHeartbeat(group, member);
  const old = { protocols: member.supportedProtocols, rebalanceTimeoutMs: member.rebalanceTimeoutMs, sessionTimeoutMs: member.sessionTimeoutMs };
  group.updateMember(member, join.protocols, req.rebalanceTimeoutMs, req.sessionTimeoutMs, join.respond);

  if (group.isInState(STABLE)) {
    if (group.protocolName === group.selectProtocol()) {
      ctx.log.info({ groupId: group.groupId, groupInstanceId, memberId: newMemberId }, 'static member rejoined without changing the protocol; no rebalance');
      const record = groupMetadataRecord(group, currentAssignments(group));
      ctx.writer.append([record]).then(
        () => {
          const isLeader = group.isLeader(newMemberId);
          const skip = client.apiVersion >= 9;
          group.completeJoin(member, {
            throttleTimeMs: 0,
            errorCode: ErrorCode.NONE,
            generationId: group.generationId,
            protocolType: group.protocolType,
            protocolName: group.protocolName,
            leader: skip ? (group.leaderId ?? '') : previousLeader,
            skipAssignment: skip && isLeader,
            memberId: newMemberId,
            members: skip && isLeader ? group.currentMembersForJoin() : [],
          });
        },
        (err: unknown) => {
          // Not persisted: put the old member id back, as Kafka reverts the swap.
          group.updateMember(member, old.protocols, old.rebalanceTimeoutMs, old.sessionTimeoutMs, null);
          const restored = group.replaceStaticMember(groupInstanceId, newMemberId, oldMemberId);
          ctx.rebalancer.cancelHeartbeat(group, newMemberId);
          ctx.rebalancer.rescheduleHeartbeat(group, restored);
          join.respond({ ...errorJoin(writeErrorCode(err)), generationId: group.generationId, protocolType: group.protocolType, protocolName: group.protocolName, leader: previousLeader });
        },
      );
    } else {
      ctx.rebalancer.maybePrepareRebalanceOrCompleteJoin(
        group,
        withReason(`static member ${newMemberId} with instance id ${groupInstanceId} changed the group's protocol`, req),
      );
    }
    return;
  }
  if (group.isInState(COMPLETING_REBALANCE)) {
    ctx.rebalancer.prepareRebalance(group, withReason(`updating metadata for static member ${newMemberId} with instance id ${groupInstanceId}`, req));
    return;
  }
  ctx.rebalancer.maybeCompleteJoinPhase(group);
}

function withReason(what: string, req: JoinGroupRequest): string {
  return `${what}; client reason: ${req.reason === null || req.reason === '' ? 'not provided' : req.reason}`;
}
