import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ErrorCode } from '../../protocol/errors.js';
import type { JoinGroupResponse, JoinGroupResponseMember } from '../../protocol/messages/JoinGroupResponse.js';
import type { SyncGroupResponse } from '../../protocol/messages/SyncGroupResponse.js';
import type { Time } from '../../util/time.js';
import { ClassicGroupMember, type MemberProtocol } from './classic-member.js';
import { ClassicGroupState, VALID_PREVIOUS_STATES } from './group-state.js';
import { subscribedTopicsOf } from './consumer-protocol.js';
import { COMMIT_TIMESTAMP_EXPIRATION, expirationFrom, type OffsetExpirationCondition } from '../offsets/expiration-condition.js';
import { owned, SharedEmptyMap, SharedEmptySet } from '../../util/shared-empty.js';

const { EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD } = ClassicGroupState;

/** The empty collections every group starts with, shared until it first writes to one (`owned`). */
const NO_MEMBERS = new SharedEmptyMap<string, ClassicGroupMember>();
const NO_STATIC_MEMBERS = new SharedEmptyMap<string, string>();
const NO_MEMBER_IDS = new SharedEmptySet<string>();
const NO_PROTOCOL_SUPPORT = new SharedEmptyMap<string, number>();

/** What a group needs from its coordinator. */
export interface ClassicGroupEnv {
  readonly time: Time;
  readonly log: Logger;
  /** Restarts the member's session timer (an OffsetCommit keeps the session alive, as a Heartbeat does). */
  readonly onMemberActivity: (group: ClassicGroup, member: ClassicGroupMember) => void;
}

/** The persisted part of a group, as loaded from a GroupMetadata record. */
export interface ClassicGroupSnapshot {
  state: ClassicGroupState;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leaderId: string | null;
  currentStateTimestamp: number | null;
}

/**
 * The state of one classic group (Kafka's `ClassicGroup`): members, static member bindings,
 * members still expected in the join and sync phases, the protocol votes and the generation.
 * It holds no timers: the coordinator (`Rebalancer`) drives transitions; the group only keeps
 * its bookkeeping consistent and refuses invalid state transitions.
 */
/** A group's state fields at one moment (`ClassicGroup.saveState`). */
export interface SavedGroupState {
  readonly state: ClassicGroupState;
  readonly previousState: ClassicGroupState;
  readonly currentStateTimestamp: number | null;
}

export class ClassicGroup {
  readonly groupId: string;
  private readonly env: ClassicGroupEnv;
  private stateValue: ClassicGroupState;
  private previousStateValue: ClassicGroupState = DEAD;
  /** ms since the epoch of the last transition; null when loaded from a pre-v2 record. */
  currentStateTimestamp: number | null;
  protocolType: string | null;
  protocolName: string | null;
  generationId: number;
  leaderId: string | null;
  /** Insertion-ordered, so the "first member" used for leader fallback is deterministic here. */
  private members: Map<string, ClassicGroupMember> = NO_MEMBERS;
  /** group instance id -> member id. */
  private staticMembers: Map<string, string> = NO_STATIC_MEMBERS;
  /** Member ids handed out with MEMBER_ID_REQUIRED that have not joined yet. */
  private pendingJoinMembers: Set<string> = NO_MEMBER_IDS;
  private pendingSyncMembers: Set<string> = NO_MEMBER_IDS;
  /** protocol name -> number of members supporting it. */
  private protocolSupport: Map<string, number> = NO_PROTOCOL_SUPPORT;
  private awaitingJoinCount = 0;
  /** Topics the members subscribe to (protocol type "consumer" only); null when unknown. */
  subscribedTopics: Set<string> | null = null;
  /** Set when a member joins during the initial (from Empty) rebalance, which extends the delay. */
  newMemberAdded = false;
  /**
   * Why the rebalance under way started (`prepareRebalance`'s reason, with the clients' own), and
   * why the one that made the current generation did (null: unknown, e.g. loaded at start). For the
   * web console's timeline only: neither is stored nor reverted.
   */
  rebalanceReason: string | null = null;
  generationReason: string | null = null;

