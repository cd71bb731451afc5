/**
 * The streams sticky task assignor (Kafka 4.3.1's `StickyTaskAssignor`): cases ported from Kafka's
 * `StickyTaskAssignorTest` and `ProcessStateTest`, then cases whose exact results were produced by
 * Kafka's own class (kafka-group-coordinator-4.3.1.jar driven by a small Java program) and must be
 * reproduced member for member, ties included. Where a ported case asserts exact tasks beyond what
 * Kafka's test checks, those tasks are the Java class's result for the same input.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { JavaPriorityQueue, ProcessState } from '../../../src/coordinator/streams/assignor/process-state.js';
import { parseNumStandbyReplicas, StickyTaskAssignor } from '../../../src/coordinator/streams/assignor/sticky-task-assignor.js';
import {
  TaskAssignorError,
  type AssignmentMemberSpec,
  type GroupAssignment,
  type TopologyDescriber,
} from '../../../src/coordinator/streams/assignor/types.js';
import { javaHashMapOrder, javaStringHashCode } from '../../../src/util/java-hash.js';

/** subtopology id -> partitions. */
type TaskList = Record<string, number[]>;

const SUB = 'test-subtopology';

function toTasks(list: TaskList): Map<string, Set<number>> {
  return new Map(Object.entries(list).map(([sub, partitions]) => [sub, new Set(partitions)]));
}

function spec(processId: string, active: TaskList = {}, standby: TaskList = {}): AssignmentMemberSpec {
  return {
    instanceId: null,
    rackId: null,
    activeTasks: toTasks(active),
    standbyTasks: toTasks(standby),
    warmupTasks: new Map(),
    processId,
    clientTags: new Map(),
    taskOffsets: new Map(),
    taskEndOffsets: new Map(),
  };
}

/** Kafka's `TopologyDescriberImpl`: every subtopology with `numTasks` tasks. */
function topology(numTasks: number, stateful: boolean, subtopologies: string[] = [SUB]): TopologyDescriber {
  return { subtopologies: () => subtopologies, maxNumInputPartitions: () => numTasks, isStateful: () => stateful };
}

function describer(subtopologies: ReadonlyArray<[id: string, tasks: number, stateful: boolean]>): TopologyDescriber {
  const byId = new Map(subtopologies.map(([id, tasks, stateful]) => [id, { tasks, stateful }]));
  return {
    subtopologies: () => subtopologies.map(([id]) => id),
    maxNumInputPartitions: (id) => byId.get(id)!.tasks,
    isStateful: (id) => byId.get(id)!.stateful,
  };
}

/** Members in the given order (Kafka's tests use `mkMap`, a `LinkedHashMap`). */
function assign(
  members: ReadonlyArray<[string, AssignmentMemberSpec]> | ReadonlyMap<string, AssignmentMemberSpec>,
  describer: TopologyDescriber,
  standbyReplicas: number | null = null,
): GroupAssignment {
  const configs = new Map<string, string>(standbyReplicas === null ? [] : [['num.standby.replicas', String(standbyReplicas)]]);
  return new StickyTaskAssignor().assign({ members: new Map(members), assignmentConfigs: configs }, describer);
}

/** Members as Kafka's tests build them with `new HashMap<>()`: in that map's iteration order. */
function hashOrdered(entries: Array<[string, AssignmentMemberSpec]>): Map<string, AssignmentMemberSpec> {
  const byId = new Map(entries);
  return new Map(javaHashMapOrder([...byId.keys()], javaStringHashCode).map((id) => [id, byId.get(id)!]));
}

function member(result: GroupAssignment, memberId: string) {
  const m = result.members.get(memberId);
  expect(m, memberId).toBeDefined();
  return m!;
}

function listOf(tasks: ReadonlyMap<string, ReadonlySet<number>>): TaskList {
  return Object.fromEntries([...tasks].map(([sub, partitions]) => [sub, [...partitions].sort((a, b) => a - b)]));
}

const activeOf = (result: GroupAssignment, memberId: string): TaskList => listOf(member(result, memberId).activeTasks);
const standbyOf = (result: GroupAssignment, memberId: string): TaskList => listOf(member(result, memberId).standbyTasks);

/** Partitions of all subtopologies of the members' active tasks, sorted. */
function activeIds(result: GroupAssignment, ...memberIds: string[]): number[] {
  return memberIds.flatMap((id) => Object.values(activeOf(result, id)).flat()).sort((a, b) => a - b);
}

function standbyIds(result: GroupAssignment, ...memberIds: string[]): number[] {
  return memberIds.flatMap((id) => Object.values(standbyOf(result, id)).flat()).sort((a, b) => a - b);
}

const allMembers = (result: GroupAssignment): string[] => [...result.members.keys()];

/** Every (process, task) pair at most once: a standby never shares a process with its active. */
function expectOneCopyPerProcess(result: GroupAssignment, members: ReadonlyMap<string, AssignmentMemberSpec>): void {
  const seen = new Set<string>();
  for (const [memberId, assignment] of result.members) {
    const processId = members.get(memberId)!.processId;
    for (const tasks of [assignment.activeTasks, assignment.standbyTasks]) {
      for (const [sub, partitions] of tasks) {
        for (const p of partitions) {
          const key = `${processId}/${sub}/${p}`;
          expect(seen.has(key), key).toBe(false);
          seen.add(key);
        }
      }
    }
  }
}

