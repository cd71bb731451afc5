/**
 * Kafka's server-side `RangeAssignor` (group-coordinator): contiguous partition ranges per
 * topic, members sorted with static members first (by instance id) then dynamic members (by
 * member id). Not sticky: the result depends only on the sorted members, the subscriptions
 * and the partition counts (and racks, see below). Homogeneous groups are co-partitioned
 * when all topics have the same partition count: member i gets the same partition numbers
 * of every topic.
 *
 * For each topic: quota = partitions / subscribers, and the first `partitions % subscribers`
 * subscribers in sorted order get one more; each takes the lowest partitions still free.
 *
 * Rack awareness (homogeneous groups only, as in the newest Kafka source read): when some
 * member has a rack that some replica has and the partitions do not all have the same replica
 * racks, partitions are first given to members on a matching rack (a member without a rack
 * matches everything) within their quota — same partition number across topics when the
 * topics are co-partitioned — and the rest is then filled in range order.
 */
import type {
  ConsumerGroupPartitionAssignor,
  GroupAssignment,
  GroupSpec,
  SubscribedTopicDescriber,
} from './types.js';
import { PartitionAssignorError } from './types.js';
import { compareJavaStrings } from './java-order.js';
import { racksFor } from './uniform-homogeneous.js';

class TopicState {
  minQuota = -1;
  extraPartitions = -1;
  nextRange = 0;
  /** Free partitions, ascending (a LinkedHashSet in Kafka). */
  readonly unassigned: Set<number>;

  constructor(
    readonly topicId: string,
    readonly numPartitions: number,
    public numMembers: number,
    readonly partitionRacks: Map<number, ReadonlySet<string>>,
  ) {
    this.unassigned = new Set();
    for (let p = 0; p < numPartitions; p++) this.unassigned.add(p);
  }

  maybeComputeQuota(): void {
    if (this.minQuota !== -1) return;
    this.minQuota = Math.trunc(this.numPartitions / this.numMembers);
    this.extraPartitions = this.numPartitions % this.numMembers;
  }

  racksMatch(partition: number, memberRack: string | null): boolean {
    if (memberRack === null) return true;
    const racks = this.partitionRacks.get(partition);
    return racks !== undefined && racks.has(memberRack);
  }
}

type Assignment = Map<string, Set<number>>;

function sortMemberIds(group: GroupSpec): string[] {
  const ids = [...group.members.keys()];
  ids.sort((a, b) => {
    const ia = group.members.get(a)!.instanceId;
    const ib = group.members.get(b)!.instanceId;
    if (ia !== null && ib !== null) return compareJavaStrings(ia, ib);
    if (ia !== null) return -1;
    if (ib !== null) return 1;
    return compareJavaStrings(a, b);
  });
  return ids;
}

function addPartitionsToAssignment(topic: TopicState, assignment: Assignment): void {
  const already = assignment.get(topic.topicId)?.size ?? 0;
  let quota = topic.minQuota;
  if (topic.extraPartitions > 0) {
    quota++;
    topic.extraPartitions--;
  }
  const needed = quota - already;
  if (needed <= 0) return;

  if (topic.unassigned.size > 0) {
    const take: number[] = [];
    for (const p of topic.unassigned) {
      if (take.length >= needed) break;
      take.push(p);
    }
    let set = assignment.get(topic.topicId);
    if (set === undefined) assignment.set(topic.topicId, (set = new Set()));
    for (const p of take) {
      set.add(p);
      topic.unassigned.delete(p);
    }
    return;
  }

  // Kafka's fallback when nothing is free (only reachable after rack-aware pre-assignment).
  const start = topic.nextRange;
  const end = Math.min(start + needed, topic.numPartitions);
  topic.nextRange = end;
  if (start < end) {
    const set = new Set<number>();
    for (let p = start; p < end; p++) set.add(p);
    assignment.set(topic.topicId, set);
  }
}

function shouldUseRackAware(memberRacks: Map<string, string | null>, topics: TopicState[]): boolean {
  const consumerRacks = new Set<string>();
  for (const r of memberRacks.values()) if (r !== null) consumerRacks.add(r);
  if (consumerRacks.size === 0) return false;
  const allPartitionRacks = new Set<string>();
  const uniqueRackSets = new Set<string>();
  for (const t of topics) {
    for (const racks of t.partitionRacks.values()) {
      for (const r of racks) allPartitionRacks.add(r);
      uniqueRackSets.add(JSON.stringify([...racks].sort()));
    }
  }
  if (allPartitionRacks.size === 0) return false;
  if (![...consumerRacks].some((r) => allPartitionRacks.has(r))) return false;
  return uniqueRackSets.size > 1;
}

