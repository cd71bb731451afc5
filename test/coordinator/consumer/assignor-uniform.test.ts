/**
 * The uniform assignor against the input/expected-output tables of Kafka's own unit tests
 * (`UniformHomogeneousAssignmentBuilderTest`, `UniformHeterogeneousAssignmentBuilderTest`,
 * same topic ids, member ids and partition counts), plus stickiness cases.
 *
 * Kafka's tests pass members in a TreeMap and current assignments as ordered maps where the
 * order matters (`mkOrderedAssignment`); `iterationOrder: 'insertion'` reproduces that. With
 * the member ids A, B, C the Java HashMap order is the same as the sorted order, and the test
 * topic ids iterate T2, T3 before T1 in a Java HashSet — which is why Kafka expects member A
 * to get topic 3 in the first case below.
 */
import { describe, expect, it } from 'vitest';
import {
  PartitionAssignorError,
  uniformAssignor,
  type AssignmentMemberSpec,
  type GroupAssignment,
  type GroupSpec,
  type IterationOrder,
  type SubscribedTopicDescriber,
} from '../../../src/coordinator/consumer/assignor/index.js';

const T1 = 'T1-A4s3VTwiI5CTbEp6POw';
const T2 = 'T2-B4s3VTwiI5YHbPp6YUe';
const T3 = 'T3-CU8fVTLCz5YMkLoDQsa';
const T4 = 'T4-Tw9fVTLCz5HbPp6YQsa';

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

function group(
  members: AssignmentMemberSpec[],
  subscriptionType: GroupSpec['subscriptionType'],
  iterationOrder?: IterationOrder,
): GroupSpec {
  return {
    members: new Map(members.map((m) => [m.memberId, m])),
    subscriptionType,
    ...(iterationOrder ? { iterationOrder } : {}),
  };
}

function topics(counts: Array<[string, number]>, racks?: (t: string, p: number) => string[]): SubscribedTopicDescriber {
  const m = new Map(counts);
  return {
    numPartitions: (t) => m.get(t) ?? -1,
    ...(racks ? { racksForPartition: (t: string, p: number) => new Set(racks(t, p)) } : {}),
  };
}

/** memberId -> topicId -> sorted partitions, members/topics sorted, for toEqual. */
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

