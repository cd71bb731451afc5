/**
 * Cluster simulation with real kafkajs clients: 3 brokers in one process (`brokers: 3`), moving a
 * group's coordinator, COORDINATOR_LOAD_IN_PROGRESS for 2 s, stopping and starting a broker,
 * moving a partition leader; and version capping (`kafkaVersion: '3.9'`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { startTestServer } from '../support/server.js';
import { groupConsumer, waitFor } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { defaultOffsetCommitRequest } from '../../src/protocol/messages/OffsetCommitRequest.js';
import { defaultFindCoordinatorRequest } from '../../src/protocol/messages/FindCoordinatorRequest.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Server = Awaited<ReturnType<typeof startTestServer>>;

async function cluster(options: Parameters<typeof startTestServer>[0] = {}): Promise<{ server: Server; kafka: Kafka }> {
  const server = await startTestServer({ brokers: 3, ...options });
  cleanups.push(() => server.stop());
  const brokers = server.cluster.brokers().map((b) => `${b.host}:${b.port}`);
  const kafka = new Kafka({ clientId: 'cluster-test', brokers, logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
  return { server, kafka };
}

function committed(server: Server, group: string, topic: string, partitions: number): bigint[] {
  return Array.from({ length: partitions }, (_, p) => server.broker.offsets.fetch(group, topic, p)?.committedOffset ?? -1n);
}

/** Produces message i to partition i % partitions (the topic is created with that many partitions first). */
async function produce(kafka: Kafka, topic: string, count: number, partitions: number, from = 0): Promise<void> {
  if (from === 0) {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions }] });
    await admin.disconnect();
  }
  const producer = kafka.producer();
  await producer.connect();
  for (let i = from; i < from + count; i++) await producer.send({ topic, messages: [{ value: `m${i}`, partition: i % partitions }] });
  await producer.disconnect();
}

