/**
 * A Produce with acks=0 over a real socket, as `KafkaApis.handleProduceRequest` answers it (checked
 * against Kafka 4.3.1 by the differential trial of 2026-12-06): no answer when every partition
 * succeeded, the connection kept; a closed connection when one failed (an unknown topic, a batch
 * whose CRC is wrong, a fault rule's error, a transactional batch without a transactional id), the
 * other partitions of the request appended all the same.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { batchOf, createTopic } from '../support/raw-transactions.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import type { ServerHandle } from '../../src/index.js';

const plain = (prefix: string) => batchOf({ producerId: -1n, producerEpoch: -1, baseSequence: -1, count: 1, transactional: false, prefix });

function acks0(partitions: Array<{ topic: string; index: number; records: Buffer }>, transactionalId: string | null = null) {
  return {
    transactionalId,
    acks: 0,
    timeoutMs: 10_000,
    topicData: partitions.map((p) => ({ name: p.topic, topicId: ZERO_UUID, partitionData: [{ index: p.index, records: p.records }] })),
  };
}

describe('Produce with acks=0', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  const client = (server: ServerHandle): Promise<RawClient> => RawClient.connectCleaned(server.port, cleanups);
  const logEnd = (server: ServerHandle, topic: string, partition: number) => server.broker.topics.get(topic)!.partition(partition)!.logEndOffset;

  it('answers nothing when every partition succeeds, and the connection serves the next request', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const c = await client(server);
    await createTopic(c, 'a0', 2);
    c.sendUnanswered(0, 9, acks0([{ topic: 'a0', index: 0, records: plain('x') }, { topic: 'a0', index: 1, records: plain('y') }]));
    // The next answer on this connection is the Metadata's: the Produce got none, and the connection stayed open.
    const md = await c.send(3, 12, { topics: [{ topicId: ZERO_UUID, name: 'a0' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(md.topics.map((t) => [t.name, t.errorCode, t.partitions.length])).toEqual([['a0', 0, 2]]);
    expect([logEnd(server, 'a0', 0), logEnd(server, 'a0', 1)]).toEqual([1n, 1n]);
    expect(c.closed).toBe(false);
  });

  it('closes the connection when a partition fails; the request\'s other partitions are appended', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const admin = await client(server);
    await createTopic(admin, 'a0', 2);

    const unknown = await client(server);
    unknown.sendUnanswered(0, 9, acks0([{ topic: 'a0', index: 0, records: plain('kept') }, { topic: 'no-such-topic', index: 0, records: plain('lost') }]));
    await unknown.waitClosed();
    expect(logEnd(server, 'a0', 0)).toBe(1n);

    const corrupt = plain('bad');
    corrupt.writeUInt8(corrupt.readUInt8(corrupt.length - 1) ^ 1, corrupt.length - 1); // the CRC no longer matches
    const badCrc = await client(server);
    badCrc.sendUnanswered(0, 9, acks0([{ topic: 'a0', index: 1, records: corrupt }]));
    await badCrc.waitClosed();
    expect(logEnd(server, 'a0', 1)).toBe(0n);

    // A transactional batch without a transactional id fails the whole request (TRANSACTIONAL_ID_AUTHORIZATION_FAILED).
    const txn = await client(server);
    txn.sendUnanswered(0, 9, acks0([{ topic: 'a0', index: 1, records: batchOf({ producerId: 7n, producerEpoch: 0, baseSequence: 0, count: 1, transactional: true }) }]));
    await txn.waitClosed();
    expect(logEnd(server, 'a0', 1)).toBe(0n);

    // Every connection but the ones that failed is still served.
    const md = await admin.send(3, 12, { topics: [{ topicId: ZERO_UUID, name: 'a0' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(md.topics.map((t) => [t.name, t.errorCode])).toEqual([['a0', 0]]);
    expect(admin.closed).toBe(false);
  });

  it('a fault rule\'s error on an acks=0 Produce closes the connection, as a real failure would', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const admin = await client(server);
    await createTopic(admin, 'a0', 1);
    const rule = server.faults.add({ match: { api: 'Produce', topic: 'a0' }, action: { type: 'error', error: 'NOT_LEADER_OR_FOLLOWER' } });
    const c = await client(server);
    c.sendUnanswered(0, 9, acks0([{ topic: 'a0', index: 0, records: plain('x') }]));
    await c.waitClosed();
    expect(rule.fired).toBe(1);
    expect(logEnd(server, 'a0', 0)).toBe(0n);
  });
});