describe('StickyTaskAssignor (ported from Kafka StickyTaskAssignorTest)', () => {
  it('is named sticky', () => {
    const assignor = new StickyTaskAssignor();
    expect(assignor.name).toBe('sticky');
    expect(String(assignor)).toBe('sticky');
  });

  it('assigns one active task to each process when there are as many tasks as processes', () => {
    const result = assign([['member1', spec('process1')], ['member2', spec('process2')], ['member3', spec('process3')]], topology(3, false));
    expect(result.members.size).toBe(3);
    for (const id of ['member1', 'member2', 'member3']) expect(activeIds(result, id)).toHaveLength(1);
    expect(activeIds(result, 'member1', 'member2', 'member3')).toEqual([0, 1, 2]);
  });

  it('spreads tasks evenly across members of several processes, with and without standbys', () => {
    const members: Array<[string, AssignmentMemberSpec]> = ['1_1', '1_2', '2_1', '2_2', '3_1', '3_2'].map((s) => [`member${s}`, spec(`process${s[0]}`)]);
    const subs = ['test-subtopology1', 'test-subtopology2'];
    for (const [stateful, standby] of [[false, null], [true, 1]] as const) {
      const result = assign(members, topology(3, stateful, subs), standby);
      for (const [id] of members) expect(activeIds(result, id)).toHaveLength(1);
      const merged = members.flatMap(([id]) => Object.entries(activeOf(result, id)).flatMap(([sub, ps]) => ps.map((p) => `${sub}:${p}`)));
      expect(merged.sort()).toEqual(subs.flatMap((sub) => [0, 1, 2].map((p) => `${sub}:${p}`)));
    }
  });

  it('does not migrate an active task to another process', () => {
    let result = assign([['member1', spec('process1', { [SUB]: [0] })], ['member2', spec('process2', { [SUB]: [1] })]], topology(3, false));
    expect(activeOf(result, 'member1')[SUB]).toContain(0);
    expect(activeOf(result, 'member2')[SUB]).toContain(1);
    expect(activeIds(result, 'member1', 'member2')).toEqual([0, 1, 2]);

    result = assign([['member2', spec('process2', { [SUB]: [1] })], ['member3', spec('process1', { [SUB]: [2] })]], topology(3, false));
    expect(activeOf(result, 'member2')[SUB]).toContain(1);
    expect(activeOf(result, 'member3')[SUB]).toContain(2);
    expect(activeIds(result, 'member2', 'member3')).toEqual([0, 1, 2]);
  });

  it('migrates one active task to a new process without changing the others', () => {
    const result = assign(
      [['member1', spec('process1', { [SUB]: [0, 2] })], ['member2', spec('process2', { [SUB]: [1] })], ['member3', spec('process3')]],
      topology(3, false),
    );
    expect(activeOf(result, 'member1')).toEqual({ [SUB]: [0] });
    expect(activeOf(result, 'member2')).toEqual({ [SUB]: [1] });
    expect(activeOf(result, 'member3')).toEqual({ [SUB]: [2] });
  });

  it('assigns by capacity: a process with two members takes two tasks', () => {
    const result = assign([['member1', spec('process1')], ['member2_1', spec('process2')], ['member2_2', spec('process2')]], topology(3, false));
    for (const id of ['member1', 'member2_1', 'member2_2']) expect(activeIds(result, id)).toHaveLength(1);
  });

  it('balances tasks of subtopologies of unequal sizes', () => {
    const previous = { 'test-subtopology1': [0, 1, 2, 3, 4, 5], 'test-subtopology2': [0] };
    const result = assign(
      [['member1', spec('process1', previous)], ['member2', spec('process2')]],
      describer([['test-subtopology1', 6, false], ['test-subtopology2', 1, false]]),
    );
    expect(activeIds(result, 'member1')).toHaveLength(4);
    expect(activeIds(result, 'member2')).toHaveLength(3);
    expect(activeOf(result, 'member1')).toEqual({ 'test-subtopology1': [0, 1, 2], 'test-subtopology2': [0] });
    expect(activeOf(result, 'member2')).toEqual({ 'test-subtopology1': [3, 4, 5] });
  });

  it('keeps active tasks sticky when there are more members than tasks', () => {
    let result = assign(
      [
        ['member1', spec('process1', { [SUB]: [0] })],
        ['member2', spec('process2', { [SUB]: [2] })],
        ['member3', spec('process3', { [SUB]: [1] })],
        ['member4', spec('process4')],
        ['member5', spec('process5')],
      ],
      topology(3, false),
    );
    expect(activeOf(result, 'member1')).toEqual({ [SUB]: [0] });
    expect(activeOf(result, 'member2')).toEqual({ [SUB]: [2] });
    expect(activeOf(result, 'member3')).toEqual({ [SUB]: [1] });
    expect(activeOf(result, 'member4')).toEqual({});
    expect(activeOf(result, 'member5')).toEqual({});

    result = assign(
      [
        ['member1', spec('process1')],
        ['member2', spec('process2', { [SUB]: [0] })],
        ['member3', spec('process3')],
        ['member4', spec('process4', { [SUB]: [2] })],
        ['member5', spec('process5', { [SUB]: [1] })],
      ],
      topology(3, false),
    );
    expect(activeOf(result, 'member1')).toEqual({});
    expect(activeOf(result, 'member2')).toEqual({ [SUB]: [0] });
    expect(activeOf(result, 'member3')).toEqual({});
    expect(activeOf(result, 'member4')).toEqual({ [SUB]: [2] });
    expect(activeOf(result, 'member5')).toEqual({ [SUB]: [1] });
  });

  it('gives active tasks to the members that held them as standbys', () => {
    const result = assign(
      [
        ['member1', spec('process1', {}, { [SUB]: [2] })],
        ['member2', spec('process2', {}, { [SUB]: [1] })],
        ['member3', spec('process3', {}, { [SUB]: [0] })],
      ],
      topology(3, false),
    );
    expect(activeOf(result, 'member1')).toEqual({ [SUB]: [2] });
    expect(activeOf(result, 'member2')).toEqual({ [SUB]: [1] });
    expect(activeOf(result, 'member3')).toEqual({ [SUB]: [0] });
  });

  it('does not give a standby to the member that now holds the task active', () => {
    const result = assign(
      [['member1', spec('process1', {}, { [SUB]: [0] })], ['member2', spec('process2', {}, { [SUB]: [1] })]],
      topology(2, true),
      1,
    );
    expect(activeOf(result, 'member1')).toEqual({ [SUB]: [0] });
    expect(standbyOf(result, 'member1')).toEqual({ [SUB]: [1] });
    expect(activeOf(result, 'member2')).toEqual({ [SUB]: [1] });
    expect(standbyOf(result, 'member2')).toEqual({ [SUB]: [0] });
  });

  it('moves a task held as standby by several members to the one with capacity', () => {
    const result = assign(
      [
        ['member1', spec('process1', { [SUB]: [0] }, { [SUB]: [1] })],
        ['member2_1', spec('process2', { [SUB]: [2] }, { [SUB]: [1] })],
        ['member2_2', spec('process2')],
      ],
      topology(3, false),
    );
    expect(activeOf(result, 'member1')).toEqual({ [SUB]: [0] });
    expect(activeOf(result, 'member2_1')).toEqual({ [SUB]: [2] });
    expect(activeOf(result, 'member2_2')).toEqual({ [SUB]: [1] });
  });

  it('puts standby tasks on other processes than their active tasks', () => {
    const members: Array<[string, AssignmentMemberSpec]> = [0, 1, 2, 3].map((p) => [`member${p + 1}`, spec(`process${p + 1}`, { [SUB]: [p] })]);
    const result = assign(members, topology(4, true), 1);
    let membersWithStandbys = 0;
    for (const [id, s] of members) {
      const own = [...s.activeTasks.get(SUB)!][0]!;
      expect(standbyIds(result, id)).not.toContain(own);
      expect(standbyIds(result, id).length).toBeLessThanOrEqual(2);
      if (standbyIds(result, id).length > 0) membersWithStandbys++;
    }
    expect(membersWithStandbys).toBeGreaterThanOrEqual(3);
    expect(standbyIds(result, ...members.map(([id]) => id))).toEqual([0, 1, 2, 3]);
    expectOneCopyPerProcess(result, new Map(members));
  });

  it('assigns several standby replicas of a task', () => {
    const result = assign(
      [0, 1, 2].map((p) => [`member${p + 1}`, spec(`process${p + 1}`, { [SUB]: [p] })]),
      topology(3, true),
      2,
    );
    expect(standbyIds(result, 'member1')).toEqual([1, 2]);
    expect(standbyIds(result, 'member2')).toEqual([0, 2]);
    expect(standbyIds(result, 'member3')).toEqual([0, 1]);
  });

  it('drops standby replicas when no other process can take them, with Kafka\'s warning', () => {
    const warnings: string[] = [];
    const result = new StickyTaskAssignor((m) => warnings.push(m)).assign(
      { members: new Map([['member1', spec('process1')]]), assignmentConfigs: new Map([['num.standby.replicas', '1']]) },
      topology(1, true),
    );
    expect(standbyOf(result, 'member1')).toEqual({});
    expect(warnings).toEqual([
      'Unable to assign 1 of 1 standby tasks for task [test-subtopology_0]. There is not enough available capacity. ' +
        'You should increase the number of threads and/or application instances to maintain the requested number of standby replicas.',
    ]);
  });

  it('balances active and standby tasks across processes', () => {
    let result = assign([1, 2, 3].map((i) => [`member${i}`, spec(`process${i}`)]), topology(3, true), 1);
    expect(activeIds(result, 'member1', 'member2', 'member3')).toEqual([0, 1, 2]);
    expect(standbyIds(result, 'member1', 'member2', 'member3')).toEqual([0, 1, 2]);

    result = assign([1, 2, 3, 4, 5, 6].map((i) => [`member${i}`, spec(`process${i}`)]), topology(3, true), 1);
    for (const id of allMembers(result)) expect(activeIds(result, id).length + standbyIds(result, id).length).toBe(1);
  });

  it('gives each process at least one task when possible', () => {
    const result = assign(
      [['member1_1', spec('process1')], ['member1_2', spec('process1')], ['member1_3', spec('process1')], ['member2', spec('process2')], ['member3', spec('process3')]],
      topology(3, false),
    );
    expect(activeIds(result, 'member1_1', 'member1_2', 'member1_3')).toHaveLength(1);
    expect(activeIds(result, 'member2')).toHaveLength(1);
    expect(activeIds(result, 'member3')).toHaveLength(1);
  });

  it('gives more tasks to the process with more members', () => {
    const result = assign(
      [['member1', spec('process1')], ['member2_1', spec('process2')], ['member2_2', spec('process2')]],
      topology(3, false, ['test-subtopology0', 'test-subtopology1', 'test-subtopology2', 'test-subtopology3']),
    );
    expect(activeIds(result, 'member2_1', 'member2_2')).toHaveLength(8);
    expect(activeIds(result, 'member1')).toHaveLength(4);
  });

  it('rebalances tasks held by one member across new members', () => {
    let result = assign(
      [['member1', spec('process1')], ['member2', spec('process2')], ['member3', spec('process3', { [SUB]: [0, 1, 2, 3] })], ['member4', spec('process4')]],
      topology(4, false),
    );
    for (const id of ['member1', 'member2', 'member3', 'member4']) expect(activeIds(result, id)).toHaveLength(1);

    result = assign(
      [['member1', spec('process1')], ['member2', spec('process2')], ['member3', spec('process3', { [SUB]: [0, 1, 2, 3] })]],
      topology(4, false),
    );
    expect(activeIds(result, 'member1')).toHaveLength(1);
    expect(activeIds(result, 'member2')).toHaveLength(1);
    expect(activeIds(result, 'member3')).toEqual([0, 1]);

    result = assign([['member2', spec('process2', { [SUB]: [0, 3, 2] })], ['member3_1', spec('process3')], ['member3_2', spec('process3')]], topology(3, false));
    expect(activeIds(result, 'member2')).toHaveLength(1);
    expect(activeIds(result, 'member3_1', 'member3_2')).toHaveLength(2);
  });

  it('moves a minimal number of tasks to a new member', () => {
    const result = assign(
      [['member1', spec('process1', { [SUB]: [0, 2] })], ['member2', spec('process2', { [SUB]: [1, 3] })], ['member3', spec('process3')]],
      topology(4, false),
    );
    expect(activeIds(result, 'member1')).toEqual([0, 2]);
    expect(activeIds(result, 'member2')).toEqual([1]);
    expect(activeIds(result, 'member3')).toEqual([3]);
  });

  it('keeps existing tasks when new tasks are added', () => {
    let result = assign([['member1', spec('process1', { [SUB]: [0, 1] })], ['member2', spec('process2', { [SUB]: [2, 3] })]], topology(6, false));
    expect(activeIds(result, 'member1')).toEqual(expect.arrayContaining([0, 1]));
    expect(activeIds(result, 'member2')).toEqual(expect.arrayContaining([2, 3]));

    result = assign(
      [['member1', spec('process1', { [SUB]: [2, 1] })], ['member2', spec('process2', { [SUB]: [0, 3] })], ['member3', spec('process3')]],
      topology(6, false),
    );
    expect(activeIds(result, 'member1')).toEqual([1, 2]);
    expect(activeIds(result, 'member2')).toEqual([0, 3]);
    expect(activeIds(result, 'member3')).toEqual([4, 5]);
  });

  it('gives tasks not previously active to new members', () => {
    const member1 = spec('process1', { 'test-subtopology0': [1], 'test-subtopology1': [2, 3] }, { 'test-subtopology0': [0], 'test-subtopology1': [1], 'test-subtopology2': [0, 1, 3] });
    const member2 = spec(
      'process2',
      { 'test-subtopology0': [0], 'test-subtopology1': [1], 'test-subtopology2': [2] },
      { 'test-subtopology0': [1, 2, 3], 'test-subtopology1': [0, 2, 3], 'test-subtopology2': [0, 1, 3] },
    );
    const subs = ['test-subtopology0', 'test-subtopology1', 'test-subtopology2'];
    let result = assign(
      [
        ['member1', member1],
        ['member2', member2],
        ['member3', spec('process3', { 'test-subtopology2': [0, 1, 3] }, { 'test-subtopology0': [2], 'test-subtopology1': [2] })],
        ['newMember', spec('process4', {}, { 'test-subtopology0': [0, 1, 2, 3], 'test-subtopology1': [0, 1, 2, 3], 'test-subtopology2': [0, 1, 2, 3] })],
      ],
      topology(4, false, subs),
    );
    expect(activeOf(result, 'member1')).toEqual({ 'test-subtopology0': [1], 'test-subtopology1': [2, 3] });
    expect(activeOf(result, 'member2')).toEqual({ 'test-subtopology0': [0], 'test-subtopology1': [1], 'test-subtopology2': [2] });
    expect(activeOf(result, 'member3')).toEqual({ 'test-subtopology2': [0, 1, 3] });
    expect(activeOf(result, 'newMember')).toEqual({ 'test-subtopology0': [2, 3], 'test-subtopology1': [0] });

    result = assign(
      [
        ['member1', member1],
        ['member2', member2],
        ['bounce_member1', spec('bounce1', {}, { 'test-subtopology2': [0, 1, 3] })],
        ['bounce_member2', spec('bounce2', {}, { 'test-subtopology0': [2, 3], 'test-subtopology1': [0] })],
      ],
      topology(4, false, subs),
    );
    expect(activeOf(result, 'member1')).toEqual({ 'test-subtopology0': [1], 'test-subtopology1': [2, 3] });
    expect(activeOf(result, 'member2')).toEqual({ 'test-subtopology0': [0], 'test-subtopology1': [1], 'test-subtopology2': [2] });
    expect(activeOf(result, 'bounce_member1')).toEqual({ 'test-subtopology2': [0, 1, 3] });
    expect(activeOf(result, 'bounce_member2')).toEqual({ 'test-subtopology0': [2, 3], 'test-subtopology1': [0] });
  });

  it('gives a new member tasks without flipping tasks between existing members', () => {
    let result = assign(
      [['member1', spec('process1', { [SUB]: [0, 1, 2] })], ['member2', spec('process2', { [SUB]: [3, 4, 5] })], ['newMember', spec('process3')]],
      topology(6, false),
    );
    expect(activeIds(result, 'member1')).toEqual([0, 1]);
    expect(activeIds(result, 'member2')).toEqual([3, 4]);
    expect(activeIds(result, 'newMember')).toEqual([2, 5]);

    result = assign(
      [['member1', spec('process1', { [SUB]: [0, 1, 2, 6] })], ['member2', spec('process2', {}, { [SUB]: [3, 4, 5] })], ['newMember', spec('newProcess')]],
      topology(7, false),
    );
    expect(activeIds(result, 'member1')).toEqual([0, 1, 2]);
    expect(activeIds(result, 'member2')).toEqual([3, 4]);
    expect(activeIds(result, 'newMember')).toEqual([5, 6]);
  });

  it('handles 100 tasks, 5 processes and 2 standby replicas (members in HashMap order)', () => {
    const members = hashOrdered([0, 1, 2, 3, 4].map((i) => [`member${i}`, spec(`process${i}`)]));
    const result = assign(members, topology(100, true), 2);
    for (const id of members.keys()) {
      expect(activeIds(result, id)).toHaveLength(20);
      expect(standbyIds(result, id)).toHaveLength(40);
    }
    expect(activeIds(result, ...members.keys())).toEqual([...Array(100).keys()]);
    expectOneCopyPerProcess(result, members);
  });

  it('handles an odd number of processes with standby tasks', () => {
    const members = hashOrdered([0, 1, 2, 3, 4, 5, 6].map((i) => [`member${i}`, spec(`process${i}`)]));
    const result = assign(members, topology(14, true), 1);
    for (const id of members.keys()) {
      expect(activeIds(result, id)).toHaveLength(2);
      expect(standbyIds(result, id)).toHaveLength(2);
    }
    expectOneCopyPerProcess(result, members);
  });

  it('places as many standby replicas as there are other processes', () => {
    let members = hashOrdered([0, 1, 2].map((i) => [`member${i}`, spec(`process${i}`)]));
    let result = assign(members, topology(6, true), 5);
    expect(activeIds(result, ...members.keys())).toEqual([0, 1, 2, 3, 4, 5]);
    expect(standbyIds(result, ...members.keys())).toHaveLength(12);
    expectOneCopyPerProcess(result, members);

    result = assign([['member1', spec('process1')]], topology(10, true), 3);
    expect(activeIds(result, 'member1')).toHaveLength(10);
    expect(standbyIds(result, 'member1')).toEqual([]);

    members = hashOrdered([0, 1].map((i) => [`member${i}`, spec(`process${i}`)]));
    result = assign(members, topology(4, true), 5);
    expect(standbyIds(result, ...members.keys())).toEqual([0, 1, 2, 3]);
  });

  it('assigns standbys for every subtopology of many', () => {
    const members = hashOrdered([0, 1, 2, 3].map((i) => [`member${i}`, spec(`process${i}`)]));
    const subs = [...Array(10).keys()].map((i) => `subtopology-${i}`);
    const result = assign(members, topology(5, true, subs), 1);
    const withActive = new Set(allMembers(result).flatMap((id) => Object.keys(activeOf(result, id))));
    const withStandby = new Set(allMembers(result).flatMap((id) => Object.keys(standbyOf(result, id))));
    expect(withActive.size).toBe(10);
    expect(withStandby.size).toBe(10);
  });

  it('reassigns active and standby tasks when a process joins', () => {
    const result = assign(
      [
        ['member1', spec('process1', { [SUB]: [0, 1] }, { [SUB]: [2, 3] })],
        ['member2', spec('process2', { [SUB]: [2, 3] }, { [SUB]: [0, 1] })],
        ['member3', spec('process3')],
      ],
      topology(4, true),
      1,
    );
    // Exact result from Kafka's class (Kafka's test checks counts only).
    expect(activeOf(result, 'member1')).toEqual({ [SUB]: [0, 1] });
    expect(standbyOf(result, 'member1')).toEqual({ [SUB]: [2] });
    expect(activeOf(result, 'member2')).toEqual({ [SUB]: [2] });
    expect(standbyOf(result, 'member2')).toEqual({ [SUB]: [1, 3] });
    expect(activeOf(result, 'member3')).toEqual({ [SUB]: [3] });
    expect(standbyOf(result, 'member3')).toEqual({ [SUB]: [0] });
  });

  it('range-assigns tasks when starting empty and when scaling up', () => {
    const subs = ['test-subtopology1', 'test-subtopology2'];
    let result = assign([['member1', spec('process1')], ['member2', spec('process2')]], topology(2, true, subs), 1);
    expect(activeOf(result, 'member1')).toEqual({ 'test-subtopology1': [0], 'test-subtopology2': [0] });
    expect(activeOf(result, 'member2')).toEqual({ 'test-subtopology1': [1], 'test-subtopology2': [1] });
    expect(standbyOf(result, 'member1')).toEqual({ 'test-subtopology1': [1], 'test-subtopology2': [1] });
    expect(standbyOf(result, 'member2')).toEqual({ 'test-subtopology1': [0], 'test-subtopology2': [0] });

    result = assign(
      [['member1', spec('process1', { 'test-subtopology1': [0, 1], 'test-subtopology2': [0, 1] })], ['member2', spec('process2')]],
      topology(2, true, subs),
      1,
    );
    expect(activeOf(result, 'member1')).toEqual({ 'test-subtopology1': [0], 'test-subtopology2': [0] });
    expect(activeOf(result, 'member2')).toEqual({ 'test-subtopology1': [1], 'test-subtopology2': [1] });
    expect(standbyOf(result, 'member1')).toEqual({ 'test-subtopology1': [1], 'test-subtopology2': [1] });
    expect(standbyOf(result, 'member2')).toEqual({ 'test-subtopology1': [0], 'test-subtopology2': [0] });
  });

  it('gives a standby back to its previous owner while that member is under the total quota', () => {
    const result = assign(
      [['member1', spec('process1', { [SUB]: [0] }, { [SUB]: [1] })], ['member2', spec('process2', { [SUB]: [1] })], ['member3', spec('process3')]],
      topology(2, true),
      1,
    );
    expect(activeOf(result, 'member1')).toEqual({ [SUB]: [0] });
    expect(standbyOf(result, 'member1')).toEqual({ [SUB]: [1] });
    expect(activeOf(result, 'member2')).toEqual({ [SUB]: [1] });
    expect(standbyOf(result, 'member2')).toEqual({});
    expect(standbyOf(result, 'member3')).toEqual({ [SUB]: [0] });
  });
});

