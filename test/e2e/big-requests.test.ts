/**
 * Big requests do not stall the others (issue #16). Each test shows it by order of events, never by
 * time: another connection's request is answered while the big one is still being worked on.
 * - CreateTopics opens a topic's partitions in slices (`TopicStore.createInSlices`), CreatePartitions
 *   its new ones (`TopicStore.addPartitions`): a Metadata request sent while the partitions open is
 *   answered before the CreateTopics (CreatePartitions).
 * - DeleteTopics removes a topic's partitions' files in slices (`TopicStore.deleteInSlices`): the
 *   topic is gone at once (a Metadata request sent meanwhile is answered, without it, before the
 *   DeleteTopics), and a CreateTopics of the same name meanwhile gets fresh, empty partitions.
 * - A manual clock advanced ten years (the most POST /clock/advance takes) runs the periodic
 *   maintenance timers once per stretch, not once per period, in slices (`ManualTime.advanceInSlices`).
 * - `connections.max.idle.ms` closes connections idle that long, on the (manual) server clock.
 * - `queued.max.request.bytes`: while one connection's request holds the whole pool, another
 *   connection is not read; it is answered once that request has been.
 * - Kafka's cap on partitions per CreateTopics (`ReplicationControlManager.MAX_PARTITIONS_PER_BATCH`,
 *   10,000): above it every topic of the request fails with POLICY_VIOLATION, nothing is created.
 * - A request frame of `DECODE_IN_SLICES_BYTES` or more is decoded, handled (OffsetCommit's checks)
 *   and answered in slices: another connection's request is answered while it is in slices
 *   (`server.connections.inSlices`). An OffsetCommit whose records cannot fit one batch
 *   (`message.max.bytes`) is refused before they are built, as Kafka's runtime does. An OffsetFetch
 *   naming that many partitions, a DescribeGroups or DescribeTransactions that many ids, are answered in slices too, and a
 *   TxnOffsetCommit's topic checks run in slices before the transaction coordinator is asked.
 */
