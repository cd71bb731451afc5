import { ErrorCode } from '../../protocol/errors.js';
import { EMPTY_BYTES } from '../../protocol/primitives.js';
import type { JoinGroupResponse } from '../../protocol/messages/JoinGroupResponse.js';
import { errorJoin, type ClassicGroup } from './classic-group.js';
import type { ClassicGroupMember } from './classic-member.js';
import type { ClassicState } from './state.js';
import { ClassicGroupState } from './group-state.js';
import { groupMetadataRecord } from './group-metadata.js';
import { heartbeatKey, joinKey, syncKey } from './keyed-timers.js';
import { connectionsArriving } from '../../util/received-requests.js';
import { systemTime } from '../../util/time.js';

/** A connection accepted this recently (ms, real time) may be a member whose JoinGroup is not read yet. */
const ARRIVALS_QUIET_MS = 20;
/** How long (ms, real time) a first generation waits for arriving connections at most. */
const ARRIVALS_WAIT_MS = 1000;

const { EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD } = ClassicGroupState;

/**
 * The rebalance engine of classic groups: the join phase, the sync deadline and member sessions,
 * following the methods of the same names in Kafka's `GroupMetadataManager`
 * (`prepareRebalance`, `completeClassicGroupJoin`, `tryCompleteInitialRebalanceElseSchedule`,
 * `expireClassicGroupMemberHeartbeat`, `expirePendingSync`, `propagateAssignment`, …).
 * Timer callbacks look the group up by id again, because the group may have been deleted or
 * replaced since the timer was armed.
 */
export class Rebalancer {
  constructor(private readonly ctx: ClassicState) {}

  // ---- sessions ---------------------------------------------------------------------------

  /** (Re)arms the member's session timer; the default timeout is its session timeout. */
  rescheduleHeartbeat(group: ClassicGroup, member: ClassicGroupMember, timeoutMs = member.sessionTimeoutMs): void {
    const timer = (member.sessionTimer ??= this.sessionTimer(group.groupId, member.memberId));
    this.ctx.timers.schedule(timer.key, timeoutMs, timer.expire);
  }

  private sessionTimer(groupId: string, memberId: string): { key: string; expire: () => void } {
    return { key: heartbeatKey(groupId, memberId), expire: () => this.expireHeartbeat(groupId, memberId) };
  }

  /** Arms the session timer of a member id handed out with MEMBER_ID_REQUIRED. */
  schedulePendingMemberExpiry(group: ClassicGroup, memberId: string, sessionTimeoutMs: number): void {
    const { groupId } = group;
    this.ctx.timers.schedule(heartbeatKey(groupId, memberId), sessionTimeoutMs, () => this.expireHeartbeat(groupId, memberId));
  }

  cancelHeartbeat(group: ClassicGroup, memberId: string): void {
    this.ctx.timers.cancel(group.member(memberId)?.sessionTimer?.key ?? heartbeatKey(group.groupId, memberId));
  }

  /**
   * A session timer fired (`expireClassicGroupMemberHeartbeat`): a pending member is dropped; a
   * member is removed unless it is parked in JoinGroup/SyncGroup (and not new).
   */
  private expireHeartbeat(groupId: string, memberId: string): void {
    const group = this.ctx.groups.get(groupId);
    if (!group || group.isInState(DEAD)) return;
    if (group.isPendingMember(memberId)) {
      this.ctx.log.info({ groupId, memberId }, 'pending classic group member removed after session timeout');
      group.remove(memberId);
      if (group.isInState(PREPARING_REBALANCE) && group.hasAllMembersJoined()) this.completeJoin(group);
      return;
    }
    const member = group.member(memberId);
    if (!member || member.hasSatisfiedHeartbeat()) return;
    this.ctx.log.info({ groupId, memberId }, 'classic group member session expired; removing it');
    this.removeMemberAndUpdateGroup(group, member, `removing member ${memberId} on heartbeat expiration`);
  }