  constructor(groupId: string, env: ClassicGroupEnv, snapshot?: ClassicGroupSnapshot) {
    this.groupId = groupId;
    this.env = env;
    this.stateValue = snapshot?.state ?? EMPTY;
    this.generationId = snapshot?.generationId ?? 0;
    this.protocolType = snapshot?.protocolType ?? null;
    this.protocolName = snapshot?.protocolName ?? null;
    this.leaderId = snapshot?.leaderId ?? null;
    this.currentStateTimestamp = snapshot ? snapshot.currentStateTimestamp : env.time.now();
  }

  get state(): ClassicGroupState {
    return this.stateValue;
  }

  get previousState(): ClassicGroupState {
    return this.previousStateValue;
  }

  isInState(state: ClassicGroupState): boolean {
    return this.stateValue === state;
  }

  /** Moves to `target`, stamping the time and logging (throws on a transition Kafka forbids). */
  transitionTo(target: ClassicGroupState): void {
    if (!VALID_PREVIOUS_STATES[target].includes(this.stateValue)) {
      throw new Error(`group ${this.groupId} cannot move from ${this.stateValue} to ${target}`);
    }
    this.previousStateValue = this.stateValue;
    this.stateValue = target;
    this.currentStateTimestamp = this.env.time.now();
    this.env.log.info(
      { groupId: this.groupId, from: this.previousStateValue, to: target, generationId: this.generationId },
      'classic group state change',
    );
  }

  /** The state fields, for `restoreState` (bringing back a group whose deletion failed). */
  saveState(): SavedGroupState {
    return { state: this.stateValue, previousState: this.previousStateValue, currentStateTimestamp: this.currentStateTimestamp };
  }

  /** Puts back the state fields `saveState` returned, bypassing the transition rules (an undo, not a transition). */
  restoreState(saved: SavedGroupState): void {
    this.stateValue = saved.state;
    this.previousStateValue = saved.previousState;
    this.currentStateTimestamp = saved.currentStateTimestamp;
  }

  // ---- membership -------------------------------------------------------------------------

  hasMember(memberId: string): boolean {
    return this.members.has(memberId);
  }

  member(memberId: string): ClassicGroupMember | undefined {
    return this.members.get(memberId);
  }

  allMembers(): ClassicGroupMember[] {
    return [...this.members.values()];
  }

  get numMembers(): number {
    return this.members.size;
  }

  get numAwaitingJoinResponse(): number {
    return this.awaitingJoinCount;
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId;
  }

  /** Adds a member (first member fixes the protocol type; first member is leader). `ClassicGroup.add`. */
  add(member: ClassicGroupMember, awaitingJoin: ((r: JoinGroupResponse) => void) | null = null): void {
    if (member.groupInstanceId !== null) {
      if (this.staticMembers.has(member.groupInstanceId)) {
        throw new Error(`static member ${member.groupInstanceId} is already in group ${this.groupId}`);
      }
      (this.staticMembers = owned(this.staticMembers)).set(member.groupInstanceId, member.memberId);
    }
    if (this.members.size === 0) this.protocolType = member.protocolType;
    if (this.leaderId === null) this.leaderId = member.memberId;
    (this.members = owned(this.members)).set(member.memberId, member);
    this.countProtocols(member, +1);
    member.awaitingJoin = awaitingJoin;
    if (member.isAwaitingJoin) this.awaitingJoinCount++;
    this.pendingJoinMembers.delete(member.memberId);
  }

  /** Removes a member or pending member; a leaving leader hands over to the first remaining member. */
  remove(memberId: string): void {
    const removed = this.members.get(memberId);
    if (removed) {
      this.members.delete(memberId);
      this.countProtocols(removed, -1);
      if (removed.isAwaitingJoin) this.awaitingJoinCount--;
      if (removed.groupInstanceId !== null) this.staticMembers.delete(removed.groupInstanceId);
    }
    if (this.isLeader(memberId)) {
      const next = this.members.keys().next();
      this.leaderId = next.done ? null : next.value;
    }
    this.pendingJoinMembers.delete(memberId);
    this.pendingSyncMembers.delete(memberId);
  }

