/**
 * A share group (KIP-932; Kafka 4.3's `modern/share/ShareGroup` and `ShareGroupMember`): group
 * epoch and metadata hash (record 11), members (10 and 14), target assignment (12 and 13) and the
 * share-partition bookkeeping of record 15 (which partitions' share state the group coordinator
 * has initialized, is initializing or is deleting). Rebuilt only by applying records
 * (`share-group-store.ts`). Partitions are shared: no revocation, no owner epochs.
 */
import type { ShareGroupMemberMetadataValue } from '../../records/schemas/ShareGroupMemberMetadataValue.js';
import type { ShareGroupCurrentMemberAssignmentValue } from '../../records/schemas/ShareGroupCurrentMemberAssignmentValue.js';
import type { ShareGroupStatePartitionMetadataValue } from '../../records/schemas/ShareGroupStatePartitionMetadataValue.js';

/** topicId -> partitions. */
export type Partitions = Map<string, Set<number>>;

export const ShareGroupState = { EMPTY: 'Empty', STABLE: 'Stable', DEAD: 'Dead' } as const;
export type ShareGroupStateName = (typeof ShareGroupState)[keyof typeof ShareGroupState];

/** `GroupType.SHARE` and `ShareGroup.PROTOCOL_TYPE`. */
export const SHARE_GROUP_TYPE = 'share';
export const SHARE_PROTOCOL_TYPE = 'share';
/** `MemberState.STABLE`: the only state a share member is ever in. */
export const SHARE_MEMBER_STABLE = 0;
export const SHARE_LEAVE_GROUP_MEMBER_EPOCH = -1;

export interface ShareGroupMember {
  readonly memberId: string;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  /** As the member sent them (Kafka keeps a HashSet; we keep the request order without duplicates). */
  readonly subscribedTopicNames: readonly string[];
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly state: number;
  readonly assigned: Partitions;
}

/** `new ShareGroupMember.Builder(memberId).build()`. */
export function newShareMember(memberId: string): ShareGroupMember {
  return { memberId, rackId: null, clientId: '', clientHost: '', subscribedTopicNames: [], memberEpoch: 0, previousMemberEpoch: -1, state: SHARE_MEMBER_STABLE, assigned: new Map() };
}

/** One topic of record 15: its name and partitions (and, for initializing ones, since when, for the retry interval). */
export interface InitTopic {
  readonly name: string;
  readonly partitions: ReadonlySet<number>;
  /** When the partitions were put in this state (ms, the coordinator clock; replay uses the load time as Kafka does). */
  readonly timestamp: number;
}

/** Record 15 as the coordinator holds it (`ShareGroupStatePartitionMetadataInfo`). */
export interface StatePartitionMetadata {
  readonly initializing: ReadonlyMap<string, InitTopic>;
  readonly initialized: ReadonlyMap<string, InitTopic>;
  readonly deleting: ReadonlySet<string>;
}

export const EMPTY_STATE_METADATA: StatePartitionMetadata = { initializing: new Map(), initialized: new Map(), deleting: new Set() };

export class ShareGroup {
  /** `ModernGroup` starts at epoch 1; record 11 replaces it. */
  groupEpoch = 1;
  metadataHash = 0n;
  /** `TargetAssignmentMetadata.INITIAL` (1, 0); the tombstone of record 12 sets -1. */
  assignmentEpoch = 1;
  assignmentTimestamp = 0n;
  readonly members = new Map<string, ShareGroupMember>();
  readonly targetAssignment = new Map<string, Partitions>();
  stateMetadata: StatePartitionMetadata | null = null;
  /**
   * `metadataRefreshDeadline` (in memory): set for a new or reloaded group and when a subscribed
   * topic changes (`requestMetadataRefresh`), so the next heartbeat recomputes the metadata hash;
   * Kafka 4.3 sets the deadline to now + Integer.MAX_VALUE ms after each computation.
   */
  metadataExpired = true;
  /** The group epoch the metadata was last computed at (`DeadlineAndEpoch.epoch`). */
  metadataEpoch = 0;

  constructor(readonly groupId: string) {}

  clone(): ShareGroup {
    const copy = new ShareGroup(this.groupId);
    copy.groupEpoch = this.groupEpoch;
    copy.metadataHash = this.metadataHash;
    copy.assignmentEpoch = this.assignmentEpoch;
    copy.assignmentTimestamp = this.assignmentTimestamp;
    for (const [k, v] of this.members) copy.members.set(k, v);
    for (const [k, v] of this.targetAssignment) copy.targetAssignment.set(k, v);
    copy.stateMetadata = this.stateMetadata;
    copy.metadataExpired = true;
    return copy;
  }

  get state(): ShareGroupStateName {
    return this.members.size === 0 ? ShareGroupState.EMPTY : ShareGroupState.STABLE;
  }

  isEmpty(): boolean {
    return this.members.size === 0;
  }

  /** Subscribed topic name -> number of members subscribing (`subscribedTopicNames()`), optionally with one member replaced. */
  subscriptionCounts(old?: ShareGroupMember, updated?: ShareGroupMember | null): Map<string, number> {
    const counts = new Map<string, number>();
    const add = (m: ShareGroupMember, d: number) => {
      for (const t of m.subscribedTopicNames) {
        const n = (counts.get(t) ?? 0) + d;
        if (n === 0) counts.delete(t);
        else counts.set(t, n);
      }
    };
    for (const m of this.members.values()) add(m, 1);
    if (old && this.members.has(old.memberId)) add(old, -1);
    if (updated) add(updated, 1);
    return counts;
  }
}