  /**
   * Removes a member whose session expired (`removeMemberAndUpdateClassicGroup`). Its parked
   * JoinGroup gets UNKNOWN_MEMBER_ID so a still-alive client rejoins from scratch.
   */
  removeMemberAndUpdateGroup(group: ClassicGroup, member: ClassicGroupMember, reason: string): void {
    group.completeJoin(member, errorJoin(ErrorCode.UNKNOWN_MEMBER_ID));
    group.remove(member.memberId);
    if (group.isInState(STABLE) || group.isInState(COMPLETING_REBALANCE)) {
      this.maybePrepareRebalanceOrCompleteJoin(group, reason);
    } else if (group.isInState(PREPARING_REBALANCE) && group.hasAllMembersJoined()) {
      this.completeJoin(group);
    }
  }

  // ---- join phase -------------------------------------------------------------------------

  /** Starts a rebalance when the state allows one, else tries to finish the current join phase. */
  maybePrepareRebalanceOrCompleteJoin(group: ClassicGroup, reason: string, detail = reason): void {
    if (group.canRebalance()) this.prepareRebalance(group, reason, detail);
    else this.maybeCompleteJoinPhase(group);
  }

  /**
   * Moves the group to PreparingRebalance (`prepareRebalance`). Parked SyncGroups get
   * REBALANCE_IN_PROGRESS. Leaving Empty waits `group.initial.rebalance.delay.ms` first so that
   * more members can join the first generation; otherwise the join completes as soon as every
   * member rejoined, or after the rebalance timeout. A delay of 0 is still a timer, never a
   * completion within the first JoinGroup: Kafka 4.3's `GroupMetadataManager` schedules
   * `tryCompleteInitialRebalanceElseSchedule` on its `CoordinatorTimer`, whose expiry is an event
   * queued behind the requests already queued, as our timer fires after the requests read in the
   * same event-loop turn; both let those join the first generation.
   */
  prepareRebalance(group: ClassicGroup, reason: string, detail = reason): void {
    // `detail` (the reason, or more: the leaving clients' own reasons) is what the console shows.
    group.rebalanceReason = detail;
    if (group.isInState(COMPLETING_REBALANCE)) this.resetAndPropagateAssignmentWithError(group, ErrorCode.REBALANCE_IN_PROGRESS);
    this.removeSyncExpiration(group);
    const isInitialRebalance = group.isInState(EMPTY);
    if (isInitialRebalance) {
      const delayMs = this.ctx.settings.initialRebalanceDelayMs;
      const remainingMs = Math.max(group.rebalanceTimeoutMs() - delayMs, 0);
      const { groupId } = group;
      const arrivalsUntil = performance.now() + ARRIVALS_WAIT_MS;
      this.ctx.timers.schedule(joinKey(groupId), delayMs, () => this.tryCompleteInitialRebalanceElseSchedule(groupId, delayMs, remainingMs, arrivalsUntil));
    }
    group.transitionTo(PREPARING_REBALANCE);
    this.ctx.log.info({ groupId: group.groupId, generationId: group.generationId, reason }, 'preparing to rebalance classic group');
    if (!isInitialRebalance) this.maybeCompleteJoinElseSchedule(group);
  }

  private maybeCompleteJoinElseSchedule(group: ClassicGroup): void {
    if (group.hasAllMembersJoined()) {
      this.completeJoin(group);
    } else {
      const { groupId } = group;
      this.ctx.timers.schedule(joinKey(groupId), group.rebalanceTimeoutMs(), () => this.completeJoinById(groupId));
    }
  }