  /** Updates a rejoining member's protocols and timeouts and parks (or un-parks) its JoinGroup. */
  updateMember(
    member: ClassicGroupMember,
    protocols: readonly MemberProtocol[],
    rebalanceTimeoutMs: number,
    sessionTimeoutMs: number,
    awaitingJoin: ((r: JoinGroupResponse) => void) | null,
  ): void {
    this.countProtocols(member, -1);
    member.supportedProtocols = protocols;
    this.countProtocols(member, +1);
    member.rebalanceTimeoutMs = rebalanceTimeoutMs;
    member.sessionTimeoutMs = sessionTimeoutMs;
    if (awaitingJoin !== null && !member.isAwaitingJoin) this.awaitingJoinCount++;
    else if (awaitingJoin === null && member.isAwaitingJoin) this.awaitingJoinCount--;
    member.awaitingJoin = awaitingJoin;
  }

  /**
   * Swaps a static member's id (`ClassicGroup.replaceStaticMember`): the old id's parked
   * JoinGroup / SyncGroup get FENCED_INSTANCE_ID, everything else carries over.
   */
  replaceStaticMember(groupInstanceId: string, oldMemberId: string, newMemberId: string): ClassicGroupMember {
    const old = this.members.get(oldMemberId);
    if (!old) throw new Error(`cannot replace unknown member ${oldMemberId} of group ${this.groupId}`);
    this.completeJoin(old, errorJoin(ErrorCode.FENCED_INSTANCE_ID, oldMemberId));
    this.completeSync(old, errorSync(ErrorCode.FENCED_INSTANCE_ID));
    this.members.delete(oldMemberId);
    const replacement = new ClassicGroupMember({
      memberId: newMemberId,
      groupInstanceId: old.groupInstanceId,
      clientId: old.clientId,
      clientHost: old.clientHost,
      rebalanceTimeoutMs: old.rebalanceTimeoutMs,
      sessionTimeoutMs: old.sessionTimeoutMs,
      protocolType: old.protocolType,
      supportedProtocols: old.supportedProtocols,
      assignment: old.assignment,
    });
    (this.members = owned(this.members)).set(newMemberId, replacement);
    if (this.isLeader(oldMemberId)) this.leaderId = newMemberId;
    (this.staticMembers = owned(this.staticMembers)).set(groupInstanceId, newMemberId);
    return replacement;
  }

  hasStaticMember(groupInstanceId: string): boolean {
    return this.staticMembers.has(groupInstanceId);
  }

  staticMemberId(groupInstanceId: string): string | undefined {
    return this.staticMembers.get(groupInstanceId);
  }

  staticMemberCount(): number {
    return this.staticMembers.size;
  }

  /** Member ids (`clientId-UUID`, or `groupInstanceId-UUID` for static members). */
  generateMemberId(clientId: string, groupInstanceId: string | null): string {
    return `${groupInstanceId ?? clientId}-${randomUUID()}`;
  }

  isPendingMember(memberId: string): boolean {
    return this.pendingJoinMembers.has(memberId);
  }

  addPendingMember(memberId: string): void {
    if (this.members.has(memberId)) throw new Error(`member ${memberId} is already in group ${this.groupId}`);
    (this.pendingJoinMembers = owned(this.pendingJoinMembers)).add(memberId);
  }

  get numPendingJoinMembers(): number {
    return this.pendingJoinMembers.size;
  }

  /** Every member has a parked JoinGroup and no MEMBER_ID_REQUIRED member is outstanding. */
  hasAllMembersJoined(): boolean {
    return this.members.size === this.awaitingJoinCount && this.pendingJoinMembers.size === 0;
  }

  /** Members that have not rejoined during this join phase. */
  notYetRejoinedMembers(): ClassicGroupMember[] {
    return this.allMembers().filter((m) => !m.isAwaitingJoin);
  }

