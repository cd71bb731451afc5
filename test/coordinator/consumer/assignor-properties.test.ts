/**
 * Properties of both assignors over seeded random inputs (validity, balance, determinism,
 * stickiness), the Java iteration-order emulation they rely on, and assignor configuration.
 */
import { describe, expect, it } from 'vitest';
import {
  assignorsFromConfig,
  rangeAssignor,
  uniformAssignor,
  type AssignmentMemberSpec,
  type ConsumerGroupPartitionAssignor,
  type GroupAssignment,
  type GroupSpec,
  type SubscribedTopicDescriber,
} from '../../../src/coordinator/consumer/assignor/index.js';
import {
  capacityAfterPuts,
  capacityForCopy,
  compareUuid,
  javaHashOrder,
  javaUuidHash,
} from '../../../src/coordinator/consumer/assignor/java-order.js';
import { javaStringHashCode } from '../../../src/util/java-hash.js';

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomUuid(rnd: () => number): string {
  const b = Buffer.alloc(16);
  for (let i = 0; i < 16; i++) b[i] = Math.floor(rnd() * 256);
  return b.toString('base64url');
}

interface Scenario {
  group: GroupSpec;
  topics: SubscribedTopicDescriber;
  counts: Map<string, number>;
}

function scenario(seed: number, homogeneous: boolean): Scenario {
  const rnd = mulberry32(seed);
  const topicIds = Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => randomUuid(rnd));
  const counts = new Map(topicIds.map((t) => [t, 1 + Math.floor(rnd() * 12)]));
  const numMembers = 1 + Math.floor(rnd() * 8);
  const members = new Map<string, AssignmentMemberSpec>();
  for (let i = 0; i < numMembers; i++) {
    const id = randomUuid(rnd);
    const subs = homogeneous ? topicIds : topicIds.filter(() => rnd() < 0.6);
    members.set(id, {
      memberId: id,
      instanceId: rnd() < 0.3 ? `instance-${i}` : null,
      rackId: null,
      subscribedTopicIds: new Set(subs.length > 0 || homogeneous ? subs : [topicIds[0]!]),
      assignedPartitions: new Map(),
    });
  }
  return {
    group: { members, subscriptionType: homogeneous ? 'HOMOGENEOUS' : 'HETEROGENEOUS' },
    topics: { numPartitions: (t) => counts.get(t) ?? -1 },
    counts,
  };
}

/** Every partition of a subscribed topic is assigned exactly once, to a subscriber. */
function checkValid(s: Scenario, a: GroupAssignment): void {
  const owner = new Map<string, string>();
  for (const [memberId, assignment] of a.members) {
    const spec = s.group.members.get(memberId)!;
    for (const [topicId, ps] of assignment) {
      expect(spec.subscribedTopicIds.has(topicId)).toBe(true);
      expect(ps.size).toBeGreaterThan(0);
      for (const p of ps) {
        expect(p).toBeGreaterThanOrEqual(0);
        expect(p).toBeLessThan(s.counts.get(topicId)!);
        const key = `${topicId}/${p}`;
        expect(owner.has(key), `${key} assigned twice`).toBe(false);
        owner.set(key, memberId);
      }
    }
  }
  const subscribed = new Set<string>();
  for (const m of s.group.members.values()) for (const t of m.subscribedTopicIds) subscribed.add(t);
  let expected = 0;
  for (const t of subscribed) expected += s.counts.get(t)!;
  expect(owner.size).toBe(expected);
}

const size = (a: GroupAssignment, id: string): number =>
  [...(a.members.get(id)?.values() ?? [])].reduce((n, ps) => n + ps.size, 0);

function withCurrent(s: Scenario, a: GroupAssignment, members = s.group.members): Scenario {
  const next = new Map<string, AssignmentMemberSpec>();
  for (const [id, m] of members) {
    next.set(id, { ...m, assignedPartitions: a.members.get(id) ?? new Map() });
  }
  return { ...s, group: { ...s.group, members: next } };
}

const sameAssignment = (x: GroupAssignment, y: GroupAssignment): void => {
  const norm = (a: GroupAssignment) =>
    [...a.members]
      .map(([id, m]) => [id, [...m].map(([t, ps]) => [t, [...ps].sort((p, q) => p - q)]).sort()] as const)
      .sort((p, q) => (p[0] < q[0] ? -1 : 1));
  expect(norm(x)).toEqual(norm(y));
};