  /**
   * End of an initial-delay period (`tryCompleteInitialRebalanceElseSchedule`): if members joined
   * meanwhile and rebalance time is left, wait another delay (capped by what is left). On the system
   * clock, connections still arriving (one accepted within ARRIVALS_QUIET_MS, until `arrivalsUntil`,
   * real time) count as members joining: Kafka's acceptor and network threads would have read their
   * JoinGroups before its timer's event ran (util/received-requests.ts `connectionsArriving`).
   */
  private tryCompleteInitialRebalanceElseSchedule(groupId: string, delayMs: number, remainingMs: number, arrivalsUntil: number): void {
    const group = this.ctx.groups.get(groupId);
    if (!group) return;
    // On the system clock only: a manual clock's advance would run the re-armed 0 ms timer again
    // and again within one call until arrivalsUntil, and a test advancing it drives joins itself.
    const arriving = this.ctx.time === systemTime && connectionsArriving(ARRIVALS_QUIET_MS) && performance.now() < arrivalsUntil;
    if ((group.newMemberAdded || arriving) && remainingMs !== 0) {
      group.newMemberAdded = false;
      const newDelayMs = Math.min(this.ctx.settings.initialRebalanceDelayMs, remainingMs);
      const newRemainingMs = Math.max(remainingMs - delayMs, 0);
      this.ctx.timers.schedule(joinKey(groupId), newDelayMs, () =>
        this.tryCompleteInitialRebalanceElseSchedule(groupId, newDelayMs, newRemainingMs, arrivalsUntil),
      );
    } else {
      this.completeJoin(group);
    }
  }

  /**
   * Completes the join phase if every member rejoined (`maybeCompleteJoinPhase`); never during
   * the initial rebalance, which only its delay timer ends.
   */
  maybeCompleteJoinPhase(group: ClassicGroup): void {
    if (!group.isInState(PREPARING_REBALANCE)) return;
    if (group.previousState === EMPTY) return;
    if (!group.hasAllMembersJoined()) return;
    this.completeJoin(group);
  }

  private completeJoinById(groupId: string): void {
    const group = this.ctx.groups.get(groupId);
    if (group) this.completeJoin(group);
  }

  /**
   * Ends the join phase (`completeClassicGroupJoin`): dynamic members that did not rejoin are
   * dropped (static ones stay), the leader is re-elected among rejoined members, the generation
   * advances. With members left: every parked JoinGroup is answered (only the leader gets the
   * member list), sessions restart and the sync deadline starts. With none: Empty, and a
   * GroupMetadata record without members is written.
   */
  completeJoin(group: ClassicGroup): void {
    const { groupId } = group;
    this.ctx.timers.cancel(joinKey(groupId));
    const dropped = group.notYetRejoinedMembers().filter((m) => !m.isStaticMember);
    for (const m of dropped) {
      group.remove(m.memberId);
      this.cancelHeartbeat(group, m.memberId);
    }
    if (dropped.length > 0) {
      this.ctx.log.info({ groupId, memberIds: dropped.map((m) => m.memberId) }, 'removed classic group members that did not rejoin');
    }
    if (group.isInState(DEAD)) return;
    if (!group.maybeElectNewJoinedLeader() && group.numMembers > 0) {
      // Nobody rejoined: wait another rebalance timeout; session expiry will remove the silent members.
      this.ctx.log.error({ groupId }, 'classic group could not complete rebalance because no members rejoined');
      this.ctx.timers.schedule(joinKey(groupId), group.rebalanceTimeoutMs(), () => this.completeJoinById(groupId));
      return;
    }
    group.initNextGeneration();
    if (group.isInState(EMPTY)) {
      this.ctx.writer.appendLogged([groupMetadataRecord(group, new Map())], 'empty group metadata');
      return;
    }
    for (const member of group.allMembers()) {
      const response = currentGenerationJoin(group, member.memberId, group.isLeader(member.memberId) ? group.currentMembersForJoin() : []);
      group.completeJoin(member, response);
      this.rescheduleHeartbeat(group, member);
      member.isNew = false;
      group.addPendingSyncMember(member.memberId);
    }
    this.schedulePendingSync(group);
  }

  // ---- sync phase -------------------------------------------------------------------------