  /**
   * Keeps the leader if it rejoined, else elects a rejoined member (`maybeElectNewJoinedLeader`).
   * False when there is no leader or nobody rejoined.
   */
  maybeElectNewJoinedLeader(): boolean {
    if (this.leaderId === null) return false;
    const leader = this.members.get(this.leaderId);
    if (leader?.isAwaitingJoin) return true;
    const joined = this.allMembers().find((m) => m.isAwaitingJoin);
    if (!joined) return false;
    this.env.log.info(
      { groupId: this.groupId, oldLeader: this.leaderId, newLeader: joined.memberId },
      'classic group leader did not rejoin in time; electing a rejoined member',
    );
    this.leaderId = joined.memberId;
    return true;
  }

  addPendingSyncMember(memberId: string): void {
    (this.pendingSyncMembers = owned(this.pendingSyncMembers)).add(memberId);
  }

  removePendingSyncMember(memberId: string): void {
    this.pendingSyncMembers.delete(memberId);
  }

  hasReceivedSyncFromAllMembers(): boolean {
    return this.pendingSyncMembers.size === 0;
  }

  allPendingSyncMembers(): string[] {
    return [...this.pendingSyncMembers];
  }

  clearPendingSyncMembers(): void {
    this.pendingSyncMembers.clear();
  }

  /** The group's rebalance timeout: the largest of its members' (`ClassicGroup.rebalanceTimeoutMs`). */
  rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  /** Whether a rebalance may start from the current state (Stable, CompletingRebalance or Empty). */
  canRebalance(): boolean {
    return VALID_PREVIOUS_STATES[PREPARING_REBALANCE].includes(this.stateValue);
  }

  /**
   * Whether a member with this protocol type and these protocol names may join: an Empty group
   * takes any non-empty type with at least one protocol; otherwise the type must match and one
   * protocol must be supported by every current member (`ClassicGroup.supportsProtocols`).
   */
  supportsProtocols(protocolType: string, protocolNames: readonly string[]): boolean {
    if (this.isInState(EMPTY)) return protocolType !== '' && protocolNames.length > 0;
    return this.protocolType === protocolType && protocolNames.some((n) => (this.protocolSupport.get(n) ?? 0) === this.members.size);
  }

