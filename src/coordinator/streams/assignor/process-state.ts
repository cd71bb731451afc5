/**
 * One process (a Kafka Streams client: all members sharing a `processId`) as the sticky task
 * assignor sees it, following Kafka 4.3's
 * `org.apache.kafka.coordinator.group.streams.assignor.ProcessState`: its capacity (number of
 * members), its load (tasks per member, a double), each member's task count, and the tasks
 * (active and standby) handed to its members so far.
 *
 * Also here: `JavaPriorityQueue`, a port of `java.util.PriorityQueue`'s binary heap, and the
 * `TaskId` helpers (`TaskId.toString()`, a map key). The assignor breaks ties between equally
 * loaded processes and members the way Java's heap does, so which member gets which task depends
 * on the heap's exact sift order and on the order its elements were added.
 */
import { javaStringHashCode } from '../../../util/java-hash.js';
import { JavaHashMap } from '../../share/java-collections.js';
import type { TaskId } from './types.js';

/** Kafka's `TaskId.toString()`: `subtopology_partition`, as error and log messages print it. */
export function taskIdToString(task: TaskId): string {
  return `${task.subtopologyId}_${task.partition}`;
}

/**
 * A key identifying a task in JS maps. The partition is an integer after the last ':', so ids
 * containing ':' cannot collide.
 */
export function taskKey(task: TaskId): string {
  return `${task.subtopologyId}:${task.partition}`;
}

/**
 * `Double.compare` for the values compared here (loads: task counts over member counts, -1 or
 * `Double.MAX_VALUE`): never NaN nor -0, where `Double.compare` would differ from `<`.
 */
export function compareDoubles(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `java.util.PriorityQueue` with a comparator: the same array heap, sift-up on `add` and sift-down
 * of the last element on `poll`, so elements comparing equal come out in the order Java's would.
 * (`addAll` in Java adds one element at a time: call `add` in a loop.)
 */
export class JavaPriorityQueue<T> {
  private readonly heap: T[] = [];

  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.heap.length;
  }

  isEmpty(): boolean {
    return this.heap.length === 0;
  }

  add(element: T): void {
    this.heap.push(element);
    this.siftUp(this.heap.length - 1, element);
  }

  /** The least element, or null when empty (Java's `poll`). */
  poll(): T | null {
    const heap = this.heap;
    if (heap.length === 0) return null;
    const result = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) this.siftDown(0, last);
    return result;
  }

  private siftUp(from: number, element: T): void {
    const heap = this.heap;
    let k = from;
    while (k > 0) {
      const parent = (k - 1) >>> 1;
      const parentElement = heap[parent]!;
      if (this.compare(element, parentElement) >= 0) break;
      heap[k] = parentElement;
      k = parent;
    }
    heap[k] = element;
  }

  private siftDown(from: number, element: T): void {
    const heap = this.heap;
    const n = heap.length;
    const half = n >>> 1;
    let k = from;
    while (k < half) {
      let child = 2 * k + 1;
      let childElement = heap[child]!;
      const right = child + 1;
      if (right < n && this.compare(childElement, heap[right]!) > 0) childElement = heap[(child = right)]!;
      if (this.compare(element, childElement) <= 0) break;
      heap[k] = childElement;
      k = child;
    }
    heap[k] = element;
  }
}

/** An entry of the members-by-load heap: a copy of a `memberToTaskCounts` entry, updated in place. */
interface MemberLoad {
  readonly memberId: string;
  taskCount: number;
}

/** Tasks of one kind per member: member id -> task key -> task. */
type TasksByMember = Map<string, Map<string, TaskId>>;

export class ProcessState {
  private memberCount = 0;
  private currentLoad = Number.MAX_VALUE;
  private taskCount = 0;
  /**
   * Member id -> tasks given to it. A Java `HashMap` because the least-loaded member heap is filled
   * by iterating it, and members with equal counts leave that heap in an order that depends on it.
   */
  private readonly memberToTaskCounts = new JavaHashMap<string, number>(javaStringHashCode, (id) => id);
  private readonly activeTasks: TasksByMember = new Map();
  private readonly standbyTasks: TasksByMember = new Map();
  private readonly assignedTasks = new Set<string>();
  /**
   * Members by task count, built lazily by `addTaskToLeastLoadedMember` and dropped by `addTask`
   * (a task given to a named member would leave that member's heap entry stale).
   */
  private membersByLoad: JavaPriorityQueue<MemberLoad> | null = null;

