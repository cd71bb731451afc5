/**
 * CreatePartitions (key 37) end to end (issue 15): Kafka's errors and messages, validate-only, new
 * partitions persisted; a kafkajs group of two picking up partitions 4-7 after `createPartitions`;
 * librdkafka's 0113_cooperative_rebalance `k_add_partition` scenario (cooperative-sticky: the new
 * partition is assigned without revoking the old one) and the same with `group.protocol=consumer`,
 * where the group sees the new partition through its metadata hash and a new group epoch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { startClosableServer, startTestServer } from '../support/server.js';
import { kafkaClient, waitFor } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { python, runPythonClient, type PythonClientResult } from '../support/python.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ADD_PARTITION = join(HERE, 'clients', 'librdkafka_add_partition.py');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const create = (topics: Array<{ name: string; count: number; assignments?: number[][] | null }>, validateOnly = false) => ({
  topics: topics.map((t) => ({ name: t.name, count: t.count, assignments: t.assignments === undefined || t.assignments === null ? null : t.assignments.map((brokerIds) => ({ brokerIds })) })),
  timeoutMs: 5000,
  validateOnly,
});

describe('CreatePartitions', () => {
  it("answers Kafka's errors and messages, validates only when asked, and keeps new partitions across a restart", async () => {
    const first = await startClosableServer(cleanups);
    const raw = await RawClient.connect(first.server.port);
    cleanups.push(() => raw.close());
    await raw.send(19, 5, { topics: [{ name: 'cp-a', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    const topicId = first.server.broker.topics.get('cp-a')!.id;
    // A group lookup creates `__consumer_offsets`, which cannot grow.
    expect((await raw.send(10, 4, { key: '', keyType: 0, coordinatorKeys: ['cp-group'] })).coordinators[0]!.errorCode).toBe(ErrorCode.NONE);

    for (const version of [0, 3]) {
      const r = await raw.send(37, version, create([
        { name: 'cp-a', count: 2 },
        { name: 'cp-a', count: 4 },
        { name: 'missing', count: 3 },
        { name: '__consumer_offsets', count: 60 },
      ]));
      expect(r.results).toEqual([
        { name: 'cp-a', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Duplicate topic name.' },
        { name: 'missing', errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: null },
        { name: '__consumer_offsets', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Adding partitions to the internal topic __consumer_offsets is not supported.' },
      ]);
    }
    const errors = await raw.send(37, 3, create([{ name: 'cp-a', count: 2 }]));
    expect(errors.results[0]).toEqual({ name: 'cp-a', errorCode: ErrorCode.INVALID_PARTITIONS, errorMessage: 'Topic already has 2 partition(s).' });
    const decrease = await raw.send(37, 3, create([{ name: 'cp-a', count: 1 }]));
    expect(decrease.results[0]).toEqual({ name: 'cp-a', errorCode: ErrorCode.INVALID_PARTITIONS, errorMessage: 'The topic cp-a currently has 2 partition(s); 1 would not be an increase.' });
    const tooFew = await raw.send(37, 3, create([{ name: 'cp-a', count: 5, assignments: [[1]] }]));
    expect(tooFew.results[0]).toEqual({ name: 'cp-a', errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, errorMessage: 'Attempted to add 3 additional partition(s), but only 1 assignment(s) were specified.' });
    const unknownBroker = await raw.send(37, 3, create([{ name: 'cp-a', count: 3, assignments: [[7]] }]));
    expect(unknownBroker.results[0]).toEqual({ name: 'cp-a', errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, errorMessage: 'The manual partition assignment includes broker 7, but no such broker is registered.' });

    const validated = await raw.send(37, 3, create([{ name: 'cp-a', count: 4 }], true));
    expect(validated.results).toEqual([{ name: 'cp-a', errorCode: 0, errorMessage: null }]);
    expect(first.server.broker.topics.get('cp-a')!.partitionCount).toBe(2);
    expect(existsSync(join(first.dataDir, 'cp-a-2'))).toBe(false);

    const grown = await raw.send(37, 1, create([{ name: 'cp-a', count: 4, assignments: [[1], [1]] }]));
    expect(grown.results).toEqual([{ name: 'cp-a', errorCode: 0, errorMessage: null }]);
    const md = await raw.send(3, 12, { topics: [{ topicId: '', name: 'cp-a' }].map((t) => ({ ...t, topicId: topicId })), allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(md.topics[0]!.partitions.map((p) => [p.partitionIndex, p.leaderId, p.errorCode])).toEqual([[0, 1, 0], [1, 1, 0], [2, 1, 0], [3, 1, 0]]);
    expect(readFileSync(join(first.dataDir, 'cp-a-3', 'partition.metadata'), 'utf8')).toBe(`version: 0\ntopic_id: ${topicId}\n`);
    raw.close();
    await first.close();

    const second = await startClosableServer(cleanups, { dataDir: first.dataDir });
    const topic = second.server.broker.topics.get('cp-a')!;
    expect([topic.id, topic.partitionCount]).toEqual([topicId, 4]);
  });

  it('a running kafkajs group of two picks up partitions 4-7 after createPartitions (4 -> 8) and consumes what is written there', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    const kafka = new Kafka({ clientId: 'cp-kafkajs', brokers: [server.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(async () => { await admin.disconnect(); });
    await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 4 }] });

    const seen = new Map<number, Set<number>>(); // partition -> members that consumed from it
    const consumers: Consumer[] = [];
    const assigned = new Map<number, number[]>();
    for (const member of [0, 1]) {
      // metadataMaxAge: how soon the group leader notices the new partition count (kafkajs rejoins then).
      const consumer = kafka.consumer({ groupId: 'orders-group', sessionTimeout: 10000, heartbeatInterval: 300, rebalanceTimeout: 10000, maxWaitTimeInMs: 200, metadataMaxAge: 500 });
      consumers.push(consumer);
      cleanups.push(async () => { await consumer.disconnect(); });
      consumer.on(consumer.events.GROUP_JOIN, (e) => assigned.set(member, [...(e.payload.memberAssignment['orders'] ?? [])].sort((a, b) => a - b)));
      await consumer.connect();
      await consumer.subscribe({ topics: ['orders'], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition }) => {
          if (!seen.has(partition)) seen.set(partition, new Set());
          seen.get(partition)!.add(member);
        },
      });
    }
    await waitFor(() => (assigned.get(0)?.length ?? 0) + (assigned.get(1)?.length ?? 0) === 4 && assigned.get(0)!.length === 2, 60_000, 'two members holding 2 of 4 partitions each');

    await admin.createPartitions({ topicPartitions: [{ topic: 'orders', count: 8 }] });
    expect(server.broker.topics.get('orders')!.partitionCount).toBe(8);
    await waitFor(() => [...assigned.values()].flat().length === 8 && assigned.get(0)!.length === 4, 60_000, 'the group rebalanced over 8 partitions');
    expect([...assigned.values()].flat().sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);

    const producer = kafka.producer();
    await producer.connect();
    cleanups.push(async () => { await producer.disconnect(); });
    await producer.send({ topic: 'orders', messages: [4, 5, 6, 7].map((partition) => ({ value: `new-${partition}`, partition })) });
    await waitFor(() => [4, 5, 6, 7].every((p) => seen.has(p)), 60_000, 'records of partitions 4-7 consumed');
    // Each new partition was consumed by the member it was assigned to, and the work is split.
    for (const p of [4, 5, 6, 7]) {
      const owner = assigned.get(0)!.includes(p) ? 0 : 1;
      expect([...seen.get(p)!]).toEqual([owner]);
    }
    expect(new Set([4, 5, 6, 7].map((p) => (assigned.get(0)!.includes(p) ? 0 : 1))).size).toBe(2);
  });
});

interface AddPartitionResult extends PythonClientResult {
  before: { assign: number; revoke: number };
  after: { assign: number; revoke: number };
  atClose: { assign: number; revoke: number };
  assigned: number[][];
  revoked: number[][];
}

describe.skipIf(python === null)("librdkafka 0113_cooperative_rebalance k_add_partition", () => {
  async function run(protocol: 'classic' | 'consumer'): Promise<{ result: AddPartitionResult; server: Awaited<ReturnType<typeof startTestServer>> }> {
    const server = await startTestServer({
      config: {
        'group.consumer.min.heartbeat.interval.ms': 100,
        'group.consumer.heartbeat.interval.ms': 300,
        'group.consumer.assignment.interval.ms': 0,
      },
    });
    cleanups.push(() => server.stop());
    const admin = kafkaClient(server.bootstrap).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: `k-add-${protocol}`, numPartitions: 1 }] });
    await admin.disconnect();
    const result = await runPythonClient<AddPartitionResult>('librdkafka_add_partition.py', [ADD_PARTITION, '--bootstrap', server.bootstrap, '--topic', `k-add-${protocol}`, '--group', `k-add-${protocol}-group`, '--protocol', protocol], 120_000);
    return { result, server };
  }

  it('classic, cooperative-sticky: 1 assign before, 2 assigns and no revoke after the topic grows, 1 revoke at close', async () => {
    const { result } = await run('classic');
    expect(result.before).toEqual({ assign: 1, revoke: 0 });
    expect(result.after).toEqual({ assign: 2, revoke: 0 });
    expect(result.atClose).toEqual({ assign: 2, revoke: 1 });
    // Incremental: the second assignment adds partition 1 only; the close revokes both.
    expect(result.assigned).toEqual([[0], [1]]);
    expect(result.revoked).toEqual([[0, 1]]);
  });

  it('group.protocol=consumer: the new partition reaches the member through a new group epoch', async () => {
    const { result, server } = await run('consumer');
    expect(result.assigned.flat().sort()).toEqual([0, 1]);
    expect(result.after.revoke).toBe(0);
    // A new group starts at epoch 1 (Kafka 4.3's ModernGroup): 2 when the member joins with
    // partition 0, 3 when the metadata hash changed with the new partition, 4 when it left at close.
    const group = server.broker.consumer.snapshot('k-add-consumer-group');
    expect(group?.groupEpoch).toBe(4);
  });
});