const SEEDS = Array.from({ length: 60 }, (_, i) => 1000 + i);

describe.each<[string, ConsumerGroupPartitionAssignor]>([
  ['uniform', uniformAssignor],
  ['range', rangeAssignor],
])('%s assignor over random inputs', (_name, assignor) => {
  it('homogeneous: valid, balanced within one partition, deterministic', () => {
    for (const seed of SEEDS) {
      const s = scenario(seed, true);
      const a = assignor.assign(s.group, s.topics);
      checkValid(s, a);
      const sizes = [...s.group.members.keys()].map((id) => size(a, id));
      if (assignor === uniformAssignor) {
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      } else {
        // Range balances per topic.
        for (const t of s.counts.keys()) {
          const per = [...s.group.members.keys()].map((id) => a.members.get(id)?.get(t)?.size ?? 0);
          expect(Math.max(...per) - Math.min(...per)).toBeLessThanOrEqual(1);
        }
      }
      sameAssignment(assignor.assign(s.group, s.topics), a);
    }
  });

  it('heterogeneous: valid and deterministic', () => {
    for (const seed of SEEDS) {
      const s = scenario(seed, false);
      const a = assignor.assign(s.group, s.topics);
      checkValid(s, a);
      sameAssignment(assignor.assign(s.group, s.topics), a);
    }
  });

  it('its own output as the current assignment is a fixed point', () => {
    for (const seed of SEEDS) {
      for (const homogeneous of [true, false]) {
        const s = scenario(seed, homogeneous);
        const a = assignor.assign(s.group, s.topics);
        sameAssignment(assignor.assign(withCurrent(s, a).group, s.topics), a);
      }
    }
  });
});

/** A homogeneous scenario assigned once, then a new member subscribing to every topic. */
function memberJoins(seed: number) {
  const s = scenario(seed, true);
  const a = uniformAssignor.assign(s.group, s.topics);
  const joined = withCurrent(s, a);
  const members = new Map(joined.group.members);
  members.set('new-member', {
    memberId: 'new-member',
    instanceId: null,
    rackId: null,
    subscribedTopicIds: new Set(s.counts.keys()),
    assignedPartitions: new Map(),
  });
  return { s, a, joined, members };
}

describe('uniform stickiness over random inputs', () => {
  it('a member joins: every existing member keeps min(its partitions, new minimum quota)', () => {
    for (const seed of SEEDS) {
      const { s, a, joined, members } = memberJoins(seed);
      const total = [...s.counts.values()].reduce((x, y) => x + y, 0);
      const minQuota = Math.floor(total / members.size);
      const b = uniformAssignor.assign({ ...joined.group, members }, s.topics);
      checkValid({ ...s, group: { ...joined.group, members } }, b);
      for (const id of s.group.members.keys()) {
        let kept = 0;
        for (const [t, ps] of a.members.get(id) ?? []) {
          for (const p of ps) if (b.members.get(id)?.get(t)?.has(p)) kept++;
        }
        expect(kept).toBeGreaterThanOrEqual(Math.min(size(a, id), minQuota));
      }
    }
  });

  it('leaves its input untouched: members that give partitions up or take some get new sets', () => {
    for (const seed of SEEDS) {
      const { s, joined, members } = memberJoins(seed);
      const inputs = () => JSON.stringify([...members].map(([id, m]) => [id, [...m.assignedPartitions].map(([t, ps]) => [t, [...ps]])]));
      const before = inputs();
      const b = uniformAssignor.assign({ ...joined.group, members }, s.topics);
      expect(inputs()).toBe(before);
      // A set handed back is the input's own only for a member whose assignment did not change.
      for (const [id, out] of b.members) {
        const input = members.get(id)!.assignedPartitions;
        for (const [t, ps] of out) {
          if (ps === input.get(t)) expect(out).toBe(input);
        }
      }
    }
  });

  it('a member leaves: the others keep everything they had', () => {
    for (const seed of SEEDS) {
      const s = scenario(seed, true);
      if (s.group.members.size < 2) continue;
      const a = uniformAssignor.assign(s.group, s.topics);
      const members = new Map(withCurrent(s, a).group.members);
      members.delete([...members.keys()][0]!);
      const b = uniformAssignor.assign({ ...s.group, members }, s.topics);
      checkValid({ ...s, group: { ...s.group, members } }, b);
      for (const id of members.keys()) {
        for (const [t, ps] of a.members.get(id) ?? []) {
          for (const p of ps) expect(b.members.get(id)?.get(t)?.has(p)).toBe(true);
        }
      }
    }
  });
});