describe('StickyTaskAssignor configs and errors', () => {
  it('reads num.standby.replicas as Integer.parseInt does', () => {
    expect(parseNumStandbyReplicas(new Map())).toBe(0);
    expect(parseNumStandbyReplicas(new Map([['num.standby.replicas', '2']]))).toBe(2);
    expect(parseNumStandbyReplicas(new Map([['num.standby.replicas', '+2']]))).toBe(2);
    expect(parseNumStandbyReplicas(new Map([['num.standby.replicas', '-1']]))).toBe(-1);
    expect(() => parseNumStandbyReplicas(new Map([['num.standby.replicas', ' 1']]))).toThrow(new TaskAssignorError('For input string: " 1"'));
    expect(() => parseNumStandbyReplicas(new Map([['num.standby.replicas', '2147483648']]))).toThrow('For input string: "2147483648"');
    // Other configs without this one: Kafka parses null.
    expect(() => parseNumStandbyReplicas(new Map([['other', '1']]))).toThrow('Cannot parse null string');
  });

  it('fails as Kafka does without members to take the active tasks', () => {
    const run = (): GroupAssignment => assign([], topology(2, true));
    expect(run).toThrow(TaskAssignorError);
    expect(run).toThrow('No process available to assign active task test-subtopology_0.');
    expect(assign([], topology(0, true)).members.size).toBe(0);
  });

  it('fails on a negative replica count once a member had standbys (Java rejects the list capacity)', () => {
    expect(() => assign([['m1', spec('p1', {}, { [SUB]: [1] })]], topology(2, true), -1)).toThrow('Illegal Capacity: -1');
    expect(activeOf(assign([['m1', spec('p1', { [SUB]: [1] })]], topology(2, true), -1), 'm1')).toEqual({ [SUB]: [0, 1] });
  });
});

