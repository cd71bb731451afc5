/**
 * The per-member timers of consumer groups and what their expiry does (Kafka 4.3's
 * `GroupMetadataManager.scheduleConsumerGroupSessionTimeout`, `scheduleConsumerGroupRebalanceTimeout`,
 * `scheduleConsumerGroupJoinTimeoutIfAbsent`, `scheduleConsumerGroupSyncTimeout` and their cancel
 * methods): an expired timer fences the member (which may downgrade the group to a classic
 * group), and the records are appended with only a log line on failure.
 */
import { KeyedTimers, groupTimerKey, groupTimersPrefix } from '../classic/keyed-timers.js';
import type { ConsumerContext, ConsumerTimers } from './context.js';
import { ConsumerGroupError } from './errors.js';
import { fenceMember } from './fencing.js';
import { MemberState, type ConsumerGroupMember } from './member.js';
import type { ConsumerGroup } from './consumer-group.js';

// Keys follow the classic coordinator's scheme (keyed-timers.ts: the group id's length, the id, a
// NUL), so one group's timers are dropped with a single `cancelPrefix` and never another group's.
const sessionKey = (groupId: string, memberId: string) => groupTimerKey(groupId, 'cg-session', memberId);
const rebalanceKey = (groupId: string, memberId: string) => groupTimerKey(groupId, 'cg-rebalance', memberId);
const joinKey = (groupId: string, memberId: string) => groupTimerKey(groupId, 'cg-join', memberId);
const syncKey = (groupId: string, memberId: string) => groupTimerKey(groupId, 'cg-sync', memberId);

export class MemberTimers implements ConsumerTimers {
  private readonly timers: KeyedTimers;

  constructor(private readonly ctx: ConsumerContext) {
    // Expired timers' operations wait behind the requests already read, as Kafka queues them
    // (keyed-timers.ts): a heartbeat read before its member's session expired keeps the member.
    this.timers = new KeyedTimers(ctx.time, { behindReceivedRequests: true });
  }

  scheduleSession(groupId: string, memberId: string, timeoutMs = this.ctx.groupSettings(groupId).sessionTimeoutMs): void {
    this.timers.schedule(sessionKey(groupId, memberId), timeoutMs, () => {
      this.fenceOnExpiry(groupId, memberId, 'the member session expired', 'consumer group session expiry');
    });
  }

  sessionDueAt(groupId: string, memberId: string): number | undefined {
    return this.timers.dueAt(sessionKey(groupId, memberId));
  }

  expireSessionNow(groupId: string, memberId: string): boolean {
    return this.timers.fireNow(sessionKey(groupId, memberId));
  }

  scheduleRebalance(groupId: string, memberId: string, memberEpoch: number, rebalanceTimeoutMs: number): void {
    this.timers.schedule(rebalanceKey(groupId, memberId), Math.max(0, rebalanceTimeoutMs), () => {
      this.fenceOnExpiry(
        groupId,
        memberId,
        'the member failed to revoke partitions within the rebalance timeout',
        'consumer group rebalance timeout',
        (member) => member.state === MemberState.UNREVOKED_PARTITIONS && member.memberEpoch === memberEpoch,
      );
    });
  }

  /** `scheduleConsumerGroupJoinTimeoutIfAbsent`: a classic member told to rejoin is fenced if it does not. */
  scheduleJoinIfAbsent(groupId: string, memberId: string, rebalanceTimeoutMs: number): void {
    const key = joinKey(groupId, memberId);
    if (this.timers.has(key)) return;
    this.timers.schedule(key, Math.max(0, rebalanceTimeoutMs), () => {
      this.fenceOnExpiry(groupId, memberId, 'the classic member did not rejoin within the rebalance timeout', 'consumer group join timeout');
    });
  }

  cancelJoin(groupId: string, memberId: string): void {
    this.timers.cancel(joinKey(groupId, memberId));
  }

  /**
   * `scheduleConsumerGroupSyncTimeout`: after a successful JoinGroup, a classic member that sends
   * no successful SyncGroup within its rebalance timeout is fenced (a new JoinGroup restarts it).
   */
  scheduleSync(groupId: string, memberId: string, rebalanceTimeoutMs: number): void {
    this.timers.schedule(syncKey(groupId, memberId), Math.max(0, rebalanceTimeoutMs), () => {
      this.fenceOnExpiry(groupId, memberId, 'the member failed to sync within timeout', 'consumer group sync timeout');
    });
  }

  cancelSync(groupId: string, memberId: string): void {
    this.timers.cancel(syncKey(groupId, memberId));
  }

  cancelRebalance(groupId: string, memberId: string): void {
    this.timers.cancel(rebalanceKey(groupId, memberId));
  }

  cancelMember(groupId: string, memberId: string): void {
    this.timers.cancel(joinKey(groupId, memberId));
    this.timers.cancel(syncKey(groupId, memberId));
    this.timers.cancel(sessionKey(groupId, memberId));
    this.timers.cancel(rebalanceKey(groupId, memberId));
  }

  cancelGroup(groupId: string): void {
    this.timers.cancelPrefix(groupTimersPrefix(groupId));
  }

  cancelAll(): void {
    this.timers.cancelAll();
  }

  /**
   * After the log is replayed (`GroupMetadataManager.onLoaded`): every member's session timer
   * starts now, and members still revoking get their rebalance timer.
   */
  onLoaded(): void {
    for (const group of this.ctx.store.all()) this.restartGroup(group);
  }

  /** A loading coordinator holds no timers: every member's session and rebalance timers are cancelled until `restartGroup`. */
  holdGroup(group: ConsumerGroup): void {
    for (const memberId of group.members.keys()) {
      this.timers.cancel(sessionKey(group.groupId, memberId));
      this.timers.cancel(rebalanceKey(group.groupId, memberId));
    }
  }

  /**
   * Every member's session timer starts now, and members still revoking get their rebalance
   * timer: after the log is loaded, and for a group a failed write put back (the operation may
   * have cancelled timers of members it removed); `extraMs` later (a simulated load, see
   * `GroupCoordinator.loadStarted`).
   */
  restartGroup(group: ConsumerGroup, extraMs = 0): void {
    for (const m of group.members.values()) {
      this.scheduleSession(group.groupId, m.memberId, extraMs + (m.classicMemberMetadata?.sessionTimeoutMs ?? this.ctx.groupSettings(group.groupId).sessionTimeoutMs));
      if (m.state === MemberState.UNREVOKED_PARTITIONS) this.scheduleRebalance(group.groupId, m.memberId, m.memberEpoch, extraMs + m.rebalanceTimeoutMs);
    }
  }

  /**
   * A timer fired: fences the member if it is still in the group and `due` still holds for it. A
   * downgrade that cannot build the classic group changes nothing and is only logged, as Kafka's
   * failing timer operation is.
   */
  private fenceOnExpiry(groupId: string, memberId: string, reason: string, what: string, due: (member: ConsumerGroupMember) => boolean = () => true): void {
    const group = this.ctx.store.get(groupId);
    const member = group?.members.get(memberId);
    if (!group || !member || !due(member)) return;
    try {
      this.ctx.writer.appendLogged(fenceMember(this.ctx, group, member, reason), what);
    } catch (err) {
      if (!(err instanceof ConsumerGroupError)) throw err;
      this.ctx.log.error({ groupId, memberId, errorCode: err.errorCode, err: err.message }, `${what}: could not fence the member`);
    }
  }
}
