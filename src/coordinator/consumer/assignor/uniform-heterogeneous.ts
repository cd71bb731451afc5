/**
 * The uniform assignor for a group whose members subscribe to different topics: the same
 * algorithm as Kafka's `UniformHeterogeneousAssignmentBuilder` (the KAFKA-17710 rework,
 * Balance > Stickiness, no rack awareness).
 *
 * Members are numbered 0..M-1 in group order (Kafka: `new ArrayList<>(groupSpec.memberIds())`)
 * and every tie between members is broken by that number.
 * 1. Members keep their current partitions of topics they still subscribe to.
 * 2. Unassigned partitions are handed out topic by topic — topics sorted by partitions per
 *    subscriber descending, then subscriber count ascending, then topic id (`Uuid.compareTo`)
 *    — partition by partition, to the least loaded subscribers (round robin over the range of
 *    members with the smallest assignment, which grows as levels even out).
 * 3. Balance: up to 16 passes over the topics with 2+ subscribers (same topic order) move the
 *    highest-numbered partitions of the most loaded subscribers to the least loaded ones until
 *    every topic's subscribers are within one partition, stopping after a full pass without a
 *    move.
 */
import { compareUuid } from './java-order.js';
import { Orderer } from './order.js';
import type { GroupAssignment, GroupSpec, SubscribedTopicDescriber } from './types.js';
import { PartitionAssignorError } from './types.js';

const MAX_ITERATION_COUNT = 16;

export function assignUniformHeterogeneous(
  group: GroupSpec,
  describer: SubscribedTopicDescriber,
): GroupAssignment {
  return new HeterogeneousBuilder(group, describer).build();
}

class HeterogeneousBuilder {
  private readonly memberIds: string[];
  private readonly subscribedTopicIds = new Set<string>();
  /** Subscribers of each topic, member indices ascending. */
  private readonly topicSubscribers = new Map<string, number[]>();
  private readonly sizes: number[];
  /** Owner member index of each partition, -1 if unassigned. */
  private readonly owners = new Map<string, number[]>();
  private readonly target: Map<string, Set<number>>[];
  private readonly numPartitionsCache = new Map<string, number>();

  constructor(
    private readonly group: GroupSpec,
    private readonly describer: SubscribedTopicDescriber,
  ) {
    this.memberIds = new Orderer(group).memberIds(group);
    this.sizes = new Array<number>(this.memberIds.length).fill(0);
    this.target = this.memberIds.map(() => new Map<string, Set<number>>());

    this.memberIds.forEach((memberId, memberIndex) => {
      for (const topicId of group.members.get(memberId)!.subscribedTopicIds) {
        if (this.numPartitions(topicId) === -1) {
          throw new PartitionAssignorError(
            `Members are subscribed to topic ${topicId} which doesn't exist in the topic metadata.`,
          );
        }
        this.subscribedTopicIds.add(topicId);
        let subs = this.topicSubscribers.get(topicId);
        if (subs === undefined) this.topicSubscribers.set(topicId, (subs = []));
        subs.push(memberIndex);
      }
    });

    for (const topicId of this.subscribedTopicIds) {
      this.owners.set(topicId, new Array<number>(this.numPartitions(topicId)).fill(-1));
    }
  }

  private numPartitions(topicId: string): number {
    let n = this.numPartitionsCache.get(topicId);
    if (n === undefined) {
      n = this.describer.numPartitions(topicId);
      this.numPartitionsCache.set(topicId, n);
    }
    return n;
  }

  build(): GroupAssignment {
    if (this.subscribedTopicIds.size === 0) return { members: new Map() };

    this.keepCurrentAssignments();
    this.assignRemainingPartitions(this.computeUnassignedPartitions());
    this.balance();

    const out = new Map<string, Map<string, Set<number>>>();
    this.memberIds.forEach((memberId, i) => {
      const m = new Map<string, Set<number>>();
      for (const [topicId, ps] of this.target[i]!) {
        if (ps.size > 0) m.set(topicId, new Set([...ps].sort((a, b) => a - b)));
      }
      out.set(memberId, m);
    });
    return { members: out };
  }

  /** Topic order: partitions per subscriber desc, subscribers asc, topic id asc. */
  private compareTopics = (t1: string, t2: string): number => {
    const p1 = this.numPartitions(t1);
    const p2 = this.numPartitions(t2);
    const s1 = this.topicSubscribers.get(t1)!.length;
    const s2 = this.topicSubscribers.get(t2)!.length;
    const r1 = p1 / s1;
    const r2 = p2 / s2;
    if (r1 !== r2) return r2 < r1 ? -1 : 1;
    if (s1 !== s2) return s1 - s2;
    return compareUuid(t1, t2);
  };