describe('ProcessState (ported from Kafka ProcessStateTest)', () => {
  const task = (partition: number) => ({ subtopologyId: 'id1', partition });

  it('counts active and standby tasks per member', () => {
    const state = new ProcessState('process1');
    state.addMember('member1');
    expect(state.capacity).toBe(1);
    expect(state.hasCapacity()).toBe(true);
    state.addTask('member1', task(0), true);
    state.addTask('member1', task(1), false);
    expect([...state.activeTasksOf('member1')]).toEqual([task(0)]);
    expect([...state.standbyTasksOf('member1')]).toEqual([task(1)]);
    expect(state.memberTaskCount('member1')).toBe(2);
    expect(state.hasTask(task(0)) && state.hasTask(task(1))).toBe(true);
    expect(state.hasTask(task(2))).toBe(false);
    expect(state.hasCapacity()).toBe(false);
    expect(state.load).toBe(2);
  });

  it('compares by load, then the larger capacity first', () => {
    const a = new ProcessState('process1');
    const b = new ProcessState('process2');
    a.addMember('member1');
    b.addMember('member2');
    a.addTask('member1', task(0), true);
    expect(a.compareTo(b)).toBeGreaterThan(0);
    b.addMember('member3');
    b.addTask('member2', task(0), true);
    b.addTask('member3', task(1), true);
    expect(a.compareTo(b)).toBeGreaterThan(0);
    expect(b.compareTo(a)).toBeLessThan(0);
  });

  it('gives tasks to its least loaded member', () => {
    const state = new ProcessState('p');
    for (const m of ['a', 'b', 'c']) state.addMember(m);
    state.addTask('a', task(0), true);
    expect(state.addTaskToLeastLoadedMember(task(1), true)).toBe(1);
    expect(state.addTaskToLeastLoadedMember(task(2), true)).toBe(1);
    expect(['a', 'b', 'c'].map((m) => state.memberTaskCount(m))).toEqual([1, 1, 1]);
    expect(new ProcessState('empty').addTaskToLeastLoadedMember(task(0), true)).toBe(-1);
  });
});

