/**
 * The transaction coordinator over raw requests against a real server (src/transactions): the
 * state machine and error codes of InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn,
 * TxnOffsetCommit, EndTxn, DescribeTransactions and ListTransactions, as Kafka 4.3's
 * `TransactionCoordinator` answers them; pending transactional offsets and OffsetFetch
 * requireStable; timeouts on the manual clock; `__transaction_state` across a restart.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { dumpLogFile } from '../../src/tools/dump-log.js';
import type { ServerHandle } from '../../src/index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function client(server: ServerHandle): Promise<RawClient> {
  const c = await RawClient.connect(server.port);
  cleanups.push(() => c.close());
  return c;
}

async function createTopic(c: RawClient, name: string, partitions: number): Promise<void> {
  const r = await c.send(19, 5, { topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  expect(r.topics[0]!.errorCode).toBe(0);
}

const init = (c: RawClient, transactionalId: string | null, timeoutMs = 60_000, version = 4, producerId = -1n, producerEpoch = -1) =>
  c.send(22, version, { transactionalId, transactionTimeoutMs: timeoutMs, producerId, producerEpoch, enable2Pc: false, keepPreparedTxn: false });

const addPartitions = (c: RawClient, version: number, transactionalId: string, producerId: bigint, producerEpoch: number, topics: Array<{ name: string; partitions: number[] }>) =>
  c.send(24, version, { transactions: [], v3AndBelowTransactionalId: transactionalId, v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch, v3AndBelowTopics: topics });

const partitionCodes = (r: { resultsByTopicV3AndBelow: Array<{ name: string; resultsByPartition: Array<{ partitionIndex: number; partitionErrorCode: number }> }> }) =>
  r.resultsByTopicV3AndBelow.flatMap((t) => t.resultsByPartition.map((p) => [t.name, p.partitionIndex, p.partitionErrorCode]));

const endTxn = (c: RawClient, version: number, transactionalId: string, producerId: bigint, producerEpoch: number, committed: boolean) =>
  c.send(26, version, { transactionalId, producerId, producerEpoch, committed });

/** AddPartitionsToTxn v5 adding (not verifying) one partition: transaction version 2. */
const addPartitionsV5 = (c: RawClient, transactionalId: string, producerId: bigint, producerEpoch: number, topic: string, verifyOnly = false) =>
  c.send(24, 5, {
    transactions: [{ transactionalId, producerId, producerEpoch, verifyOnly, topics: [{ name: topic, partitions: [0] }] }],
    v3AndBelowTransactionalId: '', v3AndBelowProducerId: 0n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [],
  });

const describeTxn = async (c: RawClient, id: string) => (await c.send(65, 0, { transactionalIds: [id] })).transactionStates[0]!;

const txnOffsetCommit = (c: RawClient, version: number, req: { transactionalId: string; groupId: string; producerId: bigint; producerEpoch: number; generationId?: number; memberId?: string }, topic: string, partition: number, offset: bigint) =>
  c.send(28, version, {
    transactionalId: req.transactionalId,
    groupId: req.groupId,
    producerId: req.producerId,
    producerEpoch: req.producerEpoch,
    generationId: req.generationId ?? -1,
    memberId: req.memberId ?? '',
    groupInstanceId: null,
    topics: [{ name: topic, partitions: [{ partitionIndex: partition, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: 'm' }] }],
  });

const fetchOffset = async (c: RawClient, groupId: string, topic: string, partition: number, requireStable: boolean) => {
  const r = await c.send(9, 7, { groupId, topics: [{ name: topic, partitionIndexes: [partition] }], groups: [], requireStable });
  const p = r.topics[0]!.partitions[0]!;
  return [p.committedOffset, p.errorCode];
};

