/**
 * DeleteRecords (key 21) end to end (issue 15): kafkajs `deleteTopicRecords` moves the log start
 * offset (its `fetchTopicOffsets` earliest answers it, a new consumer starts there), segments wholly
 * below it are deleted from disk, Fetch below it answers OFFSET_OUT_OF_RANGE, the offset survives a
 * restart (`log-start-offset-checkpoint`), and Kafka's per-partition errors.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startClosableServer } from '../support/server.js';
import { kafkaClient, waitFor } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/messages/FetchRequest.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function fetchAt(topic: string, partition: number, fetchOffset: bigint) {
  const req = defaultFetchRequest();
  req.maxWaitMs = 0;
  req.topics = [{ topic, topicId: ZERO_UUID, partitions: [{ ...defaultFetchPartition(), partition, fetchOffset, partitionMaxBytes: 1 << 20 }] }];
  return req;
}

describe('DeleteRecords', () => {
  it('kafkajs deleteTopicRecords moves the earliest offset; old segments go; Fetch below answers OFFSET_OUT_OF_RANGE; kept across a restart', async () => {
    // Small segments: each produce of 10 records (one batch of ~100 bytes per record) rolls often.
    const first = await startClosableServer(cleanups, { config: { 'log.segment.bytes': 400 } });
    const kafka = kafkaClient(first.server.bootstrap, 'dr');
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(async () => { await admin.disconnect(); });
    await admin.createTopics({ topics: [{ topic: 'dr', numPartitions: 2 }] });
    const producer = kafka.producer();
    await producer.connect();
    for (let i = 0; i < 30; i++) await producer.send({ topic: 'dr', messages: [{ value: `value-${i}`, partition: 0 }] });
    await producer.send({ topic: 'dr', messages: [{ value: 'p1', partition: 1 }] });
    await producer.disconnect();
    const segmentsBefore = readdirSync(join(first.dataDir, 'dr-0')).filter((f) => f.endsWith('.log'));
    expect(segmentsBefore.length).toBeGreaterThan(3);

    await admin.fetchTopicMetadata({ topics: ['dr'] }); // kafkajs looks the leaders up in its metadata cache
    await admin.deleteTopicRecords({ topic: 'dr', partitions: [{ partition: 0, offset: '17' }] });
    const offsets = await admin.fetchTopicOffsets('dr');
    expect(offsets.map((o) => [o.partition, o.low, o.high]).sort()).toEqual([[0, '17', '30'], [1, '0', '1']]);
    // Segments wholly below offset 17 go (their files after the answer, as Kafka deletes them
    // asynchronously); the one holding 17 stays.
    const logFiles = () => readdirSync(join(first.dataDir, 'dr-0')).filter((f) => f.endsWith('.log'));
    const bases = () => logFiles().map((f) => BigInt(f.slice(0, 20)));
    await waitFor(() => bases()[1] === undefined || bases()[1]! > 17n, 10_000, 'the segments below offset 17 to be deleted');
    const segmentsAfter = logFiles();
    expect(bases()[0]! <= 17n).toBe(true);
    expect(segmentsAfter.length).toBeLessThan(segmentsBefore.length);
    expect(readFileSync(join(first.dataDir, 'log-start-offset-checkpoint'), 'utf8')).toBe('0\n1\ndr 0 17\n');

    const raw = await RawClient.connect(first.server.port);
    cleanups.push(() => raw.close());
    const below = await raw.send(1, 11, fetchAt('dr', 0, 16n));
    expect(below.responses[0]!.partitions[0]).toMatchObject({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, logStartOffset: -1n });
    const at = await raw.send(1, 11, fetchAt('dr', 0, 17n));
    expect(at.responses[0]!.partitions[0]).toMatchObject({ errorCode: 0, logStartOffset: 17n, highWatermark: 30n });

    // A consumer reading from the beginning starts at the log start offset.
    const consumer = kafka.consumer({ groupId: 'dr-group', maxWaitTimeInMs: 100 });
    await consumer.connect();
    cleanups.push(async () => { await consumer.disconnect(); });
    await consumer.subscribe({ topic: 'dr', fromBeginning: true });
    const values: string[] = [];
    await consumer.run({ eachMessage: async ({ partition, message }) => { if (partition === 0) values.push(message.value!.toString()); } });
    await waitFor(() => values.length >= 13, 30_000, '13 records of partition 0');
    expect(values).toEqual(Array.from({ length: 13 }, (_, i) => `value-${17 + i}`));
    await consumer.disconnect();

    // Deleting below the log start offset changes nothing; the errors are Kafka's; partition 1, named
    // twice, is answered once, for the offset named last (-7).
    const r = await raw.send(21, 2, { topics: [
      { name: 'dr', partitions: [{ partitionIndex: 0, offset: 5n }, { partitionIndex: 1, offset: 2n }, { partitionIndex: 9, offset: 0n }, { partitionIndex: 1, offset: -7n }] },
      { name: 'missing', partitions: [{ partitionIndex: 0, offset: 0n }] },
      { name: '__consumer_offsets', partitions: [{ partitionIndex: 0, offset: 0n }] },
    ], timeoutMs: 1000 });
    expect(r.topics).toEqual([
      { name: 'dr', partitions: [
        { partitionIndex: 0, lowWatermark: 17n, errorCode: 0 },
        { partitionIndex: 1, lowWatermark: -1n, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE },
        { partitionIndex: 9, lowWatermark: -1n, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
      ] },
      { name: 'missing', partitions: [{ partitionIndex: 0, lowWatermark: -1n, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
      { name: '__consumer_offsets', partitions: [{ partitionIndex: 0, lowWatermark: -1n, errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION }] },
    ]);
    raw.close();
    await admin.disconnect();
    await first.close();

    const second = await startClosableServer(cleanups, { dataDir: first.dataDir, config: { 'log.segment.bytes': 400 } });
    const partition = second.server.broker.topics.get('dr')!.partition(0)!;
    expect([partition.logStartOffset, partition.logEndOffset]).toEqual([17n, 30n]);
    const admin2 = kafkaClient(second.server.bootstrap, 'dr2').admin();
    await admin2.connect();
    cleanups.push(async () => { await admin2.disconnect(); });
    // -1: up to the high watermark, which empties the partition.
    await admin2.fetchTopicMetadata({ topics: ['dr'] });
    await admin2.deleteTopicRecords({ topic: 'dr', partitions: [{ partition: 0, offset: '-1' }] });
    expect((await admin2.fetchTopicOffsets('dr')).find((o) => o.partition === 0)).toMatchObject({ low: '30', high: '30' });
  });

  it('deletes on cleanup.policy "" and "compact,delete" (also after SUBTRACT leaves no policy); refuses only "compact" with POLICY_VIOLATION', async () => {
    const { server } = await startClosableServer(cleanups);
    const kafka = kafkaClient(server.bootstrap, 'dr-policy');
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(async () => { await admin.disconnect(); });
    const policies: Record<string, string> = { 'p-empty': '', 'p-compact': 'compact', 'p-both': 'compact,delete', 'p-subtracted': 'delete' };
    await admin.createTopics({ topics: Object.entries(policies).map(([topic, value]) => ({ topic, numPartitions: 1, configEntries: [{ name: 'cleanup.policy', value }] })) });
    const producer = kafka.producer();
    await producer.connect();
    for (const topic of Object.keys(policies)) await producer.send({ topic, messages: [1, 2, 3].map((i) => ({ key: `k${i}`, value: `v${i}` })) });
    await producer.disconnect();
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    // IncrementalAlterConfigs SUBTRACT (3) of the only policy leaves cleanup.policy="".
    const altered = await raw.send(44, 1, { validateOnly: false, resources: [{ resourceType: 2, resourceName: 'p-subtracted', configs: [{ name: 'cleanup.policy', configOperation: 3, value: 'delete' }] }] });
    expect(altered.responses.map((r) => [r.resourceName, r.errorCode])).toEqual([['p-subtracted', 0]]);
    const r = await raw.send(21, 2, { topics: Object.keys(policies).map((name) => ({ name, partitions: [{ partitionIndex: 0, offset: 2n }] })), timeoutMs: 1000 });
    expect(r.topics.map((t) => [t.name, t.partitions[0]!.errorCode, t.partitions[0]!.lowWatermark])).toEqual([
      ['p-empty', 0, 2n],
      ['p-compact', ErrorCode.POLICY_VIOLATION, -1n],
      ['p-both', 0, 2n],
      ['p-subtracted', 0, 2n],
    ]);
  });

  it('is served by the partition leader of a simulated cluster: NOT_LEADER_OR_FOLLOWER elsewhere, per partition', async () => {
    const { server } = await startClosableServer(cleanups, { brokers: 3 });
    server.broker.topics.create('dr3', 3);
    const leaders = [0, 1, 2].map((p) => server.cluster.leaderOf('dr3', p));
    const raw = await RawClient.connect(server.ports.get(leaders[0]!)!);
    cleanups.push(() => raw.close());
    const r = await raw.send(21, 2, { topics: [{ name: 'dr3', partitions: [0, 1, 2].map((partitionIndex) => ({ partitionIndex, offset: 0n })) }], timeoutMs: 1000 });
    expect(r.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.lowWatermark])).toEqual(
      [0, 1, 2].map((p) => [p, leaders[p] === leaders[0] ? 0 : ErrorCode.NOT_LEADER_OR_FOLLOWER, leaders[p] === leaders[0] ? 0n : -1n]),
    );
  });
});