describe('cluster simulation (kafkajs)', () => {
  it('three brokers: Metadata lists them, leaders and coordinators are spread, each broker answers for itself', async () => {
    const { server, kafka } = await cluster();
    expect(server.ports.size).toBe(3);
    const admin = kafka.admin();
    cleanups.push(() => admin.disconnect());
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'spread', numPartitions: 3 }] });
    const md = await admin.fetchTopicMetadata({ topics: ['spread'] });
    const leaders = md.topics[0]!.partitions.map((p) => p.leader);
    expect(new Set(leaders)).toEqual(new Set([1, 2, 3]));
    for (const p of md.topics[0]!.partitions) expect(p.leader).toBe(server.cluster.leaderOf('spread', p.partitionId));
    const described = await admin.describeCluster();
    expect(described.brokers.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);

    // FindCoordinator from any broker names the coordinator; the others answer NOT_COORDINATOR.
    const coordinator = server.cluster.coordinatorOf('raw-g');
    for (const [id, port] of server.ports) {
      const raw = await RawClient.connect(port);
      cleanups.push(() => void raw.socket.destroy());
      const found = await raw.send(10, 3, { ...defaultFindCoordinatorRequest(), key: 'raw-g', keyType: 0 });
      expect(found).toMatchObject({ errorCode: 0, nodeId: coordinator, port: server.ports.get(coordinator) });
      const commit = await raw.send(8, 8, {
        ...defaultOffsetCommitRequest(), groupId: 'raw-g', generationIdOrMemberEpoch: -1, memberId: '',
        topics: [{ name: 'spread', topicId: '', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null }] }],
      });
      expect(commit.topics[0]!.partitions[0]!.errorCode, `broker ${id}`).toBe(id === coordinator ? 0 : 16);
    }
  });

  it('moveCoordinator: the kafkajs consumer gets NOT_COORDINATOR, finds the new coordinator and keeps committing; no commit is lost', async () => {
    const { server, kafka } = await cluster();
    const topic = 'moves';
    await produce(kafka, topic, 9, 3);
    const consumer = groupConsumer(kafka, 'gm');
    cleanups.push(() => consumer.disconnect());
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    let seen = 0;
    await consumer.run({ autoCommitThreshold: 1, eachMessage: async () => void seen++ });
    await waitFor(() => committed(server, 'gm', topic, 3).every((o) => o === 3n), 20_000, 'first commits');

    const first = server.cluster.coordinatorOf('gm');
    const second = first === 3 ? 1 : first + 1;
    expect(server.cluster.moveCoordinator('gm', second)).toBe(first);
    await produce(kafka, topic, 9, 3, 9);
    await waitFor(() => committed(server, 'gm', topic, 3).every((o) => o === 6n), 30_000, 'commits after the first move');

    const third = second === 3 ? 1 : second + 1;
    server.cluster.moveCoordinator('gm', third);
    await produce(kafka, topic, 9, 3, 18);
    await waitFor(() => committed(server, 'gm', topic, 3).every((o) => o === 9n), 30_000, 'commits after the second move');
    expect(seen).toBeGreaterThanOrEqual(27);

    const notCoordinator = server.faults.requests().filter((r) => r.error === 'NOT_COORDINATOR' && r.group === 'gm');
    expect(notCoordinator.length).toBeGreaterThan(0);
    expect(server.faults.requests({ api: 'FindCoordinator' }).filter((r) => r.group === 'gm').length).toBeGreaterThanOrEqual(3);
  });

  it('COORDINATOR_LOAD_IN_PROGRESS for 2 s: the consumer starts after it ends, from the committed offsets', async () => {
    const { server, kafka } = await cluster();
    const topic = 'loading';
    await produce(kafka, topic, 6, 3);
    const before = groupConsumer(kafka, 'gl');
    await before.connect();
    await before.subscribe({ topic, fromBeginning: true });
    await before.run({ autoCommitThreshold: 1, eachMessage: async () => undefined });
    await waitFor(() => committed(server, 'gl', topic, 3).every((o) => o === 2n), 20_000, 'first commits');
    await before.disconnect();
    await produce(kafka, topic, 6, 3, 6);

    server.cluster.coordinatorLoadInProgress('gl', 2000);
    const started = Date.now();
    const values: string[] = [];
    let firstAt = 0;
    const after = groupConsumer(kafka, 'gl');
    cleanups.push(() => after.disconnect());
    await after.connect();
    await after.subscribe({ topic, fromBeginning: true });
    await after.run({
      eachMessage: async ({ message }) => {
        firstAt ||= Date.now();
        values.push(message.value!.toString());
      },
    });
    await waitFor(() => values.length >= 6, 30_000, 'messages after the load');
    expect(firstAt - started).toBeGreaterThanOrEqual(1900);
    expect(values.sort()).toEqual(['m10', 'm11', 'm6', 'm7', 'm8', 'm9']);
    const loading = server.faults.requests().filter((r) => r.group === 'gl' && r.error === 'COORDINATOR_LOAD_IN_PROGRESS');
    expect(loading.length).toBeGreaterThan(0);
  });

  it('stopBroker / startBroker: a kafkajs consumer rides through its coordinator going down and coming back', async () => {
    const { server, kafka } = await cluster();
    const topic = 'outage';
    await produce(kafka, topic, 6, 3);
    const consumer = groupConsumer(kafka, 'go');
    cleanups.push(() => consumer.disconnect());
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const values = new Set<string>();
    await consumer.run({ autoCommitThreshold: 1, eachMessage: async ({ message }) => void values.add(message.value!.toString()) });
    await waitFor(() => values.size === 6 && committed(server, 'go', topic, 3).every((o) => o === 2n), 20_000, 'first messages');

    const down = server.cluster.coordinatorOf('go');
    const port = server.ports.get(down)!;
    await server.cluster.stopBroker(down);
    expect(server.cluster.describe().brokers.find((b) => b.id === down)!.up).toBe(false);
    expect(server.cluster.coordinatorOf('go')).not.toBe(down);
    await expect(RawClient.connect(port)).rejects.toThrow();
    await produce(kafka, topic, 6, 3, 6);
    await waitFor(() => values.size === 12 && committed(server, 'go', topic, 3).every((o) => o === 4n), 30_000, 'messages while the broker is down');

    await server.cluster.startBroker(down);
    expect(server.cluster.coordinatorOf('go')).toBe(down);
    const raw = await RawClient.connect(port);
    raw.socket.destroy();
    await produce(kafka, topic, 6, 3, 12);
    await waitFor(() => values.size === 18 && committed(server, 'go', topic, 3).every((o) => o === 6n), 30_000, 'messages after the restart');
  });

  it('moveLeader: a kafkajs producer gets NOT_LEADER_OR_FOLLOWER, refreshes metadata and every message lands once', async () => {
    const { server, kafka } = await cluster();
    const topic = 'leaders';
    const admin = kafka.admin();
    cleanups.push(() => admin.disconnect());
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    const producer = kafka.producer();
    cleanups.push(() => producer.disconnect());
    await producer.connect();
    for (let i = 0; i < 5; i++) await producer.send({ topic, messages: [{ value: `a${i}` }] });
    const old = server.cluster.leaderOf(topic, 0);
    const next = old === 3 ? 1 : old + 1;
    expect(server.cluster.moveLeader(topic, 0, next)).toBe(old);
    for (let i = 0; i < 5; i++) await producer.send({ topic, messages: [{ value: `b${i}` }] });
    const offsets = await admin.fetchTopicOffsets(topic);
    expect(offsets[0]).toMatchObject({ partition: 0, high: '10' });
    expect(server.faults.requests({ api: 'Produce' }).some((r) => r.error === 'NOT_LEADER_OR_FOLLOWER')).toBe(true);
    const md = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(md.topics[0]!.partitions[0]!.leader).toBe(next);
  });

  it('fault rules match the receiving broker (match.brokerId)', async () => {
    const { server } = await cluster();
    const coordinator = server.cluster.coordinatorOf('gf');
    const other = coordinator === 3 ? 1 : coordinator + 1;
    const rule = server.faults.add({ match: { api: 'FindCoordinator', brokerId: other }, action: { type: 'error', error: 'COORDINATOR_NOT_AVAILABLE' }, times: 'unlimited' });
    for (const [id, port] of server.ports) {
      const raw = await RawClient.connect(port);
      cleanups.push(() => void raw.socket.destroy());
      const res = await raw.send(10, 3, { ...defaultFindCoordinatorRequest(), key: 'gf', keyType: 0 });
      expect(res.errorCode, `broker ${id}`).toBe(id === other ? 15 : 0);
    }
    expect(rule.fired).toBe(1);
  });
});