  private compareMembers = (m1: number, m2: number): number =>
    this.sizes[m1]! - this.sizes[m2]! || m1 - m2;

  private sortTopicIds(topicIds: Iterable<string>): string[] {
    return [...topicIds].sort(this.compareTopics);
  }

  /** Drops topics a member no longer subscribes to; records owners and sizes. */
  private keepCurrentAssignments(): void {
    this.memberIds.forEach((memberId, memberIndex) => {
      const member = this.group.members.get(memberId)!;
      for (const [topicId, partitions] of member.assignedPartitions) {
        if (!member.subscribedTopicIds.has(topicId)) continue;
        const owners = this.owners.get(topicId)!;
        const kept = new Set<number>();
        for (const p of partitions) {
          // Kafka would fail on a partition beyond the partition count (which cannot happen
          // there, partitions only grow); it is dropped here.
          if (p < 0 || p >= owners.length) continue;
          owners[p] = memberIndex;
          kept.add(p);
        }
        this.sizes[memberIndex]! += kept.size;
        if (kept.size > 0) this.target[memberIndex]!.set(topicId, kept);
      }
    });
  }

  private computeUnassignedPartitions(): Map<string, number[]> {
    const result = new Map<string, number[]>();
    for (const topicId of this.subscribedTopicIds) {
      const owners = this.owners.get(topicId)!;
      const free: number[] = [];
      for (let p = 0; p < owners.length; p++) if (owners[p] === -1) free.push(p);
      if (free.length > 0) result.set(topicId, free);
    }
    return result;
  }

  private assignRemainingPartitions(partitions: Map<string, number[]>): void {
    const balancer = new MemberBalancer(this.sizes, this.compareMembers);
    for (const topicId of this.sortTopicIds(partitions.keys())) {
      balancer.initialize(this.topicSubscribers.get(topicId)!);
      for (const p of partitions.get(topicId)!) {
        this.assignPartition(topicId, p, balancer.nextLeastLoadedMember());
      }
    }
  }

  private balance(): void {
    const topicIds = [...this.subscribedTopicIds].filter(
      (t) => this.topicSubscribers.get(t)!.length >= 2,
    );
    if (topicIds.length > 0) this.balanceTopics(topicIds);
  }

  private balanceTopics(topicIds: string[]): void {
    const sorted = this.sortTopicIds(topicIds);
    let lastRebalanceTopicIndex = -1;
    const balancer = new MemberBalancer(this.sizes, this.compareMembers);
    for (let i = 0; i < MAX_ITERATION_COUNT; i++) {
      for (let topicIndex = 0; topicIndex < sorted.length; topicIndex++) {
        if (topicIndex === lastRebalanceTopicIndex) return;
        const moved = this.balanceTopic(sorted[topicIndex]!, balancer);
        if (moved > 0 || lastRebalanceTopicIndex === -1) lastRebalanceTopicIndex = topicIndex;
      }
    }
  }

  private balanceTopic(topicId: string, balancer: MemberBalancer): number {
    let moved = 0;
    const owners = this.owners.get(topicId)!;
    const imbalance = balancer.initialize(this.topicSubscribers.get(topicId)!);
    if (imbalance <= 1) return moved;

    // Partitions grouped by owner (owner index asc, then partition asc).
    const partitions = owners.map((_, p) => p);
    partitions.sort((a, b) => owners[a]! - owners[b]! || a - b);
    const start = new Map<number, number>();
    const end = new Map<number, number>(); // exclusive
    partitions.forEach((p, i) => {
      const owner = owners[p]!;
      if (!start.has(owner)) start.set(owner, i);
      end.set(owner, i + 1);
    });

    while (!balancer.isBalanced()) {
      let mostLoaded = -1;
      for (;;) {
        mostLoaded = balancer.nextMostLoadedMember();
        if (mostLoaded === -1) break;
        const e = end.get(mostLoaded);
        if (e === undefined || e - start.get(mostLoaded)! <= 0) {
          balancer.excludeMostLoadedMember();
          continue;
        }
        break;
      }
      if (mostLoaded === -1) break;

      // The member's last (highest) partition of the topic goes.
      const e = end.get(mostLoaded)!;
      const partition = partitions[e - 1]!;
      end.set(mostLoaded, e - 1);

      const leastLoaded = balancer.nextLeastLoadedMember();
      if (balancer.isBalanced()) break;

      this.assignPartition(topicId, partition, leastLoaded);
      moved++;
    }
    return moved;
  }