describe('Java iteration order emulation', () => {
  it('String.hashCode and Uuid.hashCode', () => {
    expect(javaStringHashCode('hello')).toBe(99162322);
    expect(javaStringHashCode('A')).toBe(65);
    expect(javaStringHashCode('Aa')).toBe(javaStringHashCode('BB'));
    expect(javaUuidHash('AAAAAAAAAAAAAAAAAAAAAA')).toBe(0);
    expect(javaUuidHash('AAAAAAAAAAAAAAAAAAAAAQ')).toBe(1); // Uuid.METADATA_TOPIC_ID
    expect(javaUuidHash('AAAAAQAAAAAAAAAAAAAAAA')).toBe(1); // msb = 1 << 32
  });

  it('Uuid.compareTo is signed', () => {
    const negative = '_____________________w'; // msb = -1
    expect(compareUuid(negative, 'AAAAAAAAAAAAAAAAAAAAAA')).toBe(-1);
    expect(compareUuid('AAAAAAAAAAAAAAAAAAAAAQ', 'AAAAAAAAAAAAAAAAAAAAAA')).toBe(1);
  });

  it('HashMap capacities and bucket order, colliding keys in insertion order', () => {
    expect(capacityAfterPuts(12)).toBe(16);
    expect(capacityAfterPuts(13)).toBe(32);
    expect(capacityForCopy(3)).toBe(16);
    expect(capacityForCopy(12)).toBe(32);
    expect(javaHashOrder(['C', 'A', 'B'], javaStringHashCode, 16)).toEqual(['A', 'B', 'C']);
    expect(javaHashOrder(['BB', 'Aa'], javaStringHashCode, 16)).toEqual(['BB', 'Aa']);
    // 'Q' (81) lands in bucket 1 of 16, like 'A' (65), after it when inserted after it.
    expect(javaHashOrder(['B', 'A', 'Q'], javaStringHashCode, 16)).toEqual(['A', 'Q', 'B']);
  });

  it('orders by bucket, then insertion order, for many colliding keys', () => {
    const rnd = mulberry32(848);
    for (const n of [2, 17, 1000]) {
      // Short keys from a small alphabet collide often; the reference sorts (bucket, insertion index).
      const keys = Array.from({ length: n }, () => Math.floor(rnd() * 4000).toString(36));
      const cap = capacityAfterPuts(n);
      const reference = keys
        .map((k, i) => {
          const h = javaStringHashCode(k);
          return { k, b: (h ^ (h >>> 16)) & (cap - 1), i };
        })
        .sort((x, y) => x.b - y.b || x.i - y.i)
        .map((e) => e.k);
      expect(javaHashOrder(keys, javaStringHashCode, cap)).toEqual(reference);
      expect(javaHashOrder(new Set(keys), javaStringHashCode, cap)).toEqual([...new Set(reference)]);
    }
  });
});

describe('assignorsFromConfig', () => {
  it('maps names and Kafka class names, first is the default', () => {
    expect(assignorsFromConfig(['uniform', 'range']).map((a) => a.name)).toEqual(['uniform', 'range']);
    expect(
      assignorsFromConfig([
        'org.apache.kafka.coordinator.group.assignor.RangeAssignor',
        ' org.apache.kafka.coordinator.group.assignor.UniformAssignor ',
      ]).map((a) => a.name),
    ).toEqual(['range', 'uniform']);
  });

  it('rejects an unknown assignor, naming it', () => {
    expect(() => assignorsFromConfig(['uniform', 'sticky'])).toThrow(/sticky/);
    expect(() => assignorsFromConfig([])).toThrow();
  });
});