function assignCoPartitionedWithRackMatching(
  topics: TopicState[],
  memberIds: string[],
  memberRacks: Map<string, string | null>,
  assignments: Map<string, Assignment>,
): void {
  const first = topics[0]!;
  const numPartitions = first.numPartitions;
  const remaining = new Set(memberIds);
  const counts = new Map<string, number>(memberIds.map((m) => [m, 0]));
  for (let p = 0; p < numPartitions; p++) {
    let match: string | undefined;
    for (const memberId of remaining) {
      if (counts.get(memberId)! < first.minQuota + (first.extraPartitions > 0 ? 1 : 0)) {
        if (topics.every((t) => t.racksMatch(p, memberRacks.get(memberId)!))) {
          match = memberId;
          break;
        }
      }
    }
    if (match === undefined) continue;
    const assignment = assignments.get(match)!;
    for (const t of topics) {
      let set = assignment.get(t.topicId);
      if (set === undefined) assignment.set(t.topicId, (set = new Set()));
      set.add(p);
      t.unassigned.delete(p);
    }
    const count = counts.get(match)! + 1;
    counts.set(match, count);
    const memberQuota = first.minQuota + (count <= first.extraPartitions ? 1 : 0);
    if (count >= memberQuota) {
      remaining.delete(match);
      if (remaining.size === 0) break;
    }
  }
}

function assignTopicWithRackMatching(
  topic: TopicState,
  memberIds: string[],
  memberRacks: Map<string, string | null>,
  assignments: Map<string, Assignment>,
): void {
  const counts = new Map<string, number>(memberIds.map((m) => [m, 0]));
  for (const p of [...topic.unassigned]) {
    const match = memberIds.find((memberId) => {
      const c = counts.get(memberId)!;
      const quota = topic.minQuota + (c < topic.extraPartitions ? 1 : 0);
      return c < quota && topic.racksMatch(p, memberRacks.get(memberId)!);
    });
    if (match === undefined) continue;
    const assignment = assignments.get(match)!;
    let set = assignment.get(topic.topicId);
    if (set === undefined) assignment.set(topic.topicId, (set = new Set()));
    set.add(p);
    topic.unassigned.delete(p);
    counts.set(match, counts.get(match)! + 1);
  }
}

function assignHomogeneous(group: GroupSpec, describer: SubscribedTopicDescriber): GroupAssignment {
  const memberIds = sortMemberIds(group);
  const numMembers = memberIds.length;
  const subs = group.members.get(memberIds[0]!)!.subscribedTopicIds;
  const memberRacks = new Map<string, string | null>(
    memberIds.map((m) => [m, group.members.get(m)!.rackId]),
  );

  const topics: TopicState[] = [];
  for (const topicId of subs) {
    const n = describer.numPartitions(topicId);
    if (n === -1) throw new PartitionAssignorError('Member is subscribed to a non-existent topic');
    const partitionRacks = new Map<number, ReadonlySet<string>>();
    for (let p = 0; p < n; p++) {
      const racks = racksFor(describer, topicId, p);
      if (racks.size > 0) partitionRacks.set(p, racks);
    }
    topics.push(new TopicState(topicId, n, numMembers, partitionRacks));
  }

  const assignments = new Map<string, Assignment>(memberIds.map((m) => [m, new Map()]));
  for (const t of topics) t.maybeComputeQuota();

  if (shouldUseRackAware(memberRacks, topics)) {
    const coPartitioned = topics.length > 1 && topics.every((t) => t.numPartitions === topics[0]!.numPartitions);
    if (coPartitioned) {
      assignCoPartitionedWithRackMatching(topics, memberIds, memberRacks, assignments);
    } else {
      for (const t of topics) assignTopicWithRackMatching(t, memberIds, memberRacks, assignments);
    }
  }

  const out = new Map<string, Map<string, Set<number>>>();
  for (const memberId of memberIds) {
    const assignment = assignments.get(memberId)!;
    for (const t of topics) {
      t.maybeComputeQuota();
      addPartitionsToAssignment(t, assignment);
    }
    out.set(memberId, finishMember(assignment));
  }
  return { members: out };
}

function assignHeterogeneous(group: GroupSpec, describer: SubscribedTopicDescriber): GroupAssignment {
  const memberIds = sortMemberIds(group);
  const topics = new Map<string, TopicState>();
  for (const memberId of memberIds) {
    for (const topicId of group.members.get(memberId)!.subscribedTopicIds) {
      let t = topics.get(topicId);
      if (t === undefined) {
        const n = describer.numPartitions(topicId);
        if (n === -1) throw new PartitionAssignorError('Member is subscribed to a non-existent topic');
        topics.set(topicId, (t = new TopicState(topicId, n, 0, new Map())));
      }
      t.numMembers++;
    }
  }

  const out = new Map<string, Map<string, Set<number>>>();
  for (const memberId of memberIds) {
    const assignment: Assignment = new Map();
    for (const topicId of group.members.get(memberId)!.subscribedTopicIds) {
      const t = topics.get(topicId)!;
      t.maybeComputeQuota();
      addPartitionsToAssignment(t, assignment);
    }
    out.set(memberId, finishMember(assignment));
  }
  return { members: out };
}

function finishMember(assignment: Assignment): Map<string, Set<number>> {
  const m = new Map<string, Set<number>>();
  for (const [topicId, ps] of assignment) {
    if (ps.size > 0) m.set(topicId, new Set([...ps].sort((a, b) => a - b)));
  }
  return m;
}

export const rangeAssignor: ConsumerGroupPartitionAssignor = {
  name: 'range',
  assign(group: GroupSpec, topics: SubscribedTopicDescriber): GroupAssignment {
    if (group.members.size === 0) return { members: new Map() };
    return group.subscriptionType === 'HOMOGENEOUS'
      ? assignHomogeneous(group, topics)
      : assignHeterogeneous(group, topics);
  },
};
