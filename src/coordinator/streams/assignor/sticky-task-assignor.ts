/**
 * The streams group's default task assignor, following Kafka 4.3's
 * `org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor` step for step.
 *
 * Input: the members (id -> spec with its process id and its current target tasks, in the group
 * spec's iteration order), the subtopologies with their task counts (a task is a subtopology id and
 * a partition in [0, maxNumInputPartitions)), and `num.standby.replicas` (an int, 0 when the
 * configs are empty). Output: each member's active and standby tasks (subtopology id -> partitions);
 * no warm-up tasks.
 *
 * Balance is counted per member in tasks: `activeTasksPerMember` is ceil(active tasks / members) and
 * `totalTasksPerMember` ceil((active + standby replicas of stateful tasks) / members); each time a
 * member reaches a quota it leaves the count, and the quota is recomputed over the rest. Processes
 * are compared by load: tasks per member of the process.
 *
 * Active tasks: (1) each task goes back to its previous active owner while that member is under
 * the active quota, then (2) to the least loaded previous standby owner under the quota, then (3)
 * the rest, by subtopology then partition, to the least loaded member of the least loaded process.
 * Standby tasks (only with replicas > 0, only for stateful subtopologies), each replica in turn:
 * to the previous active owner, else a previous standby owner, when its process does not hold
 * the task yet and the member is under the total quota; the replicas left go to the least loaded
 * process that does not hold the task. A process never holds two copies of a task, so a standby
 * replica never shares a process with its active task; replicas that find no such process are
 * dropped with a warning.
 *
 * Ties between equally loaded processes or members are broken as Java's `PriorityQueue` (a binary
 * heap) breaks them, filled in the iteration order of Java `HashMap`s keyed by process id and by
 * member id: `JavaPriorityQueue` and `JavaHashMap` reproduce both. Kafka's other hash maps cannot
 * change the outcome, so plain JS maps stand in: the previous-owner maps are only looked up (their
 * contents follow the spec's member order, which the caller fixes); a member's previous tasks are
 * visited in some order, but each task once per member, so the order is lost in those maps; the
 * final per-member merge over processes never merges (a member is in one process); and the output
 * sets' order is not meant (records and responses sort tasks), so they are built sorted.
 */
import { javaStringHashCode } from '../../../util/java-hash.js';
import { JavaHashMap } from '../../share/java-collections.js';
import { compareDoubles, JavaPriorityQueue, ProcessState, taskIdToString, taskKey } from './process-state.js';
import {
  TaskAssignorError,
  type AssignmentMemberSpec,
  type GroupAssignment,
  type GroupSpec,
  type MemberAssignment,
  type TaskAssignor,
  type TaskId,
  type Tasks,
  type TopologyDescriber,
} from './types.js';

export const NUM_STANDBY_REPLICAS_CONFIG = 'num.standby.replicas';

export class StickyTaskAssignor implements TaskAssignor {
  readonly name = 'sticky';

  /** `warn` receives the message Kafka logs when standby replicas cannot all be placed. */
  constructor(private readonly warn: (message: string) => void = () => {}) {}

  assign(groupSpec: GroupSpec, topology: TopologyDescriber): GroupAssignment {
    return new StickyAssignment(groupSpec, topology, this.warn).run();
  }

  toString(): string {
    return this.name;
  }
}

/**
 * `num.standby.replicas` as Kafka reads it: 0 when there are no configs at all, else the value
 * through `Integer.parseInt` (a missing key with other configs present fails, as in Kafka). Java's
 * `NumberFormatException` message becomes the error's message.
 */
export function parseNumStandbyReplicas(configs: ReadonlyMap<string, string>): number {
  if (configs.size === 0) return 0;
  const value = configs.get(NUM_STANDBY_REPLICAS_CONFIG);
  if (value === undefined) throw new TaskAssignorError('Cannot parse null string');
  return javaParseInt(value);
}

/**
 * `Integer.parseInt(s)`: an optional sign then decimal digits, within the int range. (Java also
 * takes non-ASCII Unicode digits; the configs hold `String.valueOf(int)`, so they never occur.)
 */
function javaParseInt(s: string): number {
  const value = /^[+-]?[0-9]+$/.test(s) ? Number(s) : NaN;
  if (!Number.isSafeInteger(value) || value < -2147483648 || value > 2147483647) {
    throw new TaskAssignorError(`For input string: "${s}"`);
  }
  return value === 0 ? 0 : value; // "-0" is 0, not JS's -0
}

/** ceil(tasks / members) in Java int arithmetic; 0 without members. */
function computeTasksPerMember(numberOfTasks: number, numberOfMembers: number): number {
  if (numberOfMembers === 0) return 0;
  const tasksPerMember = Math.trunc(numberOfTasks / numberOfMembers);
  return numberOfTasks % numberOfMembers > 0 ? tasksPerMember + 1 : tasksPerMember;
}

