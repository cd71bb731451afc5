/**
 * A KIP-848 consumer group (Kafka's `modern/consumer/ConsumerGroup`): every field but
 * `metadataExpired` is rebuilt from records 3, 5, 6, 7, 8 and 16, and changes only by applying
 * them (`ConsumerGroupCoordinator.apply`).
 */
import type { ConsumerGroupRegularExpressionValue } from '../../records/schemas/ConsumerGroupRegularExpressionValue.js';
import type { Assignment } from './assignment.js';
import { isReconciledTo, type ConsumerGroupMember } from './member.js';

export const ConsumerGroupState = {
  EMPTY: 'Empty',
  ASSIGNING: 'Assigning',
  RECONCILING: 'Reconciling',
  STABLE: 'Stable',
  DEAD: 'Dead',
} as const;
export type ConsumerGroupStateName = (typeof ConsumerGroupState)[keyof typeof ConsumerGroupState];

/** The group type ListGroups reports (`GroupType.CONSUMER`). */
export const CONSUMER_GROUP_TYPE = 'consumer';
/** The protocol type of consumer groups (`ConsumerProtocol.PROTOCOL_TYPE`). */
export const CONSUMER_PROTOCOL_TYPE = 'consumer';

const key = (topicId: string, partition: number) => `${topicId}:${partition}`;

/**
 * The epochs a group starts at before any record 3 / 6 is written (Kafka 4.3, KAFKA-20268):
 * `ModernGroup` sets `groupEpoch` to 1 and `TargetAssignmentMetadata.INITIAL` is (epoch 1,
 * timestamp 0), an empty target. So a new group's first bump writes epoch 2, the first computed
 * target has epoch 2, and a member joining with an empty subscription stays at epoch 1.
 */
export const INITIAL_GROUP_EPOCH = 1;

export class ConsumerGroup {
  groupEpoch = INITIAL_GROUP_EPOCH;
  /** Hash of the subscribed topics' metadata (record 3 tag 0; 0 when nothing is subscribed). */
  metadataHash = 0n;
  assignmentEpoch = INITIAL_GROUP_EPOCH;
  assignmentTimestamp = 0n;
  readonly members = new Map<string, ConsumerGroupMember>();
  readonly targetAssignment = new Map<string, Assignment>();
  readonly staticMembers = new Map<string, string>();
  readonly resolvedRegexes = new Map<string, ConsumerGroupRegularExpressionValue>();
  /** A pre-4.1 type-4 record is in the log: tombstoned on the next heartbeat, as 4.1+ does. */
  hasLegacyPartitionMetadata = false;
  /**
   * Kafka's `metadataRefreshDeadline` / `hasMetadataExpired` (in memory, not from records): a
   * heartbeat recomputes the metadata hash only when the group epoch bumps or this is set. Set for
   * a new or reloaded group and when a topic the group subscribes to is created or deleted
   * (`requestMetadataRefresh`); cleared when the hash is recomputed.
   */
  metadataExpired = true;
  /** Owner epoch per partition (assigned or pending revocation): `currentPartitionEpoch`. */
  private readonly partitionEpochs = new Map<string, number>();
  /**
   * Members per subscribed regex (Kafka's `ConsumerGroup.subscribedRegularExpressions`), kept as
   * members are updated and removed, so a heartbeat need not walk every member.
   */
  private readonly regexCounts = new Map<string, number>();

  constructor(readonly groupId: string) {}

  /**
   * A copy that shares nothing mutable with this group (members, assignments and regex values are
   * replaced, never changed in place, so the maps are copied and their values shared). The copy's
   * metadata counts as expired, so its next heartbeat recomputes the hash.
   */
  clone(): ConsumerGroup {
    const copy = new ConsumerGroup(this.groupId);
    copy.groupEpoch = this.groupEpoch;
    copy.metadataHash = this.metadataHash;
    copy.assignmentEpoch = this.assignmentEpoch;
    copy.assignmentTimestamp = this.assignmentTimestamp;
    for (const [k, v] of this.members) copy.members.set(k, v);
    for (const [k, v] of this.targetAssignment) copy.targetAssignment.set(k, v);
    for (const [k, v] of this.staticMembers) copy.staticMembers.set(k, v);
    for (const [k, v] of this.resolvedRegexes) copy.resolvedRegexes.set(k, v);
    for (const [k, v] of this.partitionEpochs) copy.partitionEpochs.set(k, v);
    for (const [k, v] of this.regexCounts) copy.regexCounts.set(k, v);
    copy.hasLegacyPartitionMetadata = this.hasLegacyPartitionMetadata;
    copy.metadataExpired = true;
    return copy;
  }

