/**
 * The range assignor against the tables of Kafka's `RangeAssignorTest` (member ids A, B, C;
 * static members sorted first by instance id) — it is not sticky: only the sorted members,
 * subscriptions and partition counts decide the result.
 */
import { describe, expect, it } from 'vitest';
import {
  PartitionAssignorError,
  rangeAssignor,
  type AssignmentMemberSpec,
  type GroupAssignment,
  type GroupSpec,
  type SubscribedTopicDescriber,
} from '../../../src/coordinator/consumer/assignor/index.js';

const T1 = 'T1-A4s3VTwiI5CTbEp6POw';
const T2 = 'T2-B4s3VTwiI5YHbPp6YUe';
const T3 = 'T3-CU8fVTLCz5YMkLoDQsa';

function member(
  memberId: string,
  topics: string[],
  assigned: Array<[string, number[]]> = [],
  opts: { instanceId?: string; rackId?: string } = {},
): AssignmentMemberSpec {
  return {
    memberId,
    instanceId: opts.instanceId ?? null,
    rackId: opts.rackId ?? null,
    subscribedTopicIds: new Set(topics),
    assignedPartitions: new Map(assigned.map(([t, ps]) => [t, new Set(ps)])),
  };
}
const group = (members: AssignmentMemberSpec[], subscriptionType: GroupSpec['subscriptionType']): GroupSpec => ({
  members: new Map(members.map((m) => [m.memberId, m])),
  subscriptionType,
});
function topics(counts: Array<[string, number]>, racks?: (t: string, p: number) => string[]): SubscribedTopicDescriber {
  const m = new Map(counts);
  return {
    numPartitions: (t) => m.get(t) ?? -1,
    ...(racks ? { racksForPartition: (t: string, p: number) => new Set(racks(t, p)) } : {}),
  };
}
function plain(a: GroupAssignment): Record<string, Record<string, number[]>> {
  const out: Record<string, Record<string, number[]>> = {};
  for (const id of [...a.members.keys()].sort()) {
    const m: Record<string, number[]> = {};
    const assignment = a.members.get(id)!;
    for (const t of [...assignment.keys()].sort()) m[t] = [...assignment.get(t)!].sort((x, y) => x - y);
    out[id] = m;
  }
  return out;
}