describe('transaction coordinator (raw protocol)', () => {
  it('FindCoordinator creates __transaction_state; InitProducerId allocates, bumps and validates', async () => {
    const { server, dataDir } = await startClosableServer(cleanups);
    const c = await client(server);
    const fc = await c.send(10, 3, { key: 'txn-a', keyType: 1, coordinatorKeys: [] });
    expect([fc.errorCode, fc.nodeId, fc.port]).toEqual([0, 1, server.port]);
    expect(existsSync(join(dataDir, '__transaction_state-0'))).toBe(true);
    expect(existsSync(join(dataDir, '__transaction_state-49'))).toBe(true);
    // Listed by Metadata as an internal topic from then on.
    const md = await c.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    const txnTopic = md.topics.find((t) => t.name === '__transaction_state');
    expect([txnTopic?.isInternal, txnTopic?.partitions.length]).toEqual([true, 50]);

    const first = await init(c, 'txn-a');
    expect(first.errorCode).toBe(0);
    expect(first.producerEpoch).toBe(0);
    const second = await init(c, 'txn-a');
    expect([second.errorCode, second.producerId, second.producerEpoch]).toEqual([0, first.producerId, 1]);
    // Idempotent producers get a new id every time.
    const idem = await init(c, null);
    expect([idem.errorCode, idem.producerEpoch]).toEqual([0, 0]);
    expect(idem.producerId).not.toBe(first.producerId);

    expect((await init(c, 'txn-b', 900_001)).errorCode).toBe(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    expect((await init(c, 'txn-b', 0)).errorCode).toBe(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    expect((await init(c, '')).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    // KIP-360: the current id and epoch bump again; another id is fenced (INVALID_PRODUCER_EPOCH before v4).
    const kip360 = await init(c, 'txn-a', 60_000, 4, first.producerId, 1);
    expect([kip360.errorCode, kip360.producerEpoch]).toEqual([0, 2]);
    expect((await init(c, 'txn-a', 60_000, 4, first.producerId + 100n, 0)).errorCode).toBe(ErrorCode.PRODUCER_FENCED);
    expect((await init(c, 'txn-a', 60_000, 3, first.producerId + 100n, 0)).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect((await init(c, 'txn-a', 60_000, 4, first.producerId, -1)).errorCode).toBe(ErrorCode.INVALID_REQUEST);

    const d = await describeTxn(c, 'txn-a');
    expect(d).toMatchObject({ errorCode: 0, transactionState: 'Empty', producerId: first.producerId, producerEpoch: 2, transactionTimeoutMs: 60_000, transactionStartTimeMs: -1n, topics: [] });
    expect((await describeTxn(c, 'nope')).errorCode).toBe(ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
    expect((await describeTxn(c, '')).errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  it('ApiVersions finalizes transaction.version 2, unless the versions are capped below EndTxn v5', async () => {
    const features = async (server: ServerHandle, version = 4) => {
      const r = await (await client(server)).send(18, version, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' });
      const transactionVersion = <T extends { name: string }>(list: T[]) => list.filter((f) => f.name === 'transaction.version');
      return { supported: transactionVersion(r.supportedFeatures), finalized: transactionVersion(r.finalizedFeatures) };
    };
    const { server } = await startClosableServer(cleanups);
    expect(await features(server)).toEqual({
      supported: [{ name: 'transaction.version', minVersion: 0, maxVersion: 2 }],
      finalized: [{ name: 'transaction.version', maxVersionLevel: 2, minVersionLevel: 2 }],
    });
    // KIP-1022 (ApiVersionsResponse.maybeFilterSupportedFeatureKeys): below v4 a supported range
    // starting at 0 is left out; the finalized level is still given.
    expect(await features(server, 3)).toEqual({ supported: [], finalized: [{ name: 'transaction.version', maxVersionLevel: 2, minVersionLevel: 2 }] });
    const old = await startClosableServer(cleanups, { kafkaVersion: '3.9' });
    expect((await features(old.server)).finalized).toEqual([]);
  });

  it('on a simulated cluster, a broker that does not coordinate the transactional id answers NOT_COORDINATOR', async () => {
    const { server } = await startClosableServer(cleanups, { brokers: 3 });
    const c = await client(server);
    const fc = await c.send(10, 3, { key: 'txn-routed', keyType: 1, coordinatorKeys: [] });
    expect(fc.nodeId).toBe(server.broker.cluster.transactionCoordinatorOf('txn-routed'));
    const other = [...server.ports.keys()].find((id) => id !== fc.nodeId)!;
    const elsewhere = await RawClient.connect(server.ports.get(other)!);
    cleanups.push(() => elsewhere.close());
    expect((await init(elsewhere, 'txn-routed')).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect((await endTxn(elsewhere, 3, 'txn-routed', 0n, 0, true)).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    const coordinator = await RawClient.connect(fc.port);
    cleanups.push(() => coordinator.close());
    expect((await init(coordinator, 'txn-routed')).errorCode).toBe(0);
  });

  it('a transaction with offsets: AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit pending until EndTxn commits', async () => {
    const { server } = await startClosableServer(cleanups);
    const c = await client(server);
    await createTopic(c, 'tx-out', 2);
    const { producerId, producerEpoch } = await init(c, 'txn-c');

    expect(partitionCodes(await addPartitions(c, 3, 'txn-c', producerId, producerEpoch, [{ name: 'tx-out', partitions: [0, 5] }, { name: 'nope', partitions: [0] }]))).toEqual([
      ['tx-out', 0, ErrorCode.OPERATION_NOT_ATTEMPTED],
      ['tx-out', 5, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
      ['nope', 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    ]);
    expect(partitionCodes(await addPartitions(c, 3, 'txn-c', producerId + 1n, producerEpoch, [{ name: 'tx-out', partitions: [0] }]))).toEqual([['tx-out', 0, ErrorCode.INVALID_PRODUCER_ID_MAPPING]]);
    expect(partitionCodes(await addPartitions(c, 3, 'txn-c', producerId, producerEpoch + 1, [{ name: 'tx-out', partitions: [0] }]))).toEqual([['tx-out', 0, ErrorCode.PRODUCER_FENCED]]);
    expect(partitionCodes(await addPartitions(c, 1, 'txn-c', producerId, producerEpoch + 1, [{ name: 'tx-out', partitions: [0] }]))).toEqual([['tx-out', 0, ErrorCode.INVALID_PRODUCER_EPOCH]]);
    expect(partitionCodes(await addPartitions(c, 3, 'txn-c', producerId, producerEpoch, [{ name: 'tx-out', partitions: [0, 1] }]))).toEqual([
      ['tx-out', 0, 0],
      ['tx-out', 1, 0],
    ]);

    // TxnOffsetCommit before AddOffsetsToTxn: the group's partition is not in the transaction.
    const txn = { transactionalId: 'txn-c', groupId: 'tx-group', producerId, producerEpoch };
    expect((await txnOffsetCommit(c, 3, txn, 'tx-out', 0, 7n)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
    expect((await c.send(25, 3, { transactionalId: 'txn-c', producerId, producerEpoch, groupId: 'tx-group' })).errorCode).toBe(0);
    expect((await txnOffsetCommit(c, 3, { ...txn, generationId: 3 }, 'tx-out', 0, 7n)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect((await txnOffsetCommit(c, 3, txn, 'tx-out', 0, 7n)).topics[0]!.partitions[0]!.errorCode).toBe(0);

    // Pending: invisible, and UNSTABLE_OFFSET_COMMIT with requireStable.
    expect(await fetchOffset(c, 'tx-group', 'tx-out', 0, false)).toEqual([-1n, 0]);
    expect(await fetchOffset(c, 'tx-group', 'tx-out', 0, true)).toEqual([-1n, ErrorCode.UNSTABLE_OFFSET_COMMIT]);
    const ongoing = await describeTxn(c, 'txn-c');
    expect(ongoing.transactionState).toBe('Ongoing');
    expect(ongoing.topics.map((t) => [t.topic, [...t.partitions].sort()]).sort()).toEqual([
      ['__consumer_offsets', [server.broker.groupLog.partitionFor('tx-group')]],
      ['tx-out', [0, 1]],
    ]);

    // Committing twice in a row, or a commit after it, answers as Kafka's transaction version 1.
    expect((await endTxn(c, 3, 'txn-c', producerId, producerEpoch + 1, true)).errorCode).toBe(ErrorCode.PRODUCER_FENCED);
    expect((await endTxn(c, 1, 'txn-c', producerId, producerEpoch + 1, true)).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect((await endTxn(c, 3, 'txn-c', producerId, producerEpoch, true)).errorCode).toBe(0);
    await server.broker.transactions.flush();
    expect(await fetchOffset(c, 'tx-group', 'tx-out', 0, true)).toEqual([7n, 0]);
    expect((await describeTxn(c, 'txn-c')).transactionState).toBe('CompleteCommit');
    expect((await endTxn(c, 3, 'txn-c', producerId, producerEpoch, true)).errorCode).toBe(0);
    expect((await endTxn(c, 3, 'txn-c', producerId, producerEpoch, false)).errorCode).toBe(ErrorCode.INVALID_TXN_STATE);

    // An aborted transaction's offsets are dropped.
    await addPartitions(c, 3, 'txn-c', producerId, producerEpoch, [{ name: 'tx-out', partitions: [0] }]);
    await c.send(25, 3, { transactionalId: 'txn-c', producerId, producerEpoch, groupId: 'tx-group' });
    expect((await txnOffsetCommit(c, 3, txn, 'tx-out', 0, 9n)).topics[0]!.partitions[0]!.errorCode).toBe(0);
    expect((await endTxn(c, 3, 'txn-c', producerId, producerEpoch, false)).errorCode).toBe(0);
    await server.broker.transactions.flush();
    expect(await fetchOffset(c, 'tx-group', 'tx-out', 0, true)).toEqual([7n, 0]);
    expect((await describeTxn(c, 'txn-c')).transactionState).toBe('CompleteAbort');
    expect((await endTxn(c, 3, 'txn-c', producerId, producerEpoch, true)).errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
    expect((await endTxn(c, 3, 'txn-unknown', producerId, producerEpoch, true)).errorCode).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  });

  it('a new incarnation fences the old one: its open transaction is aborted (CONCURRENT_TRANSACTIONS, then a bumped epoch)', async () => {
    const { server } = await startClosableServer(cleanups);
    const c = await client(server);
    await createTopic(c, 'tx-fence', 1);
    const old = await init(c, 'txn-f');
    await addPartitions(c, 3, 'txn-f', old.producerId, old.producerEpoch, [{ name: 'tx-fence', partitions: [0] }]);
    expect((await init(c, 'txn-f')).errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    await server.broker.transactions.flush();
    const d = await describeTxn(c, 'txn-f');
    expect([d.transactionState, d.producerEpoch]).toEqual(['CompleteAbort', old.producerEpoch + 1]);
    const fresh = await init(c, 'txn-f');
    expect([fresh.errorCode, fresh.producerId, fresh.producerEpoch]).toEqual([0, old.producerId, old.producerEpoch + 2]);
    // The old producer: fenced everywhere (kafkajs-era versions get INVALID_PRODUCER_EPOCH).
    expect(partitionCodes(await addPartitions(c, 1, 'txn-f', old.producerId, old.producerEpoch, [{ name: 'tx-fence', partitions: [0] }]))).toEqual([['tx-fence', 0, ErrorCode.INVALID_PRODUCER_EPOCH]]);
    expect((await endTxn(c, 1, 'txn-f', old.producerId, old.producerEpoch, true)).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect((await c.send(25, 1, { transactionalId: 'txn-f', producerId: old.producerId, producerEpoch: old.producerEpoch, groupId: 'g' })).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
  });

  it('transaction version 2 (EndTxn v5): the epoch is bumped by every end, a retry with the old epoch answers NONE', async () => {
    const { server } = await startClosableServer(cleanups);
    const c = await client(server);
    await createTopic(c, 'tx-v2', 2);
    const { producerId, producerEpoch } = await init(c, 'txn-v2', 60_000, 5);
    expect((await endTxn(c, 5, 'txn-v2', producerId, producerEpoch, true)).errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
    // Version 2 may abort a transaction that added nothing (the client may have produced to partitions it never announced).
    const emptyAbort = await endTxn(c, 5, 'txn-v2', producerId, producerEpoch, false);
    expect([emptyAbort.errorCode, emptyAbort.producerId, emptyAbort.producerEpoch]).toEqual([0, producerId, producerEpoch + 1]);
    await server.broker.transactions.flush();
    const add = await c.send(24, 5, {
      transactions: [{ transactionalId: 'txn-v2', producerId, producerEpoch: producerEpoch + 1, verifyOnly: false, topics: [{ name: 'tx-v2', partitions: [0] }] }],
      v3AndBelowTransactionalId: '', v3AndBelowProducerId: 0n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [],
    });
    expect(add.resultsByTransaction[0]!.topicResults[0]!.resultsByPartition[0]!.partitionErrorCode).toBe(0);
    const verify = await c.send(24, 5, {
      transactions: [{ transactionalId: 'txn-v2', producerId, producerEpoch: producerEpoch + 1, verifyOnly: true, topics: [{ name: 'tx-v2', partitions: [0, 1] }] }],
      v3AndBelowTransactionalId: '', v3AndBelowProducerId: 0n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [],
    });
    expect(verify.resultsByTransaction[0]!.topicResults[0]!.resultsByPartition.map((p) => p.partitionErrorCode)).toEqual([0, ErrorCode.TRANSACTION_ABORTABLE]);
    // Partitions that do not exist are answered before the coordinator looks (Kafka's handler), verify-only too.
    const verifyCodes = async (topics: Array<{ name: string; partitions: number[] }>) =>
      (
        await c.send(24, 5, {
          transactions: [{ transactionalId: 'txn-v2', producerId, producerEpoch: producerEpoch + 1, verifyOnly: true, topics }],
          v3AndBelowTransactionalId: '', v3AndBelowProducerId: 0n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [],
        })
      ).resultsByTransaction[0]!.topicResults.flatMap((t) => t.resultsByPartition.map((p) => p.partitionErrorCode));
    expect(await verifyCodes([{ name: 'tx-v2-nope', partitions: [0] }])).toEqual([ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    expect(await verifyCodes([{ name: 'tx-v2', partitions: [0, 2] }])).toEqual([ErrorCode.OPERATION_NOT_ATTEMPTED, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    const commit = await endTxn(c, 5, 'txn-v2', producerId, producerEpoch + 1, true);
    expect([commit.errorCode, commit.producerEpoch]).toEqual([0, producerEpoch + 2]);
    await server.broker.transactions.flush();
    // The response was lost: the client retries with the epoch it had.
    const retry = await endTxn(c, 5, 'txn-v2', producerId, producerEpoch + 1, true);
    expect([retry.errorCode, retry.producerId, retry.producerEpoch]).toEqual([0, producerId, producerEpoch + 2]);
  });

  it('ListTransactions filters by state, producer id, duration and id pattern', async () => {
    const { server } = await startClosableServer(cleanups, { clock: 'manual' });
    const c = await client(server);
    await createTopic(c, 'tx-list', 1);
    const a = await init(c, 'list-a');
    const b = await init(c, 'list-b');
    await addPartitions(c, 3, 'list-a', a.producerId, a.producerEpoch, [{ name: 'tx-list', partitions: [0] }]);
    server.clock.advance(5_000);
    const list = async (body: Partial<{ stateFilters: string[]; producerIdFilters: bigint[]; durationFilter: bigint; transactionalIdPattern: string | null }>, version = 2) => {
      const r = await c.send(66, version, { stateFilters: [], producerIdFilters: [], durationFilter: -1n, transactionalIdPattern: null, ...body });
      return { errorCode: r.errorCode, unknown: r.unknownStateFilters, ids: r.transactionStates.map((t) => `${t.transactionalId}:${t.transactionState}`).sort() };
    };
    expect(await list({})).toEqual({ errorCode: 0, unknown: [], ids: ['list-a:Ongoing', 'list-b:Empty'] });
    expect(await list({ stateFilters: ['Ongoing', 'Bogus'] })).toEqual({ errorCode: 0, unknown: ['Bogus'], ids: ['list-a:Ongoing'] });
    expect(await list({ producerIdFilters: [b.producerId] })).toEqual({ errorCode: 0, unknown: [], ids: ['list-b:Empty'] });
    expect(await list({ durationFilter: 4_000n, stateFilters: ['Ongoing'] })).toEqual({ errorCode: 0, unknown: [], ids: ['list-a:Ongoing'] });
    expect(await list({ durationFilter: 6_000n, stateFilters: ['Ongoing'] })).toEqual({ errorCode: 0, unknown: [], ids: [] });
    expect(await list({ transactionalIdPattern: 'list-.' })).toEqual({ errorCode: 0, unknown: [], ids: ['list-a:Ongoing', 'list-b:Empty'] });
    expect(await list({ transactionalIdPattern: 'list-b' })).toEqual({ errorCode: 0, unknown: [], ids: ['list-b:Empty'] });
    expect((await list({ transactionalIdPattern: '(' })).errorCode).toBe(ErrorCode.INVALID_REGULAR_EXPRESSION);
  });

  it('a transaction older than its timeout is aborted with a fenced epoch (manual clock)', async () => {
    const { server } = await startClosableServer(cleanups, { clock: 'manual' });
    const c = await client(server);
    await createTopic(c, 'tx-timeout', 1);
    const p = await init(c, 'txn-t', 15_000);
    await addPartitions(c, 3, 'txn-t', p.producerId, p.producerEpoch, [{ name: 'tx-timeout', partitions: [0] }]);
    // The abort pass runs every 10 s: at 10 s the transaction is not yet 15 s old, at 20 s it is.
    server.clock.advance(10_000);
    await server.broker.transactions.flush();
    expect((await describeTxn(c, 'txn-t')).transactionState).toBe('Ongoing');
    server.clock.advance(10_000);
    await server.broker.transactions.flush();
    expect((await describeTxn(c, 'txn-t')).transactionState).toBe('CompleteAbort');
    expect((await describeTxn(c, 'txn-t')).producerEpoch).toBe(p.producerEpoch + 1);
    expect((await endTxn(c, 3, 'txn-t', p.producerId, p.producerEpoch, true)).errorCode).toBe(ErrorCode.PRODUCER_FENCED);
    // KIP-588: the producer recovers with InitProducerId(its id, its old epoch): the epoch the abort
    // gave, no further bump. Kafka 4.3.1 aborts with the cluster's transaction version (2), which
    // keeps the old epoch as the last one, whatever version the client began with (it answered
    // PRODUCER_FENCED here before; the same requests to a real broker: adversarial trial 24).
    const recovered = await init(c, 'txn-t', 15_000, 4, p.producerId, p.producerEpoch);
    expect([recovered.errorCode, recovered.producerId, recovered.producerEpoch]).toEqual([ErrorCode.NONE, p.producerId, p.producerEpoch + 1]);
    expect((await describeTxn(c, 'txn-t')).transactionState).toBe('Empty');
  });

  it('transaction version 2: a timed-out transaction is aborted with one epoch bump; the producer\'s abort is its retry (NONE), its commit INVALID_TXN_STATE', async () => {
    const { server } = await startClosableServer(cleanups, { clock: 'manual' });
    const c = await client(server);
    await createTopic(c, 'tx-timeout2', 1);
    const p = await init(c, 'txn-t2', 15_000, 5);
    const add = await addPartitionsV5(c, 'txn-t2', p.producerId, p.producerEpoch, 'tx-timeout2');
    expect(add.resultsByTransaction[0]!.topicResults[0]!.resultsByPartition[0]!.partitionErrorCode).toBe(0);
    // The abort pass runs every 10 s: at 20 s the transaction is older than its 15 s.
    for (let i = 0; i < 2; i++) {
      server.clock.advance(10_000);
      await server.broker.transactions.flush();
    }
    // Kafka 4.3: the fence's epoch is the abort's own version 2 bump (not a second one), the producer's epoch the last one.
    expect(await describeTxn(c, 'txn-t2')).toMatchObject({ transactionState: 'CompleteAbort', producerId: p.producerId, producerEpoch: p.producerEpoch + 1 });
    expect((await endTxn(c, 5, 'txn-t2', p.producerId, p.producerEpoch, true)).errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
    const abort = await endTxn(c, 5, 'txn-t2', p.producerId, p.producerEpoch, false);
    expect([abort.errorCode, abort.producerId, abort.producerEpoch]).toEqual([0, p.producerId, p.producerEpoch + 1]);
    // With the epoch it was given the producer goes on: an empty abort, then a transaction.
    const next = await endTxn(c, 5, 'txn-t2', p.producerId, p.producerEpoch + 1, false);
    expect([next.errorCode, next.producerEpoch]).toEqual([0, p.producerEpoch + 2]);
    await server.broker.transactions.flush();
    expect((await addPartitionsV5(c, 'txn-t2', p.producerId, p.producerEpoch + 2, 'tx-timeout2')).resultsByTransaction[0]!.topicResults[0]!.resultsByPartition[0]!.partitionErrorCode).toBe(0);
    const commit = await endTxn(c, 5, 'txn-t2', p.producerId, p.producerEpoch + 2, true);
    expect([commit.errorCode, commit.producerEpoch]).toEqual([0, p.producerEpoch + 3]);
  });

  it('transaction version 2: a new incarnation\'s fence aborts the open transaction with one epoch bump', async () => {
    const { server } = await startClosableServer(cleanups);
    const c = await client(server);
    await createTopic(c, 'tx-fence2', 1);
    const old = await init(c, 'txn-f2', 60_000, 5);
    await addPartitionsV5(c, 'txn-f2', old.producerId, old.producerEpoch, 'tx-fence2');
    expect((await init(c, 'txn-f2', 60_000, 5)).errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    await server.broker.transactions.flush();
    expect(await describeTxn(c, 'txn-f2')).toMatchObject({ transactionState: 'CompleteAbort', producerEpoch: old.producerEpoch + 1 });
    const fresh = await init(c, 'txn-f2', 60_000, 5);
    expect([fresh.errorCode, fresh.producerId, fresh.producerEpoch]).toEqual([0, old.producerId, old.producerEpoch + 2]);
  });

  it('transaction version 2: an EndTxn resent at once while its markers are written answers CONCURRENT_TRANSACTIONS, then NONE', async () => {
    const { server } = await startClosableServer(cleanups);
    const c = await client(server);
    await createTopic(c, 'tx-resend', 1);
    const p = await init(c, 'txn-resend', 60_000, 5);
    for (let round = 0; round < 5; round++) {
      const epoch = p.producerEpoch + round;
      expect((await addPartitionsV5(c, 'txn-resend', p.producerId, epoch, 'tx-resend')).resultsByTransaction[0]!.topicResults[0]!.resultsByPartition[0]!.partitionErrorCode).toBe(0);
      const first = await endTxn(c, 5, 'txn-resend', p.producerId, epoch, true);
      expect([first.errorCode, first.producerEpoch]).toEqual([0, epoch + 1]);
      // The response was lost: the same request again. While the markers are being written it is
      // CONCURRENT_TRANSACTIONS (Kafka's retriable answer; was PRODUCER_FENCED here), once they are
      // written a retry answered NONE: which one depends on how fast the marker writes finish, so
      // both are allowed, never a fence.
      const resent = await endTxn(c, 5, 'txn-resend', p.producerId, epoch, true);
      expect([[ErrorCode.CONCURRENT_TRANSACTIONS, -1n, -1], [ErrorCode.NONE, p.producerId, epoch + 1]]).toContainEqual([resent.errorCode, resent.producerId, resent.producerEpoch]);
      await server.broker.transactions.flush();
      const later = await endTxn(c, 5, 'txn-resend', p.producerId, epoch, true);
      expect([later.errorCode, later.producerId, later.producerEpoch]).toEqual([0, p.producerId, epoch + 1]);
    }
  });

  it('offsets retention keeps an offset a transaction is about to replace, and its group', async () => {
    const { server } = await startClosableServer(cleanups, { clock: 'manual', config: { 'offsets.retention.minutes': '1' } });
    const c = await client(server);
    await createTopic(c, 'tx-ret', 1);
    const commit = await c.send(8, 8, { groupId: 'ret-group', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'tx-ret', topicId: '', partitions: [{ partitionIndex: 0, committedOffset: 3n, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
    expect(commit.topics[0]!.partitions[0]!.errorCode).toBe(0);
    const { producerId, producerEpoch } = await init(c, 'txn-ret', 900_000);
    await c.send(25, 3, { transactionalId: 'txn-ret', producerId, producerEpoch, groupId: 'ret-group' });
    expect((await txnOffsetCommit(c, 3, { transactionalId: 'txn-ret', groupId: 'ret-group', producerId, producerEpoch }, 'tx-ret', 0, 5n)).topics[0]!.partitions[0]!.errorCode).toBe(0);
    server.clock.advance(120_000);
    expect(await server.broker.sweepExpiredOffsets()).toEqual({ expiredOffsets: 0, deletedGroups: [] });
    expect(await fetchOffset(c, 'ret-group', 'tx-ret', 0, false)).toEqual([3n, 0]);
    expect((await endTxn(c, 3, 'txn-ret', producerId, producerEpoch, false)).errorCode).toBe(0);
    await server.broker.transactions.flush();
    expect(await server.broker.sweepExpiredOffsets()).toEqual({ expiredOffsets: 1, deletedGroups: ['ret-group'] });
    expect(await fetchOffset(c, 'ret-group', 'tx-ret', 0, false)).toEqual([-1n, 0]);
  });

  it('transactional ids idle for transactional.id.expiration.ms are removed', async () => {
    const { server } = await startClosableServer(cleanups, { clock: 'manual', config: { 'transactional.id.expiration.ms': '60000', 'transaction.remove.expired.transaction.cleanup.interval.ms': '30000' } });
    const c = await client(server);
    await init(c, 'txn-x');
    server.clock.advance(30_000);
    expect((await describeTxn(c, 'txn-x')).errorCode).toBe(0);
    server.clock.advance(30_000);
    await server.broker.transactions.flush();
    expect((await describeTxn(c, 'txn-x')).errorCode).toBe(ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
  });

  it('__transaction_state survives a restart: states, epochs, and an open transaction', async () => {
    const first = await startClosableServer(cleanups);
    let c = await client(first.server);
    await createTopic(c, 'tx-restart', 1);
    const done = await init(c, 'txn-r1');
    await addPartitions(c, 3, 'txn-r1', done.producerId, done.producerEpoch, [{ name: 'tx-restart', partitions: [0] }]);
    await endTxn(c, 3, 'txn-r1', done.producerId, done.producerEpoch, true);
    const open = await init(c, 'txn-r2');
    await addPartitions(c, 3, 'txn-r2', open.producerId, open.producerEpoch, [{ name: 'tx-restart', partitions: [0] }]);
    await first.server.broker.transactions.flush();
    const partition = first.server.broker.transactionLog.partitionFor('txn-r1');
    await first.close();
    // Kafka's DumpLogSegments --transaction-log-decoder view of the id's records.
    const lines: string[] = [];
    dumpLogFile(join(first.dataDir, `__transaction_state-${partition}`, '00000000000000000000.log'), (l) => lines.push(l), (l) => lines.push(l), '__transaction_state');
    const records = lines.filter((l) => l.startsWith('| offset:')).map((l) => JSON.parse(l.slice(l.indexOf('payload: ') + 9)).data);
    expect(records.map((r) => [r.transactionStatus, r.producerEpoch, r.transactionPartitions])).toEqual([
      [0, 0, null],
      [1, 0, [{ topic: 'tx-restart', partitionIds: [0] }]],
      [2, 0, [{ topic: 'tx-restart', partitionIds: [0] }]],
      [4, 0, []],
    ]);

    const second = await startClosableServer(cleanups, { dataDir: first.dataDir });
    c = await client(second.server);
    expect(await describeTxn(c, 'txn-r1')).toMatchObject({ errorCode: 0, transactionState: 'CompleteCommit', producerId: done.producerId, producerEpoch: done.producerEpoch });
    const r2 = await describeTxn(c, 'txn-r2');
    expect(r2).toMatchObject({ errorCode: 0, transactionState: 'Ongoing', producerId: open.producerId, topics: [{ topic: 'tx-restart', partitions: [0] }] });
    const again = await init(c, 'txn-r1');
    expect([again.errorCode, again.producerId, again.producerEpoch]).toEqual([0, done.producerId, done.producerEpoch + 1]);
    // New producer ids are above the recovered ones.
    const idem = await init(c, null);
    expect(idem.producerId).toBeGreaterThan(open.producerId);
  });

  it('transactions timing out together are aborted in slices: a Kafka request sent once the pass began is answered before it ends', async () => {
    const { server } = await startClosableServer(cleanups, { clock: 'manual' });
    const c = await client(server);
    await createTopic(c, 'tx-many', 1);
    const OPEN = 600;
    for (let i = 0; i < OPEN; i++) {
      const p = await init(c, `txn-many-${i}`, 15_000);
      expect(partitionCodes(await addPartitions(c, 3, `txn-many-${i}`, p.producerId, p.producerEpoch, [{ name: 'tx-many', partitions: [0] }]))).toEqual([['tx-many', 0, 0]]);
    }
    const other = await client(server);
    // The abort pass runs every 10 s: at 20 s every transaction is older than its 15 s.
    server.clock.advance(10_000);
    await server.broker.transactions.flush();
    server.clock.advance(10_000);
    const order: string[] = [];
    // The pass the timer began (a call while one runs gets that one).
    const pass = server.broker.transactions.abortTimedOutTransactions().then((ids) => {
      order.push('pass');
      return ids;
    });
    expect((await other.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' })).errorCode).toBe(ErrorCode.NONE);
    order.push('ApiVersions');
    expect((await pass).length).toBe(OPEN);
    expect(order).toEqual(['ApiVersions', 'pass']);
    await server.broker.transactions.flush();
    expect((await describeTxn(c, `txn-many-${OPEN - 1}`)).transactionState).toBe('CompleteAbort');
  }, 60_000);

  it('a check called while a pass runs is not lost: a transaction the pass looked at before the clock passed its timeout is aborted by the pass that follows (a CI run, session 33)', async () => {
    const { server } = await startClosableServer(cleanups, { clock: 'manual' });
    const c = await client(server);
    await createTopic(c, 'tx-late', 1);
    // The late transaction first (the pass looks at it first), then enough ids for the pass to take two slices.
    const late = await init(c, 'txn-late', 15_000);
    expect(partitionCodes(await addPartitions(c, 3, 'txn-late', late.producerId, late.producerEpoch, [{ name: 'tx-late', partitions: [0] }]))).toEqual([['tx-late', 0, 0]]);
    for (let i = 0; i < 250; i++) await init(c, `txn-idle-${i}`, 15_000);
    server.clock.advance(10_000);
    await server.broker.transactions.flush();
    // A pass at 10 s: the late transaction (15 s) is not due. Before its second slice the clock moves
    // to 20 s, whose timer's check finds the pass running.
    const pass = server.broker.transactions.abortTimedOutTransactions();
    setImmediate(() => server.clock.advance(10_000));
    expect(await pass).toEqual([]);
    await server.broker.transactions.flush();
    expect((await describeTxn(c, 'txn-late')).transactionState).toBe('CompleteAbort');
  }, 60_000);
});
