/**
 * Conformance: the topic admin APIs of issue 15: CreatePartitions (errors, validate-only, growth
 * seen by Metadata and ListOffsets).
 */
import { describe } from 'vitest';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { scenario, sleep, useTargets, type Session } from './runner.js';

useTargets();

function metadata(topic: string) {
  return { topics: [{ topicId: ZERO_UUID, name: topic }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false };
}

/** Waits (not recorded) until Metadata shows `count` partitions with leaders: Kafka's brokers learn of new partitions a moment after the controller answers. */
async function waitPartitions(s: Session, topic: string, count: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const m = await s.send(3, 12, metadata(topic));
    const t = m.topics[0];
    if (t && t.partitions.length === count && t.partitions.every((p) => p.leaderId >= 0 && p.errorCode === 0)) {
      const lo = await s.send(2, 9, { replicaId: -1, isolationLevel: 0, timeoutMs: 5000, topics: [{ name: topic, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, currentLeaderEpoch: -1, timestamp: -1n })) }] });
      if (lo.topics[0]?.partitions.every((p) => p.errorCode === 0)) return;
    }
    await sleep(100);
  }
  throw new Error(`${s.target}: ${topic} does not show ${count} partitions`);
}

const grow = (topics: Array<{ name: string; count: number; assignments?: number[][] }>, validateOnly = false) => ({
  topics: topics.map((t) => ({ name: t.name, count: t.count, assignments: t.assignments ? t.assignments.map((brokerIds) => ({ brokerIds })) : null })),
  timeoutMs: 10_000,
  validateOnly,
});

describe('CreatePartitions', () => {
  for (const version of [0, 1, 3]) {
    scenario(`v${version}: duplicates, unknown topic, not an increase, bad assignments, validate-only, then 2 -> 4`, async (s) => {
      const topic = s.name('cp');
      await s.createTopic(topic, 2);
      const missing = s.name('cp-missing');
      await s.call('duplicate and missing', 37, version, grow([{ name: topic, count: 3 }, { name: topic, count: 4 }, { name: missing, count: 2 }]));
      await s.call('same count', 37, version, grow([{ name: topic, count: 2 }]));
      await s.call('a decrease', 37, version, grow([{ name: topic, count: 1 }]));
      await s.call('too few assignments', 37, version, grow([{ name: topic, count: 4, assignments: [[1]] }]));
      await s.call('an empty replica list', 37, version, grow([{ name: topic, count: 3, assignments: [[]] }]));
      await s.call('an unknown broker', 37, version, grow([{ name: topic, count: 3, assignments: [[7]] }]));
      await s.call('validate only', 37, version, grow([{ name: topic, count: 4 }], true));
      await s.call('Metadata after validate-only', 3, 12, metadata(topic));
      await s.call('grow to 4', 37, version, grow([{ name: topic, count: 4 }]));
      await waitPartitions(s, topic, 4);
      await s.call('Metadata after growing', 3, 12, metadata(topic));
      await s.call('ListOffsets of the new partitions', 2, 9, {
        replicaId: -1, isolationLevel: 0, timeoutMs: 5000,
        topics: [{ name: topic, partitions: [2, 3].map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -2n })) }],
      });
    }, { exactMessages: true });
  }
});
