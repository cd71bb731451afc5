/**
 * Online upgrade (KIP-848): a kafkajs (classic protocol) member consumes in group G; a raw
 * ConsumerGroupHeartbeat member joins; G becomes a consumer group, the partitions are split with
 * no partition owned by both, kafkajs keeps consuming and committing, and nothing committed is
 * consumed again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';
import { kafkaClient, groupConsumer, waitFor } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { KIP848_CONFIG } from '../support/kip848-group.js';
import { describeGroup } from '../../src/admin/groups.js';

describe('online upgrade of a classic group (kafkajs + KIP-848 member)', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ config: { ...KIP848_CONFIG, 'group.consumer.heartbeat.interval.ms': 500, 'group.consumer.min.heartbeat.interval.ms': 100 } });
  });
  afterAll(async () => server.stop());

  it('converts the group and splits the partitions without overlap', async () => {
    const kafka = kafkaClient(server.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    const topic = 'upgrade-topic';
    const groupId = 'G';
    await admin.createTopics({ topics: [{ topic, numPartitions: 4 }] });
    const producer = kafka.producer();
    await producer.connect();
    const produce = async (n: number) => {
      for (let p = 0; p < 4; p++) await producer.send({ topic, messages: Array.from({ length: n }, (_, i) => ({ partition: p, value: `v${i}` })) });
    };
    await produce(10);

    const consumed: Array<{ partition: number; offset: number; at: number }> = [];
    const commitErrors: unknown[] = [];
    let commitsOk = 0;
    const consumer = groupConsumer(kafka, groupId);
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        consumed.push({ partition, offset: Number(message.offset), at: Date.now() });
        try {
          await consumer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
          commitsOk++;
        } catch (err) {
          commitErrors.push(err);
          throw err;
        }
      },
    });
    await waitFor(() => consumed.length >= 40, 30000, 'kafkajs consumed the first 40');

    // The KIP-848 member joins with raw heartbeats.
    const raw = await RawClient.connect(server.port);
    const topicId = server.broker.topics.get(topic)!.topicId;
    const memberId = 'upgrade-member-aaaaaaa';
    let epoch = 0;
    let owned: number[] = [];
    const heartbeat = async (first: boolean) => {
      const res = await raw.send(68, 1, {
        groupId, memberId, memberEpoch: epoch, instanceId: null, rackId: null,
        rebalanceTimeoutMs: first ? 30000 : -1, subscribedTopicNames: first ? [topic] : null, subscribedTopicRegex: null, serverAssignor: null,
        topicPartitions: first ? [] : [{ topicId, partitions: owned }],
      });
      expect(res.errorCode).toBe(0);
      epoch = res.memberEpoch;
      if (res.assignment) owned = res.assignment.topicPartitions.flatMap((t) => t.partitions).sort((a, b) => a - b);
      return res;
    };
    await heartbeat(true);
    const listed = await raw.send(16, 5, { statesFilter: [], typesFilter: [] });
    expect(listed.groups.find((g) => g.groupId === groupId)?.groupType).toBe('consumer');

    // Heartbeat until the group is Stable with both members holding two partitions each.
    let described = (await raw.send(69, 1, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0]!;
    const deadline = Date.now() + 30000;
    while (Date.now() < deadline) {
      await heartbeat(false);
      described = (await raw.send(69, 1, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0]!;
      // No partition is ever owned by two members.
      const all = described.members.flatMap((m) => m.assignment.topicPartitions.flatMap((t) => t.partitions));
      expect(new Set(all).size).toBe(all.length);
      if (described.groupState === 'Stable' && owned.length === 2) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(described.groupState).toBe('Stable');
    expect(owned.length).toBe(2);
    const classic = described.members.find((m) => m.memberId !== memberId)!;
    expect(classic.memberType).toBe(0);
    // The admin view (GET /groups/{id}) tells the two kinds of member apart, as Kafka's tool does.
    const view = describeGroup(server.broker, groupId)!;
    expect(view.members.map((m) => [m.memberId === memberId, m.upgraded, m.sessionTimeoutMs]).sort()).toEqual([
      [false, false, 10000], // groupConsumer's sessionTimeout
      [true, true, null],
    ]);
    const classicParts = classic.assignment.topicPartitions.flatMap((t) => t.partitions).sort((a, b) => a - b);
    expect(classicParts.length).toBe(2);
    expect(classicParts.filter((p) => owned.includes(p))).toEqual([]);

    // Committed offsets of the partitions the new member took: where it starts.
    const committedAtHandover = new Map((await admin.fetchOffsets({ groupId, topics: [topic] }))[0]!.partitions.map((p) => [p.partition, Number(p.offset)]));
    const handover = Date.now();
    await new Promise((r) => setTimeout(r, 1000));
    await produce(10);
    await waitFor(() => classicParts.every((p) => consumed.filter((c) => c.partition === p && c.offset >= 10).length === 10), 30000, 'kafkajs consumed its new messages');
    await new Promise((r) => setTimeout(r, 500));

    // kafkajs consumed nothing new on the new member's partitions, and no message twice after the handover.
    expect(consumed.filter((c) => c.at > handover && owned.includes(c.partition))).toEqual([]);
    const after = consumed.filter((c) => c.at > handover).map((c) => `${c.partition}:${c.offset}`);
    expect(new Set(after).size).toBe(after.length);
    // What the new member will read (from the committed offset on) was never committed by kafkajs.
    for (const p of owned) {
      const from = committedAtHandover.get(p)!;
      expect(from).toBeGreaterThanOrEqual(0);
      expect(consumed.filter((c) => c.partition === p && c.offset >= from && c.at > handover)).toEqual([]);
    }
    // kafkajs kept committing inside the consumer group (generation = member epoch).
    const committed = new Map((await admin.fetchOffsets({ groupId, topics: [topic] }))[0]!.partitions.map((p) => [p.partition, Number(p.offset)]));
    for (const p of classicParts) expect(committed.get(p)).toBe(20);
    for (const p of owned) expect(committed.get(p)).toBe(committedAtHandover.get(p));
    expect(commitsOk).toBeGreaterThanOrEqual(60);

    await consumer.disconnect();
    await producer.disconnect();
    await admin.disconnect();
    // The kafkajs member left (LeaveGroup): only the KIP-848 member remains.
    const last = (await raw.send(69, 1, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0]!;
    expect(last.members.map((m) => m.memberId)).toEqual([memberId]);
    raw.socket.destroy();
  }, 90000);
});
