import { afterEach, describe, expect, it } from 'vitest';
import type { Consumer, Kafka } from 'kafkajs';
import { startTestServer } from '../support/server.js';
import { groupConsumer, kafkaClient, waitFor } from '../support/kafkajs.js';
import { describeGroup } from '../../src/admin/groups.js';

/** Fault rules against kafkajs 2.2.4: the client copes with each fault as it would with a real broker's. */

type Server = Awaited<ReturnType<typeof startTestServer>>;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function setup(topic: string, partitions = 1, messages = 1): Promise<{ server: Server; kafka: Kafka }> {
  const server = await startTestServer();
  cleanups.push(() => server.stop());
  const kafka = kafkaClient(server.bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }] });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: Array.from({ length: messages }, (_, i) => ({ value: `m${i}`, partition: i % partitions })) });
  await producer.disconnect();
  return { server, kafka };
}

function track(consumer: Consumer): Consumer {
  cleanups.push(() => consumer.disconnect());
  return consumer;
}

const committedOffset = (server: Server, group: string, topic: string, partition = 0) => server.broker.offsets.fetch(group, topic, partition)?.committedOffset;

describe('fault injection with kafkajs', () => {
  it('next 3 OffsetCommit of g1 fail with REBALANCE_IN_PROGRESS inside eachBatch: the client rejoins and the commit lands', async () => {
    const { server, kafka } = await setup('orders');
    const rule = server.faults.add({ match: { api: 'OffsetCommit', group: 'g1' }, action: { type: 'error', error: 'REBALANCE_IN_PROGRESS' }, times: 3 });
    const consumer = track(groupConsumer(kafka, 'g1'));
    await consumer.connect();
    await consumer.subscribe({ topic: 'orders', fromBeginning: true });
    let deliveries = 0;
    // kafkajs rejoins on REBALANCE_IN_PROGRESS only when it surfaces inside run() (a commit from
    // eachBatch); a manual commitOffsets() outside run() treats it as non-retriable.
    await consumer.run({
      autoCommitThreshold: 1,
      eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary }) => {
        for (const message of batch.messages) {
          deliveries++;
          resolveOffset(message.offset);
          await commitOffsetsIfNecessary();
        }
      },
    });
    await rule.waitFired(3, { timeoutMs: 30_000 });
    await waitFor(() => committedOffset(server, 'g1', 'orders') === 1n, 30_000, 'the commit to land');
    expect(rule.fired).toBe(3);
    expect(rule.info().state).toBe('exhausted');
    expect(deliveries).toBeGreaterThanOrEqual(2); // redelivered after the rejoin
    const joins = server.faults.requests({ api: 'JoinGroup', group: 'g1' }).filter((e) => e.error === null);
    expect(joins.length).toBeGreaterThanOrEqual(2); // joined, then rejoined after the failed commit
    const commits = server.faults.requests({ api: 'OffsetCommit', group: 'g1' });
    expect(commits.slice(0, 3).map((e) => e.error)).toEqual(['REBALANCE_IN_PROGRESS', 'REBALANCE_IN_PROGRESS', 'REBALANCE_IN_PROGRESS']);
    expect(commits.at(-1)!.error).toBeNull();
  });

  it('response lost after the commit was applied: the client retries and the committed offset is right', async () => {
    const { server, kafka } = await setup('payments', 1, 5);
    const rule = server.faults.add({ match: { api: 'OffsetCommit', group: 'g2', nth: 2 }, action: { type: 'close', when: 'after' } });
    const consumer = track(groupConsumer(kafka, 'g2'));
    await consumer.connect();
    await consumer.subscribe({ topic: 'payments', fromBeginning: true });
    const observed: bigint[] = [];
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        await consumer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
        observed.push(committedOffset(server, 'g2', 'payments')!);
      },
    });
    await waitFor(() => committedOffset(server, 'g2', 'payments') === 5n, 30_000, 'all 5 commits');
    expect(rule.fired).toBe(1);
    const commits = server.faults.requests({ api: 'OffsetCommit', group: 'g2' });
    expect(commits.find((e) => e.faults.includes(rule.id))!.outcome).toBe('closed');
    // Never moved backwards: each observed committed offset is at least the previous one.
    for (let i = 1; i < observed.length; i++) expect(observed[i]! >= observed[i - 1]!).toBe(true);
  });

  it('disconnect on SyncGroup: the group still reaches Stable', async () => {
    const { server, kafka } = await setup('events');
    const rule = server.faults.add({ match: { api: 'SyncGroup', group: 'g3' }, action: { type: 'close', when: 'before' } });
    const consumer = track(groupConsumer(kafka, 'g3'));
    await consumer.connect();
    await consumer.subscribe({ topic: 'events', fromBeginning: true });
    let got = 0;
    await consumer.run({ eachMessage: async () => void got++ });
    await waitFor(() => got >= 1, 30_000, 'a message');
    expect(rule.fired).toBe(1);
    expect(describeGroup(server.broker, 'g3')!.state).toBe('Stable');
    expect(server.faults.requests({ api: 'SyncGroup', group: 'g3' }).map((e) => e.outcome)).toContain('closed');
  });

  it('OffsetCommit error only on partition 1 of 3: partitions 0 and 2 commit, partition 1 reports the error', async () => {
    const { server, kafka } = await setup('parts', 3, 3);
    const rule = server.faults.add({ match: { api: 'OffsetCommit', group: 'g4', topic: 'parts', partitions: [1] }, action: { type: 'error', error: 'OFFSET_METADATA_TOO_LARGE' } });
    const consumer = track(groupConsumer(kafka, 'g4'));
    await consumer.connect();
    await consumer.subscribe({ topic: 'parts', fromBeginning: true });
    let batches = 0;
    await consumer.run({ autoCommit: false, eachBatch: async () => void batches++ });
    await waitFor(() => batches > 0, 30_000, 'the consumer to run');
    await expect(consumer.commitOffsets([0, 1, 2].map((partition) => ({ topic: 'parts', partition, offset: '1' })))).rejects.toMatchObject({ cause: { type: 'OFFSET_METADATA_TOO_LARGE' } });
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(() => admin.disconnect());
    const fetched = await admin.fetchOffsets({ groupId: 'g4', topics: ['parts'] });
    expect(fetched[0]!.partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset)).toEqual(['1', '-1', '1']);
    expect(rule.fired).toBe(1);
  });

  it('COORDINATOR_LOAD_IN_PROGRESS for 2 s on OffsetFetch: the consumer starts after it ends, from the committed offsets', async () => {
    const { server, kafka } = await setup('loading', 1, 6);
    const admin = kafka.admin();
    await admin.connect();
    await admin.setOffsets({ groupId: 'g5', topic: 'loading', partitions: [{ partition: 0, offset: '4' }] });
    await admin.disconnect();
    const rule = server.faults.add({ match: { api: 'OffsetFetch', group: 'g5' }, action: { type: 'error', error: 'COORDINATOR_LOAD_IN_PROGRESS' }, durationMs: 2000 });
    const consumer = track(groupConsumer(kafka, 'g5'));
    await consumer.connect();
    await consumer.subscribe({ topic: 'loading', fromBeginning: true });
    const started = Date.now();
    const offsets: string[] = [];
    let firstAt = 0;
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (offsets.length === 0) firstAt = Date.now();
        offsets.push(message.offset);
      },
    });
    await waitFor(() => offsets.length >= 2, 30_000, 'messages 4 and 5');
    expect(offsets.slice(0, 2)).toEqual(['4', '5']);
    expect(rule.fired).toBeGreaterThanOrEqual(1);
    expect(firstAt - started).toBeGreaterThanOrEqual(1500);
    // Heartbeats went through meanwhile (the rule only matches OffsetFetch).
    expect(server.faults.requests({ api: 'Heartbeat', group: 'g5' }).every((e) => e.error === null)).toBe(true);
  });
});