  private assignPartition(topicId: string, partition: number, memberIndex: number): void {
    const owners = this.owners.get(topicId)!;
    const old = owners[partition]!;
    if (old !== -1) {
      const set = this.target[old]!.get(topicId);
      if (set !== undefined) {
        set.delete(partition);
        if (set.size === 0) this.target[old]!.delete(topicId);
      }
      owners[partition] = -1;
      this.sizes[old]!--;
    }
    let set = this.target[memberIndex]!.get(topicId);
    if (set === undefined) this.target[memberIndex]!.set(topicId, (set = new Set()));
    set.add(partition);
    owners[partition] = memberIndex;
    this.sizes[memberIndex]!++;
  }
}

/**
 * Kafka's `MemberAssignmentBalancer`: two ranges over the subscribers sorted by size — the
 * least loaded range grows rightwards as it is filled level by level, the most loaded range
 * grows leftwards as it is drained; balanced when their levels differ by at most one.
 */
class MemberBalancer {
  private sorted: number[] = [];
  private leastLoadedRangeEnd = 0;
  private leastLoadedRangePartitionCount = -1;
  private nextLeastLoaded = 0;
  private mostLoadedRangeStart = 0;
  private mostLoadedRangeEnd = 0;
  private mostLoadedRangePartitionCount = 1;
  private nextMostLoaded = -1;

  constructor(
    private readonly sizes: number[],
    private readonly compare: (a: number, b: number) => number,
  ) {}

  initialize(members: readonly number[]): number {
    if (members.length === 0) throw new Error('Cannot balance an empty subscriber list.');
    this.sorted = [...members].sort(this.compare);
    const n = this.sorted.length;
    const first = this.sizes[this.sorted[0]!]!;
    const last = this.sizes[this.sorted[n - 1]!]!;
    this.leastLoadedRangeEnd = 0;
    this.leastLoadedRangePartitionCount = first - 1;
    this.nextLeastLoaded = 0;
    this.mostLoadedRangeStart = n;
    this.mostLoadedRangeEnd = n;
    this.mostLoadedRangePartitionCount = last + 1;
    this.nextMostLoaded = n - 1;
    return last - first;
  }

  nextLeastLoadedMember(): number {
    if (this.nextLeastLoaded >= this.leastLoadedRangeEnd) {
      this.leastLoadedRangePartitionCount++;
      while (
        this.leastLoadedRangeEnd < this.sorted.length &&
        this.sizes[this.sorted[this.leastLoadedRangeEnd]!] === this.leastLoadedRangePartitionCount
      ) {
        this.leastLoadedRangeEnd++;
      }
      this.nextLeastLoaded = 0;
    }
    return this.sorted[this.nextLeastLoaded++]!;
  }

  nextMostLoadedMember(): number {
    if (this.nextMostLoaded < this.mostLoadedRangeStart) {
      if (this.mostLoadedRangeEnd <= this.mostLoadedRangeStart && this.mostLoadedRangeStart > 0) {
        this.mostLoadedRangePartitionCount = this.sizes[this.sorted[this.mostLoadedRangeStart - 1]!]!;
      } else {
        this.mostLoadedRangePartitionCount--;
      }
      while (
        this.mostLoadedRangeStart > 0 &&
        this.sizes[this.sorted[this.mostLoadedRangeStart - 1]!] === this.mostLoadedRangePartitionCount
      ) {
        this.mostLoadedRangeStart--;
      }
      this.nextMostLoaded = this.mostLoadedRangeEnd - 1;
    }
    if (this.nextMostLoaded < 0) return -1;
    return this.sorted[this.nextMostLoaded--]!;
  }

  excludeMostLoadedMember(): void {
    const i = this.nextMostLoaded + 1;
    const member = this.sorted[i]!;
    this.sorted[i] = this.sorted[this.mostLoadedRangeEnd - 1]!;
    this.sorted[this.mostLoadedRangeEnd - 1] = member;
    this.mostLoadedRangeEnd--;
  }

  isBalanced(): boolean {
    return this.mostLoadedRangePartitionCount - this.leastLoadedRangePartitionCount <= 1;
  }
}
