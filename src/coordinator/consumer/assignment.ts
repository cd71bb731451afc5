/**
 * Assignments as the KIP-848 coordinator holds them: topic id -> partitions. A member's current
 * assignment also remembers, per partition, the epoch at which it was assigned (KIP-1251,
 * Kafka 4.3's `AssignmentEpochs`), which OffsetCommit uses to accept commits from an older epoch.
 */
import type { TopicPartitions as RecordTopicPartitions } from '../../records/schemas/ConsumerGroupCurrentMemberAssignmentValue.js';
import type { TopicPartition as TargetTopicPartition } from '../../records/schemas/ConsumerGroupTargetAssignmentMemberValue.js';

/** topic id -> partitions. */
export type Assignment = Map<string, Set<number>>;
/** topic id -> partition -> the epoch at which the member was assigned it. */
export type EpochAssignment = Map<string, Map<number, number>>;

export const EMPTY_ASSIGNMENT: Assignment = new Map();
export const EMPTY_EPOCHS: EpochAssignment = new Map();

export function partitionsOf(epochs: EpochAssignment): Assignment {
  const out: Assignment = new Map();
  for (const [topicId, parts] of epochs) if (parts.size > 0) out.set(topicId, new Set(parts.keys()));
  return out;
}

export function assignmentsEqual(a: Assignment, b: Assignment): boolean {
  if (a === b) return true;
  if (nonEmptyTopics(a) !== nonEmptyTopics(b)) return false;
  for (const [topicId, parts] of a) {
    if (parts.size === 0) continue;
    const other = b.get(topicId);
    if (!other || other.size !== parts.size) return false;
    for (const p of parts) if (!other.has(p)) return false;
  }
  return true;
}

function nonEmptyTopics(a: Assignment): number {
  let n = 0;
  for (const parts of a.values()) if (parts.size > 0) n++;
  return n;
}

export function epochAssignmentsEqual(a: EpochAssignment, b: EpochAssignment): boolean {
  if (!assignmentsEqual(partitionsOf(a), partitionsOf(b))) return false;
  for (const [topicId, parts] of a) for (const [p, e] of parts) if (b.get(topicId)?.get(p) !== e) return false;
  return true;
}

export function countPartitions(a: Assignment | EpochAssignment): number {
  let n = 0;
  for (const parts of a.values()) n += parts.size;
  return n;
}

const sortedTopicIds = (m: Map<string, unknown>): string[] => [...m.keys()].sort();

/** Target assignment (record 7) form: topics sorted by id, partitions ascending. */
export function assignmentToTargetRecord(a: Assignment): TargetTopicPartition[] {
  return sortedTopicIds(a)
    .filter((t) => a.get(t)!.size > 0)
    .map((topicId) => ({ topicId, partitions: [...a.get(topicId)!].sort((x, y) => x - y) }));
}

export function assignmentFromTargetRecord(tps: readonly TargetTopicPartition[]): Assignment {
  const out: Assignment = new Map();
  for (const tp of tps) {
    const set = out.get(tp.topicId) ?? new Set<number>();
    for (const p of tp.partitions) set.add(p);
    out.set(tp.topicId, set);
  }
  return out;
}

/** Current assignment (record 8) form, with the tagged `AssignmentEpochs` aligned with `Partitions`. */
export function epochsToRecord(a: EpochAssignment): RecordTopicPartitions[] {
  return sortedTopicIds(a)
    .filter((t) => a.get(t)!.size > 0)
    .map((topicId) => {
      const parts = [...a.get(topicId)!.entries()].sort((x, y) => x[0] - y[0]);
      return { topicId, partitions: parts.map(([p]) => p), assignmentEpochs: parts.map(([, e]) => e) };
    });
}

/**
 * Reads record 8 partitions; a record without `AssignmentEpochs` (written before 4.3) gives every
 * partition `defaultEpoch` (the member epoch), as Kafka does for legacy records.
 */
export function epochsFromRecord(tps: readonly RecordTopicPartitions[], defaultEpoch: number): EpochAssignment {
  const out: EpochAssignment = new Map();
  for (const tp of tps) {
    const m = out.get(tp.topicId) ?? new Map<number, number>();
    tp.partitions.forEach((p, i) => m.set(p, tp.assignmentEpochs?.[i] ?? defaultEpoch));
    out.set(tp.topicId, m);
  }
  return out;
}

/** Response form (heartbeat): topics sorted by id, partitions ascending. */
export function assignmentToResponse(a: Assignment): Array<{ topicId: string; partitions: number[] }> {
  return assignmentToTargetRecord(a);
}

/**
 * ConsumerProtocolAssignment form (`Utils.toConsumerProtocolAssignment`): topic names instead of
 * ids (topics `topicName` does not know are left out), partitions ascending.
 */
export function toConsumerProtocolPartitions(a: Assignment, topicName: (topicId: string) => string | undefined): Array<{ topic: string; partitions: number[] }> {
  return [...a].flatMap(([topicId, parts]) => {
    const topic = topicName(topicId);
    return topic === undefined ? [] : [{ topic, partitions: [...parts].sort((x, y) => x - y) }];
  });
}

export function cloneAssignment(a: Assignment): Assignment {
  return new Map([...a].map(([t, s]) => [t, new Set(s)]));
}