describe('range assignor (RangeAssignorTest)', () => {
  it('one member without topics gets an empty assignment', () => {
    expect(plain(rangeAssignor.assign(group([member('A', [])], 'HOMOGENEOUS'), topics([[T1, 3]])))).toEqual({ A: {} });
  });

  it('an unknown topic fails', () => {
    expect(() => rangeAssignor.assign(group([member('A', [T2])], 'HOMOGENEOUS'), topics([[T1, 3]]))).toThrow(
      PartitionAssignorError,
    );
  });

  it('2 members, same subscriptions, T1 3 + T3 2: contiguous ranges, first member gets the extra', () => {
    const r = rangeAssignor.assign(
      group([member('A', [T1, T3]), member('B', [T1, T3])], 'HOMOGENEOUS'),
      topics([[T1, 3], [T3, 2]]),
    );
    expect(plain(r)).toEqual({ A: { [T1]: [0, 1], [T3]: [0] }, B: { [T1]: [2], [T3]: [1] } });
  });

  it('3 members, 2 topics of 3 partitions: co-partitioned', () => {
    const r = rangeAssignor.assign(
      group([member('C', [T1, T2]), member('A', [T1, T2]), member('B', [T1, T2])], 'HOMOGENEOUS'),
      topics([[T1, 3], [T2, 3]]),
    );
    expect(plain(r)).toEqual({
      A: { [T1]: [0], [T2]: [0] },
      B: { [T1]: [1], [T2]: [1] },
      C: { [T1]: [2], [T2]: [2] },
    });
  });

  it('3 members, 3 topics, different subscriptions', () => {
    const r = rangeAssignor.assign(
      group([member('A', [T1, T2]), member('B', [T3]), member('C', [T2, T3])], 'HETEROGENEOUS'),
      topics([[T1, 3], [T2, 3], [T3, 2]]),
    );
    expect(plain(r)).toEqual({
      A: { [T1]: [0, 1, 2], [T2]: [0, 1] },
      B: { [T3]: [0] },
      C: { [T2]: [2], [T3]: [1] },
    });
  });

  it('more members than partitions: the last member of T3 gets nothing', () => {
    const r = rangeAssignor.assign(
      group([member('A', [T1, T3]), member('B', [T1, T3]), member('C', [T1, T3])], 'HOMOGENEOUS'),
      topics([[T1, 3], [T3, 2]]),
    );
    expect(plain(r)).toEqual({
      A: { [T1]: [0], [T3]: [0] },
      B: { [T1]: [1], [T3]: [1] },
      C: { [T1]: [2] },
    });
  });

  it('static members keep their ranges when they rejoin with a new member id', () => {
    const d = topics([[T1, 5]]);
    const before = rangeAssignor.assign(
      group(
        [member('A', [T1], [], { instanceId: 'instanceA' }), member('C', [T1], [], { instanceId: 'instanceC' }), member('B', [T1])],
        'HOMOGENEOUS',
      ),
      d,
    );
    expect(plain(before)).toEqual({ A: { [T1]: [0, 1] }, B: { [T1]: [4] }, C: { [T1]: [2, 3] } });
    const after = rangeAssignor.assign(
      group(
        [member('memberA1', [T1], [], { instanceId: 'instanceA' }), member('C', [T1], [], { instanceId: 'instanceC' }), member('B', [T1])],
        'HOMOGENEOUS',
      ),
      d,
    );
    expect(plain(after)).toEqual({ B: { [T1]: [4] }, C: { [T1]: [2, 3] }, memberA1: { [T1]: [0, 1] } });
  });

  it('a member joins with more members than partitions: C gets nothing, A and B keep theirs', () => {
    const r = rangeAssignor.assign(
      group(
        [member('A', [T1, T2], [[T1, [0]], [T2, [0]]]), member('B', [T1, T2], [[T1, [1]], [T2, [1]]]), member('C', [T1, T2])],
        'HOMOGENEOUS',
      ),
      topics([[T1, 2], [T2, 2]]),
    );
    expect(plain(r)).toEqual({ A: { [T1]: [0], [T2]: [0] }, B: { [T1]: [1], [T2]: [1] }, C: {} });
  });

  it('a partition added to both topics (3 -> 4)', () => {
    const r = rangeAssignor.assign(
      group([member('A', [T1, T2], [[T1, [0, 1]], [T2, [0, 1]]]), member('B', [T1, T2], [[T1, [2]], [T2, [2]]])], 'HOMOGENEOUS'),
      topics([[T1, 4], [T2, 4]]),
    );
    expect(plain(r)).toEqual({ A: { [T1]: [0, 1], [T2]: [0, 1] }, B: { [T1]: [2, 3], [T2]: [2, 3] } });
  });

  it('a member joins: ranges shift (not sticky)', () => {
    const r = rangeAssignor.assign(
      group(
        [member('A', [T1, T2], [[T1, [0, 1]], [T2, [0, 1]]]), member('B', [T1, T2], [[T1, [2]], [T2, [2]]]), member('C', [T1, T2])],
        'HOMOGENEOUS',
      ),
      topics([[T1, 3], [T2, 3]]),
    );
    expect(plain(r)).toEqual({
      A: { [T1]: [0], [T2]: [0] },
      B: { [T1]: [1], [T2]: [1] },
      C: { [T1]: [2], [T2]: [2] },
    });
  });

  it('a member joins subscribed to T1 only while T1 grows to 4', () => {
    const r = rangeAssignor.assign(
      group(
        [member('A', [T1, T2], [[T1, [0, 1]], [T2, [0, 1]]]), member('B', [T1, T2], [[T1, [2]], [T2, [2]]]), member('C', [T1])],
        'HETEROGENEOUS',
      ),
      topics([[T1, 4], [T2, 3]]),
    );
    expect(plain(r)).toEqual({
      A: { [T1]: [0, 1], [T2]: [0, 1] },
      B: { [T1]: [2], [T2]: [2] },
      C: { [T1]: [3] },
    });
  });

  it('a member leaves: the remaining one takes everything', () => {
    const r = rangeAssignor.assign(
      group([member('B', [T1, T2], [[T1, [2]], [T2, [2]]])], 'HOMOGENEOUS'),
      topics([[T1, 3], [T2, 3]]),
    );
    expect(plain(r)).toEqual({ B: { [T1]: [0, 1, 2], [T2]: [0, 1, 2] } });
  });

  it('empty group: empty result', () => {
    expect(rangeAssignor.assign({ members: new Map(), subscriptionType: 'HOMOGENEOUS' }, topics([])).members.size).toBe(0);
  });

  it('rack aware, co-partitioned topics: a member gets the partition numbers on its rack', () => {
    const racks = (_t: string, p: number): string[] => [p < 2 ? 'r2' : 'r1'];
    const r = rangeAssignor.assign(
      group([member('A', [T1, T2], [], { rackId: 'r1' }), member('B', [T1, T2], [], { rackId: 'r2' })], 'HOMOGENEOUS'),
      topics([[T1, 4], [T2, 4]], racks),
    );
    expect(plain(r)).toEqual({ A: { [T1]: [2, 3], [T2]: [2, 3] }, B: { [T1]: [0, 1], [T2]: [0, 1] } });
  });
});
