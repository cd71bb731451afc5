/**
 * Topic configs taking effect on the logs (issue 15), driven by the manual clock: a `retention.ms`
 * change deletes the segments it lets go at the next retention pass and moves the log start offset;
 * `retention.bytes` keeps the newest segments within the size; `cleanup.policy=compact` topics are
 * compacted by the log cleaner (latest value per key, tombstones gone after `delete.retention.ms`);
 * `compact,delete` does both; `segment.ms` rolls segments; DeleteRecords on a compact-only topic
 * answers POLICY_VIOLATION.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Admin, Kafka } from 'kafkajs';
import { startTestServer } from '../support/server.js';
import { kafkaClient, waitFor } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** A server on the manual clock where every batch gets its own segment (`log.segment.bytes` 1). */
async function setup(): Promise<{ server: Server; kafka: Kafka; admin: Admin }> {
  const server = await startTestServer({
    clock: 'manual',
    config: { 'log.segment.bytes': 1, 'log.retention.check.interval.ms': 1000, 'log.cleaner.backoff.ms': 1000 },
  });
  cleanups.push(() => server.stop());
  const kafka = kafkaClient(server.bootstrap, 'lm');
  const admin = kafka.admin();
  await admin.connect();
  cleanups.push(async () => { await admin.disconnect(); });
  return { server, kafka, admin };
}

/** Produces one batch per message, timestamped with the server's clock. */
async function produce(server: Server, kafka: Kafka, topic: string, messages: Array<{ key?: string; value: string | null }>): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  for (const m of messages) await producer.send({ topic, messages: [{ key: m.key ?? null, value: m.value, timestamp: String(server.clock.now()) }] });
  await producer.disconnect();
}

const segmentBases = (server: Server, topic: string): number[] =>
  readdirSync(join(server.dataDir, `${topic}-0`)).filter((f) => f.endsWith('.log')).map((f) => Number(f.slice(0, 20))).sort((a, b) => a - b);

async function drained(server: Server, topic: string): Promise<void> {
  await server.broker.topics.get(topic)!.partition(0)!.log.whenIdle();
}

describe('retention', () => {
  it('a retention.ms change deletes the segments older than it at the next pass and moves the log start offset', async () => {
    const { server, kafka, admin } = await setup();
    await admin.createTopics({ topics: [{ topic: 'ret', numPartitions: 1 }] });
    await produce(server, kafka, 'ret', [{ value: 'a0' }, { value: 'a1' }, { value: 'a2' }]);
    server.clock.advance(120_000);
    await produce(server, kafka, 'ret', [{ value: 'b0' }, { value: 'b1' }]);
    expect(segmentBases(server, 'ret')).toEqual([0, 1, 2, 3, 4]);
    // The default (7 days) keeps everything through a pass.
    server.clock.advance(1000);
    await drained(server, 'ret');
    expect((await admin.fetchTopicOffsets('ret'))[0]).toMatchObject({ low: '0', high: '5' });

    await admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: 'ret', configEntries: [{ name: 'retention.ms', value: '100000' }] }] });
    server.clock.advance(1000); // the next retention pass: a* are 122 s old, b* 1 s
    await waitFor(() => server.broker.topics.get('ret')!.partition(0)!.logStartOffset === 3n, 10_000, 'the log start offset to move');
    await drained(server, 'ret');
    expect(segmentBases(server, 'ret')).toEqual([3, 4]);
    expect((await admin.fetchTopicOffsets('ret'))[0]).toMatchObject({ low: '3', high: '5' });

    // Everything older than the retention: the active segment goes too, an empty one is rolled at the end.
    server.clock.advance(200_000);
    await waitFor(() => server.broker.topics.get('ret')!.partition(0)!.logStartOffset === 5n, 10_000, 'every segment to go');
    await drained(server, 'ret');
    expect(segmentBases(server, 'ret')).toEqual([5]);
    await produce(server, kafka, 'ret', [{ value: 'c0' }]);
    expect((await admin.fetchTopicOffsets('ret'))[0]).toMatchObject({ low: '5', high: '6' });
  });

  it('retention.bytes keeps the newest segments within the size', async () => {
    const { server, kafka, admin } = await setup();
    await admin.createTopics({ topics: [{ topic: 'rb', numPartitions: 1 }] });
    await produce(server, kafka, 'rb', Array.from({ length: 6 }, (_, i) => ({ value: `v${i}` })));
    const segmentSize = server.broker.topics.get('rb')!.partition(0)!.log.sizeInBytes / 6;
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: 'rb', configEntries: [{ name: 'retention.bytes', value: String(Math.floor(segmentSize * 2.5)) }] }] });
    const result = await server.broker.logMaintenance.retentionPass();
    expect(result).toEqual({ partitions: ['rb-0'], segmentsDeleted: 3 });
    expect((await admin.fetchTopicOffsets('rb'))[0]).toMatchObject({ low: '3', high: '6' });
  });
});

