/**
 * Conformance: the topic admin APIs of issue 15: CreatePartitions (errors, validate-only, growth
 * seen by Metadata and ListOffsets).
 */
import { describe } from 'vitest';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { encodeRecordBatch, readBatchHeader } from '../../src/records/record-batch.js';
import { scenario, sleep, useTargets, type Session } from './runner.js';
import { MALFORMED_BATCHES } from '../support/malformed-batches.js';

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

function fetchBody(topic: string, partition: number, fetchOffset: bigint) {
  return {
    clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1n }, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0,
    sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
    topics: [{ topic, topicId: ZERO_UUID, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20, replicaDirectoryId: ZERO_UUID, highWatermark: -1n }] }],
  };
}

describe('DeleteRecords', () => {
  for (const version of [0, 2]) {
    scenario(`v${version}: moves the log start offset; Fetch below it, ListOffsets earliest, out-of-range and unknown partitions`, async (s) => {
      const topic = s.name('dr');
      await s.createTopic(topic, 2);
      for (let i = 0; i < 5; i++) await s.produce(topic, 0, [{ value: `a${i}`, timestamp: 1000n + BigInt(i) }, { value: `b${i}`, timestamp: 1000n + BigInt(i) }]);
      const listEarliest = { replicaId: -1, isolationLevel: 0, timeoutMs: 5000, topics: [{ name: topic, partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -2n })) }] };
      await s.call('DeleteRecords to 5', 21, version, { topics: [{ name: topic, partitions: [{ partitionIndex: 0, offset: 5n }] }], timeoutMs: 5000 });
      await s.call('ListOffsets earliest', 2, 9, listEarliest);
      await s.call('Fetch below the log start offset', 1, 12, fetchBody(topic, 0, 4n));
      await s.call('Fetch at the log start offset', 1, 12, fetchBody(topic, 0, 5n));
      await s.call('DeleteRecords below it, above the high watermark, unknown partition and topic', 21, version, {
        topics: [
          { name: topic, partitions: [{ partitionIndex: 0, offset: 2n }, { partitionIndex: 1, offset: 1n }, { partitionIndex: 7, offset: 0n }] },
          { name: s.name('dr-missing'), partitions: [{ partitionIndex: 0, offset: 0n }] },
        ],
        timeoutMs: 5000,
      });
      await s.call('DeleteRecords -1 (the high watermark)', 21, version, { topics: [{ name: topic, partitions: [{ partitionIndex: 0, offset: -1n }, { partitionIndex: 1, offset: -1n }] }], timeoutMs: 5000 });
      await s.call('ListOffsets earliest after', 2, 9, listEarliest);
    });
  }
});

describe('Produce with topic configs', () => {
  scenario('max.message.bytes, a compacted topic without keys, the CreateTime window, LogAppendTime, min.insync.replicas above the replicas', async (s) => {
    const topic = (n: string) => s.name(`pc-${n}`);
    const create = (name: string, configs: Array<[string, string]>) => s.send(19, 7, {
      topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: configs.map(([n, value]) => ({ name: n, value })) }], timeoutMs: 10_000, validateOnly: false,
    });
    await create(topic('small'), [['max.message.bytes', '200'], ['min.insync.replicas', '2']]);
    await create(topic('compact'), [['cleanup.policy', 'compact']]);
    await create(topic('window'), [['message.timestamp.before.max.ms', '3600000'], ['message.timestamp.after.max.ms', '3600000']]);
    await create(topic('append'), [['message.timestamp.type', 'LogAppendTime']]);
    for (const t of ['small', 'compact', 'window', 'append']) await waitPartitions(s, topic(t), 1);
    const now = BigInt(Date.now());
    const produce = async (label: string, name: string, records: Array<{ key: string | null; value: string; timestamp: bigint }>) => {
      const batch = encodeRecordBatch({ baseOffset: 0n, timestamp: records[0]!.timestamp, records: records.map((r) => ({ key: r.key === null ? null : Buffer.from(r.key), value: Buffer.from(r.value), timestamp: r.timestamp })) });
      const r = await s.send(0, 11, { transactionalId: null, acks: -1, timeoutMs: 10_000, topicData: [{ name, topicId: ZERO_UUID, partitionData: [{ index: 0, records: batch }] }] });
      // The broker's clock is in the timestamp messages and in logAppendTimeMs: compare their shape.
      const p = r.responses[0]!.partitionResponses[0]!;
      s.record(label, {
        ...p,
        logAppendTimeMs: p.logAppendTimeMs > 0n ? '<now>' : p.logAppendTimeMs,
        recordErrors: p.recordErrors.map((e) => ({ ...e, batchIndexErrorMessage: e.batchIndexErrorMessage?.replace(/^Timestamp \d+/, 'Timestamp <t>').replace(/within \[-?\d+, -?\d+\]/, 'within [<now - before>, <now + after>]') ?? null })),
      });
    };
    await produce('too large', topic('small'), [{ key: null, value: 'x'.repeat(300), timestamp: now }]);
    await produce('small enough, min.insync.replicas 2 on one replica', topic('small'), [{ key: null, value: 'x', timestamp: now }]);
    await produce('compacted, one record without a key', topic('compact'), [{ key: 'k', value: 'a', timestamp: now }, { key: null, value: 'b', timestamp: now }]);
    await produce('compacted, with keys', topic('compact'), [{ key: 'k', value: 'a', timestamp: now }]);
    await produce('timestamps out of the window', topic('window'), [{ key: null, value: 'a', timestamp: now - 7_200_000n }, { key: null, value: 'b', timestamp: now }, { key: null, value: 'c', timestamp: now + 7_200_000n }]);
    await produce('timestamps in the window', topic('window'), [{ key: null, value: 'a', timestamp: now - 60_000n }]);
    await produce('LogAppendTime', topic('append'), [{ key: null, value: 'a', timestamp: 1n }]);
    const fetched = await s.send(1, 12, fetchBody(topic('append'), 0, 0n));
    const batch = fetched.responses[0]!.partitions[0]!.records!;
    const header = readBatchHeader(Buffer.from(batch));
    s.record('LogAppendTime batch', { timestampType: (header.attributes & 0x08) !== 0 ? 'LogAppendTime' : 'CreateTime', maxTimestampIsNow: header.maxTimestamp >= now, baseTimestamp: header.baseTimestamp });
  }, { exactMessages: true });
});