describe('JavaPriorityQueue', () => {
  it('breaks ties as java.util.PriorityQueue does (order recorded from Java 17)', () => {
    const queue = new JavaPriorityQueue<{ key: string; value: number }>((a, b) => a.value - b.value);
    [2, 1, 1, 0, 1, 2, 0, 1, 1, 0].forEach((value, i) => queue.add({ key: `e${i}`, value }));
    const polled: string[] = [];
    for (let i = 0; i < 12; i++) {
      const e = queue.poll()!;
      polled.push(e.key);
      e.value++;
      queue.add(e);
    }
    polled.push('|');
    while (!queue.isEmpty()) polled.push(queue.poll()!.key);
    expect(polled.join(' ')).toBe('e3 e9 e6 e9 e6 e4 e7 e8 e1 e3 e2 e3 | e2 e7 e9 e6 e8 e5 e4 e0 e1 e3');
  });
});

/**
 * Cases run through Kafka's `StickyTaskAssignor` (4.3.1 jar) by a Java harness reading this
 * format: `config k v`, `sub <id> <tasks> <stateful 0|1>`, `member <id> <process> <active> <standby>`
 * (tasks as `sub:partition,...` or `-`), members in the listed order (a `LinkedHashMap`). Its
 * output: `member <id> A <active> S <standby>`, tasks sorted.
 */