import { readdirSync } from 'node:fs';
import type { CreatableTopic } from '../../src/protocol/messages/CreateTopicsRequest.js';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { CREATE_SLICE_PARTITIONS, DELETE_SLICE_PARTITIONS } from '../../src/topics/topic-store.js';
import { DECODE_IN_SLICES_BYTES } from '../../src/server/request-codec.js';
import { createTopics, metadata, offsetCommit, topic, watchCall } from '../support/big-requests.js';
import { produce } from '../support/raw-transactions.js';
import { rawBatch, record, recordBody } from '../support/raw-records.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/messages/FetchRequest.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('big requests', () => {
  it('CreateTopics opens thousands of partitions in slices: another connection is answered meanwhile', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    const partitions = CREATE_SLICE_PARTITIONS * 8;
    const order: string[] = [];
    const created = big.send(19, 7, createTopics([topic('big-topic', partitions)])).then((r) => {
      order.push('CreateTopics');
      return r;
    });
    // The request is being worked on (its first slices are open). Checked once per turn of the loop.
    while (!server.broker.topics.isBeingCreated('big-topic') && order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const meta = await other.send(3, 12, metadata(['big-topic']));
    order.push('Metadata');
    // Not visible until every partition is open: the topic does not exist yet for this request.
    expect(meta.topics.map((t) => [t.name, t.errorCode])).toEqual([['big-topic', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]);
    // Nor can it be created a second time meanwhile.
    const twice = await other.send(19, 7, createTopics([topic('big-topic', 1)]));
    expect(twice.topics.map((t) => t.errorCode)).toEqual([ErrorCode.TOPIC_ALREADY_EXISTS]);
    const res = await created;
    expect(order).toEqual(['Metadata', 'CreateTopics']);
    expect(res.topics.map((t) => [t.name, t.errorCode, t.numPartitions])).toEqual([['big-topic', ErrorCode.NONE, partitions]]);
    expect(server.broker.topics.get('big-topic')!.partitionCount).toBe(partitions);
    expect(server.broker.topics.isBeingCreated('big-topic')).toBe(false);
  });

  it('an OffsetCommit of 200,000 partitions is worked on in slices: another connection is answered meanwhile; too big for one batch, nothing is committed', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    expect((await big.send(19, 7, createTopics([topic('wide', 1000)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const partitions = Array.from({ length: 1000 }, (_, i) => ({ partitionIndex: i, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: '' }));
    const order: string[] = [];
    const committed = big.send(8, 8, offsetCommit('g-big', Array.from({ length: 200 }, () => ({ name: 'wide', partitions })))).then((r) => {
      order.push('big');
      return r;
    });
    // The request is in slices (its decoding has begun). Checked once per turn of the loop.
    while (server.connections.inSlices !== 1 && order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const small = await other.send(8, 8, offsetCommit('g-small', [{ name: 'wide', partitions: [{ ...partitions[3]!, committedOffset: 42n }] }]));
    order.push('small');
    expect(small.topics.map((t) => t.partitions.map((p) => [p.partitionIndex, p.errorCode]))).toEqual([[[3, ErrorCode.NONE]]]);
    const res = await committed;
    expect(order).toEqual(['small', 'big']);
    expect(server.connections.inSlices).toBe(0);
    // About 43 bytes per record at least, 8.6 MB: over message.max.bytes (1048588). Kafka's runtime
    // throws RecordTooLargeException, answered as UNKNOWN_SERVER_ERROR on every partition.
    const codes = new Set(res.topics.flatMap((t) => t.partitions.map((p) => p.errorCode)));
    expect(res.topics.length).toBe(200);
    expect(res.topics.reduce((n, t) => n + t.partitions.length, 0)).toBe(200_000);
    expect([...codes]).toEqual([ErrorCode.UNKNOWN_SERVER_ERROR]);
    const fetched = await other.send(9, 8, { groups: [{ groupId: 'g-big', memberId: null, memberEpoch: -1, topics: null }, { groupId: 'g-small', memberId: null, memberEpoch: -1, topics: null }], groupId: '', topics: [], requireStable: false });
    expect(fetched.groups.map((g) => [g.groupId, g.topics.flatMap((t) => t.partitions.map((p) => [t.name, p.partitionIndex, p.committedOffset]))])).toEqual([
      ['g-big', []],
      ['g-small', [['wide', 3, 42n]]],
    ]);
  });

  it('an OffsetCommit of 5,000 partitions that fits one batch is decoded and checked in slices and committed', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const c = await RawClient.connect(server.port);
    cleanups.push(() => c.close());
    expect((await c.send(19, 7, createTopics([topic('five-k', 5000)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const partitions = Array.from({ length: 5000 }, (_, i) => ({ partitionIndex: i, committedOffset: BigInt(i) * 10n, committedLeaderEpoch: 3, committedMetadata: i % 1000 === 0 ? `meta-${i}` : '' }));
    // More than DECODE_IN_SLICES_BYTES on the wire: decoded in slices.
    expect(5000 * (4 + 8 + 4 + 1 + 1)).toBeGreaterThan(DECODE_IN_SLICES_BYTES);
    const res = await c.send(8, 9, offsetCommit('g-5k', [{ name: 'five-k', partitions }, { name: 'no-such-topic', partitions: [partitions[0]!] }]));
    expect(res.topics.map((t) => [t.name, t.partitions.length, [...new Set(t.partitions.map((p) => p.errorCode))]])).toEqual([
      ['five-k', 5000, [ErrorCode.NONE]],
      ['no-such-topic', 1, [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]],
    ]);
    const fetched = await c.send(9, 8, { groups: [{ groupId: 'g-5k', memberId: null, memberEpoch: -1, topics: null }], groupId: '', topics: [], requireStable: false });
    const got = fetched.groups[0]!.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, epoch: p.committedLeaderEpoch, metadata: p.metadata })));
    got.sort((a, b) => a.partition - b.partition);
    expect(got.length).toBe(5000);
    expect(got[0]).toEqual({ topic: 'five-k', partition: 0, offset: 0n, epoch: 3, metadata: 'meta-0' });
    expect(got[4999]).toEqual({ topic: 'five-k', partition: 4999, offset: 49990n, epoch: 3, metadata: '' });
    expect(got.filter((g) => g.metadata !== '').map((g) => g.partition)).toEqual([0, 1000, 2000, 3000, 4000]);
  });

  it('an OffsetFetch of 200,000 partitions is answered in slices: another connection commits and is answered meanwhile', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    expect((await other.send(19, 7, createTopics([topic('fetched', 3)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const commit = (partitionIndex: number, committedOffset: bigint) => offsetCommit('g-fetch', [{ name: 'fetched', partitions: [{ partitionIndex, committedOffset, committedLeaderEpoch: 4, committedMetadata: `m${committedOffset}` }] }]);
    expect((await other.send(8, 8, commit(1, 11n))).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    const fetchState = watchCall(server.broker.groups, 'fetchOffsets');
    const partitionIndexes = Array.from({ length: 200_000 }, (_, i) => i);
    const order: string[] = [];
    const fetched = big.send(9, 7, { groupId: 'g-fetch', topics: [{ name: 'fetched', partitionIndexes }], groups: [], requireStable: true }).then((r) => {
      order.push('big');
      return r;
    });
    // Decoded (in slices); the coordinator's fetch has begun and not ended. Checked once per turn.
    while (!fetchState.called && order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect([fetchState.called, fetchState.settled]).toEqual([true, false]);
    const small = await other.send(8, 8, commit(2, 22n));
    order.push('small');
    expect(small.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode])).toEqual([[2, ErrorCode.NONE]]);
    const res = await fetched;
    expect(order).toEqual(['small', 'big']);
    expect(fetchState.settled).toBe(true);
    expect(res.errorCode).toBe(ErrorCode.NONE);
    expect(res.topics.length).toBe(1);
    const parts = res.topics[0]!.partitions;
    expect(parts.length).toBe(200_000);
    expect(parts.every((p, i) => p.partitionIndex === i && p.errorCode === ErrorCode.NONE)).toBe(true);
    // Partition 2 was committed while the fetch ran, after partition 2's slice (the first).
    expect(parts.slice(0, 4).map((p) => [p.partitionIndex, p.committedOffset, p.committedLeaderEpoch, p.metadata])).toEqual([
      [0, -1n, -1, ''],
      [1, 11n, 4, 'm11'],
      [2, -1n, -1, ''],
      [3, -1n, -1, ''],
    ]);
    expect(parts.slice(3).every((p) => p.committedOffset === -1n && p.committedLeaderEpoch === -1 && p.metadata === '')).toBe(true);
  });

  it('a DescribeGroups of 200,000 ids is answered in slices: another connection commits and is answered meanwhile', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    expect((await other.send(19, 7, createTopics([topic('described', 1)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const commit = (groupId: string) => offsetCommit(groupId, [{ name: 'described', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }] }]);
    expect((await other.send(8, 8, commit('g-1'))).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    const describeState = watchCall(server.broker.groups, 'describeGroups');
    const ids = Array.from({ length: 200_000 }, (_, i) => `g-${i}`);
    const order: string[] = [];
    const described = big.send(15, 5, { groups: ids, includeAuthorizedOperations: false }).then((r) => {
      order.push('big');
      return r;
    });
    // Decoded (in slices); the coordinator's describe has begun and not ended. Checked once per turn.
    while (!describeState.called && order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect([describeState.called, describeState.settled]).toEqual([true, false]);
    const small = await other.send(8, 8, commit('g-2'));
    order.push('small');
    expect(small.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode])).toEqual([[0, ErrorCode.NONE]]);
    const res = await described;
    expect(order).toEqual(['small', 'big']);
    expect(describeState.settled).toBe(true);
    expect(res.groups.length).toBe(200_000);
    expect(res.groups.every((g, i) => g.groupId === `g-${i}` && g.errorCode === ErrorCode.NONE)).toBe(true);
    // g-1 had committed offsets before (a classic group, Empty); g-2 committed while the
    // describe ran, after the first slice had described it.
    expect(res.groups.slice(0, 4).map((g) => [g.groupId, g.groupState])).toEqual([
      ['g-0', 'Dead'],
      ['g-1', 'Empty'],
      ['g-2', 'Dead'],
      ['g-3', 'Dead'],
    ]);
  });

  it('a TxnOffsetCommit of 200,000 partitions is checked in slices: another connection is answered before the transaction is asked', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    expect((await other.send(19, 7, createTopics([topic('txn-wide', 1000)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const handler = watchCall(server.broker.groups, 'commitTransactionalOffsets');
    const verify = watchCall(server.broker.transactions, 'verify');
    const partitions = Array.from({ length: 1000 }, (_, i) => ({ partitionIndex: i, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: '' }));
    const order: string[] = [];
    // No such producer: the transaction coordinator's verification fails every partition, once the checks are done.
    const txnCommit = { transactionalId: 'no-such-txn', groupId: 'g-txn', producerId: 4242n, producerEpoch: 0, generationId: -1, memberId: '', groupInstanceId: null, topics: Array.from({ length: 200 }, () => ({ name: 'txn-wide', partitions })) };
    const committed = big.send(28, 3, txnCommit).then((r) => {
      order.push('big');
      return r;
    });
    // Decoded (in slices); the handler has begun its checks and not yet asked the transaction coordinator.
    while (!handler.called && order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect([handler.called, verify.called]).toEqual([true, false]);
    const small = await other.send(8, 8, offsetCommit('g-small', [{ name: 'txn-wide', partitions: [{ ...partitions[3]!, committedOffset: 42n }] }]));
    order.push('small');
    expect(small.topics.map((t) => t.partitions.map((p) => [p.partitionIndex, p.errorCode]))).toEqual([[[3, ErrorCode.NONE]]]);
    const res = await committed;
    expect(order).toEqual(['small', 'big']);
    expect(verify.called).toBe(true);
    expect(res.topics.length).toBe(200);
    expect(res.topics.reduce((n, t) => n + t.partitions.length, 0)).toBe(200_000);
    expect([...new Set(res.topics.flatMap((t) => t.partitions.map((p) => p.errorCode)))]).toEqual([ErrorCode.INVALID_PRODUCER_ID_MAPPING]);
  });

  it("a transaction's markers over thousands of partitions are appended in slices: another connection is answered before the last is written", async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const other = await RawClient.connect(server.port);
    cleanups.push(() => other.close());
    const partitions = 3000;
    expect((await other.send(19, 7, createTopics([topic('marked', partitions)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const order: string[] = [];
    const refs = Array.from({ length: partitions }, (_, partition) => ({ topic: 'marked', partition }));
    const marker = { producerId: 77n, producerEpoch: 0, coordinatorEpoch: 0, commit: false, transactionVersion: 0 };
    const written = server.broker.txnMarkers.write(marker, refs).then((results) => {
      order.push('markers');
      return results;
    });
    expect((await other.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' })).errorCode).toBe(ErrorCode.NONE);
    order.push('ApiVersions');
    const results = await written;
    expect(order).toEqual(['ApiVersions', 'markers']);
    // Every partition got its marker, in the order asked.
    expect(results.map((r) => [r.partition, r.errorCode])).toEqual(refs.map((r) => [r.partition, ErrorCode.NONE]));
    expect(server.broker.topics.get('marked')!.partition(partitions - 1)!.logEndOffset).toBe(1n);
  });

  it('a DescribeTransactions of 200,000 ids is answered in slices: another connection is answered meanwhile', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    const initProducerId = (transactionalId: string) => ({ transactionalId, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
    expect((await other.send(22, 4, initProducerId('t-1'))).errorCode).toBe(ErrorCode.NONE);
    const lookups = watchCall(server.broker.transactions, 'get');
    const ids = Array.from({ length: 200_000 }, (_, i) => `t-${i}`);
    const order: string[] = [];
    const described = big.send(65, 0, { transactionalIds: ids }).then((r) => {
      order.push('big');
      return r;
    });
    // Decoded (in slices); the handler has looked up its first ids, not all. Checked once per turn.
    while (lookups.calls === 0 && order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(lookups.calls).toBeGreaterThan(0);
    expect(lookups.calls).toBeLessThan(200_000);
    const small = await other.send(22, 4, initProducerId('t-2'));
    order.push('small');
    expect(small.errorCode).toBe(ErrorCode.NONE);
    const res = await described;
    expect(order).toEqual(['small', 'big']);
    expect(res.transactionStates.length).toBe(200_000);
    // t-1 existed before; t-2 was made while the request ran, after the first slice had looked it up.
    expect(res.transactionStates.slice(0, 4).map((t) => [t.transactionalId, t.errorCode, t.transactionState])).toEqual([
      ['t-0', ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, ''],
      ['t-1', ErrorCode.NONE, 'Empty'],
      ['t-2', ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, ''],
      ['t-3', ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, ''],
    ]);
    expect(res.transactionStates.slice(4).every((t) => t.errorCode === ErrorCode.TRANSACTIONAL_ID_NOT_FOUND)).toBe(true);
  });

  it('CreatePartitions opens the new partitions in slices: another connection is answered meanwhile, a second growth waits for the first', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    const third = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close(), () => third.close());
    expect((await big.send(19, 7, createTopics([topic('grown', 1)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const count = 1 + CREATE_SLICE_PARTITIONS * 8;
    const order: string[] = [];
    const grown = big.send(37, 3, { topics: [{ name: 'grown', count, assignments: null }], timeoutMs: 30000, validateOnly: false }).then((r) => {
      order.push('CreatePartitions');
      return r;
    });
    while (!server.broker.topics.isGrowing('grown') && order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    // A second growth to the same count: checked once the first is done, so the topic has that many already.
    const again = third.send(37, 3, { topics: [{ name: 'grown', count, assignments: null }], timeoutMs: 30000, validateOnly: false });
    const meta = await other.send(3, 12, metadata(['grown']));
    order.push('Metadata');
    // The new partitions are not visible until all are open.
    expect(meta.topics.map((t) => [t.name, t.errorCode, t.partitions.length])).toEqual([['grown', ErrorCode.NONE, 1]]);
    const res = await grown;
    expect(order).toEqual(['Metadata', 'CreatePartitions']);
    expect(res.results.map((r) => [r.name, r.errorCode])).toEqual([['grown', ErrorCode.NONE]]);
    expect((await again).results.map((r) => [r.name, r.errorCode, r.errorMessage])).toEqual([['grown', ErrorCode.INVALID_PARTITIONS, `Topic already has ${count} partition(s).`]]);
    expect(server.broker.topics.get('grown')!.partitionCount).toBe(count);
    expect(server.broker.topics.isGrowing('grown')).toBe(false);
  });

  it('DeleteTopics removes thousands of partitions in slices: another connection is answered meanwhile; a new topic of the name gets fresh partitions', async () => {
    const { server, dataDir } = await startClosableServer(cleanups);
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    const third = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close(), () => third.close());
    const partitions = DELETE_SLICE_PARTITIONS * 6;
    expect((await big.send(19, 7, createTopics([topic('doomed', partitions)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const dirs = () => readdirSync(dataDir).filter((d) => d.startsWith('doomed-'));
    expect(dirs()).toHaveLength(partitions);
    const order: string[] = [];
    const deleted = big.send(20, 5, { topicNames: ['doomed'], topics: [], timeoutMs: 30000 }).then((r) => {
      order.push('DeleteTopics');
      return r;
    });
    while (!server.broker.topics.isBeingDeleted('doomed') && order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const meta = await other.send(3, 12, metadata(['doomed']));
    order.push('Metadata');
    // Gone for every other request from the first slice on.
    expect(meta.topics.map((t) => [t.name, t.errorCode])).toEqual([['doomed', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]);
    // Created again (with the files left removed first, if the deletion is still under way).
    const recreated = third.send(19, 7, createTopics([topic('doomed', 2)]));
    const res = await deleted;
    expect(order).toEqual(['Metadata', 'DeleteTopics']);
    expect(res.responses.map((r) => [r.name, r.errorCode])).toEqual([['doomed', ErrorCode.NONE]]);
    expect((await recreated).topics.map((t) => [t.name, t.errorCode, t.numPartitions])).toEqual([['doomed', ErrorCode.NONE, 2]]);
    expect(server.broker.topics.get('doomed')!.partitionCount).toBe(2);
    expect(server.broker.topics.isBeingDeleted('doomed')).toBe(false);
    expect(dirs().sort()).toEqual(['doomed-0', 'doomed-1']);
    // The marker that makes a start finish an interrupted deletion is gone once the deletion is done.
    expect(readdirSync(dataDir).filter((f) => f.startsWith('kmc-pending-creation.'))).toEqual([]);
    expect(readdirSync(`${dataDir}/doomed-0`).filter((f) => f.endsWith('.log'))).toEqual(['00000000000000000000.log']);
  });

  it("more than 10,000 partitions in one CreateTopics: POLICY_VIOLATION for every topic, as Kafka's controller", async () => {
    const { server, dataDir } = await startClosableServer(cleanups, { config: { 'num.partitions': 4 } });
    const c = await RawClient.connect(server.port);
    cleanups.push(() => c.close());
    const tooMany = await c.send(19, 7, createTopics([topic('cap-a', 9_997), topic('cap-b', -1)]));
    // Configs an empty list, not null, as a 4.3.1 broker answers (differential trial).
    expect(tooMany.topics.map((t: { name: string; errorCode: number; errorMessage: string | null; numPartitions: number; configs: unknown }) => [t.name, t.errorCode, t.errorMessage, t.numPartitions, t.configs])).toEqual([
      ['cap-a', ErrorCode.POLICY_VIOLATION, 'Excessively large number of partitions per request.', -1, []],
      ['cap-b', ErrorCode.POLICY_VIOLATION, 'Excessively large number of partitions per request.', -1, []],
    ]);
    expect(server.broker.topics.get('cap-a')).toBeUndefined();
    expect(readdirSync(dataDir).filter((d) => d.startsWith('cap-'))).toEqual([]);
    // Invalid counts count for nothing (Kafka adds only positive ones and -1 as num.partitions): 9,994 + 4 partitions and
    // two TopicRecords are 10,000 metadata records, which fit.
    const atCap = await c.send(19, 7, { ...createTopics([topic('cap-c', 9_994), topic('cap-d', -1), topic('cap-e', 0)]), validateOnly: true });
    expect(atCap.topics.map((t: { name: string; errorCode: number }) => [t.name, t.errorCode])).toEqual([
      ['cap-c', ErrorCode.NONE],
      ['cap-d', ErrorCode.NONE],
      ['cap-e', ErrorCode.INVALID_PARTITIONS],
    ]);
  });

  it("more than 10,000 metadata records in one CreateTopics (a TopicRecord, ConfigRecords, PartitionRecords): POLICY_VIOLATION for every topic, as Kafka 4.3.1's controller", async () => {
    const { server, dataDir } = await startClosableServer(cleanups, { config: { 'num.partitions': 1 } });
    const c = await RawClient.connect(server.port);
    cleanups.push(() => c.close());
    const withConfig = (name: string, n: number) => ({ ...topic(name, n), configs: [{ name: 'retention.ms', value: '1000' }] });
    const answer = async (topics: CreatableTopic[], validateOnly: boolean) =>
      (await c.send(19, 7, { topics, timeoutMs: 60000, validateOnly })).topics.map((t: { name: string; errorCode: number; errorMessage: string | null; numPartitions: number }) => [
        t.name,
        t.errorCode,
        t.errorMessage,
        t.numPartitions,
      ]);
    const refused = (name: string) => [name, ErrorCode.POLICY_VIOLATION, 'Unable to perform excessively large batch operation.', -1];
    // Kafka 4.3.1 answers exactly these (test/conformance probe, session 8): 10,000 partitions pass the partition cap
    // but are 10,001 records; so are 9,999 partitions with one config; validateOnly builds the records too.
    expect(await answer([topic('rec-a', 10_000)], false)).toEqual([refused('rec-a')]);
    expect(await answer([topic('rec-a', 10_000)], true)).toEqual([refused('rec-a')]);
    expect(await answer([withConfig('rec-b', 9_999)], false)).toEqual([refused('rec-b')]);
    expect(await answer([topic('rec-c', 4_999), topic('rec-d', 4_999), topic('rec-e', 1)], false)).toEqual([refused('rec-c'), refused('rec-d'), refused('rec-e')]);
    expect(server.broker.topics.get('rec-a')).toBeUndefined();
    expect(readdirSync(dataDir).filter((d) => d.startsWith('rec-'))).toEqual([]);
    // At the cap: 10,000 records. A topic that fails its own checks writes none (its replication factor here).
    expect(await answer([topic('rec-a', 9_999)], true)).toEqual([['rec-a', ErrorCode.NONE, null, 9_999]]);
    expect(await answer([withConfig('rec-b', 9_998)], true)).toEqual([['rec-b', ErrorCode.NONE, null, 9_998]]);
    const badFactor = { ...topic('rec-f', 1), replicationFactor: 5 };
    const mixed = await answer([topic('rec-c', 4_999), topic('rec-d', 4_999), badFactor], true);
    expect(mixed.map(([name, code]) => [name, code])).toEqual([['rec-c', ErrorCode.NONE], ['rec-d', ErrorCode.NONE], ['rec-f', ErrorCode.INVALID_REPLICATION_FACTOR]]);
  });

  it("more than 10,000 new partitions in one CreatePartitions: the topic that crosses the controller's record cap and those after it get UNKNOWN_SERVER_ERROR, as Kafka 4.3.1", async () => {
    const { server, dataDir } = await startClosableServer(cleanups, { config: { 'num.partitions': 1 } });
    const c = await RawClient.connect(server.port);
    cleanups.push(() => c.close());
    expect((await c.send(19, 7, createTopics([topic('grow-x', 1), topic('grow-y', 1), topic('grow-z', 1)]))).topics.map((t: { errorCode: number }) => t.errorCode)).toEqual([0, 0, 0]);
    const grow = async (topics: Array<[string, number]>, validateOnly: boolean) =>
      (await c.send(37, 3, { topics: topics.map(([name, count]) => ({ name, count, assignments: null })), timeoutMs: 30000, validateOnly })).results.map(
        (r: { name: string; errorCode: number; errorMessage: string | null }) => [r.name, r.errorCode, r.errorMessage],
      );
    // 10,001 new partitions: Kafka 4.3.1 answers -1 with no message (validateOnly too).
    expect(await grow([['grow-x', 10_002]], true)).toEqual([['grow-x', ErrorCode.UNKNOWN_SERVER_ERROR, null]]);
    expect(await grow([['grow-x', 10_002]], false)).toEqual([['grow-x', ErrorCode.UNKNOWN_SERVER_ERROR, null]]);
    // Several topics share the cap: the one that crosses it fails, and so does every later one that adds a partition;
    // a topic failing its own checks uses none.
    expect(await grow([['grow-x', 5_001], ['grow-y', 1], ['grow-y2', 3], ['grow-z', 5_002], ['grow-z2', 2]], true)).toEqual([
      ['grow-x', ErrorCode.NONE, null],
      ['grow-y', ErrorCode.INVALID_PARTITIONS, 'Topic already has 1 partition(s).'],
      ['grow-y2', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null],
      ['grow-z', ErrorCode.UNKNOWN_SERVER_ERROR, null],
      ['grow-z2', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null],
    ]);
    expect(await grow([['grow-x', 2], ['grow-z', 10_001], ['grow-y', 2]], true)).toEqual([
      ['grow-x', ErrorCode.NONE, null],
      ['grow-z', ErrorCode.UNKNOWN_SERVER_ERROR, null],
      ['grow-y', ErrorCode.UNKNOWN_SERVER_ERROR, null],
    ]);
    expect(['grow-x', 'grow-y', 'grow-z'].map((name) => server.broker.topics.get(name)!.partitionCount)).toEqual([1, 1, 1]);
    expect(readdirSync(dataDir).filter((d) => d.startsWith('grow-')).sort()).toEqual(['grow-x-0', 'grow-y-0', 'grow-z-0']);
    // Exactly 10,000 new partitions fit.
    expect(await grow([['grow-x', 10_001]], true)).toEqual([['grow-x', ErrorCode.NONE, null]]);
  });

  it('POST /clock/advance of ten years: the maintenance timers run once each, and the Kafka port keeps answering', async () => {
    const YEAR = 365 * 24 * 3600 * 1000;
    const start = 1_700_000_000_000;
    // Without the cleaners: the offsets log's reschedules itself when its asynchronous pass ends,
    // which may fall between two slices of the advance (then it runs once more); so does the
    // transactional id expiry, which finds nothing to expire here and ends at once.
    const { server } = await startClosableServer(cleanups, { inMemory: true, clock: 'manual', clockStartMs: start, adminPort: 0, config: { 'log.cleaner.enable': false } });
    // The offsets retention check, the log retention check, the producer expiration check and the
    // transaction coordinator's two (no connection open).
    expect(server.clock.pendingTimers()).toBe(5);
    const res = await fetch(`${server.admin!.url}/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ms: 10 * YEAR }) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { now: number; firedTimers: number; pendingTimers: number };
    expect(body.now).toBe(start + 10 * YEAR);
    expect(body.firedTimers).toBe(5);
    const c = await RawClient.connect(server.port);
    cleanups.push(() => c.close());
    const versions = await c.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' });
    expect(versions.errorCode).toBe(ErrorCode.NONE);
  });

  it('connections.max.idle.ms: a connection without requests for that long is closed, on the server clock', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, clock: 'manual', config: { 'connections.max.idle.ms': 60_000 } });
    const idle = await RawClient.connect(server.port);
    const busy = await RawClient.connect(server.port);
    cleanups.push(() => idle.close(), () => busy.close());
    const apiVersions = { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' };
    expect((await idle.send(18, 3, apiVersions)).errorCode).toBe(ErrorCode.NONE);
    expect((await busy.send(18, 3, apiVersions)).errorCode).toBe(ErrorCode.NONE);
    server.clock.advance(59_999);
    // A request just before the limit keeps `busy` open for another 60 s.
    expect((await busy.send(18, 3, apiVersions)).errorCode).toBe(ErrorCode.NONE);
    const idleClosed = new Promise<void>((resolve) => idle.socket.once('close', () => resolve()));
    server.clock.advance(1);
    await idleClosed;
    expect(idle.closed).toBe(true);
    expect(busy.closed).toBe(false);
    expect((await busy.send(18, 3, apiVersions)).errorCode).toBe(ErrorCode.NONE);
    const busyClosed = new Promise<void>((resolve) => busy.socket.once('close', () => resolve()));
    server.clock.advance(60_000);
    await busyClosed;
    expect(busy.closed).toBe(true);
  });

  it('connections.max.idle.ms: a connection whose answer is still being taken by its client is not idle; one whose answer stopped moving is', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, clock: 'manual', config: { 'connections.max.idle.ms': 60_000 } });
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    // 32 partitions of a ~1 MB batch each: a 32 MB Fetch answer, more than loopback's socket buffers hold.
    const partitions = 32;
    expect((await raw.send(19, 7, createTopics([topic('slow-read', partitions)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const value = Buffer.alloc(1_000_000, 1);
    for (let p = 0; p < partitions; p++) expect((await produce(raw, 'slow-read', null, rawBatch(record(recordBody({ value })), 1), p)).errorCode).toBe(ErrorCode.NONE);
    const fetch = defaultFetchRequest();
    fetch.maxWaitMs = 0;
    fetch.maxBytes = 64 << 20;
    fetch.topics = [{ topic: 'slow-read', topicId: ZERO_UUID, partitions: Array.from({ length: partitions }, (_, partition) => ({ ...defaultFetchPartition(), partition, partitionMaxBytes: 2 << 20 })) }];
    // The client stops reading as soon as the answer starts to arrive.
    raw.socket.once('data', () => raw.socket.pause());
    void raw.send(1, 11, fetch).catch(() => {});
    while (!server.faults.requests({ api: 'Fetch' }).some((e) => e.outcome === 'response')) await new Promise((resolve) => setImmediate(resolve));
    expect(server.connections.open).toBe(1);
    // The first look finds the answer on its way (bytes left since the write began): not idle.
    server.clock.advance(60_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(server.connections.open).toBe(1);
    // Once the kernel's buffers are full a look finds it where the last one did: the client stopped
    // taking it, the connection is idle (a look or two more while those buffers still fill). The
    // paused client does not see the close: the server's count does.
    let looks = 1;
    while (server.connections.open === 1 && looks < 10) {
      server.clock.advance(60_000);
      looks++;
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(server.connections.open).toBe(0);
    expect(looks).toBeLessThan(10);
  });

  it('queued.max.request.bytes: a request holding the whole pool stops the reading of other connections until it is answered', async () => {
    const cap = 100_000;
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { 'socket.request.max.bytes': cap, 'queued.max.request.bytes': cap } });
    const a = await FrameSocket.connect(server.port);
    const b = await FrameSocket.connect(server.port);
    cleanups.push(() => a.close(), () => b.close());
    // A: a small ApiVersions, then the first 4 bytes (the size prefix) of one as big as a request may be.
    const big = apiVersionsV3(2, cap);
    a.write(Buffer.concat([apiVersionsV3(1, 64), big.subarray(0, 4)]));
    // Answered, so the server went on to the next prefix: the big request holds the pool (cap + 4 bytes).
    expect(await a.response()).toEqual({ correlationId: 1, errorCode: ErrorCode.NONE });
    const order: string[] = [];
    const bAnswered = b.response().then((r) => {
      order.push('B');
      return r;
    });
    b.write(apiVersionsV3(7, 64));
    // B's request arrives and finds the pool used up: B is not read on.
    while (server.connections.waitingForMemory !== 1 && order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    // The rest of A's request: it is answered, its memory comes back, and B is read and answered.
    a.write(big.subarray(4));
    expect(await a.response()).toEqual({ correlationId: 2, errorCode: ErrorCode.NONE });
    order.push('A');
    expect(await bAnswered).toEqual({ correlationId: 7, errorCode: ErrorCode.NONE });
    expect(order).toEqual(['A', 'B']);
    expect(server.connections.waitingForMemory).toBe(0);
  });

  it('queued.max.request.bytes below socket.request.max.bytes is refused at start, as Kafka does', async () => {
    await expect(startClosableServer(cleanups, { inMemory: true, config: { 'queued.max.request.bytes': 1000 } })).rejects.toThrow(
      'must be larger or equal to socket.request.max.bytes',
    );
  });
});

/**
 * An ApiVersions v3 request frame of exactly `frameBytes` bytes (size prefix included), padded by
 * an unknown tagged field of its body (skipped, as Kafka skips one): a client software name that
 * long would be malformed (a request string holds at most 32,767 bytes).
 */
function apiVersionsV3(correlationId: number, frameBytes: number): Buffer {
  const clientId = Buffer.from('big');
  const headerBytes = 2 + 2 + 4 + 2 + clientId.length + 1;
  // Name "kmc" and version "1" (compact), one tagged field: tag 0, its size, its bytes.
  const frameLength = (n: number) => 4 + headerBytes + 4 + 2 + 1 + 1 + uvarintBytes(n) + n;
  let n = frameBytes - 4 - headerBytes - 9;
  while (frameLength(n) > frameBytes) n--;
  const out = Buffer.alloc(frameLength(n));
  let o = 0;
  o = out.writeInt32BE(out.length - 4, o);
  o = out.writeInt16BE(18, o);
  o = out.writeInt16BE(3, o);
  o = out.writeInt32BE(correlationId, o);
  o = out.writeInt16BE(clientId.length, o);
  o += clientId.copy(out, o);
  out[o++] = 0; // header tagged fields
  out[o++] = 4; // client software name "kmc"
  o += out.write('kmc', o);
  out[o++] = 2; // client software version "1"
  out[o++] = 0x31;
  out[o++] = 1; // body tagged fields: one
  out[o++] = 0; // its tag
  o = writeUvarint(out, o, n);
  out.fill('a', o, o + n);
  o += n;
  expect(o).toBe(out.length);
  return out;
}

function uvarintBytes(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v >>>= 7;
    n++;
  }
  return n;
}

function writeUvarint(buf: Buffer, offset: number, v: number): number {
  while (v >= 0x80) {
    buf[offset++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[offset++] = v;
  return offset;
}

/** A socket that writes raw bytes and reads response frames: correlation id and the error code that starts an ApiVersions body. */
class FrameSocket {
  private buffered = Buffer.alloc(0);
  private readonly frames: Buffer[] = [];
  private readonly waiters: Array<(frame: Buffer) => void> = [];

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4 && this.buffered.length >= 4 + this.buffered.readInt32BE(0)) {
        const frame = this.buffered.subarray(4, 4 + this.buffered.readInt32BE(0));
        this.buffered = this.buffered.subarray(4 + frame.length);
        const waiter = this.waiters.shift();
        if (waiter) waiter(frame);
        else this.frames.push(frame);
      }
    });
    socket.on('error', () => {});
  }

  static async connect(port: number): Promise<FrameSocket> {
    const socket = connect({ port, host: '127.0.0.1' });
    await once(socket, 'connect');
    return new FrameSocket(socket);
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  async response(): Promise<{ correlationId: number; errorCode: number }> {
    const frame = this.frames.shift() ?? (await new Promise<Buffer>((resolve) => this.waiters.push(resolve)));
    return { correlationId: frame.readInt32BE(0), errorCode: frame.readInt16BE(4) };
  }

  close(): void {
    this.socket.destroy();
  }
}