describe('Produce of malformed batches and records', () => {
  scenario('each batch of test/support/malformed-batches.ts: the answer and whether the log grew', async (s) => {
    const name = s.name('malformed');
    await s.send(19, 7, { topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
    await waitPartitions(s, name, 1);
    const latest = async () => (await s.send(2, 9, { replicaId: -1, isolationLevel: 0, timeoutMs: 5000, topics: [{ name, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }] })).topics[0]!.partitions[0]!.offset;
    for (const [label, { batch }] of Object.entries(MALFORMED_BATCHES)) {
      const r = await s.send(0, 11, { transactionalId: null, acks: -1, timeoutMs: 10_000, topicData: [{ name, topicId: ZERO_UUID, partitionData: [{ index: 0, records: batch }] }] });
      s.record(label, { ...r.responses[0]!.partitionResponses[0]!, logEndOffset: await latest() });
    }
  }, { exactMessages: true });
});

describe('OffsetForLeaderEpoch', () => {
  for (const version of [2, 3, 4]) {
    scenario(`v${version}: the current epoch's end offset, an unknown epoch, current leader epoch checks, unknown partitions`, async (s) => {
      const topic = s.name('olep');
      await s.createTopic(topic, 2);
      await s.produce(topic, 0, [{ value: 'a', timestamp: 1000n }, { value: 'b', timestamp: 1001n }]);
      await s.produce(topic, 0, [{ value: 'c', timestamp: 1002n }]);
      const ask = (partitions: Array<[partition: number, currentLeaderEpoch: number, leaderEpoch: number]>, name = topic) => ({
        replicaId: -1,
        topics: [{ topic: name, partitions: partitions.map(([partition, currentLeaderEpoch, leaderEpoch]) => ({ partition, currentLeaderEpoch, leaderEpoch })) }],
      });
      await s.call('epoch 0 (current)', 23, version, ask([[0, -1, 0], [1, 0, 0]]));
      await s.call('an epoch above the current one, and -1', 23, version, ask([[0, -1, 3], [0, -1, -1]]));
      await s.call('current leader epoch ahead of the broker', 23, version, ask([[0, 5, 0]]));
      await s.call('unknown partition and topic', 23, version, ask([[9, -1, 0]]));
      await s.call('unknown topic', 23, version, ask([[0, -1, 0]], s.name('olep-missing')));
      await s.call('Fetch with a current leader epoch ahead', 1, 12, { ...fetchBody(topic, 0, 0n), topics: [{ ...fetchBody(topic, 0, 0n).topics[0]!, partitions: [{ ...fetchBody(topic, 0, 0n).topics[0]!.partitions[0]!, currentLeaderEpoch: 4 }] }] });
      await s.call('ListOffsets latest with the current leader epoch', 2, 9, { replicaId: -1, isolationLevel: 0, timeoutMs: 5000, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: 0, timestamp: -1n }, { partitionIndex: 1, currentLeaderEpoch: 2, timestamp: -1n }] }] });
    });
  }
});