  /** The protocol with the most votes among those every member supports (`ClassicGroup.selectProtocol`). */
  selectProtocol(): string {
    if (this.members.size === 0) throw new Error(`cannot select a protocol for empty group ${this.groupId}`);
    const candidates = new Set<string>();
    for (const [name, count] of this.protocolSupport) if (count === this.members.size) candidates.add(name);
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const choice = m.vote(candidates);
      votes.set(choice, (votes.get(choice) ?? 0) + 1);
    }
    let best = '';
    let bestVotes = -1;
    for (const [name, count] of votes) {
      if (count > bestVotes) {
        best = name;
        bestVotes = count;
      }
    }
    return best;
  }

  /**
   * Starts the next generation (`ClassicGroup.initNextGeneration`): generation + 1, the voted
   * protocol, CompletingRebalance; or Empty with no protocol when no member is left.
   */
  initNextGeneration(): void {
    this.generationId++;
    this.generationReason = this.rebalanceReason;
    this.rebalanceReason = null;
    if (this.members.size > 0) {
      this.protocolName = this.selectProtocol();
      this.subscribedTopics = this.computeSubscribedTopics();
      this.transitionTo(COMPLETING_REBALANCE);
    } else {
      this.protocolName = null;
      this.subscribedTopics = this.computeSubscribedTopics();
      this.transitionTo(EMPTY);
    }
    this.clearPendingSyncMembers();
  }

  /** The members as the leader's JoinGroup response lists them, with metadata for the chosen protocol. */
  currentMembersForJoin(): JoinGroupResponseMember[] {
    if (this.isInState(DEAD) || this.isInState(PREPARING_REBALANCE)) {
      throw new Error(`group ${this.groupId} has no member metadata in state ${this.stateValue}`);
    }
    return this.allMembers().map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      metadata: m.metadata(this.protocolName ?? ''),
    }));
  }

  /** Resolves the member's parked JoinGroup; false when it had none. */
  completeJoin(member: ClassicGroupMember, response: JoinGroupResponse): boolean {
    const resolve = member.awaitingJoin;
    if (!resolve) return false;
    member.awaitingJoin = null;
    this.awaitingJoinCount--;
    resolve(response);
    return true;
  }

  /** Answers every parked JoinGroup with `errorCode`. */
  completeAllJoins(errorCode: number): void {
    for (const m of this.members.values()) this.completeJoin(m, { ...errorJoin(errorCode), memberId: m.memberId });
  }

  /** Resolves the member's parked SyncGroup; false when it had none. */
  completeSync(member: ClassicGroupMember, response: SyncGroupResponse): boolean {
    const resolve = member.awaitingSync;
    if (!resolve) return false;
    member.awaitingSync = null;
    resolve(response);
    return true;
  }

  /** Answers every parked SyncGroup with `errorCode`. */
  completeAllSyncs(errorCode: number): void {
    for (const m of this.members.values()) this.completeSync(m, errorSync(errorCode));
  }

  // ---- offsets ------------------------------------------------------------------------------

  /**
   * A group that only holds offsets of standalone consumers (`ClassicGroup.isSimpleGroup`): no
   * protocol type, Empty, nobody pending.
   */
  isSimpleGroup(): boolean {
    return this.protocolType === null && this.isInState(EMPTY) && this.pendingJoinMembers.size === 0;
  }

  /**
   * Member check shared by SyncGroup, Heartbeat, LeaveGroup and commits (`ClassicGroup.validateMember`):
   * an instance id bound to another member -> FENCED_INSTANCE_ID, unknown instance id or member ->
   * UNKNOWN_MEMBER_ID. Returns NONE when the member is valid.
   */
  validateMember(memberId: string, groupInstanceId: string | null): number {
    if (groupInstanceId !== null) {
      const existing = this.staticMembers.get(groupInstanceId);
      if (existing === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (existing !== memberId) {
        this.env.log.info({ groupId: this.groupId, memberId, groupInstanceId, existingMemberId: existing }, 'static member fenced');
        return ErrorCode.FENCED_INSTANCE_ID;
      }
    }
    return this.members.has(memberId) ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  /**
   * Group-level check of an OffsetCommit / TxnOffsetCommit, as Kafka 4.3's
   * `ClassicGroup.validateOffsetCommit`:
   * - Dead -> COORDINATOR_NOT_AVAILABLE;
   * - generation < 0 while Empty -> accepted (admin tools, `assign()` consumers);
   * - generation >= 0, a member id or an instance id -> FENCED_INSTANCE_ID / UNKNOWN_MEMBER_ID
   *   from `validateMember`, then ILLEGAL_GENERATION unless the generation is current;
   * - otherwise (no identity, group not Empty) -> UNKNOWN_MEMBER_ID, transactional commits excepted;
   * - non-transactional while CompletingRebalance -> REBALANCE_IN_PROGRESS.
   * A valid commit in Stable or PreparingRebalance restarts the member's session, as
   * `OffsetMetadataManager.commitOffset` does. `apiVersion` is accepted for parity with Kafka's
   * signature; classic validation does not depend on it.
   */
  validateOffsetCommit(
    memberId: string,
    groupInstanceId: string | null,
    generationId: number,
    isTransactional: boolean,
    apiVersion: number,
  ): number {
    void apiVersion;
    if (this.isInState(DEAD)) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (generationId < 0 && this.isInState(EMPTY)) return ErrorCode.NONE;
    if (generationId >= 0 || memberId !== '' || groupInstanceId !== null) {
      const memberError = this.validateMember(memberId, groupInstanceId);
      if (memberError !== ErrorCode.NONE) return memberError;
      if (generationId !== this.generationId) return ErrorCode.ILLEGAL_GENERATION;
    } else if (!isTransactional && !this.isInState(EMPTY)) {
      return ErrorCode.UNKNOWN_MEMBER_ID;
    }
    if (!isTransactional && this.isInState(COMPLETING_REBALANCE)) return ErrorCode.REBALANCE_IN_PROGRESS;
    if (!isTransactional && (this.isInState(STABLE) || this.isInState(PREPARING_REBALANCE))) {
      const member = this.members.get(memberId);
      if (member) this.env.onMemberActivity(this, member);
    }
    return ErrorCode.NONE;
  }

  /**
   * Group-level check of an OffsetFetch (`ClassicGroup.validateOffsetFetch`): classic groups carry
   * no member epoch, so only a Dead group is refused (GROUP_ID_NOT_FOUND).
   */
  validateOffsetFetch(memberId: string | null, memberEpoch: number, lastCommittedOffset?: bigint): number {
    void memberId;
    void memberEpoch;
    void lastCommittedOffset;
    return this.isInState(DEAD) ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.NONE;
  }

  /**
   * Which of the group's offsets may expire (`ClassicGroup.offsetExpirationCondition`); the
   * retention sweep also skips topics the group is subscribed to (`isSubscribedToTopic`):
   * - no protocol type (a simple group): retention from each offset's commit time;
   * - Empty with a protocol type: from when the group became Empty (`currentStateTimestamp`), or
   *   from the commit time when that is unknown (loaded from a GroupMetadata record before v2);
   * - Stable, protocol type "consumer", subscriptions known: from the commit time (so only
   *   offsets of topics no member subscribes to can expire);
   * - otherwise (rebalancing, another protocol type, unknown subscriptions): null, nothing expires.
   */
  offsetExpirationCondition(): OffsetExpirationCondition | null {
    if (this.protocolType === null) return COMMIT_TIMESTAMP_EXPIRATION;
    if (this.isInState(EMPTY)) {
      return this.currentStateTimestamp === null ? COMMIT_TIMESTAMP_EXPIRATION : expirationFrom(this.currentStateTimestamp);
    }
    if (this.usesConsumerProtocol() && this.subscribedTopics !== null && this.isInState(STABLE)) return COMMIT_TIMESTAMP_EXPIRATION;
    return null;
  }

  /** Whether the group has no members (`ClassicGroup.isEmpty`: the Empty state); an empty group may be deleted. */
  isEmpty(): boolean {
    return this.isInState(EMPTY);
  }

  /**
   * Whether the group consumes `topic` (`ClassicGroup.isSubscribedToTopic`); when the subscriptions
   * are unknown, a "consumer" group is assumed subscribed and any other group not.
   */
  isSubscribedToTopic(topic: string): boolean {
    if (this.subscribedTopics !== null) return this.subscribedTopics.has(topic);
    return this.usesConsumerProtocol();
  }

  usesConsumerProtocol(): boolean {
    return this.protocolType === 'consumer';
  }

  /**
   * Union of the members' subscribed topics for protocol type "consumer", read from the chosen
   * protocol's metadata (`computeSubscribedTopics`); null when not knowable.
   */
  computeSubscribedTopics(): Set<string> | null {
    if (!this.usesConsumerProtocol()) return null;
    if (this.members.size === 0) return new Set();
    if (this.protocolName === null) return null;
    const all = new Set<string>();
    for (const m of this.members.values()) {
      const topics = subscribedTopicsOf(m.metadata(this.protocolName));
      if (topics === null) {
        this.env.log.warn({ groupId: this.groupId, memberId: m.memberId }, 'unreadable consumer protocol subscription');
        return null;
      }
      for (const t of topics) all.add(t);
    }
    return all;
  }

  private countProtocols(member: ClassicGroupMember, delta: 1 | -1): void {
    // A name listed twice by one member still counts as one member supporting it.
    for (const name of new Set(member.supportedProtocols.map((p) => p.name))) {
      (this.protocolSupport = owned(this.protocolSupport)).set(name, (this.protocolSupport.get(name) ?? 0) + delta);
    }
  }
}

/** A JoinGroup response carrying only an error (Kafka's defaults for the other fields). */
export function errorJoin(errorCode: number, memberId = ''): JoinGroupResponse {
  return {
    throttleTimeMs: 0,
    errorCode,
    generationId: -1,
    protocolType: null,
    protocolName: null,
    leader: '',
    skipAssignment: false,
    memberId,
    members: [],
  };
}

/** A SyncGroup response carrying only an error. */
export function errorSync(errorCode: number): SyncGroupResponse {
  return { throttleTimeMs: 0, errorCode, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) };
}
