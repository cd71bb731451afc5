/**
 * Kafka 4.3's share-group assignor `simple` (`SimpleAssignor` with its
 * `SimpleHomogeneousAssignmentBuilder` and `SimpleHeterogeneousAssignmentBuilder`, KIP-932):
 * partitions may be shared, so a partition goes to `ceil(members / partitions)` members
 * ("desired sharing") and each member aims at its share of the `sharing × partitions` slots; the
 * current target assignment is kept where it fits those counts (stickiness), the rest is revoked
 * and re-handed round-robin over the unfilled members. Only assignable partitions count: for share
 * groups those whose share state is initialized (`GroupSpec.isPartitionAssignable`).
 *
 * Kafka walks `HashMap`s and `HashSet`s here, so which member gets which partition depends on
 * Java's iteration order; `java-collections.ts` reproduces it, so a group gets the assignment a
 * Kafka 4.3 broker computes for the same members and topics.
 */
import { capacityAfterPuts, javaHashOrder, javaUuidHash } from '../consumer/assignor/java-order.js';
import { javaStringHashCode } from '../../util/java-hash.js';
import { PartitionAssignorError } from '../consumer/assignor/types.js';
import { JavaHashMap, JavaHashSet, copyCapacity, helperCapacity, intSet } from './java-collections.js';

/** The assignor's name, as ShareGroupDescribe reports it. */
export const SIMPLE_ASSIGNOR_NAME = 'simple';

/** topicId -> partitions. */
export type ShareAssignment = ReadonlyMap<string, ReadonlySet<number>>;

export interface ShareAssignorMember {
  /** The ids of the member's subscribed topics that exist, in the order Kafka iterates them (`TopicIds`). */
  subscribedTopicIds: readonly string[];
  /** The member's current target assignment. */
  assignment: ShareAssignment;
}

export interface ShareAssignorInput {
  /** The members in the order they were put into the target assignment builder's map. */
  members: ReadonlyMap<string, ShareAssignorMember>;
  homogeneous: boolean;
  /** topicId -> partitions that may be assigned (initialized share partitions). */
  assignable: ShareAssignment;
  /** Partition count of a topic, -1 when unknown. */
  numPartitions(topicId: string): number;
}

type UuidMap<V> = JavaHashMap<string, V>;
type PartitionSet = JavaHashSet<number>;

const uuidMap = <V>(capacity = 16): UuidMap<V> => new JavaHashMap<string, V>(javaUuidHash, (k) => k, capacity);
const uuidSet = (capacity = 16): JavaHashSet<string> => new JavaHashSet<string>(javaUuidHash, (k) => k, capacity);
/** `TopicIdPartition` record: `31 * topicId.hashCode() + partition`. */
interface TopicIdPartition {
  topicId: string;
  partition: number;
}

/**
 * A run's `TopicIdPartition` hash and identity. The topic id's `Uuid.hashCode` (a base64 parse) is
 * computed once per topic, and the identity is a number (topic's index × 2^31 + partition), not a
 * string per lookup: with thousands of partitions these ran for each map operation.
 */
function topicPartitionKeys(): { hash: (tp: TopicIdPartition) => number; id: (tp: TopicIdPartition) => number } {
  const topics = new Map<string, { hash: number; index: number }>();
  const topic = (topicId: string): { hash: number; index: number } => {
    let t = topics.get(topicId);
    if (!t) topics.set(topicId, (t = { hash: javaUuidHash(topicId), index: topics.size }));
    return t;
  };
  return {
    hash: (tp) => (Math.imul(31, topic(tp.topicId).hash) + tp.partition) | 0,
    id: (tp) => topic(tp.topicId).index * 2 ** 31 + tp.partition,
  };
}

/** `new HashSet<>(partitions)`. */
function copyPartitions(parts: Iterable<number>): PartitionSet {
  const list = [...parts];
  const set = intSet(copyCapacity(list.length));
  for (const p of list) set.add(p);
  return set;
}

/** A member's assignment as Kafka holds it (`Assignment.partitions()`: a HashMap of HashSets). */
function javaAssignment(a: ShareAssignment): UuidMap<PartitionSet> {
  const out = uuidMap<PartitionSet>();
  for (const [topicId, parts] of a) out.set(topicId, copyPartitions([...parts].sort((x, y) => x - y)));
  return out;
}