describe('compaction', () => {
  it('cleanup.policy=compact keeps the latest value per key; tombstones go after delete.retention.ms; compact,delete also retains by time', async () => {
    const { server, kafka, admin } = await setup();
    await admin.createTopics({ topics: [{ topic: 'cmp', numPartitions: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }, { name: 'delete.retention.ms', value: '60000' }] }] });
    await produce(server, kafka, 'cmp', [
      { key: 'k1', value: 'a' }, { key: 'k2', value: 'b' }, { key: 'k1', value: 'c' }, { key: 'k3', value: 'd' }, { key: 'k2', value: null }, { key: 'k1', value: 'e' }, { key: 'k4', value: 'f' },
    ]);
    // The cleaner's backoff passes: a pass cleans the closed segments (offsets 0-5); the next pass
    // (chained after it) finds nothing more to do.
    server.clock.advance(1000);
    await server.broker.logMaintenance.cleanerPass();
    const read = async (): Promise<Array<[string, string | null]>> => {
      const consumer = kafka.consumer({ groupId: `cmp-${Math.random()}`, maxWaitTimeInMs: 50 });
      await consumer.connect();
      await consumer.subscribe({ topic: 'cmp', fromBeginning: true });
      const seen: Array<[string, string | null]> = [];
      const high = Number((await admin.fetchTopicOffsets('cmp'))[0]!.high);
      let last = -1;
      await consumer.run({ eachMessage: async ({ message }) => { seen.push([message.key!.toString(), message.value?.toString() ?? null]); last = Number(message.offset); } });
      await waitFor(() => last === high - 1, 20_000, 'the last record');
      await consumer.disconnect();
      return seen;
    };
    // k1's older values are gone; k2's tombstone stays until delete.retention.ms has passed.
    expect(await read()).toEqual([['k3', 'd'], ['k2', null], ['k1', 'e'], ['k4', 'f']]);
    server.clock.advance(61_000);
    await server.broker.logMaintenance.cleanerPass(true);
    expect(await read()).toEqual([['k3', 'd'], ['k1', 'e'], ['k4', 'f']]);

    // compact,delete: retention by time applies as well.
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: 'cmp', configEntries: [{ name: 'cleanup.policy', value: 'compact,delete' }, { name: 'retention.ms', value: '1000' }] }] });
    server.clock.advance(2000);
    await waitFor(() => server.broker.topics.get('cmp')!.partition(0)!.logStartOffset === 7n, 10_000, 'retention on the compacted topic');
  });

  it('DeleteRecords on a compact-only topic answers POLICY_VIOLATION; segment.ms rolls segments', async () => {
    const { server, kafka, admin } = await setup();
    await admin.createTopics({ topics: [
      { topic: 'cmp-only', numPartitions: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] },
      { topic: 'seg-ms', numPartitions: 1, configEntries: [{ name: 'segment.ms', value: '60000' }, { name: 'segment.bytes', value: '1048576' }] },
    ] });
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    const r = await raw.send(21, 2, { topics: [{ name: 'cmp-only', partitions: [{ partitionIndex: 0, offset: 0n }] }], timeoutMs: 1000 });
    expect(r.topics[0]!.partitions[0]).toEqual({ partitionIndex: 0, lowWatermark: -1n, errorCode: ErrorCode.POLICY_VIOLATION });

    // segment.bytes 1 MiB wins over the broker's 1 byte; segment.ms rolls after a minute.
    await produce(server, kafka, 'seg-ms', [{ value: 'x' }, { value: 'y' }]);
    expect(segmentBases(server, 'seg-ms')).toEqual([0]);
    server.clock.advance(60_000);
    await produce(server, kafka, 'seg-ms', [{ value: 'z' }]);
    expect(segmentBases(server, 'seg-ms')).toEqual([0, 2]);
  });
});
