import { describe, it, expect, afterAll } from 'vitest';
import { startCli, kill, type CliServer } from '../support/cli-process.js';
import { tempDataDir } from '../support/server.js';
import { kafkaClient, groupConsumer, waitFor } from '../support/kafkajs.js';

describe('restart (test 3)', () => {
  const data = tempDataDir();
  const servers: CliServer[] = [];
  afterAll(async () => {
    for (const s of servers) await kill(s, 'SIGKILL');
    data.remove();
  });

  it('keeps committed offsets and messages across SIGKILL, and a new consumer resumes at the committed offsets', async () => {
    const first = await startCli(['--port', '0', '--data-dir', data.dir]);
    servers.push(first);
    const topic = 'durable-topic';
    const groupId = 'durable-group';
    let kafka = kafkaClient(first.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] });
    const producer = kafka.producer();
    await producer.connect();
    for (const partition of [0, 1]) {
      await producer.send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ partition, value: `p${partition}-m${i}` })) });
    }
    await producer.disconnect();
    // A group member commits positions 4 (partition 0) and 7 (partition 1), then leaves.
    const committer = groupConsumer(kafka, groupId);
    await committer.connect();
    await committer.subscribe({ topic, fromBeginning: true });
    const target = new Map([[0, '3'], [1, '6']]);
    let commits = 0;
    await committer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        if (target.get(partition) !== message.offset) return;
        await committer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
        commits++;
      },
    });
    await waitFor(() => commits === 2, 20000, 'two group commits');
    await committer.disconnect();
    await admin.disconnect();

    expect(await kill(first, 'SIGKILL')).toBe(null);

    const second = await startCli(['--port', '0', '--data-dir', data.dir]);
    servers.push(second);
    kafka = kafkaClient(second.bootstrap);
    const admin2 = kafka.admin();
    await admin2.connect();
    const committed = await admin2.fetchOffsets({ groupId, topics: [topic] });
    expect(committed[0]!.partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset)).toEqual(['4', '7']);
    const ends = await admin2.fetchTopicOffsets(topic);
    expect(ends.sort((a, b) => a.partition - b.partition).map((p) => p.high)).toEqual(['10', '10']);

    const consumer = groupConsumer(kafka, groupId);
    const firstSeen = new Map<number, string>();
    let count = 0;
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        if (!firstSeen.has(partition)) firstSeen.set(partition, `${message.offset}:${message.value}`);
        count++;
      },
    });
    await waitFor(() => count >= 9, 20000, 'the 9 uncommitted messages');
    await consumer.disconnect();
    expect(firstSeen.get(0)).toBe('4:p0-m4');
    expect(firstSeen.get(1)).toBe('7:p1-m7');
    expect(count).toBe(9);
    await admin2.disconnect();
    expect(await kill(second, 'SIGTERM')).toBe(0);
  });
});