  constructor(readonly processId: string) {}

  /** The number of members. */
  get capacity(): number {
    return this.memberCount;
  }

  /** Tasks per member; -1 without members. */
  get load(): number {
    return this.currentLoad;
  }

  addMember(memberId: string): void {
    this.memberToTaskCounts.set(memberId, 0);
    this.memberCount++;
    this.computeLoad();
  }

  /** The number of tasks (of both kinds) given to a member of this process. */
  memberTaskCount(memberId: string): number {
    const count = this.memberToTaskCounts.get(memberId);
    if (count === undefined) throw new Error(`Member ${memberId} is not in process ${this.processId}`);
    return count;
  }

  /** Gives `task` to `memberId`; returns the member's new task count. */
  addTask(memberId: string, task: TaskId, isActive: boolean): number {
    const newTaskCount = this.addTaskInternal(memberId, task, isActive);
    // The assignor gives named members their tasks before any least-loaded placement of the same
    // kind, so the heap is rebuilt at most once per kind.
    this.membersByLoad = null;
    return newTaskCount;
  }

  /**
   * Gives `task` to the member with the fewest tasks (ties as Java's heap breaks them); returns
   * that member's new task count, or -1 without members.
   */
  addTaskToLeastLoadedMember(task: TaskId, isActive: boolean): number {
    if (this.memberToTaskCounts.size === 0) return -1;
    if (this.memberToTaskCounts.size === 1) {
      const [onlyMember] = this.memberToTaskCounts.keys();
      return this.addTaskInternal(onlyMember!, task, isActive);
    }
    const heap = (this.membersByLoad ??= this.buildMembersByLoad());
    const member = heap.poll()!;
    member.taskCount = this.addTaskInternal(member.memberId, task, isActive);
    heap.add(member);
    return member.taskCount;
  }

  hasTask(task: TaskId): boolean {
    return this.assignedTasks.has(taskKey(task));
  }

  /** Kafka's `hasCapacity`: fewer tasks than members. */
  hasCapacity(): boolean {
    return this.currentLoad < 1.0;
  }

  /** Kafka's `compareTo`: by load, then the larger capacity first. */
  compareTo(other: ProcessState): number {
    const byLoad = compareDoubles(this.currentLoad, other.load);
    return byLoad !== 0 ? byLoad : Math.sign(other.capacity - this.memberCount);
  }

  /** The active tasks given to `memberId` (none for a member of another process). */
  activeTasksOf(memberId: string): Iterable<TaskId> {
    return this.activeTasks.get(memberId)?.values() ?? [];
  }

  /** The standby tasks given to `memberId`. */
  standbyTasksOf(memberId: string): Iterable<TaskId> {
    return this.standbyTasks.get(memberId)?.values() ?? [];
  }

  private addTaskInternal(memberId: string, task: TaskId, isActive: boolean): number {
    this.taskCount++;
    const key = taskKey(task);
    this.assignedTasks.add(key);
    const byMember = isActive ? this.activeTasks : this.standbyTasks;
    let tasks = byMember.get(memberId);
    if (tasks === undefined) byMember.set(memberId, (tasks = new Map()));
    tasks.set(key, task);
    const newTaskCount = this.memberTaskCount(memberId) + 1;
    this.memberToTaskCounts.set(memberId, newTaskCount);
    this.computeLoad();
    return newTaskCount;
  }

  private buildMembersByLoad(): JavaPriorityQueue<MemberLoad> {
    const heap = new JavaPriorityQueue<MemberLoad>((a, b) => a.taskCount - b.taskCount);
    for (const [memberId, taskCount] of this.memberToTaskCounts.entries()) heap.add({ memberId, taskCount });
    return heap;
  }

  private computeLoad(): void {
    this.currentLoad = this.memberCount <= 0 ? -1 : this.taskCount / this.memberCount;
  }
}