describe('uniform assignor, homogeneous (UniformHomogeneousAssignmentBuilderTest)', () => {
  it('one member without subscriptions gets an empty assignment map (no members)', () => {
    const r = uniformAssignor.assign(group([member('A', [])], 'HOMOGENEOUS'), topics([[T1, 3]]));
    expect(r.members.size).toBe(0);
  });

  it('a subscription to an unknown topic fails', () => {
    expect(() => uniformAssignor.assign(group([member('A', [T2])], 'HOMOGENEOUS'), topics([[T1, 3]]))).toThrow(
      PartitionAssignorError,
    );
  });

  it('first assignment, 2 members, T1 (3) + T3 (2): A gets T3 0-1, B gets T1 0-2', () => {
    const r = uniformAssignor.assign(
      group([member('A', [T1, T3]), member('B', [T1, T3])], 'HOMOGENEOUS'),
      topics([[T1, 3], [T3, 2]]),
    );
    expect(plain(r)).toEqual({ A: { [T3]: [0, 1] }, B: { [T1]: [0, 1, 2] } });
  });

  it('3 members, 1 topic of 2 partitions: the extra slots go to the last members (B, C)', () => {
    const r = uniformAssignor.assign(
      group([member('A', [T3]), member('B', [T3]), member('C', [T3])], 'HOMOGENEOUS'),
      topics([[T3, 2]]),
    );
    expect(plain(r)).toEqual({ A: {}, B: { [T3]: [0] }, C: { [T3]: [1] } });
  });

  it('reassignment of an unbalanced assignment (2 members, T1 3 + T2 3)', () => {
    const r = uniformAssignor.assign(
      group(
        [
          member('A', [T1, T2], [[T1, [0, 1]], [T2, [0, 1]]]),
          member('B', [T1, T2], [[T1, [2]], [T2, [2]]]),
        ],
        'HOMOGENEOUS',
        'insertion',
      ),
      topics([[T1, 3], [T2, 3]]),
    );
    expect(plain(r)).toEqual({ A: { [T1]: [0, 1], [T2]: [0] }, B: { [T1]: [2], [T2]: [1, 2] } });
  });

  it('partitions added to both topics (T1 3->6, T2 3->5)', () => {
    const r = uniformAssignor.assign(
      group(
        [
          member('A', [T1, T2], [[T1, [0, 2]], [T2, [0]]]),
          member('B', [T1, T2], [[T1, [1]], [T2, [1, 2]]]),
        ],
        'HOMOGENEOUS',
        'insertion',
      ),
      topics([[T1, 6], [T2, 5]]),
    );
    expect(plain(r)).toEqual({
      A: { [T1]: [0, 2], [T2]: [0, 3, 4] },
      B: { [T1]: [1, 3, 4, 5], [T2]: [1, 2] },
    });
  });

  it('a member joins (C): A and B each give up one partition, nothing else moves', () => {
    const r = uniformAssignor.assign(
      group(
        [
          member('A', [T1, T2], [[T1, [0, 2]], [T2, [0]]]),
          member('B', [T1, T2], [[T1, [1]], [T2, [1, 2]]]),
          member('C', [T1, T2]),
        ],
        'HOMOGENEOUS',
        'insertion',
      ),
      topics([[T1, 3], [T2, 3]]),
    );
    expect(plain(r)).toEqual({
      A: { [T1]: [0, 2] },
      B: { [T1]: [1], [T2]: [1] },
      C: { [T2]: [0, 2] },
    });
  });

  it('with Java HashMap iteration of the current assignment (T2 before T1) the kept partitions differ', () => {
    // Same input as above, but iterated as the broker iterates Assignment maps (T2 hashes
    // before T1). Quota 2 each. A: T2 {0} fits (quota 1 left), T1 {0, 2} does not: keeps 0,
    // revokes 2. B: T2 {1, 2} fits (quota 0), T1 {1} is revoked. C takes T1 2 then T1 1.
    const r = uniformAssignor.assign(
      group(
        [
          member('A', [T1, T2], [[T1, [0, 2]], [T2, [0]]]),
          member('B', [T1, T2], [[T1, [1]], [T2, [1, 2]]]),
          member('C', [T1, T2]),
        ],
        'HOMOGENEOUS',
      ),
      topics([[T1, 3], [T2, 3]]),
    );
    expect(plain(r)).toEqual({
      A: { [T1]: [0], [T2]: [0] },
      B: { [T2]: [1, 2] },
      C: { [T1]: [1, 2] },
    });
  });

  it('a member leaves (C had T1 2, T2 2): its partitions go to A and B', () => {
    const r = uniformAssignor.assign(
      group(
        [member('A', [T1, T2], [[T1, [0]], [T2, [0]]]), member('B', [T1, T2], [[T1, [1]], [T2, [1]]])],
        'HOMOGENEOUS',
      ),
      topics([[T1, 3], [T2, 3]]),
    );
    expect(plain(r)).toEqual({ A: { [T1]: [0], [T2]: [0, 2] }, B: { [T1]: [1, 2], [T2]: [1] } });
  });

  it('a subscription removed: partitions of the dropped topic are revoked', () => {
    const r = uniformAssignor.assign(
      group(
        [member('A', [T2], [[T1, [0]], [T2, [0]]]), member('B', [T2], [[T1, [1]], [T2, [1]]])],
        'HOMOGENEOUS',
      ),
      topics([[T1, 2], [T2, 2]]),
    );
    expect(plain(r)).toEqual({ A: { [T2]: [0] }, B: { [T2]: [1] } });
  });

  it('3 members, 2 topics of 3 partitions, from scratch: 2 partitions each', () => {
    const r = uniformAssignor.assign(
      group([member('A', [T1, T2]), member('B', [T1, T2]), member('C', [T1, T2])], 'HOMOGENEOUS'),
      topics([[T1, 3], [T2, 3]]),
    );
    // Unassigned list in HashSet order: T2 0-2, T1 0-2; members A, B, C take 2 each.
    expect(plain(r)).toEqual({ A: { [T2]: [0, 1] }, B: { [T1]: [0], [T2]: [2] }, C: { [T1]: [1, 2] } });
  });

  it('an assignment that is already balanced is returned unchanged', () => {
    const g = group([member('A', [T1, T2]), member('B', [T1, T2]), member('C', [T1, T2])], 'HOMOGENEOUS');
    const d = topics([[T1, 2], [T2, 5], [T3, 7]]);
    const first = uniformAssignor.assign(g, d);
    const again = uniformAssignor.assign(
      group(
        ['A', 'B', 'C'].map((id) => member(id, [T1, T2], [...first.members.get(id)!].map(([t, ps]) => [t, [...ps]]))),
        'HOMOGENEOUS',
      ),
      d,
    );
    expect(plain(again)).toEqual(plain(first));
  });
});