/** `AssignorHelpers.deepCopyAssignment`. */
function deepCopy(a: UuidMap<PartitionSet>): UuidMap<PartitionSet> {
  const out = uuidMap<PartitionSet>(a.size);
  for (const [topicId, parts] of a.entries()) out.set(topicId, copyPartitions(parts));
  return out;
}

function isAssignable(input: ShareAssignorInput, topicId: string, partition: number): boolean {
  return input.assignable.get(topicId)?.has(partition) ?? false;
}

function partitionCountOrThrow(input: ShareAssignorInput, topicId: string): number {
  const n = input.numPartitions(topicId);
  if (n === -1) throw new PartitionAssignorError(`Members are subscribed to topic ${topicId} which doesn't exist in the topic metadata.`);
  return n;
}

/** Each member's share of `sharing × partitions` slots: `ceil(x·(i+1)) − ceil(x·i)`. */
function desiredCounts(sharing: number, partitions: number, members: number): number[] {
  const precise = (sharing * partitions) / members;
  return Array.from({ length: members }, (_, i) => Math.ceil(precise * (i + 1)) - Math.ceil(precise * i));
}

/** The state both builders share: members by index, their old and new assignments. */
class Members {
  readonly ids: string[];
  readonly old: JavaHashMap<number, UuidMap<PartitionSet>>;
  readonly next: JavaHashMap<number, UuidMap<PartitionSet>>;

  constructor(input: ShareAssignorInput) {
    const given = [...input.members.keys()];
    this.ids = javaHashOrder(given, javaStringHashCode, capacityAfterPuts(given.length));
    const n = this.ids.length;
    this.old = new JavaHashMap<number, UuidMap<PartitionSet>>((v) => v, (v) => v, helperCapacity(n));
    this.next = new JavaHashMap<number, UuidMap<PartitionSet>>((v) => v, (v) => v, helperCapacity(n));
    this.ids.forEach((id, i) => this.old.set(i, javaAssignment(input.members.get(id)!.assignment)));
  }

  /** The member's new assignment, copied from its old one the first time it changes. */
  editable(index: number): UuidMap<PartitionSet> {
    let a = this.next.get(index);
    if (!a) this.next.set(index, (a = deepCopy(this.old.get(index)!)));
    return a;
  }

  result(): Map<string, Map<string, Set<number>>> {
    const out = new Map<string, Map<string, Set<number>>>();
    this.ids.forEach((id, i) => {
      const a = this.next.get(i) ?? this.old.get(i)!;
      const m = new Map<string, Set<number>>();
      for (const [topicId, parts] of a.entries()) m.set(topicId, new Set([...parts].sort((x, y) => x - y)));
      out.set(id, m);
    });
    return out;
  }
}

/** `SimpleAssignor.assign`: memberId -> topicId -> partitions (empty when there is no member). */
export function assignSimple(input: ShareAssignorInput): Map<string, Map<string, Set<number>>> {
  if (input.members.size === 0) return new Map();
  return input.homogeneous ? homogeneous(input) : heterogeneous(input);
}

// ---- homogeneous: every member subscribes to the same topics ----------------------------------