// ---- records <-> members --------------------------------------------------------------------

export function memberMetadataValue(m: ShareGroupMember): ShareGroupMemberMetadataValue {
  return { rackId: m.rackId, clientId: m.clientId, clientHost: m.clientHost, subscribedTopicNames: [...m.subscribedTopicNames] };
}

export function applyMemberMetadata(m: ShareGroupMember, v: ShareGroupMemberMetadataValue): ShareGroupMember {
  return { ...m, rackId: v.rackId, clientId: v.clientId, clientHost: v.clientHost, subscribedTopicNames: uniqueNames(v.subscribedTopicNames) };
}

export function currentAssignmentValue(m: ShareGroupMember): ShareGroupCurrentMemberAssignmentValue {
  return { memberEpoch: m.memberEpoch, previousMemberEpoch: m.previousMemberEpoch, state: m.state, assignedPartitions: partitionsToRecord(m.assigned) };
}

export function applyCurrentAssignment(m: ShareGroupMember, v: ShareGroupCurrentMemberAssignmentValue): ShareGroupMember {
  return { ...m, memberEpoch: v.memberEpoch, previousMemberEpoch: v.previousMemberEpoch, state: v.state, assigned: partitionsFromRecord(v.assignedPartitions) };
}

export function uniqueNames(names: readonly string[]): string[] {
  return [...new Set(names)];
}

/** Topics sorted by id, partitions ascending, empty topics left out. */
export function partitionsToRecord(a: ReadonlyMap<string, ReadonlySet<number>>): Array<{ topicId: string; partitions: number[] }> {
  return [...a.keys()]
    .sort()
    .filter((t) => a.get(t)!.size > 0)
    .map((topicId) => ({ topicId, partitions: [...a.get(topicId)!].sort((x, y) => x - y) }));
}

export function partitionsFromRecord(tps: ReadonlyArray<{ topicId: string; partitions: readonly number[] }>): Partitions {
  const out: Partitions = new Map();
  for (const tp of tps) {
    const set = out.get(tp.topicId) ?? new Set<number>();
    for (const p of tp.partitions) set.add(p);
    out.set(tp.topicId, set);
  }
  return out;
}

export function partitionsEqual(a: ReadonlyMap<string, ReadonlySet<number>>, b: ReadonlyMap<string, ReadonlySet<number>>): boolean {
  const nonEmpty = (m: ReadonlyMap<string, ReadonlySet<number>>) => [...m].filter(([, s]) => s.size > 0);
  const x = nonEmpty(a);
  const y = nonEmpty(b);
  if (x.length !== y.length) return false;
  for (const [t, s] of x) {
    const o = b.get(t);
    if (!o || o.size !== s.size) return false;
    for (const p of s) if (!o.has(p)) return false;
  }
  return true;
}

export function membersEqual(a: ShareGroupMember, b: ShareGroupMember): boolean {
  return (
    a.memberId === b.memberId &&
    a.memberEpoch === b.memberEpoch &&
    a.previousMemberEpoch === b.previousMemberEpoch &&
    a.state === b.state &&
    a.rackId === b.rackId &&
    a.clientId === b.clientId &&
    a.clientHost === b.clientHost &&
    sameNames(a.subscribedTopicNames, b.subscribedTopicNames) &&
    partitionsEqual(a.assigned, b.assigned)
  );
}

/** Set equality of topic names (Kafka compares HashSets). */
export function sameNames(a: readonly string[], b: readonly string[]): boolean {
  const s = new Set(a);
  return s.size === new Set(b).size && b.every((x) => s.has(x));
}

// ---- record 15 ------------------------------------------------------------------------------

export function stateMetadataFromRecord(v: ShareGroupStatePartitionMetadataValue, now: number): StatePartitionMetadata {
  const topics = (list: ShareGroupStatePartitionMetadataValue['initializedTopics']) =>
    new Map(list.map((t) => [t.topicId, { name: t.topicName, partitions: new Set(t.partitions), timestamp: now }] as const));
  return { initializing: topics(v.initializingTopics), initialized: topics(v.initializedTopics), deleting: new Set(v.deletingTopics.map((t) => t.topicId)) };
}

export function stateMetadataValue(
  initializing: ReadonlyMap<string, InitTopic>,
  initialized: ReadonlyMap<string, InitTopic>,
  deleting: ReadonlyMap<string, string>,
): ShareGroupStatePartitionMetadataValue {
  const topics = (m: ReadonlyMap<string, InitTopic>) =>
    [...m.keys()].sort().map((topicId) => ({ topicId, topicName: m.get(topicId)!.name, partitions: [...m.get(topicId)!.partitions].sort((x, y) => x - y) }));
  return {
    initializingTopics: topics(initializing),
    initializedTopics: topics(initialized),
    deletingTopics: [...deleting.keys()].sort().map((topicId) => ({ topicId, topicName: deleting.get(topicId)! })),
  };
}

/** `GroupMetadataManager.combineInitMaps`: partitions of both, the second's name and timestamp winning. */
export function combineInitMaps(a: ReadonlyMap<string, InitTopic>, b: ReadonlyMap<string, InitTopic>): Map<string, InitTopic> {
  const out = new Map<string, InitTopic>();
  for (const topicId of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(topicId);
    const y = b.get(topicId);
    const partitions = new Set<number>([...(x?.partitions ?? []), ...(y?.partitions ?? [])]);
    out.set(topicId, { name: y?.name ?? x?.name ?? 'UNKNOWN', partitions, timestamp: y?.timestamp ?? x?.timestamp ?? -1 });
  }
  return out;
}
