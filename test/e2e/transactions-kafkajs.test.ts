/**
 * kafkajs 2.2.4's transaction API against the server (transaction version 1: InitProducerId,
 * AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn): a committed and an aborted
 * transaction, each with records and offsets (`sendOffsets`); a read_committed consumer
 * (`readUncommitted: false`, kafkajs's default) sees only the committed records, a read_uncommitted
 * one sees both; the group's committed offset is the committed transaction's; a second producer
 * with the same transactional id fences the first (kafkajs sees INVALID_PRODUCER_EPOCH).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { startTestServer } from '../support/server.js';
import { kafkaClient, waitFor } from '../support/kafkajs.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('transactions with kafkajs', () => {
  it('commits one transaction and aborts another; read_committed sees the committed records and offsets only', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    const kafka = kafkaClient(server.bootstrap, 'kmc-txn');
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(() => admin.disconnect());
    await admin.createTopics({ topics: [{ topic: 'txn-in', numPartitions: 1 }, { topic: 'txn-out', numPartitions: 1 }] });

    const producer = kafka.producer({ transactionalId: 'kmc-tx-1', maxInFlightRequests: 1, idempotent: true });
    await producer.connect();
    cleanups.push(() => producer.disconnect());

    const committed = await producer.transaction();
    await committed.send({ topic: 'txn-out', messages: Array.from({ length: 10 }, (_, i) => ({ value: `c${i}` })) });
    await committed.sendOffsets({ consumerGroupId: 'txn-app', topics: [{ topic: 'txn-in', partitions: [{ partition: 0, offset: '10' }] }] });
    await committed.commit();

    const aborted = await producer.transaction();
    await aborted.send({ topic: 'txn-out', messages: Array.from({ length: 5 }, (_, i) => ({ value: `a${i}` })) });
    await aborted.sendOffsets({ consumerGroupId: 'txn-app', topics: [{ topic: 'txn-in', partitions: [{ partition: 0, offset: '15' }] }] });
    await aborted.abort();
    await server.broker.transactions.flush();

    // The log: data 0-9, COMMIT at 10, data 11-15, ABORT at 16.
    const offsets = await admin.fetchTopicOffsets('txn-out');
    expect(offsets[0]).toMatchObject({ partition: 0, high: '17' });
    expect(await admin.fetchOffsets({ groupId: 'txn-app', topics: ['txn-in'] })).toEqual([{ topic: 'txn-in', partitions: [{ partition: 0, offset: '10', metadata: null }] }]);
    const described = await admin.describeGroups(['txn-app']);
    expect(described.groups[0]!.state).toBe('Empty');

    const readCommitted = await consumeAll(kafka, 'txn-reader-committed', false, 10);
    expect(readCommitted).toEqual(Array.from({ length: 10 }, (_, i) => `c${i}`));
    const readUncommitted = await consumeAll(kafka, 'txn-reader-uncommitted', true, 15);
    expect(readUncommitted).toEqual([...Array.from({ length: 10 }, (_, i) => `c${i}`), ...Array.from({ length: 5 }, (_, i) => `a${i}`)]);

    const state = server.broker.transactions.get('kmc-tx-1')!;
    expect([state.fields.state, state.fields.partitions.size]).toEqual([5 /* CompleteAbort */, 0]);
  });

  it('on a simulated cluster of 3 brokers: the transaction, its partitions on three leaders and its offsets commit', async () => {
    const server = await startTestServer({ brokers: 3 });
    cleanups.push(() => server.stop());
    const brokers = server.cluster.brokers().map((b) => `${b.host}:${b.port}`);
    const kafka = new Kafka({ clientId: 'kmc-txn-cluster', brokers, logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 100 } });
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(() => admin.disconnect());
    await admin.createTopics({ topics: [{ topic: 'txn-out', numPartitions: 3 }, { topic: 'txn-in', numPartitions: 1 }] });
    const producer = kafka.producer({ transactionalId: 'kmc-tx-cluster', maxInFlightRequests: 1, idempotent: true });
    await producer.connect();
    cleanups.push(() => producer.disconnect());
    const txn = await producer.transaction();
    await txn.send({ topic: 'txn-out', messages: Array.from({ length: 9 }, (_, i) => ({ value: `c${i}`, partition: i % 3 })) });
    await txn.sendOffsets({ consumerGroupId: 'txn-cluster-app', topics: [{ topic: 'txn-in', partitions: [{ partition: 0, offset: '9' }] }] });
    await txn.commit();
    await server.broker.transactions.flush();
    expect(await admin.fetchOffsets({ groupId: 'txn-cluster-app', topics: ['txn-in'] })).toEqual([{ topic: 'txn-in', partitions: [{ partition: 0, offset: '9', metadata: null }] }]);
    // Each partition holds its 3 records and the COMMIT marker.
    expect((await admin.fetchTopicOffsets('txn-out')).map((p) => [p.partition, p.high]).sort()).toEqual([[0, '4'], [1, '4'], [2, '4']]);
    expect(server.broker.transactions.get('kmc-tx-cluster')!.fields.state).toBe(4 /* CompleteCommit */);
  });

  it('a second producer with the same transactional id fences the first', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    const kafka = kafkaClient(server.bootstrap, 'kmc-fence');
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(() => admin.disconnect());
    await admin.createTopics({ topics: [{ topic: 'fence-out', numPartitions: 1 }] });

    const first = kafka.producer({ transactionalId: 'kmc-fenced', maxInFlightRequests: 1, idempotent: true });
    await first.connect();
    cleanups.push(() => first.disconnect());
    const open = await first.transaction();
    await open.send({ topic: 'fence-out', messages: [{ value: 'zombie' }] });

    const second = kafka.producer({ transactionalId: 'kmc-fenced', maxInFlightRequests: 1, idempotent: true });
    await second.connect();
    cleanups.push(() => second.disconnect());
    const txn = await second.transaction();
    await txn.send({ topic: 'fence-out', messages: [{ value: 'alive' }] });
    await txn.commit();

    await expect(open.send({ topic: 'fence-out', messages: [{ value: 'zombie-2' }] })).rejects.toMatchObject({ type: 'INVALID_PRODUCER_EPOCH' });
    await server.broker.transactions.flush();
    expect(await consumeAll(kafka, 'fence-reader', false, 1, 'fence-out')).toEqual(['alive']);
  });
});

/** Consumes `topic` from the beginning in a new group until `count` values arrived. */
async function consumeAll(kafka: ReturnType<typeof kafkaClient>, groupId: string, readUncommitted: boolean, count: number, topic = 'txn-out'): Promise<string[]> {
  const consumer = kafka.consumer({ groupId, readUncommitted, maxWaitTimeInMs: 100, sessionTimeout: 10_000, heartbeatInterval: 300 });
  await consumer.connect();
  cleanups.push(() => consumer.disconnect());
  await consumer.subscribe({ topic, fromBeginning: true });
  const seen: string[] = [];
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
  await waitFor(() => seen.length >= count, 60_000, `${count} records of ${topic}`);
  await consumer.stop();
  return seen;
}