function runCase(input: string): string {
  const configs = new Map<string, string>();
  const subs: Array<[string, number, boolean]> = [];
  const members = new Map<string, AssignmentMemberSpec>();
  const parseList = (s: string): TaskList => {
    const list: TaskList = {};
    if (s === '-') return list;
    for (const t of s.split(',')) {
      const i = t.lastIndexOf(':');
      (list[t.slice(0, i)] ??= []).push(Number(t.slice(i + 1)));
    }
    return list;
  };
  for (const line of input.trim().split('\n')) {
    const f = line.trim().split(' ');
    if (f[0] === 'config') configs.set(f[1]!, f[2]!);
    else if (f[0] === 'sub') subs.push([f[1]!, Number(f[2]), f[3] === '1']);
    else if (f[0] === 'member') members.set(f[1]!, spec(f[2]!, parseList(f[3]!), parseList(f[4]!)));
  }
  const result = new StickyTaskAssignor().assign({ members, assignmentConfigs: configs }, describer(subs));
  return [...members.keys()].map((id) => `member ${id} A ${format(activeOf(result, id))} S ${format(standbyOf(result, id))}\n`).join('');
}

function format(list: TaskList): string {
  const tasks = Object.keys(list)
    .sort()
    .flatMap((sub) => list[sub]!.map((p) => `${sub}:${p}`));
  return tasks.length > 0 ? tasks.join(',') : '-';
}