function homogeneous(input: ShareAssignorInput): Map<string, Map<string, Set<number>>> {
  const members = new Members(input);
  const n = members.ids.length;
  const topicIds = input.members.get(members.ids[0]!)!.subscribedTopicIds;
  const subscribed = new Set(topicIds);
  const targets: TopicIdPartition[] = [];
  for (const topicId of topicIds) {
    const count = partitionCountOrThrow(input, topicId);
    for (let p = 0; p < count; p++) if (isAssignable(input, topicId, p)) targets.push({ topicId, partition: p });
  }
  if (topicIds.length === 0) return new Map();
  const sharing = targets.length === 0 ? 0 : Math.trunc((n + targets.length - 1) / targets.length);
  const desired = desiredCounts(sharing, targets.length, n);
  const tpKeys = topicPartitionKeys();
  const byPartition = new JavaHashMap<TopicIdPartition, JavaHashSet<number>>(tpKeys.hash, tpKeys.id, helperCapacity(targets.length));
  const byMember = new JavaHashMap<number, JavaHashSet<TopicIdPartition>>((v) => v, (v) => v, helperCapacity(n));
  const unfilled = intSet(helperCapacity(n));
  const overfilled = intSet(helperCapacity(n));
  const tpSet = (): JavaHashSet<TopicIdPartition> => new JavaHashSet<TopicIdPartition>(tpKeys.hash, tpKeys.id);

  // revokeUnassignablePartitions
  for (const [index, oldAssignment] of members.old.entries()) {
    let changed: UuidMap<PartitionSet> | null = null;
    let held = 0;
    for (const [topicId, parts] of oldAssignment.entries()) {
      if (subscribed.has(topicId)) {
        for (const partition of parts) {
          const tp = { topicId, partition };
          held++;
          byPartition.computeIfAbsent(tp, () => intSet()).add(index);
          byMember.computeIfAbsent(index, tpSet).add(tp);
          if (held >= desired[index]! && changed === null) changed = deepCopy(oldAssignment);
        }
      } else {
        changed ??= deepCopy(oldAssignment);
        changed.delete(topicId);
      }
    }
    if (changed !== null) members.next.set(index, changed);
    if (held < desired[index]!) unfilled.add(index);
    else if (held > desired[index]!) overfilled.add(index);
  }
  // revokeOverfilledMembers
  for (const index of overfilled) {
    const own = byMember.get(index)!;
    if (own.size <= desired[index]!) continue;
    for (const tp of own) {
      members.next.get(index)!.get(tp.topicId)!.delete(tp.partition);
      byPartition.get(tp)!.delete(index);
      own.delete(tp);
      if (own.size === desired[index]) break;
    }
  }
  // revokeOversharedPartitions
  for (const [tp, holders] of byPartition.entries()) {
    let count = holders.size;
    if (count <= sharing) continue;
    for (const index of holders) {
      const parts = members.editable(index).get(tp.topicId);
      if (parts?.delete(tp.partition)) {
        count--;
        holders.delete(index);
        byMember.get(index)!.delete(tp);
        unfilled.add(index);
      }
      if (count <= sharing) break;
    }
  }
  for (const tp of targets) byPartition.computeIfAbsent(tp, () => intSet());
  // assignRemainingPartitions
  handOutRemaining(
    unfilled,
    byPartition.entries(),
    sharing,
    (index, tp) => {
      members.editable(index).computeIfAbsent(tp.topicId, () => intSet()).add(tp.partition);
      const own = byMember.computeIfAbsent(index, tpSet);
      own.add(tp);
      return own.size >= desired[index]!;
    },
  );
  return members.result();
}

/**
 * `assignRemainingPartitions` of both builders: each partition below the desired sharing gets
 * members from a round-robin over the unfilled members (an iterator restarted while it still
 * hands something out); a member that reaches its desired count leaves the round.
 */
function handOutRemaining<P>(
  unfilled: JavaHashSet<number>,
  partitions: Iterable<[P, JavaHashSet<number>]>,
  sharing: number,
  give: (member: number, partition: P) => boolean,
): void {
  if (unfilled.size === 0) return;
  // Java's iterator over `unfilled`, restarted when it runs out: a walk over its keys in iteration
  // order skipping those removed (`memberIterator.remove()`), nothing being added meanwhile.
  let round = unfilled.keysInOrder();
  let at = 0;
  const next = (): number | undefined => {
    while (at < round.length && !unfilled.has(round[at]!)) at++;
    return at < round.length ? round[at++] : undefined;
  };
  let gaveThisRound = false;
  for (const [partition, holders] of partitions) {
    if (holders.size < sharing) {
      let toMake = sharing - holders.size;
      while (toMake > 0) {
        let index = next();
        if (index === undefined) {
          if (!gaveThisRound) break;
          round = unfilled.keysInOrder();
          at = 0;
          gaveThisRound = false;
          index = next();
          if (index === undefined) break;
        }
        if (holders.has(index)) continue;
        toMake--;
        gaveThisRound = true;
        if (give(index, partition)) unfilled.delete(index);
      }
    }
    if (unfilled.size === 0) break;
  }
}

