/**
 * Conformance: edge cases of issue 15's admin APIs against Kafka 4.3.1 (issue 15 fixes): an unknown
 * ElectLeaders election type, DescribeTopicPartitions cursors that are not valid, DeleteRecords,
 * DescribeLogDirs and DeleteTopics naming the same partition or topic twice, and the manual
 * partition assignments CreateTopics refuses. Messages compared word for word.
 */
import { describe } from 'vitest';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { scenario, useTargets } from './runner.js';

useTargets();

describe('ElectLeaders', () => {
  for (const version of [1, 2]) {
    scenario(`v${version}: an unknown election type is INVALID_REQUEST on every partition named`, async (s) => {
      const topic = s.name('elx');
      await s.createTopic(topic, 2);
      for (const electionType of [5, -1]) {
        await s.call(`election type ${electionType}`, 43, version, { electionType, topicPartitions: [{ topic, partitions: [0, 1] }, { topic: s.name('elx-missing'), partitions: [0] }], timeoutMs: 5000 });
      }
      await s.call('election type 5, every partition', 43, version, { electionType: 5, topicPartitions: null, timeoutMs: 5000 });
    }, { exactMessages: true });
  }
});

describe('DescribeTopicPartitions', () => {
  scenario('v0: a negative cursor partition, a cursor topic outside the list, a cursor past the partitions', async (s) => {
    const topic = s.name('dtpc');
    await s.createTopic(topic, 3);
    const body = (cursor: { topicName: string; partitionIndex: number }) => ({ topics: [{ name: topic }, { name: s.name('dtpc-other') }], responsePartitionLimit: 100, cursor });
    await s.call('cursor partition -5', 75, 0, body({ topicName: topic, partitionIndex: -5 }));
    await s.call('cursor topic not in the list', 75, 0, body({ topicName: s.name('dtpc-zzz'), partitionIndex: 0 }));
    await s.call('cursor past the partitions', 75, 0, body({ topicName: topic, partitionIndex: 7 }));
    await s.call('cursor on an unlisted topic, every topic asked', 75, 0, { topics: [], responsePartitionLimit: 1, cursor: { topicName: topic, partitionIndex: -1 } });
  });
});

describe('Requests naming a partition or topic twice', () => {
  scenario('DeleteRecords: once, with the offset named last', async (s) => {
    const topic = s.name('drdup');
    await s.createTopic(topic, 2);
    await s.produce(topic, 0, [0, 1, 2, 3, 4].map((i) => ({ value: `v${i}`, timestamp: 1000n + BigInt(i) })));
    await s.call('partition 0 at 3 then 1', 21, 2, { topics: [{ name: topic, partitions: [{ partitionIndex: 0, offset: 3n }, { partitionIndex: 0, offset: 1n }] }], timeoutMs: 5000 });
    await s.call('the topic twice', 21, 2, { topics: [{ name: topic, partitions: [{ partitionIndex: 0, offset: 2n }] }, { name: topic, partitions: [{ partitionIndex: 0, offset: 4n }] }], timeoutMs: 5000 });
  });

  scenario('DescribeLogDirs: a topic twice describes the union of its partitions', async (s) => {
    const topic = s.name('dlddup');
    await s.createTopic(topic, 3);
    const r = await s.send(35, 4, { topics: [{ topic, partitions: [0] }, { topic, partitions: [2] }] });
    s.record('DescribeLogDirs', r.results.map((d) => d.topics.map((t) => [t.name, t.partitions.map((p) => p.partitionIndex).sort((a, b) => a - b)])));
  });

  for (const version of [4, 5]) {
    scenario(`DeleteTopics v${version}: a name twice is answered once, first, and not deleted`, async (s) => {
      const topic = s.name('dtdup');
      await s.createTopic(topic, 1);
      await s.call('the topic twice and a missing one', 20, version, { topicNames: [topic, topic, s.name('dtdup-missing')], topics: [], timeoutMs: 5000 });
      const m = await s.send(3, 12, { topics: [{ topicId: ZERO_UUID, name: topic }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      s.record('still there', m.topics[0]!.errorCode);
    }, { exactMessages: true });
  }

  scenario('DeleteTopics v6: a name twice and an id twice', async (s) => {
    const topic = s.name('dtdup6');
    await s.createTopic(topic, 1);
    const id = 'AAAAAAAAAAAAAAAAAAAAAQ';
    const r = await s.send(20, 6, { topicNames: [], topics: [{ name: topic, topicId: ZERO_UUID }, { name: null, topicId: id }, { name: topic, topicId: ZERO_UUID }, { name: null, topicId: id }], timeoutMs: 5000 });
    // Kafka 4.3.1 answers the duplicate name and the duplicate id in either order from run to run (a
    // hash order): compared by message.
    s.record('duplicates', { ...r, responses: [...r.responses].sort((a, b) => String(a.errorMessage).localeCompare(String(b.errorMessage))) });
  }, { exactMessages: true });
});

describe('CreateTopics manual assignments', () => {
  for (const version of [5, 7]) {
    scenario(`v${version}: an empty replica list, an unknown broker, a broker twice (validate-only)`, async (s) => {
      for (const [label, brokerIds] of [['empty', []], ['unknown broker', [7]], ['twice', [1, 1]], ['ok', [1]]] as const) {
        const r = await s.send(19, version, {
          topics: [{ name: s.name(`cta-${label.replace(' ', '-')}`), numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [...brokerIds] }], configs: [] }],
          timeoutMs: 5000,
          validateOnly: true,
        });
        s.record(label, r.topics.map((t) => [t.errorCode, t.errorMessage, t.numPartitions, t.replicationFactor]));
      }
    }, { exactMessages: true });
  }
});

describe('timeouts of zero and below', () => {
  scenario('CreateTopics, DeleteTopics, CreatePartitions, ElectLeaders with timeoutMs 0 and -1', async (s) => {
    for (const timeoutMs of [0, -1]) {
      const created = s.name(`tmo-create${-timeoutMs}`);
      await s.call(`CreateTopics, timeout ${timeoutMs}`, 19, 7, { topics: [{ name: created, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs, validateOnly: false });
      const topic = s.name(`tmo${-timeoutMs}`);
      await s.createTopic(topic, 2);
      await s.call(`CreatePartitions, timeout ${timeoutMs}`, 37, 3, { topics: [{ name: topic, count: 3, assignments: null }], timeoutMs, validateOnly: false });
      await s.call(`ElectLeaders, timeout ${timeoutMs}`, 43, 2, { electionType: 0, topicPartitions: [{ topic, partitions: [0] }], timeoutMs });
      await s.call(`DeleteTopics, timeout ${timeoutMs}`, 20, 6, { topics: [{ name: topic, topicId: ZERO_UUID }], topicNames: [], timeoutMs });
      await s.call(`Metadata after, timeout ${timeoutMs}`, 3, 12, { topics: [{ topicId: ZERO_UUID, name: topic }, { topicId: ZERO_UUID, name: created }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    }
  }, { exactMessages: true });
});