const lines = (s: string): string => s.trim().split('\n').map((l) => `${l.trim()}\n`).join('');

describe('StickyTaskAssignor against Kafka 4.3.1 (results from the Java class)', () => {
  // Processes of 3, 1 and 2 members; ties between equally loaded processes and members decide
  // every placement here, so this checks the HashMap iteration and heap orders.
  const caseA = `
    config num.standby.replicas 1
    sub 0 4 1
    sub 1 4 1
    sub 2 4 0
    member member-a1 proc-A - -
    member member-b1 proc-B - -
    member member-a2 proc-A - -
    member member-c1 proc-C - -
    member member-a3 proc-A - -
    member member-c2 proc-C - -`;
  const caseAJava = `
    member member-a1 A 0:3,1:3 S 0:1
    member member-b1 A 0:0,2:0 S 1:3
    member member-a2 A 1:1,2:1 S 1:2
    member member-c1 A 1:0,2:2 S 0:3
    member member-a3 A 0:2,2:3 S 0:0,1:0
    member member-c2 A 0:1,1:2 S 0:2,1:1`;

  it('a fresh group over processes of different sizes', () => {
    expect(runCase(caseA)).toBe(lines(caseAJava));
  });

  it('members leaving: member-b1 (proc-B) and member-a2 go, the rest start from case A', () => {
    const input = `
      config num.standby.replicas 1
      sub 0 4 1
      sub 1 4 1
      sub 2 4 0
      member member-a1 proc-A 0:3,1:3 0:1
      member member-c1 proc-C 1:0,2:2 0:3
      member member-a3 proc-A 0:2,2:3 0:0,1:0
      member member-c2 proc-C 0:1,1:2 0:2,1:1`;
    expect(runCase(input)).toBe(
      lines(`
        member member-a1 A 0:3,1:3,2:1 S 0:1,1:1
        member member-c1 A 1:0,2:0,2:2 S 0:0,0:3
        member member-a3 A 0:0,0:2,2:3 S 1:0,1:2
        member member-c2 A 0:1,1:1,1:2 S 0:2,1:3`),
    );
  });

  it('conflicting previous owners, stale and stateless tasks, 3 replicas', () => {
    const input = `
      config num.standby.replicas 3
      sub a 4 1
      sub b 4 0
      member m1 p1 b:0,b:1,a:3 a:0
      member m2 p1 - a:1
      member m3 p2 a:0 a:3
      member m4 p3 - a:2,b:1`;
    expect(runCase(input)).toBe(
      lines(`
        member m1 A b:0,b:1 S a:0,a:3
        member m2 A a:1,b:3 S a:2
        member m3 A a:0,a:3 S a:1,a:2
        member m4 A a:2,b:2 S a:0,a:1,a:3`),
    );
  });

  // 100 members on 30 processes (3 or 4 members each), 1000 tasks in 10 subtopologies (the even
  // ones stateful), 1 standby replica; then 5 members leave and one joins. The whole output is
  // compared through its SHA-256 with the Java harness's.
  const bigHeader = ['config num.standby.replicas 1', ...[...Array(10).keys()].map((s) => `sub subtopology-${s} 100 ${s % 2 === 0 ? 1 : 0}`)];
  const digest = (s: string): string => createHash('sha256').update(`${s}end\n`).digest('hex');

  it('a large group (100 members, 1000 tasks) and a rebalance after members leave, fast', () => {
    const first = [...bigHeader, ...[...Array(100).keys()].map((i) => `member member-${i} process-${i % 30} - -`)].join('\n');
    const start = performance.now();
    const firstOut = runCase(first);
    expect(digest(firstOut)).toBe('e35d3ef1526e0eda6561b2146ab64360e77b3c9efa85f46368aa1fafeb84f15d');
    expect(firstOut.split('\n')[1]).toBe(
      'member member-1 A subtopology-0:69,subtopology-1:14,subtopology-2:62,subtopology-3:18,subtopology-4:68,subtopology-5:3,' +
        'subtopology-6:65,subtopology-7:1,subtopology-8:63,subtopology-9:10 S subtopology-0:33,subtopology-2:92,subtopology-4:35,' +
        'subtopology-6:81,subtopology-8:34',
    );

    const leaving = new Set(['member-0', 'member-7', 'member-30', 'member-60', 'member-99']);
    const kept = firstOut
      .trim()
      .split('\n')
      .map((l) => l.split(' '))
      .filter((f) => !leaving.has(f[1]!))
      .map((f) => `member ${f[1]} process-${Number(f[1]!.slice('member-'.length)) % 30} ${f[3]} ${f[5]}`);
    const second = [...bigHeader, ...kept, 'member member-new process-new - -'].join('\n');
    const secondOut = runCase(second);
    expect(performance.now() - start).toBeLessThan(2000);
    expect(digest(secondOut)).toBe('7771261448e4b715f8e0ac13df012fe7bd85aeb945108a4c8980355ebe5287ce');
    expect(secondOut.split('\n').find((l) => l.startsWith('member member-new '))).toBe(
      'member member-new A subtopology-0:98,subtopology-1:32,subtopology-1:33,subtopology-1:65,subtopology-1:98,subtopology-1:99,' +
        'subtopology-2:96,subtopology-3:38,subtopology-3:39,subtopology-3:60,subtopology-3:95 S subtopology-8:35,subtopology-8:65,' +
        'subtopology-8:79,subtopology-8:93,subtopology-8:94',
    );
  });

  it('a large group keeps one copy of a task per process and balances by member', () => {
    const members = new Map([...Array(100).keys()].map((i): [string, AssignmentMemberSpec] => [`member-${i}`, spec(`process-${i % 30}`)]));
    const subs = [...Array(10).keys()].map((s): [string, number, boolean] => [`subtopology-${s}`, 100, true]);
    const start = performance.now();
    const result = assign(members, describer(subs), 2);
    expect(performance.now() - start).toBeLessThan(1000);
    for (const id of members.keys()) {
      expect(activeIds(result, id)).toHaveLength(10);
      expect(standbyIds(result, id)).toHaveLength(20);
    }
    expectOneCopyPerProcess(result, members);
  });
});