describe('version capping', () => {
  it('--kafka-version 3.9: ApiVersions shows 3.9 ranges, newer versions are refused, kafkajs still works', async () => {
    const server = await startTestServer({ kafkaVersion: '3.9' });
    cleanups.push(() => server.stop());
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => void raw.socket.destroy());
    const res = await raw.send(18, 3, { clientSoftwareName: 'raw-test', clientSoftwareVersion: '1.0' });
    const ranges = new Map<number, [number, number]>(res.apiKeys.map((a: { apiKey: number; minVersion: number; maxVersion: number }) => [a.apiKey, [a.minVersion, a.maxVersion]]));
    expect(ranges.get(0)).toEqual([0, 11]);
    expect(ranges.get(1)).toEqual([4, 17]);
    expect(ranges.get(3)).toEqual([0, 12]);
    expect(ranges.get(8)).toEqual([2, 9]);
    expect(ranges.get(9)).toEqual([1, 9]);
    expect(ranges.get(68)).toEqual([0, 0]);
    // OffsetCommit v10 is past 3.9's range: refused like any unsupported version.
    const refused = await RawClient.connect(server.port);
    cleanups.push(() => void refused.socket.destroy());
    refused.send(8, 10, defaultOffsetCommitRequest()).catch(() => undefined);
    await refused.waitClosed();

    const kafka = new Kafka({ clientId: 'v39', brokers: [server.bootstrap], logLevel: logLevel.NOTHING });
    await produce(kafka, 'old', 4, 2);
    const consumer = groupConsumer(kafka, 'g39');
    cleanups.push(() => consumer.disconnect());
    await consumer.connect();
    await consumer.subscribe({ topic: 'old', fromBeginning: true });
    let seen = 0;
    await consumer.run({ autoCommitThreshold: 1, eachMessage: async () => void seen++ });
    await waitFor(() => seen === 4 && committed(server, 'g39', 'old', 2).every((o) => o === 2n), 20_000, 'kafkajs against 3.9');
  });

  it('per-API overrides: OffsetCommit=2-8,Fetch=4-12', async () => {
    const server = await startTestServer({ kafkaVersion: '4.3', apiVersions: 'OffsetCommit=2-8,Fetch=4-12' });
    cleanups.push(() => server.stop());
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => void raw.socket.destroy());
    const res = await raw.send(18, 0, { clientSoftwareName: '', clientSoftwareVersion: '' });
    const ranges = new Map<number, [number, number]>(res.apiKeys.map((a: { apiKey: number; minVersion: number; maxVersion: number }) => [a.apiKey, [a.minVersion, a.maxVersion]]));
    expect(ranges.get(8)).toEqual([2, 8]);
    expect(ranges.get(1)).toEqual([4, 12]);
    expect(ranges.get(0)).toEqual([0, 13]);
  });
});