  /** Members must send SyncGroup within the rebalance timeout (`schedulePendingSync`). */
  private schedulePendingSync(group: ClassicGroup): void {
    const { groupId, generationId } = group;
    this.ctx.timers.schedule(syncKey(groupId), group.rebalanceTimeoutMs(), () => this.expirePendingSync(groupId, generationId));
  }

  /** Drops the sync deadline and the list of members it waits for (a new rebalance starts). */
  private removeSyncExpiration(group: ClassicGroup): void {
    group.clearPendingSyncMembers();
    this.ctx.timers.cancel(syncKey(group.groupId));
  }

  /** A member synced; the deadline goes once nobody is missing (`removePendingSyncMember`). */
  removePendingSyncMember(group: ClassicGroup, memberId: string): void {
    group.removePendingSyncMember(memberId);
    const waiting = group.isInState(COMPLETING_REBALANCE) || group.isInState(STABLE);
    if (!waiting || group.hasReceivedSyncFromAllMembers()) this.ctx.timers.cancel(syncKey(group.groupId));
  }

  /** Sync deadline passed (`expirePendingSync`): members that never synced are removed, then rebalance. */
  private expirePendingSync(groupId: string, generationId: number): void {
    const group = this.ctx.groups.get(groupId);
    if (!group || group.generationId !== generationId) return;
    if (!(group.isInState(COMPLETING_REBALANCE) || group.isInState(STABLE))) return;
    if (group.hasReceivedSyncFromAllMembers()) return;
    const missing = group.allPendingSyncMembers();
    for (const memberId of missing) {
      group.remove(memberId);
      this.cancelHeartbeat(group, memberId);
    }
    this.prepareRebalance(group, `removing ${missing.join(', ')} on pending sync request expiration`);
  }

  /** Clears every assignment and answers parked SyncGroups with `errorCode` (`resetAndPropagateAssignmentWithError`). */
  resetAndPropagateAssignmentWithError(group: ClassicGroup, errorCode: number): void {
    if (!group.isInState(COMPLETING_REBALANCE)) throw new Error(`group ${group.groupId} is not CompletingRebalance`);
    for (const m of group.allMembers()) m.assignment = EMPTY_BYTES;
    this.propagateAssignment(group, errorCode);
  }

  /** Stores the leader's assignments (empty for members it left out) and answers parked SyncGroups. */
  setAndPropagateAssignment(group: ClassicGroup, assignments: ReadonlyMap<string, Buffer>): void {
    if (!group.isInState(COMPLETING_REBALANCE)) throw new Error(`group ${group.groupId} is not CompletingRebalance`);
    for (const m of group.allMembers()) m.assignment = assignments.get(m.memberId) ?? EMPTY_BYTES;
    this.propagateAssignment(group, ErrorCode.NONE);
  }

  /**
   * Answers every parked SyncGroup (`propagateAssignment`) and restarts those members' sessions,
   * since an expiry ignored while they were parked armed no new timer.
   */
  private propagateAssignment(group: ClassicGroup, errorCode: number): void {
    const ok = errorCode === ErrorCode.NONE;
    for (const member of group.allMembers()) {
      const answered = group.completeSync(member, {
        throttleTimeMs: 0,
        errorCode,
        protocolType: ok ? group.protocolType : null,
        protocolName: ok ? group.protocolName : null,
        assignment: member.assignment,
      });
      if (answered) this.rescheduleHeartbeat(group, member);
    }
  }
}

/** A successful JoinGroup answer carrying the group's current generation; only the leader gets `members`. */
export function currentGenerationJoin(group: ClassicGroup, memberId: string, members: JoinGroupResponse['members']): JoinGroupResponse {
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    generationId: group.generationId,
    protocolType: group.protocolType,
    protocolName: group.protocolName,
    leader: group.leaderId ?? '',
    skipAssignment: false,
    memberId,
    members,
  };
}
