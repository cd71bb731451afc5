/**
 * The uniform assignor for a group whose members all subscribe to the same topics: the same
 * algorithm as Kafka's `UniformHomogeneousAssignmentBuilder` in its rack-aware form
 * (Balance > Rack awareness > Stickiness).
 *
 * 1. Every partition of the subscribed topics that no member currently holds is unassigned;
 *    topics in the order of the subscription set, partitions ascending.
 * 2. quota = total / members; `total % members` members may hold one partition more.
 * 3. Members, in group order, keep their current partitions up to their quota (and, with the
 *    rack strategy, only partitions with a replica on their rack); the rest is revoked and
 *    appended to the unassigned list. A member that cannot fill an extra slot from what it
 *    holds gives the slot up for a later member to claim.
 * 4. With the rack strategy, each unassigned partition goes to the first unfilled member on a
 *    rack of one of its replicas.
 * 5. The extra slots still open go to the last unfilled members; then unfilled members, in
 *    order, take the unassigned partitions in list order.
 */
import { Orderer } from './order.js';
import type { GroupAssignment, GroupSpec, SubscribedTopicDescriber } from './types.js';
import { PartitionAssignorError } from './types.js';

interface UnfilledMember {
  memberId: string;
  remainingQuota: number;
}

interface TopicPartition {
  topicId: string;
  partition: number;
}

const NO_RACKS: ReadonlySet<string> = new Set();

export function racksFor(
  describer: SubscribedTopicDescriber,
  topicId: string,
  partition: number,
): ReadonlySet<string> {
  return describer.racksForPartition?.(topicId, partition) ?? NO_RACKS;
}

function setsEqual(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const v of a) if (!b.has(v)) return false;
  return true;
}

/** Kafka's `Utils.isRackMatch`. */
export function isRackMatch(memberRack: string | null, partitionRacks: ReadonlySet<string>): boolean {
  return memberRack !== null && partitionRacks.has(memberRack);
}