  get numMembers(): number {
    return this.members.size;
  }

  isEmpty(): boolean {
    return this.members.size === 0;
  }

  /** `ConsumerGroup.maybeUpdateGroupState`. */
  get state(): ConsumerGroupStateName {
    if (this.members.size === 0) return ConsumerGroupState.EMPTY;
    if (this.groupEpoch > this.assignmentEpoch) return ConsumerGroupState.ASSIGNING;
    for (const m of this.members.values()) if (!isReconciledTo(m, this.assignmentEpoch)) return ConsumerGroupState.RECONCILING;
    return ConsumerGroupState.STABLE;
  }

  staticMember(instanceId: string): ConsumerGroupMember | undefined {
    const id = this.staticMembers.get(instanceId);
    return id === undefined ? undefined : this.members.get(id);
  }

  targetOf(memberId: string): Assignment {
    return this.targetAssignment.get(memberId) ?? new Map();
  }

  /** The regexes the members subscribe to, with how many members subscribe to each (none: not listed). */
  get subscribedRegularExpressions(): ReadonlyMap<string, number> {
    return this.regexCounts;
  }

  /** `ConsumerGroup.numSubscribedMembers(regex)`. */
  numSubscribedMembers(regex: string): number {
    return this.regexCounts.get(regex) ?? 0;
  }

  /** -1 when no member holds the partition. */
  currentPartitionEpoch(topicId: string, partition: number): number {
    return this.partitionEpochs.get(key(topicId, partition)) ?? -1;
  }

  updateMember(member: ConsumerGroupMember): void {
    const old = this.members.get(member.memberId);
    if (old) this.releasePartitions(old);
    if (old?.subscribedTopicRegex !== member.subscribedTopicRegex) {
      this.countRegex(old?.subscribedTopicRegex ?? '', -1);
      this.countRegex(member.subscribedTopicRegex, 1);
    }
    this.members.set(member.memberId, member);
    if (old?.instanceId && old.instanceId !== member.instanceId && this.staticMembers.get(old.instanceId) === member.memberId) {
      this.staticMembers.delete(old.instanceId);
    }
    if (member.instanceId !== null) this.staticMembers.set(member.instanceId, member.memberId);
    this.holdPartitions(member);
  }

  removeMember(memberId: string): void {
    const old = this.members.get(memberId);
    if (!old) return;
    this.releasePartitions(old);
    this.countRegex(old.subscribedTopicRegex, -1);
    this.members.delete(memberId);
    if (old.instanceId !== null && this.staticMembers.get(old.instanceId) === memberId) this.staticMembers.delete(old.instanceId);
  }

  private countRegex(regex: string, delta: number): void {
    if (regex === '') return;
    const n = (this.regexCounts.get(regex) ?? 0) + delta;
    if (n > 0) this.regexCounts.set(regex, n);
    else this.regexCounts.delete(regex);
  }

  private holdPartitions(m: ConsumerGroupMember): void {
    for (const a of [m.assigned, m.pendingRevocation]) {
      for (const [topicId, parts] of a) for (const p of parts.keys()) this.partitionEpochs.set(key(topicId, p), m.memberEpoch);
    }
  }

  private releasePartitions(m: ConsumerGroupMember): void {
    for (const a of [m.assigned, m.pendingRevocation]) {
      for (const [topicId, parts] of a) {
        for (const p of parts.keys()) {
          const k = key(topicId, p);
          if (this.partitionEpochs.get(k) === m.memberEpoch) this.partitionEpochs.delete(k);
        }
      }
    }
  }

  /**
   * The server assignor most members asked for (`preferredServerAssignor`), ties broken by name;
   * null when none asked (the default assignor applies).
   */
  preferredServerAssignor(members: Iterable<ConsumerGroupMember> = this.members.values()): string | null {
    const counts = new Map<string, number>();
    for (const m of members) if (m.serverAssignor !== null) counts.set(m.serverAssignor, (counts.get(m.serverAssignor) ?? 0) + 1);
    let best: string | null = null;
    let bestCount = 0;
    for (const [name, n] of [...counts].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      if (n > bestCount) {
        best = name;
        bestCount = n;
      }
    }
    return best;
  }
}