describe('Fetch', () => {
  for (const version of [4, 12, 13, 18]) {
    // Adversarial trial, session 31: an unknown topic or partition beside a known one (answered
    // with aborted transactions []; it ends no long poll: test/e2e/fetch-long-poll.test.ts), an
    // isolation level Kafka does not know, a negative partition limit.
    scenario(`v${version}: unknown topics and partitions beside a known one, an unknown isolation level, a negative partition limit`, async (s) => {
      const topic = s.name('fetch-odd');
      const id = await s.createTopic(topic, 1);
      await s.produce(topic, 0, [{ value: 'a', timestamp: 1000n }]);
      const byId = version >= 13;
      const part = (partition: number, partitionMaxBytes = 1 << 20) => ({ partition, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes, replicaDirectoryId: ZERO_UUID, highWatermark: -1n });
      const known = { topic: byId ? '' : topic, topicId: byId ? id : ZERO_UUID, partitions: [part(0), part(7)] };
      const missing = { topic: byId ? '' : s.name('fetch-missing'), topicId: byId ? 'AQIDBAUGBwgJCgsMDQ4PEA' : ZERO_UUID, partitions: [part(0)] };
      const body = { ...fetchBody(topic, 0, 0n), topics: [known, missing] };
      for (const isolationLevel of [0, 1]) await s.call(`known, unknown partition, unknown topic (isolation ${isolationLevel})`, 1, version, { ...body, isolationLevel });
      await s.call('isolation level 5', 1, version, { ...body, isolationLevel: 5 });
      await s.call('partition limit -1', 1, version, { ...body, topics: [{ ...known, partitions: [part(0, -1)] }] });
      // At the end of the log there is nothing to read: no error (UnifiedLog.read answers empty first).
      await s.call('partition limit -1 at the log end', 1, version, { ...body, topics: [{ ...known, partitions: [{ ...part(0, -1), fetchOffset: 1n }] }] });
    });
  }
});

describe('DescribeTopicPartitions', () => {
  scenario('v0: named topics in name order, an unknown one, pages of 2 partitions with cursors', async (s) => {
    const a = s.name('dtp-a');
    const b = s.name('dtp-b');
    await s.createTopic(a, 3);
    await s.createTopic(b, 2);
    const body = (limit: number, cursor: { topicName: string; partitionIndex: number } | null, names = [b, a, s.name('dtp-missing')]) => ({ topics: names.map((name) => ({ name })), responsePartitionLimit: limit, cursor });
    await s.call('all at once', 75, 0, body(2000, null));
    const first = await s.call('first page', 75, 0, body(2, null, [a, b]));
    const second = await s.call('second page', 75, 0, body(2, first.nextCursor, [a, b]));
    await s.call('third page', 75, 0, body(2, second.nextCursor, [a, b]));
  });
});

describe('DescribeLogDirs', () => {
  for (const version of [1, 3, 4]) {
    scenario(`v${version}: the data directory with the sizes of a topic's partitions`, async (s) => {
      const topic = s.name('dld');
      await s.createTopic(topic, 2);
      await s.produce(topic, 1, [{ value: 'abc', timestamp: 1000n }]);
      const r = await s.send(35, version, { topics: null });
      s.record('DescribeLogDirs', {
        errorCode: r.errorCode,
        results: r.results.map((d) => ({
          errorCode: d.errorCode,
          logDir: d.logDir.startsWith('/') ? '<absolute path>' : d.logDir,
          topics: d.topics.filter((t) => t.name === topic),
          totalBytes: d.totalBytes > 0n ? '<positive>' : d.totalBytes,
          usableBytes: d.usableBytes > 0n ? '<positive>' : d.usableBytes,
        })),
      });
    });
  }
});

describe('ElectLeaders', () => {
  for (const version of [0, 1, 2]) {
    scenario(`v${version}: preferred and unclean elections of led partitions, unknown partitions and topics`, async (s) => {
      const topic = s.name('el');
      await s.createTopic(topic, 2);
      const body = (electionType: number) => ({ electionType, topicPartitions: [{ topic, partitions: [0, 1, 9] }, { topic: s.name('el-missing'), partitions: [0] }], timeoutMs: 5000 });
      await s.call('PREFERRED', 43, version, body(0));
      if (version >= 1) await s.call('UNCLEAN', 43, version, body(1));
    }, { exactMessages: true });
  }
});
