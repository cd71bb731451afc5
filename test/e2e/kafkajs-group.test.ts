import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestServer } from '../support/server.js';
import { kafkaClient, groupConsumer, waitFor } from '../support/kafkajs.js';

describe('kafkajs against the server', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.stop());

  it('test 1: keyed produce, log-end offsets, a one-member group commits 12, Empty after leaving', async () => {
    const kafka = kafkaClient(server.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    const topic = 'books';
    expect(await admin.createTopics({ topics: [{ topic, numPartitions: 3 }] })).toBe(true);

    const producer = kafka.producer();
    await producer.connect();
    const produced = [0, 0, 0];
    for (let i = 1; i <= 30; i++) {
      const [meta] = await producer.send({ topic, messages: [{ key: `book-${i % 5}`, value: `value-${i}` }] });
      produced[meta!.partition]!++;
    }
    await producer.disconnect();
    expect([...produced].sort((a, b) => a - b)).toEqual([6, 12, 12]);

    const endOffsets = await admin.fetchTopicOffsets(topic);
    for (const p of endOffsets) expect(Number(p.high)).toBe(produced[p.partition]);
    for (const p of endOffsets) expect(p.low).toBe('0');

    const groupId = 'books-readers';
    const consumer = groupConsumer(kafka, groupId);
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const positions = new Map<number, number>();
    let consumed = 0;
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        if (consumed >= 12) return;
        consumed++;
        const next = Number(message.offset) + 1;
        positions.set(partition, next);
        await consumer.commitOffsets([{ topic, partition, offset: String(next) }]);
      },
    });
    await waitFor(() => consumed >= 12, 20000, '12 messages');
    await consumer.disconnect();

    const committed = await admin.fetchOffsets({ groupId, topics: [topic] });
    const byPartition = new Map(committed[0]!.partitions.map((p) => [p.partition, Number(p.offset)]));
    for (let p = 0; p < 3; p++) expect(byPartition.get(p)).toBe(positions.get(p) ?? -1);
    expect([...positions.values()].reduce((a, b) => a + b, 0)).toBe(12);

    const described = await admin.describeGroups([groupId]);
    expect(described.groups[0]!.state).toBe('Empty');
    expect(described.groups[0]!.members).toEqual([]);
    await admin.disconnect();
  });

  it('test 2: three members share six partitions; a leaving member hands over without re-consuming committed messages', async () => {
    const kafka = kafkaClient(server.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    const topic = 'shared-work';
    await admin.createTopics({ topics: [{ topic, numPartitions: 6 }] });
    const groupId = 'shared-workers';

    const seen = new Map<string, string[]>(); // "partition:offset" -> consumer names
    const assignments = new Map<string, number[]>();
    const consumers = ['a', 'b', 'c'].map((name) => {
      const consumer = groupConsumer(kafkaClient(server.bootstrap, `worker-${name}`), groupId);
      consumer.on(consumer.events.GROUP_JOIN, (e) => {
        assignments.set(name, [...(e.payload.memberAssignment[topic] ?? [])].sort((x, y) => x - y));
      });
      return { name, consumer };
    });
    for (const { name, consumer } of consumers) {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          const key = `${partition}:${message.offset}`;
          seen.set(key, [...(seen.get(key) ?? []), name]);
        },
      });
    }
    await waitFor(() => assignments.size === 3 && [...assignments.values()].every((a) => a.length === 2)
      && new Set([...assignments.values()].flat()).size === 6, 30000, 'three members with two partitions each');
    const all = [...assignments.values()].flat().sort((x, y) => x - y);
    expect(all).toEqual([0, 1, 2, 3, 4, 5]);

    const producer = kafka.producer();
    await producer.connect();
    const send = async (from: number, to: number): Promise<void> => {
      const messages = [];
      for (let i = from; i < to; i++) messages.push({ key: `k${i}`, value: `v${i}` });
      await producer.send({ topic, messages });
    };
    await send(0, 500);
    await waitFor(() => seen.size === 500, 30000, '500 messages consumed');

    const leaving = consumers[2]!;
    await leaving.consumer.disconnect(); // commits its resolved offsets and sends LeaveGroup
    await waitFor(() => ['a', 'b'].every((n) => (assignments.get(n)?.length ?? 0) === 3), 30000, 'the two remaining members to take over');
    expect([...assignments.get('a')!, ...assignments.get('b')!].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5]);

    await send(500, 1000);
    await waitFor(() => seen.size === 1000, 30000, '1000 messages consumed');
    await new Promise((r) => setTimeout(r, 500));
    const duplicates = [...seen.entries()].filter(([, names]) => names.length > 1);
    expect(duplicates).toEqual([]);
    expect(seen.size).toBe(1000);

    await producer.disconnect();
    for (const { consumer } of consumers.slice(0, 2)) await consumer.disconnect();
    const described = await admin.describeGroups([groupId]);
    expect(described.groups[0]!.state).toBe('Empty');
    await admin.disconnect();
  });
});