/** The task ids of every subtopology (stateful ones only for standbys), subtopology by subtopology. */
function taskIds(topology: TopologyDescriber, includeStateless: boolean): TaskId[] {
  const tasks: TaskId[] = [];
  for (const subtopologyId of topology.subtopologies()) {
    if (includeStateless || topology.isStateful(subtopologyId)) {
      const partitions = topology.maxNumInputPartitions(subtopologyId);
      for (let partition = 0; partition < partitions; partition++) tasks.push({ subtopologyId, partition });
    }
  }
  return tasks;
}

const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Partition first: a range-like previous assignment pairs the same partitions of subtopologies. */
const byPartitionThenSubtopology = (a: TaskId, b: TaskId): number =>
  a.partition - b.partition || compareStrings(a.subtopologyId, b.subtopologyId);

/** Subtopology first: fresh tasks then land range-like on the members. */
const bySubtopologyThenPartition = (a: TaskId, b: TaskId): number =>
  compareStrings(a.subtopologyId, b.subtopologyId) || a.partition - b.partition;

function compactTasks(tasks: Iterable<TaskId>): Map<string, Set<number>> {
  const sorted = [...tasks].sort(bySubtopologyThenPartition);
  const compacted = new Map<string, Set<number>>();
  for (const { subtopologyId, partition } of sorted) {
    let partitions = compacted.get(subtopologyId);
    if (partitions === undefined) compacted.set(subtopologyId, (partitions = new Set()));
    partitions.add(partition);
  }
  return compacted;
}

interface Member {
  readonly processId: string;
  readonly memberId: string;
}

interface StandbyToAssign {
  readonly task: TaskId;
  readonly remainingReplicas: number;
}

/** One `assign` call: Kafka's `LocalState` and the steps working on it. */
class StickyAssignment {
  private readonly numStandbyReplicas: number;
  private totalActiveTasks = 0;
  private totalTasks = 0;
  private membersWithActiveTaskCapacity: number;
  private membersWithTaskCapacity: number;
  private activeTasksPerMember: number;
  private totalTasksPerMember: number;
  /**
   * Process id -> state, a Java `HashMap` sized for the member count: the process heaps are filled
   * by iterating it, and equally loaded processes leave a heap in an order that depends on it.
   */
  private readonly processes: JavaHashMap<string, ProcessState>;
  /** Task key -> its previous active owner (the last member in spec order claiming it). */
  private readonly activeTaskToPrevMember = new Map<string, Member>();
  /** Task key -> its previous standby owners, in spec order (lookups only). */
  private readonly standbyTaskToPrevMembers = new Map<string, Member[]>();

  constructor(
    private readonly groupSpec: GroupSpec,
    private readonly topology: TopologyDescriber,
    private readonly warn: (message: string) => void,
  ) {
    this.numStandbyReplicas = parseNumStandbyReplicas(groupSpec.assignmentConfigs);
    this.countTasks();
    const memberCount = groupSpec.members.size;
    this.membersWithActiveTaskCapacity = memberCount;
    this.membersWithTaskCapacity = memberCount;
    this.activeTasksPerMember = computeTasksPerMember(this.totalActiveTasks, memberCount);
    this.totalTasksPerMember = computeTasksPerMember(this.totalTasks, memberCount);
    this.processes = new JavaHashMap<string, ProcessState>(javaStringHashCode, (id) => id, memberCount);
    for (const [memberId, spec] of groupSpec.members) this.addMember(memberId, spec);
  }

  run(): GroupAssignment {
    this.assignActive(taskIds(this.topology, true));
    if (this.numStandbyReplicas > 0) this.assignStandby(taskIds(this.topology, false));
    return this.buildGroupAssignment();
  }

  /** Java int arithmetic (`| 0`), as Kafka's counters wrap. */
  private countTasks(): void {
    for (const subtopologyId of this.topology.subtopologies()) {
      const partitions = this.topology.maxNumInputPartitions(subtopologyId);
      this.totalTasks = (this.totalTasks + partitions) | 0;
      this.totalActiveTasks = (this.totalActiveTasks + partitions) | 0;
      if (this.topology.isStateful(subtopologyId)) {
        this.totalTasks = (this.totalTasks + Math.imul(partitions, this.numStandbyReplicas)) | 0;
      }
    }
  }

