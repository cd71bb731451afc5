import {
  capacityAfterPuts,
  capacityForCopy,
  javaHashOrder,
  javaIntHash,
  javaUuidHash,
} from './java-order.js';
import { javaStringHashCode } from '../../../util/java-hash.js';
import type { GroupSpec } from './types.js';

/**
 * The iteration orders the assignors need, per {@link GroupSpec.iterationOrder}.
 *
 * In `'java'` mode each method returns the order of the Java collection Kafka iterates at
 * that point, built the way Kafka 4.x builds it:
 * - members: `TargetAssignmentBuilder` puts every member into a `new HashMap<>()` and hands
 *   `Collections.unmodifiableMap(memberSpecs)` to the assignor; `GroupSpec.memberIds()` is
 *   its key set (String hash, capacity grown by puts);
 * - a subscription copied with `new HashSet<>(subscribedTopicIds)` (Uuid hash, copy capacity);
 * - a member's current assignment, built by `Assignment.fromRecord` with
 *   `Collectors.toMap` (a `HashMap` filled by puts, Uuid hash) whose values are
 *   `new HashSet<>(partitions)` (Integer hash, copy capacity).
 * Keys colliding in one bucket keep the caller's insertion order (Java keeps its own insertion
 * order there, which the caller's order stands in for).
 */
export class Orderer {
  readonly java: boolean;

  constructor(spec: GroupSpec) {
    this.java = (spec.iterationOrder ?? 'java') === 'java';
  }

  memberIds(spec: GroupSpec): string[] {
    const ids = [...spec.members.keys()];
    return this.java ? javaHashOrder(ids, javaStringHashCode, capacityAfterPuts(ids.length)) : ids;
  }

  /**
   * Order of `new HashSet<>(topicIds)`. Kafka makes this copy itself, so it is hash ordered
   * in both modes (only collections handed to the assignor follow `'insertion'`).
   */
  copiedTopicSet(topicIds: Iterable<string>): string[] {
    const ids = [...topicIds];
    return javaHashOrder(ids, javaUuidHash, capacityForCopy(ids.length));
  }

  /** Entry order of a member's current assignment map. */
  assignmentEntries(
    assignment: ReadonlyMap<string, ReadonlySet<number>>,
  ): Iterable<[string, ReadonlySet<number>]> {
    // One topic (the common case) has one order: the map itself, no copy.
    if (!this.java || assignment.size < 2) return assignment;
    const entries = [...assignment.entries()];
    return javaHashOrder(entries, (e) => javaUuidHash(e[0]), capacityAfterPuts(entries.length));
  }

  /** Iteration order of a partition set of a current assignment. */
  partitionSet(partitions: ReadonlySet<number>): number[] {
    const ps = [...partitions];
    return this.java && ps.length > 1 ? javaHashOrder(ps, javaIntHash, capacityForCopy(ps.length)) : ps;
  }
}

/** Builds the output form from topic -> partitions maps, partitions ascending. */
export function toOutputAssignment(
  assignment: ReadonlyMap<string, Iterable<number>>,
): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const [topicId, partitions] of assignment) {
    const sorted = [...partitions].sort((a, b) => a - b);
    if (sorted.length > 0) out.set(topicId, new Set(sorted));
  }
  return out;
}
