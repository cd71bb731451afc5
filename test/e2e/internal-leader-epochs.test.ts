/**
 * The batches our coordinators write to `__consumer_offsets` and `__transaction_state` carry their
 * partition's leader epoch, as Kafka 4.3.1's leader log stamps it on append
 * (`UnifiedLog.appendAsLeader(records, leaderEpoch)`): 0 on a single broker (a real broker's
 * `kafka-dump-log` of `__consumer_offsets-0` shows `partitionLeaderEpoch: 0`, not -1), and the new
 * epoch once the cluster simulation moved the partition's leader (its coordinator) to another
 * broker. The committed offsets' own `committedLeaderEpoch` is another field and stays the client's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startClosableServer } from '../support/server.js';
import { kafkaClient, waitFor } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { initProducer } from '../support/raw-transactions.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/messages/FetchRequest.js';
import { defaultOffsetFetchRequest } from '../../src/protocol/messages/OffsetFetchRequest.js';
import { readBatchHeader, CONTROL_FLAG_MASK } from '../../src/records/record-batch.js';
import { dumpLogFile } from '../../src/tools/dump-log.js';
import { TxnState } from '../../src/transactions/transaction-state.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The batch header lines dump-log prints for every non-empty segment of `topic`'s partitions. */
function dumpedBatches(dataDir: string, topic: string): string[] {
  const lines: string[] = [];
  for (const dir of readdirSync(dataDir).filter((d) => d.startsWith(`${topic}-`))) {
    for (const file of readdirSync(join(dataDir, dir)).filter((f) => f.endsWith('.log'))) {
      const path = join(dataDir, dir, file);
      if (statSync(path).size > 0) dumpLogFile(path, (l) => lines.push(l));
    }
  }
  return lines.filter((l) => l.startsWith('baseOffset: '));
}

const epochOf = (line: string): number => Number(/ partitionLeaderEpoch: (-?\d+) /.exec(line)![1]);

async function connect(port: number): Promise<RawClient> {
  const raw = await RawClient.connect(port);
  cleanups.push(() => raw.close());
  return raw;
}

/** A standalone OffsetCommit (v9) of `offset` with the client's `committedLeaderEpoch`. */
async function commit(raw: RawClient, groupId: string, topic: string, offset: bigint, committedLeaderEpoch: number): Promise<number> {
  const res = await raw.send(8, 9, {
    groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
    topics: [{ name: topic, topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch, committedMetadata: '' }] }],
  });
  return res.topics[0]!.partitions[0]!.errorCode;
}