  private addMember(memberId: string, spec: AssignmentMemberSpec): void {
    const member: Member = { processId: spec.processId, memberId };
    let process = this.processes.get(spec.processId);
    if (process === undefined) this.processes.set(spec.processId, (process = new ProcessState(spec.processId)));
    process.addMember(memberId);
    forEachTask(spec.activeTasks, (task) => this.activeTaskToPrevMember.set(taskKey(task), member));
    forEachTask(spec.standbyTasks, (task) => {
      // Kafka sizes each owner list by the replica count, and Java rejects a negative list capacity.
      if (this.numStandbyReplicas < 0) throw new TaskAssignorError(`Illegal Capacity: ${this.numStandbyReplicas}`);
      const key = taskKey(task);
      const owners = this.standbyTaskToPrevMembers.get(key);
      if (owners === undefined) this.standbyTaskToPrevMembers.set(key, [member]);
      else owners.push(member);
    });
  }

  private process(processId: string): ProcessState {
    return this.processes.get(processId)!;
  }

  private assignActive(tasks: TaskId[]): void {
    tasks.sort(byPartitionThenSubtopology);
    const notKept = tasks.filter((task) => !this.keepActiveWithPrevActiveOwner(task));
    const unassigned = notKept.filter((task) => !this.moveActiveToPrevStandbyOwner(task));
    unassigned.sort(bySubtopologyThenPartition);
    const processByLoad = this.processesByLoad();
    for (const task of unassigned) this.assignActiveToLeastLoaded(processByLoad, task);
  }

  private keepActiveWithPrevActiveOwner(task: TaskId): boolean {
    const prevMember = this.activeTaskToPrevMember.get(taskKey(task));
    return prevMember !== undefined && this.assignActiveIfUnderQuota(prevMember, task);
  }

  private moveActiveToPrevStandbyOwner(task: TaskId): boolean {
    const prevMember = this.findPrevMemberWithLeastLoad(this.standbyTaskToPrevMembers.get(taskKey(task)), null);
    return prevMember !== null && this.assignActiveIfUnderQuota(prevMember, task);
  }

  private assignActiveIfUnderQuota(member: Member, task: TaskId): boolean {
    const process = this.process(member.processId);
    if (process.memberTaskCount(member.memberId) >= this.activeTasksPerMember) return false;
    this.countAssignedActive(process.addTask(member.memberId, task, true));
    return true;
  }

  private assignActiveToLeastLoaded(processByLoad: JavaPriorityQueue<ProcessState>, task: TaskId): void {
    const process = processByLoad.poll();
    if (process === null) throw new TaskAssignorError(`No process available to assign active task ${taskIdToString(task)}.`);
    const newTaskCount = process.addTaskToLeastLoadedMember(task, true);
    if (newTaskCount === -1) throw new TaskAssignorError(`No member available to assign active task ${taskIdToString(task)}.`);
    this.countAssignedActive(newTaskCount);
    processByLoad.add(process);
  }

  private countAssignedActive(memberTaskCount: number): void {
    this.maybeUpdateActiveTasksPerMember(memberTaskCount);
    this.maybeUpdateTotalTasksPerMember(memberTaskCount);
  }

  /** A member reaching the active quota leaves the count, and the quota is recomputed over the rest. */
  private maybeUpdateActiveTasksPerMember(memberTaskCount: number): void {
    if (memberTaskCount === this.activeTasksPerMember) {
      this.membersWithActiveTaskCapacity--;
      this.totalActiveTasks -= memberTaskCount;
      this.activeTasksPerMember = computeTasksPerMember(this.totalActiveTasks, this.membersWithActiveTaskCapacity);
    }
  }

  private maybeUpdateTotalTasksPerMember(memberTaskCount: number): void {
    if (memberTaskCount === this.totalTasksPerMember) {
      this.membersWithTaskCapacity--;
      this.totalTasks -= memberTaskCount;
      this.totalTasksPerMember = computeTasksPerMember(this.totalTasks, this.membersWithTaskCapacity);
    }
  }

  /**
   * Processes by load; equal loads come out as the heap's sift order makes them, hence the
   * insertion in the process map's Java iteration order.
   */
  private processesByLoad(): JavaPriorityQueue<ProcessState> {
    const queue = new JavaPriorityQueue<ProcessState>((a, b) => compareDoubles(a.load, b.load));
    for (const [, process] of this.processes.entries()) queue.add(process);
    return queue;
  }

