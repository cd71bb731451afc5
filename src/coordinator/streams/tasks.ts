/**
 * Tasks as a streams group holds them (Kafka 4.3's `org.apache.kafka.coordinator.group.streams.TasksTuple`
 * and `TaskAssignmentEpochs`): subtopology id -> partitions, one map per kind. Active tasks also
 * remember the epoch at which the member was given each (record 22's tagged `AssignmentEpochs`), as a
 * consumer group's partitions do (KIP-1251). The maps reuse the consumer groups' assignment shapes,
 * keyed by subtopology id instead of topic id.
 */
import type { TaskIds as RecordTaskIds } from '../../records/schemas/StreamsGroupCurrentMemberAssignmentValue.js';
import { EMPTY_ASSIGNMENT, EMPTY_EPOCHS, assignmentsEqual, partitionsOf, type Assignment, type EpochAssignment } from '../consumer/assignment.js';

export type { Assignment as TaskSet, EpochAssignment as EpochTaskSet } from '../consumer/assignment.js';

/** A member's tasks of each kind (`TasksTuple`); active tasks with the epoch each was assigned at. */
export interface MemberTasks {
  readonly active: EpochAssignment;
  readonly standby: Assignment;
  readonly warmup: Assignment;
}

/** Target tasks of each kind (what the assignor gives a member). */
export interface TargetTasks {
  readonly active: Assignment;
  readonly standby: Assignment;
  readonly warmup: Assignment;
}

export const NO_TASKS: MemberTasks = { active: EMPTY_EPOCHS, standby: EMPTY_ASSIGNMENT, warmup: EMPTY_ASSIGNMENT };
export const NO_TARGET: TargetTasks = { active: EMPTY_ASSIGNMENT, standby: EMPTY_ASSIGNMENT, warmup: EMPTY_ASSIGNMENT };

/** Task ids on the wire and in records: subtopologies sorted by id, partitions ascending, empty ones left out. */
export function toTaskIds(tasks: Assignment): Array<{ subtopologyId: string; partitions: number[] }> {
  return [...tasks.keys()]
    .sort()
    .filter((id) => tasks.get(id)!.size > 0)
    .map((subtopologyId) => ({ subtopologyId, partitions: [...tasks.get(subtopologyId)!].sort((a, b) => a - b) }));
}

export function fromTaskIds(ids: ReadonlyArray<{ subtopologyId: string; partitions: readonly number[] }> | null): Assignment {
  const out: Assignment = new Map();
  for (const t of ids ?? []) {
    const set = out.get(t.subtopologyId) ?? new Set<number>();
    for (const p of t.partitions) set.add(p);
    out.set(t.subtopologyId, set);
  }
  return out;
}

/** Record 22's form of active tasks, with `AssignmentEpochs` aligned with `Partitions`. */
export function epochTasksToRecord(tasks: EpochAssignment): RecordTaskIds[] {
  return [...tasks.keys()]
    .sort()
    .filter((id) => tasks.get(id)!.size > 0)
    .map((subtopologyId) => {
      const parts = [...tasks.get(subtopologyId)!].sort((a, b) => a[0] - b[0]);
      return { subtopologyId, partitions: parts.map(([p]) => p), assignmentEpochs: parts.map(([, e]) => e) };
    });
}

/** Record 22's active tasks; a record without `AssignmentEpochs` gives each task `defaultEpoch`. */
export function epochTasksFromRecord(ids: readonly RecordTaskIds[], defaultEpoch: number): EpochAssignment {
  const out: EpochAssignment = new Map();
  for (const t of ids) {
    const m = out.get(t.subtopologyId) ?? new Map<number, number>();
    t.partitions.forEach((p, i) => m.set(p, t.assignmentEpochs?.[i] ?? defaultEpoch));
    out.set(t.subtopologyId, m);
  }
  return out;
}

/** Record 22's form of standby or warm-up tasks (no epochs). */
export function tasksToRecord(tasks: Assignment): RecordTaskIds[] {
  return toTaskIds(tasks).map((t) => ({ ...t, assignmentEpochs: null }));
}

/** The tasks of a member without the epochs. */
export function targetOf(tasks: MemberTasks): TargetTasks {
  return { active: partitionsOf(tasks.active), standby: tasks.standby, warmup: tasks.warmup };
}

export function targetsEqual(a: TargetTasks, b: TargetTasks): boolean {
  return assignmentsEqual(a.active, b.active) && assignmentsEqual(a.standby, b.standby) && assignmentsEqual(a.warmup, b.warmup);
}

export function isEmptyTasks(t: TargetTasks | MemberTasks): boolean {
  const none = (a: Map<string, { size: number }>) => [...a.values()].every((s) => s.size === 0);
  return none(t.active) && none(t.standby) && none(t.warmup);
}

/** a - b (tasks of a that b lacks). */
export function minus(a: Assignment, b: Assignment): Assignment {
  const out: Assignment = new Map();
  for (const [id, parts] of a) {
    const other = b.get(id);
    const left = new Set([...parts].filter((p) => !other?.has(p)));
    if (left.size > 0) out.set(id, left);
  }
  return out;
}

/** a ∩ b. */
export function intersect(a: Assignment, b: Assignment): Assignment {
  const out: Assignment = new Map();
  for (const [id, parts] of a) {
    const other = b.get(id);
    if (!other) continue;
    const both = new Set([...parts].filter((p) => other.has(p)));
    if (both.size > 0) out.set(id, both);
  }
  return out;
}

/** a ∪ b. */
export function union(a: Assignment, b: Assignment): Assignment {
  const out: Assignment = new Map([...a].map(([id, s]) => [id, new Set(s)]));
  for (const [id, parts] of b) {
    const set = out.get(id) ?? new Set<number>();
    for (const p of parts) set.add(p);
    out.set(id, set);
  }
  return out;
}

export function hasTask(a: Assignment | EpochAssignment, subtopologyId: string, partition: number): boolean {
  return a.get(subtopologyId)?.has(partition) ?? false;
}