export function assignUniformHomogeneous(
  group: GroupSpec,
  describer: SubscribedTopicDescriber,
): GroupAssignment {
  const orderer = new Orderer(group);
  const memberIds = orderer.memberIds(group);
  const firstMember = group.members.get(memberIds[0]!)!;
  const subscribedTopicIds = orderer.copiedTopicSet(firstMember.subscribedTopicIds);
  const subscribed = new Set(subscribedTopicIds);

  // Rack strategy, as Utils.useRackAwareAssignment: some member has a rack that some replica
  // has, and not every partition has replicas on exactly all the partition racks.
  const allMemberRacks = new Set<string>();
  for (const id of memberIds) {
    const rack = group.members.get(id)!.rackId;
    if (rack !== null) allMemberRacks.add(rack);
  }
  // Without a member rack the strategy is off whatever the replicas' racks: they are not read.
  let useRackStrategy = false;
  if (allMemberRacks.size > 0) {
    const racksPerPartition: ReadonlySet<string>[] = [];
    const allPartitionRacks = new Set<string>();
    for (const topicId of subscribedTopicIds) {
      const n = describer.numPartitions(topicId);
      for (let p = 0; p < n; p++) {
        const racks = racksFor(describer, topicId, p);
        racksPerPartition.push(racks);
        for (const r of racks) allPartitionRacks.add(r);
      }
    }
    if ([...allMemberRacks].some((r) => allPartitionRacks.has(r))) {
      useRackStrategy = !racksPerPartition.every((r) => setsEqual(r, allPartitionRacks));
    }
  }

  if (subscribedTopicIds.length === 0) return { members: new Map() };

  // Partition counts first: an unknown topic fails before anything else is read.
  const counts = new Map<string, number>();
  for (const topicId of subscribedTopicIds) {
    const n = describer.numPartitions(topicId);
    if (n === -1) {
      throw new PartitionAssignorError(
        `Members are subscribed to topic ${topicId} which doesn't exist in the topic metadata.`,
      );
    }
    counts.set(topicId, n);
  }

  // GroupSpec.isPartitionAssigned: held by a member in the current target assignment (one flag
  // per partition of each subscribed topic; partitions of other topics are never looked up).
  const assignedNow = new Map<string, Uint8Array>();
  for (const [topicId, n] of counts) assignedNow.set(topicId, new Uint8Array(n));
  for (const id of memberIds) {
    for (const [topicId, ps] of group.members.get(id)!.assignedPartitions) {
      const held = assignedNow.get(topicId);
      if (held === undefined) continue;
      for (const p of ps) if (p >= 0 && p < held.length) held[p] = 1;
    }
  }

  const unassigned: TopicPartition[] = [];
  let totalPartitions = 0;
  for (const [topicId, n] of counts) {
    const held = assignedNow.get(topicId)!;
    for (let p = 0; p < n; p++) {
      if (held[p] === 0) unassigned.push({ topicId, partition: p });
    }
    totalPartitions += n;
  }

  const numMembers = memberIds.length;
  const minimumQuota = Math.trunc(totalPartitions / numMembers);
  let remainingExtra = totalPartitions % numMembers;

  const target = new Map<string, Map<string, ReadonlySet<number>>>();
  // The partition sets this run built (the others are the members' input sets, kept whole and
  // shared until a partition is added to them: copying every member's sets each run was most of
  // the cost with a thousand members).
  const built = new Set<ReadonlySet<number>>();
  const unfilled: UnfilledMember[] = [];
  // Members whose assignment this run revokes from or adds to; the others keep their input
  // assignment as it is (Kafka hands back the member's immutable map uncopied).
  const changed = new Set<string>();

  // Revoke what is not subscribed, over quota, or (rack strategy) off-rack.
  for (const memberId of memberIds) {
    const member = group.members.get(memberId)!;
    const assignment = new Map<string, ReadonlySet<number>>();
    let quota = minimumQuota;
    let quotaHasExtra = false;
    if (remainingExtra > 0) {
      quota++;
      quotaHasExtra = true;
    }
    for (const [topicId, partitions] of orderer.assignmentEntries(member.assignedPartitions)) {
      if (!subscribed.has(topicId)) {
        if (partitions.size > 0) changed.add(memberId);
        continue; // the whole topic is revoked
      }
      if (partitions.size <= quota && !useRackStrategy) {
        quota -= partitions.size;
        if (partitions.size > 0) assignment.set(topicId, partitions);
        continue;
      }
      const kept = new Set<number>();
      for (const partition of orderer.partitionSet(partitions)) {
        if (
          quota > 0 &&
          (!useRackStrategy || isRackMatch(member.rackId, racksFor(describer, topicId, partition)))
        ) {
          quota--;
          kept.add(partition);
        } else {
          unassigned.push({ topicId, partition });
          changed.add(memberId);
        }
      }
      if (kept.size > 0) {
        built.add(kept);
        assignment.set(topicId, kept);
      }
    }

    if (quota > 0 && quotaHasExtra) {
      // Give the extra slot up for another member to claim.
      quota--;
      quotaHasExtra = false;
    }
    if (quota === 0 && quotaHasExtra) remainingExtra--;
    if (quota > 0 || (remainingExtra > 0 && !quotaHasExtra)) {
      unfilled.push({ memberId, remainingQuota: quota });
    }
    target.set(memberId, assignment);
  }

  const give = (memberId: string, tp: TopicPartition): void => {
    changed.add(memberId);
    const assignment = target.get(memberId)!;
    const s = assignment.get(tp.topicId);
    let own: Set<number>;
    if (s !== undefined && built.has(s)) {
      own = s as Set<number>;
    } else {
      own = new Set(s);
      built.add(own);
      assignment.set(tp.topicId, own);
    }
    own.add(tp.partition);
  };

  if (useRackStrategy) {
    for (let ui = 0; ui < unassigned.length; ) {
      const tp = unassigned[ui]!;
      let placed = false;
      for (let mi = 0; mi < unfilled.length; ) {
        const m = unfilled[mi]!;
        if (m.remainingQuota === 0 && remainingExtra === 0) {
          unfilled.splice(mi, 1);
          continue;
        }
        const rack = group.members.get(m.memberId)!.rackId;
        if (!isRackMatch(rack, racksFor(describer, tp.topicId, tp.partition))) {
          mi++;
          continue;
        }
        give(m.memberId, tp);
        if (m.remainingQuota > 0) {
          m.remainingQuota--;
        } else {
          unfilled.splice(mi, 1);
          remainingExtra--;
        }
        placed = true;
        break;
      }
      if (placed) unassigned.splice(ui, 1);
      else ui++;
    }
  }

  // The last unfilled members take the extra slots still open.
  for (let mi = unfilled.length - 1; mi >= 0; mi--) {
    const m = unfilled[mi]!;
    if (remainingExtra > 0) {
      remainingExtra--;
      m.remainingQuota++;
    }
    if (m.remainingQuota === 0) unfilled.splice(mi, 1);
  }

  let next = 0;
  for (const m of unfilled) {
    for (let i = 0; i < m.remainingQuota && next < unassigned.length; i++) {
      give(m.memberId, unassigned[next++]!);
    }
  }
  if (next < unassigned.length) throw new PartitionAssignorError('Partitions were left unassigned');

  return { members: finish(target, group, changed) };
}

/**
 * The output form (partitions ascending, no empty topics). A member nothing was revoked from or
 * added to gets its input assignment object back when it is already in that form, so callers can
 * tell it unchanged by identity.
 */
function finish(
  target: Map<string, Map<string, ReadonlySet<number>>>,
  group: GroupSpec,
  changed: ReadonlySet<string>,
): Map<string, Map<string, Set<number>>> {
  const out = new Map<string, Map<string, Set<number>>>();
  for (const [memberId, assignment] of target) {
    const input = group.members.get(memberId)!.assignedPartitions;
    if (!changed.has(memberId) && isOutputForm(input)) {
      out.set(memberId, input as Map<string, Set<number>>);
      continue;
    }
    const m = new Map<string, Set<number>>();
    for (const [topicId, ps] of assignment) {
      if (ps.size > 0) m.set(topicId, new Set([...ps].sort((a, b) => a - b)));
    }
    out.set(memberId, m);
  }
  return out;
}

/** Every topic non-empty, partitions ascending. */
function isOutputForm(assignment: ReadonlyMap<string, ReadonlySet<number>>): boolean {
  for (const parts of assignment.values()) {
    if (parts.size === 0) return false;
    let last = -1;
    for (const p of parts) {
      if (p <= last) return false;
      last = p;
    }
  }
  return true;
}