  /**
   * Kafka's `findPrevMemberWithLeastLoad`, quirks kept: a later owner replaces the candidate only
   * when both its process load and its own task count are lower, and the final check for the task
   * (when `task` is given) looks at the first owner's process even when the candidate changed.
   */
  private findPrevMemberWithLeastLoad(members: readonly Member[] | undefined, task: TaskId | null): Member | null {
    if (members === undefined || members.length === 0) return null;
    let candidate = members[0]!;
    const firstProcess = this.process(candidate.processId);
    let candidateProcessLoad = firstProcess.load;
    let candidateMemberLoad = firstProcess.memberTaskCount(candidate.memberId);
    for (const member of members.slice(1)) {
      const process = this.process(member.processId);
      if (process.load < candidateProcessLoad && (task === null || !process.hasTask(task))) {
        const memberLoad = process.memberTaskCount(member.memberId);
        if (memberLoad < candidateMemberLoad) {
          candidateProcessLoad = process.load;
          candidateMemberLoad = memberLoad;
          candidate = member;
        }
      }
    }
    return task === null || !firstProcess.hasTask(task) ? candidate : null;
  }

  private assignStandby(statefulTasks: TaskId[]): void {
    statefulTasks.sort((a, b) => byPartitionThenSubtopology(b, a));
    const toLeastLoaded: StandbyToAssign[] = [];
    for (const task of statefulTasks) {
      for (let replica = 0; replica < this.numStandbyReplicas; replica++) {
        if (this.assignStandbyToPrevActiveOwner(task) || this.assignStandbyToPrevStandbyOwner(task)) continue;
        toLeastLoaded.push({ task, remainingReplicas: this.numStandbyReplicas - replica });
        break;
      }
    }
    toLeastLoaded.sort((a, b) => bySubtopologyThenPartition(b.task, a.task));
    const processByLoad = this.processesByLoad();
    for (const { task, remainingReplicas } of toLeastLoaded) {
      for (let replica = 0; replica < remainingReplicas; replica++) {
        if (!this.assignStandbyToLeastLoaded(processByLoad, task)) {
          this.warnStandbyShortfall(replica, task);
          break;
        }
      }
    }
  }

  private assignStandbyToPrevActiveOwner(task: TaskId): boolean {
    const prevMember = this.activeTaskToPrevMember.get(taskKey(task));
    if (prevMember === undefined) return false;
    return !this.process(prevMember.processId).hasTask(task) && this.assignStandbyIfUnderQuota(prevMember, task);
  }

  private assignStandbyToPrevStandbyOwner(task: TaskId): boolean {
    const prevMember = this.findPrevMemberWithLeastLoad(this.standbyTaskToPrevMembers.get(taskKey(task)), task);
    return prevMember !== null && this.assignStandbyIfUnderQuota(prevMember, task);
  }

  private assignStandbyIfUnderQuota(member: Member, task: TaskId): boolean {
    const process = this.process(member.processId);
    if (process.memberTaskCount(member.memberId) >= this.totalTasksPerMember) return false;
    this.maybeUpdateTotalTasksPerMember(process.addTask(member.memberId, task, false));
    return true;
  }

  /**
   * Kafka's recursive `assignStandbyToMemberWithLeastLoad`, unrolled: processes holding the task are
   * polled aside until one without it takes the task (or none is left), then all polled ones go
   * back, the last polled first, as the recursion's unwinding adds them.
   */
  private assignStandbyToLeastLoaded(processByLoad: JavaPriorityQueue<ProcessState>, task: TaskId): boolean {
    const polled: ProcessState[] = [];
    let assigned = false;
    for (let process = processByLoad.poll(); process !== null; process = processByLoad.poll()) {
      polled.push(process);
      if (!process.hasTask(task)) {
        const newTaskCount = process.addTaskToLeastLoadedMember(task, false);
        if (newTaskCount !== -1) {
          assigned = true;
          this.maybeUpdateTotalTasksPerMember(newTaskCount);
        }
        break;
      }
    }
    for (let i = polled.length - 1; i >= 0; i--) processByLoad.add(polled[i]!);
    return assigned;
  }

  /** Kafka's count is of the configured replicas, not of those left for this step. */
  private warnStandbyShortfall(replica: number, task: TaskId): void {
    this.warn(
      `Unable to assign ${this.numStandbyReplicas - replica} of ${this.numStandbyReplicas} standby tasks for task ` +
        `[${taskIdToString(task)}]. There is not enough available capacity. You should increase the number of ` +
        'threads and/or application instances to maintain the requested number of standby replicas.',
    );
  }

  private buildGroupAssignment(): GroupAssignment {
    const members = new Map<string, MemberAssignment>();
    for (const [memberId, spec] of this.groupSpec.members) {
      const process = this.process(spec.processId);
      members.set(memberId, {
        activeTasks: compactTasks(process.activeTasksOf(memberId)),
        standbyTasks: compactTasks(process.standbyTasksOf(memberId)),
        warmupTasks: new Map(),
      });
    }
    return { members };
  }
}

function forEachTask(tasks: Tasks, visit: (task: TaskId) => void): void {
  for (const [subtopologyId, partitions] of tasks) {
    for (const partition of partitions) visit({ subtopologyId, partition });
  }
}
