/**
 * The share-group assignor (src/coordinator/share/simple-assignor.ts) against Kafka 4.3.1's own
 * `SimpleAssignor`, run from the kafka-group-coordinator jar by
 * test/clients/java/tools/SimpleAssignorCheck.java: 400 generated groups (homogeneous and
 * heterogeneous subscriptions, sticky old assignments, partitions not yet assignable, more members
 * than partitions and fewer) get exactly the assignment Kafka computes, Java's hash order included.
 * Skipped without java or the Kafka jars (test/support/provision.ts provisions them).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assignSimple, type ShareAssignorMember } from '../../../src/coordinator/share/simple-assignor.js';
import { prng as rng } from '../../support/prng.js';

const LIBS = '.kafka/4.3.1/libs';
const haveJava = spawnSync('java', ['-version']).status === 0 && existsSync(`${LIBS}/kafka-group-coordinator-4.3.1.jar`);

interface Case {
  homogeneous: boolean;
  topics: Map<string, number>;
  assignable: Map<string, Set<number>>;
  members: Map<string, ShareAssignorMember>;
}

function topicId(next: () => number): string {
  // A Kafka uuid string (Uuid.toString: URL-safe base64 of 16 bytes), never starting with '-'.
  const bytes = Buffer.from(Array.from({ length: 16 }, () => Math.floor(next() * 256)));
  const id = bytes.toString('base64url');
  return id.startsWith('-') ? `A${id.slice(1)}` : id;
}

function makeCase(seed: number): Case {
  const next = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const topics = new Map<string, number>();
  const topicCount = 1 + Math.floor(next() * 3);
  for (let i = 0; i < topicCount; i++) topics.set(topicId(next), 1 + Math.floor(next() * 8));
  const ids = [...topics.keys()];
  const assignable = new Map<string, Set<number>>();
  for (const [id, n] of topics) {
    const all = next() < 0.7;
    assignable.set(id, new Set(Array.from({ length: n }, (_, p) => p).filter(() => all || next() < 0.6)));
  }
  const homogeneous = next() < 0.5;
  const shared = ids.filter(() => next() < 0.7);
  if (shared.length === 0) shared.push(ids[0]!);
  const members = new Map<string, ShareAssignorMember>();
  const memberCount = 1 + Math.floor(next() * 7);
  for (let i = 0; i < memberCount; i++) {
    const memberId = next() < 0.5 ? `m${i}` : topicId(next);
    const subscribed = homogeneous ? shared : ids.filter(() => next() < 0.6);
    if (subscribed.length === 0) subscribed.push(pick(ids));
    const assignment = new Map<string, Set<number>>();
    for (const id of [...ids].sort()) {
      if (next() < 0.5) continue;
      // A target assignment only ever holds partitions that were assignable (initialized).
      const parts = new Set([...assignable.get(id)!].filter(() => next() < 0.5));
      if (parts.size > 0) assignment.set(id, parts);
    }
    members.set(memberId, { subscribedTopicIds: subscribed, assignment });
  }
  return { homogeneous, topics, assignable, members };
}

function encode(c: Case): string {
  const list = (m: ReadonlyMap<string, ReadonlySet<number>>, sep: string) => [...m].map(([id, ps]) => `${id}${sep}${[...ps].join('.')}`).join(',');
  const members = [...c.members].map(([id, m]) => `${id}=${m.subscribedTopicIds.join('.')}=${list(m.assignment, ':')}`).join(';');
  return `${c.homogeneous ? 'H' : 'X'}|${[...c.topics].map(([id, n]) => `${id}=${n}`).join(',')}|${list(c.assignable, '=')}|${members}`;
}

function decodeResult(r: Map<string, Map<string, Set<number>>>): string {
  return [...r.keys()]
    .sort()
    .map((memberId) => {
      const a = r.get(memberId)!;
      const topics = [...a.keys()].sort().filter((t) => a.get(t)!.size > 0).map((t) => `${t}:${[...a.get(t)!].sort((x, y) => x - y).join('.')}`);
      return `${memberId}=${topics.join(',')}`;
    })
    .join(';');
}

describe.skipIf(!haveJava)("the simple assignor against Kafka 4.3.1's SimpleAssignor", () => {
  it('computes the same assignment for 400 generated groups', () => {
    const cases = Array.from({ length: 400 }, (_, i) => makeCase(i + 1));
    const java = spawnSync('java', ['-cp', `${LIBS}/*`, 'test/clients/java/tools/SimpleAssignorCheck.java'], { input: cases.map(encode).join('\n') + '\n', encoding: 'utf8' });
    expect(java.status, java.stderr).toBe(0);
    const expected = java.stdout.split('\n').filter((l) => !l.startsWith('SLF4J'));
    let compared = 0;
    cases.forEach((c, i) => {
      if (expected[i]!.startsWith('!')) return; // Kafka's assignor throws on this input: nothing to compare
      compared++;
      const ours = decodeResult(assignSimple({ members: c.members, homogeneous: c.homogeneous, assignable: c.assignable, numPartitions: (id) => c.topics.get(id) ?? -1 }));
      expect(ours, `case ${i + 1}: ${encode(c)}`).toBe(expected[i]);
    });
    expect(compared).toBeGreaterThan(380);
  }, 120_000);
});
