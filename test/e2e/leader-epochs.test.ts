/**
 * Leader epochs (issue 15): every simulated leader change (moveLeader, a broker stopped and started)
 * gives the partition a new leader epoch, kept in its `leader-epoch-checkpoint`; Metadata and
 * stamped batches carry it; Fetch and ListOffsets answer FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH;
 * OffsetForLeaderEpoch answers each epoch's end offset; NOT_LEADER_OR_FOLLOWER carries KIP-951's
 * `currentLeader` and `nodeEndpoints`; a librdkafka consumer follows a leader move without losing or
 * repeating a record, validating its position with OffsetForLeaderEpoch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startClosableServer } from '../support/server.js';
import { kafkaClient, waitFor } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { python, runPythonClient, type PythonClientResult } from '../support/python.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { encodeRecordBatch, readBatchHeader } from '../../src/records/record-batch.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/messages/FetchRequest.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const batch = (...values: string[]) => encodeRecordBatch({ baseOffset: 0n, timestamp: 1000n, records: values.map((v) => ({ key: null, value: Buffer.from(v) })) });

describe('leader epochs', () => {
  it('bump on leader moves and broker stop/start, are answered by OffsetForLeaderEpoch, fence stale clients and survive a restart', async () => {
    const first = await startClosableServer(cleanups, { brokers: 3 });
    const { server } = first;
    server.broker.topics.create('le', 1);
    const leader0 = server.cluster.leaderOf('le', 0);
    const connect = async (id: number) => {
      const c = await RawClient.connect(server.ports.get(id)!);
      cleanups.push(() => c.close());
      return c;
    };
    const produce = (c: RawClient, version: number, ...values: string[]) =>
      c.send(0, version, { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: 'le', topicId: ZERO_UUID, partitionData: [{ index: 0, records: batch(...values) }] }] });
    const metadataEpoch = async (c: RawClient) => (await c.send(3, 12, { topics: [{ topicId: ZERO_UUID, name: 'le' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false })).topics[0]!.partitions[0]!;

    const c0 = await connect(leader0);
    expect((await produce(c0, 9, 'a', 'b')).responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    expect(await metadataEpoch(c0)).toMatchObject({ leaderId: leader0, leaderEpoch: 0 });

    const leader1 = leader0 === 3 ? 1 : leader0 + 1;
    server.cluster.moveLeader('le', 0, leader1);
    await waitFor(() => server.broker.topics.get('le')!.partition(0)!.leaderEpoch === 1, 5000, 'epoch 1');
    expect(await metadataEpoch(c0)).toMatchObject({ leaderId: leader1, leaderEpoch: 1 });

    // The old leader answers NOT_LEADER_OR_FOLLOWER with the new leader's id, epoch and endpoint.
    const stale = await produce(c0, 11, 'x');
    expect(stale.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, currentLeader: { leaderId: leader1, leaderEpoch: 1 } });
    expect(stale.nodeEndpoints).toEqual([{ nodeId: leader1, host: 'localhost', port: server.ports.get(leader1)!, rack: null }]);

    const c1 = await connect(leader1);
    expect((await produce(c1, 9, 'c')).responses[0]!.partitionResponses[0]!.baseOffset).toBe(2n);
    const fetch = (currentLeaderEpoch: number) => {
      const req = defaultFetchRequest();
      req.maxWaitMs = 0;
      req.topics = [{ topic: 'le', topicId: ZERO_UUID, partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset: 0n, currentLeaderEpoch, partitionMaxBytes: 1 << 20 }] }];
      return c1.send(1, 12, req);
    };
    expect((await fetch(0)).responses[0]!.partitions[0]).toMatchObject({ errorCode: ErrorCode.FENCED_LEADER_EPOCH, currentLeader: { leaderId: leader1, leaderEpoch: 1 } });
    expect((await fetch(2)).responses[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_LEADER_EPOCH);
    const ok = (await fetch(1)).responses[0]!.partitions[0]!;
    expect(ok.errorCode).toBe(0);
    // Batches carry the epoch of the leader that appended them.
    const epochs: number[] = [];
    for (let at = 0; at < ok.records!.length; ) {
      const h = readBatchHeader(Buffer.from(ok.records!.subarray(at)));
      epochs.push(h.partitionLeaderEpoch);
      at += h.batchLength + 12;
    }
    expect(epochs).toEqual([0, 1]);

    const olep = await c1.send(23, 4, { replicaId: -1, topics: [{ topic: 'le', partitions: [0, 1, 2].map((leaderEpoch) => ({ partition: 0, currentLeaderEpoch: 1, leaderEpoch })) }] });
    expect(olep.topics[0]!.partitions.map((p) => [p.errorCode, p.leaderEpoch, p.endOffset])).toEqual([[0, 0, 2n], [0, 1, 3n], [0, -1, -1n]]);
    const fenced = await c1.send(23, 4, { replicaId: -1, topics: [{ topic: 'le', partitions: [{ partition: 0, currentLeaderEpoch: 0, leaderEpoch: 0 }] }] });
    expect(fenced.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.FENCED_LEADER_EPOCH);

    // Stopping the leader moves leadership (epoch 2); starting it again brings it back (epoch 3).
    await server.cluster.stopBroker(leader1);
    expect(server.broker.topics.get('le')!.partition(0)!.leaderEpoch).toBe(2);
    await server.cluster.startBroker(leader1);
    const partition = server.broker.topics.get('le')!.partition(0)!;
    expect([server.cluster.leaderOf('le', 0), partition.leaderEpoch]).toEqual([leader1, 3]);
    const expectedEpoch = partition.leaderEpoch;
    // Epoch 2 had no records: epoch 3 starting at the same offset replaces it (LeaderEpochFileCache.assign),
    // so OffsetForLeaderEpoch answers epoch 2 with epoch 1 and epoch 3's start offset, as Kafka's cache does.
    const c3 = await connect(leader1);
    const noRecords = await c3.send(23, 4, { replicaId: -1, topics: [{ topic: 'le', partitions: [1, 2, 3].map((leaderEpoch) => ({ partition: 0, currentLeaderEpoch: -1, leaderEpoch })) }] });
    expect(noRecords.topics[0]!.partitions.map((p) => [p.errorCode, p.leaderEpoch, p.endOffset])).toEqual([[0, 1, 3n], [0, 1, 3n], [0, 3, 3n]]);
    await first.close();
    const checkpoint = readFileSync(join(first.dataDir, 'le-0', 'leader-epoch-checkpoint'), 'utf8').split('\n');
    expect(checkpoint).toEqual(['0', '3', '0 0', '1 2', '3 3', '']);

    // Leader moves are not kept across a restart: the leader goes back to its preferred broker,
    // and that leader change raises the epoch too (written before the server listens).
    const second = await startClosableServer(cleanups, { brokers: 3, dataDir: first.dataDir });
    expect([second.server.cluster.leaderOf('le', 0), second.server.broker.topics.get('le')!.partition(0)!.leaderEpoch]).toEqual([leader0, expectedEpoch + 1]);
    expect(readFileSync(join(first.dataDir, 'le-0', 'partition-leader'), 'utf8')).toBe(`${expectedEpoch + 1} ${leader0}\n`);
    await second.close();
    // Same leader at the next start: the same epoch.
    const third = await startClosableServer(cleanups, { brokers: 3, dataDir: first.dataDir });
    expect(third.server.broker.topics.get('le')!.partition(0)!.leaderEpoch).toBe(expectedEpoch + 1);
  });

  it('a new epoch is advertised only once its checkpoint is durable; batches stamped with it are acknowledged after; a restart after a crash mid-change never goes back', async () => {
    const first = await startClosableServer(cleanups, { brokers: 3 });
    const { server } = first;
    server.broker.topics.create('dur', 1);
    const partition = server.broker.topics.get('dur')!.partition(0)!;
    const leader0 = server.cluster.leaderOf('dur', 0);
    const other = leader0 === 3 ? 1 : leader0 + 1;
    const checkpointEpochs = () => readFileSync(join(first.dataDir, 'dur-0', 'leader-epoch-checkpoint'), 'utf8').trim().split('\n').slice(2).map((l) => Number(l.split(' ')[0]));
    const c = await RawClient.connect(server.ports.get(other)!);
    cleanups.push(() => c.close());
    const metadataEpoch = async () => (await c.send(3, 12, { topics: [{ topicId: ZERO_UUID, name: 'dur' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false })).topics[0]!.partitions[0]!.leaderEpoch;

    // A move writes the new epoch before the new leader is seen; a broker stop stages the epochs of
    // the partitions it moves and advertises them once durable.
    // (Here the new partition's first checkpoint write may still be running, so the move stages its epoch.)
    server.cluster.moveLeader('dur', 0, other);
    await waitFor(() => partition.leaderEpoch === 1, 5000, 'epoch 1');
    // Epoch 1 starts at offset 0 where epoch 0 did (no records yet): LeaderEpochFileCache.assign drops epoch 0.
    expect(checkpointEpochs()).toEqual([1]);
    const produced = await c.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: 'dur', topicId: ZERO_UUID, partitionData: [{ index: 0, records: batch('a') }] }] });
    expect(produced.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 0n });
    expect(checkpointEpochs()).toEqual([1]);
    expect(await metadataEpoch()).toBe(1);
    expect(readFileSync(join(first.dataDir, 'dur-0', 'partition-leader'), 'utf8')).toBe(`1 ${other}\n`);
    await first.close();

    // A crash after the batch but before the checkpoint (as kill -9 during a leader change leaves
    // it): the epoch found in the batches is kept, and the leader differs from the recorded one
    // (the move is gone), so the start raises the epoch past it.
    writeFileSync(join(first.dataDir, 'dur-0', 'leader-epoch-checkpoint'), '0\n1\n0 0\n');
    const second = await startClosableServer(cleanups, { brokers: 3, dataDir: first.dataDir });
    expect(second.server.broker.topics.get('dur')!.partition(0)!.leaderEpoch).toBe(2);
    // Epoch 0 never had a record (epoch 1 starts at offset 0), so it goes, as LeaderEpochFileCache.assign drops it.
    expect(checkpointEpochs()).toEqual([1, 2]);
  });
});

interface MoveResult extends PythonClientResult {
  values: string[];
}

describe.skipIf(python === null)('librdkafka across a leader move', () => {
  it('reads every record once, validating its position with OffsetForLeaderEpoch', async () => {
    const { server } = await startClosableServer(cleanups, { brokers: 3 });
    const kafka = kafkaClient(server.bootstrap, 'lm-producer');
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(async () => { await admin.disconnect(); });
    await admin.createTopics({ topics: [{ topic: 'moving', numPartitions: 1 }] });
    const producer = kafka.producer();
    await producer.connect();
    cleanups.push(async () => { await producer.disconnect(); });
    await producer.send({ topic: 'moving', messages: Array.from({ length: 5 }, (_, i) => ({ value: `v${i}`, partition: 0 })) });

    const running = runPythonClient<MoveResult>('librdkafka_leader_move.py', [join(HERE, 'clients', 'librdkafka_leader_move.py'), '--bootstrap', server.bootstrap, '--topic', 'moving', '--count', '10'], 90_000);
    const fetchesFromClient = () => server.faults.requests({ clientId: 'librdkafka-leader-move' }).filter((r) => r.api === 'Fetch').length;
    await waitFor(() => fetchesFromClient() >= 2, 30_000, 'librdkafka to fetch');
    const from = server.cluster.leaderOf('moving', 0);
    server.cluster.moveLeader('moving', 0, from === 3 ? 1 : from + 1);
    await producer.send({ topic: 'moving', messages: Array.from({ length: 5 }, (_, i) => ({ value: `v${5 + i}`, partition: 0 })) });
    const result = await running;
    expect(result.values).toEqual(Array.from({ length: 10 }, (_, i) => `v${i}`));
    const apis = server.faults.requests({ clientId: 'librdkafka-leader-move' }).map((r) => [r.api, r.error]);
    // Told by the old leader (NOT_LEADER_OR_FOLLOWER) or, after a metadata refresh, by the new one
    // (FENCED_LEADER_EPOCH: its epoch was stale); then it validates its position.
    expect(apis.some(([api, error]) => api === 'Fetch' && (error === 'NOT_LEADER_OR_FOLLOWER' || error === 'FENCED_LEADER_EPOCH'))).toBe(true);
    expect(apis.some(([api, error]) => api === 'OffsetForLeaderEpoch' && error === null)).toBe(true);
  });
});