// ---- heterogeneous: members subscribe to different topics; each topic is shared on its own ---

function heterogeneous(input: ShareAssignorInput): Map<string, Map<string, Set<number>>> {
  const members = new Members(input);
  const n = members.ids.length;
  const subscribed = uuidSet();
  for (const id of members.ids) for (const t of input.members.get(id)!.subscribedTopicIds) subscribed.add(t);
  const targetsByTopic = uuidMap<number[]>(helperCapacity(subscribed.size));
  for (const topicId of subscribed) {
    const count = partitionCountOrThrow(input, topicId);
    const list: number[] = [];
    for (let p = 0; p < count; p++) if (isAssignable(input, topicId, p)) list.push(p);
    targetsByTopic.set(topicId, list);
  }
  const membersByTopic = uuidMap<number[]>(helperCapacity(subscribed.size));
  members.ids.forEach((id, index) => {
    for (const t of input.members.get(id)!.subscribedTopicIds) membersByTopic.computeIfAbsent(t, () => []).push(index);
  });
  if (subscribed.size === 0) return new Map();
  for (const topicId of subscribed) assignTopic(members, n, topicId, targetsByTopic.get(topicId)!, membersByTopic.get(topicId)!, subscribed);
  return members.result();
}

/** `TopicAssignmentPartialBuilder.build` for one topic. */
function assignTopic(members: Members, n: number, topicId: string, targets: number[], subscribers: number[], subscribed: JavaHashSet<string>): void {
  const byPartition = new JavaHashMap<number, JavaHashSet<number>>((v) => v, (v) => v, helperCapacity(targets.length));
  const byMember = new JavaHashMap<number, JavaHashSet<number>>((v) => v, (v) => v, helperCapacity(subscribers.length));
  const sharing = targets.length === 0 ? 0 : Math.trunc((subscribers.length + targets.length - 1) / targets.length);
  const desired = new Array<number>(n).fill(0);
  desiredCounts(sharing, targets.length, subscribers.length).forEach((c, i) => (desired[subscribers[i]!] = c));

  // revokeUnassignablePartitions
  for (const [index, oldAssignment] of members.old.entries()) {
    if (oldAssignment.size === 0) continue;
    const held = oldAssignment.get(topicId);
    if (held === undefined) continue;
    if (subscribed.has(topicId)) {
      for (const p of held) {
        byPartition.computeIfAbsent(p, () => intSet()).add(index);
        byMember.computeIfAbsent(index, () => intSet()).add(p);
      }
    } else {
      const changed = deepCopy(oldAssignment);
      changed.delete(topicId);
      members.next.set(index, changed);
    }
  }
  // revokeOverfilledMembers
  for (const [index, held] of byMember.entries()) {
    if (held.size <= desired[index]!) continue;
    for (const p of held) {
      if (held.size <= desired[index]!) break;
      byPartition.get(p)!.delete(index);
      held.delete(p);
      members.editable(index).get(topicId)!.delete(p);
    }
  }
  // revokeOversharedPartitions
  for (const [p, holders] of byPartition.entries()) {
    let count = holders.size;
    if (count <= sharing) continue;
    for (const index of holders) {
      const parts = members.editable(index).get(topicId);
      if (parts?.delete(p)) {
        count--;
        holders.delete(index);
        byMember.get(index)!.delete(p);
      }
      if (count <= sharing) break;
    }
  }
  for (const p of targets) byPartition.computeIfAbsent(p, () => intSet(helperCapacity(subscribers.length)));
  const unfilled = intSet(helperCapacity(n));
  for (const index of subscribers) if ((byMember.get(index)?.size ?? 0) < desired[index]!) unfilled.add(index);
  handOutRemaining(unfilled, byPartition.entries(), sharing, (index, p) => {
    members.editable(index).computeIfAbsent(topicId, () => intSet()).add(p);
    const own = byMember.computeIfAbsent(index, () => intSet());
    own.add(p);
    return own.size >= desired[index]!;
  });
}