/** Each batch of one internal partition, read by Fetch: [partitionLeaderEpoch, control?]. */
async function fetchedEpochs(raw: RawClient, topic: string, partition: number): Promise<Array<[number, boolean]>> {
  const req = defaultFetchRequest();
  req.maxWaitMs = 0;
  req.topics = [{ topic, topicId: ZERO_UUID, partitions: [{ ...defaultFetchPartition(), partition, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }];
  const res = await raw.send(1, 12, req);
  const p = res.responses[0]!.partitions[0]!;
  expect(p.errorCode).toBe(ErrorCode.NONE);
  const out: Array<[number, boolean]> = [];
  const records = Buffer.from(p.records!);
  for (let at = 0; at < records.length; ) {
    const h = readBatchHeader(records, at);
    out.push([h.partitionLeaderEpoch, (h.attributes & CONTROL_FLAG_MASK) !== 0]);
    at += h.batchLength + 12;
  }
  return out;
}

describe('leader epochs of the internal topics', () => {
  it('a commit, a transaction with offsets and its markers: every __consumer_offsets and __transaction_state batch carries epoch 0; committedLeaderEpoch is the client\'s', async () => {
    const { server, close, dataDir } = await startClosableServer(cleanups);
    const kafka = kafkaClient(server.bootstrap, 'kmc-internal-epochs');
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(() => admin.disconnect());
    await admin.createTopics({ topics: [{ topic: 'ie-in', numPartitions: 1 }, { topic: 'ie-out', numPartitions: 1 }] });

    const raw = await connect(server.port);
    expect(await commit(raw, 'ie-plain', 'ie-in', 7n, 5)).toBe(ErrorCode.NONE);
    const fetched = await raw.send(9, 8, { ...defaultOffsetFetchRequest(), groups: [{ groupId: 'ie-plain', memberId: null, memberEpoch: -1, topics: [{ name: 'ie-in', topicId: ZERO_UUID, partitionIndexes: [0] }] }], requireStable: true });
    expect(fetched.groups[0]!.topics[0]!.partitions[0]).toMatchObject({ partitionIndex: 0, committedOffset: 7n, committedLeaderEpoch: 5, errorCode: ErrorCode.NONE });

    const producer = kafka.producer({ transactionalId: 'ie-tx', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    cleanups.push(() => producer.disconnect());
    const txn = await producer.transaction();
    await txn.send({ topic: 'ie-out', messages: [{ partition: 0, value: 'a' }] });
    await txn.sendOffsets({ consumerGroupId: 'ie-txn', topics: [{ topic: 'ie-in', partitions: [{ partition: 0, offset: '3' }] }] });
    await txn.commit();
    // The markers are written after EndTxn answers; the transaction is complete once they are.
    await waitFor(() => server.broker.transactions.get('ie-tx')?.state === TxnState.COMPLETE_COMMIT, 10000, 'transaction complete');
    await producer.disconnect();
    await close();

    const offsets = dumpedBatches(dataDir, '__consumer_offsets');
    // The plain commit, the transactional offsets and their COMMIT marker.
    expect(offsets).toHaveLength(3);
    expect(offsets.filter((l) => l.includes('isTransactional: true isControl: true'))).toHaveLength(1);
    expect(offsets.filter((l) => l.includes('isTransactional: true isControl: false'))).toHaveLength(1);
    expect(offsets.map(epochOf)).toEqual([0, 0, 0]);
    const txnLog = dumpedBatches(dataDir, '__transaction_state');
    // Empty (InitProducerId), Ongoing (one partition, then two), PrepareCommit, CompleteCommit.
    expect(txnLog.length).toBeGreaterThanOrEqual(4);
    expect(new Set(txnLog.map(epochOf))).toEqual(new Set([0]));
  });

  it('a broker stop moves a coordinator to another broker: its partitions\' next batches carry the new leader epoch', async () => {
    const { server } = await startClosableServer(cleanups, { brokers: 3 });
    server.broker.topics.create('ie-moved', 1);
    const group = 'ie-group';
    const offsetsPartition = server.broker.cluster.offsetsPartitionOf(group);
    const before = server.cluster.coordinatorOf(group);
    expect(await commit(await connect(server.ports.get(before)!), group, 'ie-moved', 1n, -1)).toBe(ErrorCode.NONE);

    const txCoordinator = server.cluster.transactionCoordinatorOf('ie-moved-tx');
    await initProducer(await connect(server.ports.get(txCoordinator)!), 'ie-moved-tx');
    const txnPartition = server.broker.transactionLog.partitionFor('ie-moved-tx');

    await server.cluster.stopBroker(before);
    if (txCoordinator !== before) await server.cluster.stopBroker(txCoordinator);
    const after = server.cluster.coordinatorOf(group);
    const txAfter = server.cluster.transactionCoordinatorOf('ie-moved-tx');
    expect([after === before, txAfter === txCoordinator]).toEqual([false, false]);
    expect(server.broker.topics.get('__consumer_offsets')!.partition(offsetsPartition)!.leaderEpoch).toBe(1);
    expect(server.broker.topics.get('__transaction_state')!.partition(txnPartition)!.leaderEpoch).toBe(1);

    const moved = await connect(server.ports.get(after)!);
    expect(await commit(moved, group, 'ie-moved', 2n, -1)).toBe(ErrorCode.NONE);
    expect(await fetchedEpochs(moved, '__consumer_offsets', offsetsPartition)).toEqual([[0, false], [1, false]]);
    // A second InitProducerId bumps the producer epoch: one more record, at the new leader epoch.
    const txMoved = await connect(server.ports.get(txAfter)!);
    await initProducer(txMoved, 'ie-moved-tx');
    expect(await fetchedEpochs(txMoved, '__transaction_state', txnPartition)).toEqual([[0, false], [1, false]]);
  });
});