describe('uniform assignor, homogeneous, rack aware', () => {
  const racks = (_t: string, p: number): string[] => [`rack${p % 3}`];

  it('partitions go to members on a replica rack first', () => {
    const r = uniformAssignor.assign(
      group(
        [
          member('A', [T1], [], { rackId: 'rack0' }),
          member('B', [T1], [], { rackId: 'rack1' }),
          member('C', [T1], [], { rackId: 'rack2' }),
        ],
        'HOMOGENEOUS',
      ),
      topics([[T1, 6]], racks),
    );
    expect(plain(r)).toEqual({ A: { [T1]: [0, 3] }, B: { [T1]: [1, 4] }, C: { [T1]: [2, 5] } });
  });

  it('an off-rack partition is revoked even within quota and moves to a member on its rack', () => {
    const r = uniformAssignor.assign(
      group(
        [
          member('A', [T1], [[T1, [0, 1]]], { rackId: 'rack0' }),
          member('B', [T1], [[T1, [3, 4]]], { rackId: 'rack1' }),
          member('C', [T1], [[T1, [2, 5]]], { rackId: 'rack2' }),
        ],
        'HOMOGENEOUS',
        'insertion',
      ),
      topics([[T1, 6]], racks),
    );
    // A keeps 0 (rack0) and gives up 1 (rack1); B keeps 4 and gives up 3 (rack0).
    expect(plain(r)).toEqual({ A: { [T1]: [0, 3] }, B: { [T1]: [1, 4] }, C: { [T1]: [2, 5] } });
  });

  it('no rack strategy when every partition has replicas on all racks', () => {
    const r = uniformAssignor.assign(
      group([member('A', [T1], [], { rackId: 'r1' }), member('B', [T1], [], { rackId: 'r2' })], 'HOMOGENEOUS'),
      topics([[T1, 4]], () => ['r1', 'r2']),
    );
    expect(plain(r)).toEqual({ A: { [T1]: [0, 1] }, B: { [T1]: [2, 3] } });
  });
});

describe('uniform assignor, heterogeneous (UniformHeterogeneousAssignmentBuilderTest)', () => {
  it('first assignment: A {T1, T3}, B {T3}; T1 3, T3 6', () => {
    const r = uniformAssignor.assign(
      group([member('A', [T1, T3]), member('B', [T3])], 'HETEROGENEOUS'),
      topics([[T1, 3], [T3, 6]]),
    );
    expect(plain(r)).toEqual({ A: { [T1]: [0, 1, 2], [T3]: [4] }, B: { [T3]: [0, 1, 2, 3, 5] } });
  });

  it('more members than partitions: A, B on T3 (1 partition), C on T1 (2)', () => {
    const r = uniformAssignor.assign(
      group([member('A', [T3]), member('B', [T3]), member('C', [T1])], 'HETEROGENEOUS'),
      topics([[T3, 1], [T1, 2]]),
    );
    expect(plain(r)).toEqual({ A: { [T3]: [0] }, B: {}, C: { [T1]: [0, 1] } });
  });

  it('unbalanced previous assignment, 3 members, 3 topics', () => {
    const r = uniformAssignor.assign(
      group(
        [
          member('A', [T1], [[T1, [0, 1, 2]]]),
          member('B', [T1, T2], [[T1, [3]], [T2, [0]]]),
          member('C', [T1, T2, T3], [[T1, [4, 5]], [T2, [1, 2, 3]], [T3, [0, 1, 2, 3]]]),
        ],
        'HETEROGENEOUS',
      ),
      topics([[T1, 6], [T2, 4], [T3, 4]]),
    );
    expect(plain(r)).toEqual({
      A: { [T1]: [0, 1, 2, 5] },
      B: { [T1]: [3], [T2]: [0, 1, 2, 3] },
      C: { [T1]: [4], [T3]: [0, 1, 2, 3] },
    });
  });

  it('partitions added to T1, T2, T3 for two members', () => {
    const r = uniformAssignor.assign(
      group(
        [
          member('A', [T1, T3], [[T1, [0, 1, 2, 3]], [T3, [0, 1]]]),
          member('B', [T1, T2, T3, T4], [[T2, [0, 1, 2]], [T4, [0, 1, 2]]]),
        ],
        'HETEROGENEOUS',
      ),
      topics([[T1, 6], [T2, 5], [T3, 3], [T4, 3]]),
    );
    expect(plain(r)).toEqual({
      A: { [T1]: [0, 1, 2, 3, 4, 5], [T3]: [0, 1, 2] },
      B: { [T2]: [0, 1, 2, 3, 4], [T4]: [0, 1, 2] },
    });
  });

  it('a member joins and partitions are added (A drops T2)', () => {
    const r = uniformAssignor.assign(
      group(
        [
          member('A', [T1], [[T1, [0, 2]], [T2, [0]]]),
          member('B', [T1, T2], [[T1, [1]], [T2, [1, 2]]]),
          member('C', [T1, T2]),
        ],
        'HETEROGENEOUS',
      ),
      topics([[T1, 6], [T2, 7]]),
    );
    expect(plain(r)).toEqual({
      A: { [T1]: [0, 2, 3, 4, 5] },
      B: { [T1]: [1], [T2]: [1, 2, 6] },
      C: { [T2]: [0, 3, 4, 5] },
    });
  });

  it('a member leaves (3 members, 3 topics -> 2)', () => {
    const r = uniformAssignor.assign(
      group(
        [member('A', [T1, T3], [[T1, [0, 1, 2]], [T3, [0, 1]]]), member('B', [T2], [[T2, [3, 4, 5, 6]]])],
        'HETEROGENEOUS',
      ),
      topics([[T1, 3], [T2, 8], [T3, 3]]),
    );
    expect(plain(r)).toEqual({
      A: { [T1]: [0, 1, 2], [T3]: [0, 1, 2] },
      B: { [T2]: [0, 1, 2, 3, 4, 5, 6, 7] },
    });
  });

  it('a subscription removed (A drops T2)', () => {
    const r = uniformAssignor.assign(
      group(
        [member('A', [T1], [[T1, [0, 2]], [T2, [1, 3]]]), member('B', [T1, T2], [[T1, [1]], [T2, [0, 2, 4]]])],
        'HETEROGENEOUS',
      ),
      topics([[T1, 3], [T2, 5]]),
    );
    expect(plain(r)).toEqual({ A: { [T1]: [0, 1, 2] }, B: { [T2]: [0, 1, 2, 3, 4] } });
  });

  it('topic partitions run out before the subscribers are balanced', () => {
    const r = uniformAssignor.assign(
      group(
        [member('A', [T1, T2, T3], [[T1, [0, 1]], [T2, [0, 1]], [T3, [0, 1]]]), member('B', [T1, T2, T3])],
        'HETEROGENEOUS',
      ),
      topics([[T1, 2], [T2, 2], [T3, 2]]),
    );
    expect(plain(r)).toEqual({ A: { [T2]: [0], [T3]: [0, 1] }, B: { [T1]: [0, 1], [T2]: [1] } });
  });

  it('one member without subscriptions', () => {
    const r = uniformAssignor.assign(group([member('A', [T1]), member('B', [])], 'HETEROGENEOUS'), topics([[T1, 3]]));
    expect(plain(r)).toEqual({ A: { [T1]: [0, 1, 2] }, B: {} });
  });

  it('two members without subscriptions: empty result; unknown topic fails', () => {
    expect(
      uniformAssignor.assign(group([member('A', []), member('B', [])], 'HETEROGENEOUS'), topics([[T1, 3]])).members.size,
    ).toBe(0);
    expect(() =>
      uniformAssignor.assign(group([member('A', [T4]), member('B', [T1])], 'HETEROGENEOUS'), topics([[T1, 3]])),
    ).toThrow(PartitionAssignorError);
  });

  it('a new member joining moves only what balance needs', () => {
    const r = uniformAssignor.assign(
      group(
        [
          member('A', [T1, T2], [[T1, [0, 1, 2]], [T2, [0, 1]]]),
          member('B', [T1], [[T1, [3, 4, 5]]]),
          member('C', [T1, T2]),
        ],
        'HETEROGENEOUS',
      ),
      topics([[T1, 6], [T2, 4]]),
    );
    // Free T2 2, 3 go to the least loaded subscriber C (0). Balance: T1 (6/3) and T2 (4/2)
    // tie on partitions per subscriber, T2 has fewer subscribers so comes first: A (5) vs
    // C (2) -> A's highest T2 partition (1) moves to C; then T1 (A 4, B 3, C 3) is balanced.
    const out = plain(r);
    expect(out).toEqual({
      A: { [T1]: [0, 1, 2], [T2]: [0] },
      B: { [T1]: [3, 4, 5] },
      C: { [T2]: [1, 2, 3] },
    });
  });
});
