/**
 * The share coordinator's calls that name thousands of share partitions (InitializeShareGroupState
 * on a share group's first heartbeat, DeleteShareGroupState, ReadShareGroupStateSummary) work in
 * slices and batches (issue #16 item 5): one operation per `__share_group_state` partition that
 * decides DECIDE_PER_SLICE share partitions per turn of the event loop and appends up to
 * RECORDS_PER_APPEND records per batch, as Kafka's coordinator runtime gathers a partition's
 * records into a batch; ShareFetch and ShareAcknowledge work on SHARE_SLICE_PARTITIONS partitions
 * per turn. Shown by order of events and by the batches in the log, never by time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { createTopics, nextTurn, topic, watchCall } from '../support/big-requests.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { DECIDE_PER_SLICE, RECORDS_PER_APPEND } from '../../src/share/state/share-coordinator.js';
import { SHARE_BUDGET_EVERY, SHARE_SLICE_PARTITIONS } from '../../src/share/share-request-checks.js';
import { SHARE_TEST_CONFIG } from '../support/share-group.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { randomUUID } from 'node:crypto';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The batches of a log's bytes: [base offset, record count] each. */
function batchesOf(chunks: Buffer[]): Array<[bigint, number]> {
  const bytes = Buffer.concat(chunks);
  const out: Array<[bigint, number]> = [];
  for (let at = 0; at < bytes.length; at += 12 + bytes.readInt32BE(at + 8)) out.push([bytes.readBigInt64BE(at), bytes.readInt32BE(at + 57)]);
  return out;
}

describe('share state in slices', () => {
  it(`initializing 3 topics of ${DECIDE_PER_SLICE} partitions in one call decides them in slices (another connection is answered first) and appends ${RECORDS_PER_APPEND} records per batch`, async () => {
    // One `__share_group_state` partition: every share partition's state goes to the same one.
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { 'share.coordinator.state.topic.num.partitions': '1' } });
    const other = await RawClient.connect(server.port);
    cleanups.push(() => other.close());
    const names = ['s-a', 's-b', 's-c'];
    expect((await other.send(19, 7, createTopics(names.map((n) => topic(n, DECIDE_PER_SLICE))))).topics.map((t) => t.errorCode)).toEqual([0, 0, 0]);
    const topicIds = names.map((n) => server.broker.topics.get(n)!.topicId);
    const entries = topicIds.flatMap((topicId) => Array.from({ length: DECIDE_PER_SLICE }, (_, partition) => ({ topicId, partition, stateEpoch: 3, startOffset: -1n })));
    // The last one names an unknown partition: answered on its own, nothing written for it.
    entries.push({ topicId: topicIds[0]!, partition: DECIDE_PER_SLICE, stateEpoch: 3, startOffset: -1n });

    const order: string[] = [];
    const initialized = server.broker.shareCoordinator.initializeState('g-wide', entries).then((results) => {
      order.push('initialized');
      return results;
    });
    expect((await other.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' })).errorCode).toBe(ErrorCode.NONE);
    order.push('ApiVersions');
    const results = await initialized;
    expect(order).toEqual(['ApiVersions', 'initialized']);

    // Answers in the order asked.
    const expected = entries.map((e, i) => [e.topicId, e.partition, i < 3 * DECIDE_PER_SLICE ? ErrorCode.NONE : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    expect(results.map((r) => [r.topicId, r.partition, r.errorCode])).toEqual(expected);
    expect(server.broker.shareCoordinator.stateOf('g-wide', topicIds[2]!, DECIDE_PER_SLICE - 1)).toMatchObject({ snapshotEpoch: 0, stateEpoch: 3, startOffset: -1n, deliveryCompleteCount: -1 });
    expect(server.broker.shareCoordinator.stateOf('g-wide', topicIds[0]!, DECIDE_PER_SLICE)).toBeUndefined();
    // 3 x DECIDE_PER_SLICE snapshots, RECORDS_PER_APPEND per batch.
    const log = server.broker.topics.get('__share_group_state')!.partition(0)!.log;
    const total = 3 * DECIDE_PER_SLICE;
    const sizes = Array.from({ length: Math.ceil(total / RECORDS_PER_APPEND) }, (_, i) => Math.min(RECORDS_PER_APPEND, total - i * RECORDS_PER_APPEND));
    expect(batchesOf(log.read(0n, 64 << 20)).map(([, count]) => count)).toEqual(sizes);
    expect(log.logEndOffset).toBe(BigInt(total));
  });

  it('a share partition named twice in one call is decided again after its first record: snapshot epochs 0 then 1, as two calls', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const c = await RawClient.connect(server.port);
    cleanups.push(() => c.close());
    expect((await c.send(19, 7, createTopics([topic('twice', 2)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const topicId = server.broker.topics.get('twice')!.topicId;
    const coordinator = server.broker.shareCoordinator;
    const results = await coordinator.initializeState('g-twice', [
      { topicId, partition: 0, stateEpoch: 1, startOffset: 5n },
      { topicId, partition: 1, stateEpoch: 1, startOffset: 6n },
      { topicId, partition: 0, stateEpoch: 1, startOffset: 7n },
    ]);
    expect(results.map((r) => r.errorCode)).toEqual([0, 0, 0]);
    expect(coordinator.stateOf('g-twice', topicId, 0)).toMatchObject({ snapshotEpoch: 1, startOffset: 7n, deliveryCompleteCount: 0 });
    expect(coordinator.stateOf('g-twice', topicId, 1)).toMatchObject({ snapshotEpoch: 0, startOffset: 6n });
    // A delete of both, one of them twice: tombstones for the known states, nothing for the third.
    const deleted = await coordinator.deleteState('g-twice', [{ topicId, partition: 1 }, { topicId, partition: 0 }, { topicId, partition: 1 }]);
    expect(deleted.map((r) => [r.partition, r.errorCode])).toEqual([[1, 0], [0, 0], [1, 0]]);
    expect([coordinator.stateOf('g-twice', topicId, 0), coordinator.stateOf('g-twice', topicId, 1)]).toEqual([undefined, undefined]);
  });

  it(`a ShareFetch and a ShareAcknowledge of 3 x SHARE_SLICE_PARTITIONS partitions work in slices: another connection is answered before the last partition is reached`, async () => {
    // One `__share_group_state` partition: every share partition's state goes to the same one.
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { ...SHARE_TEST_CONFIG, 'share.coordinator.state.topic.num.partitions': '1' } });
    const c = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => c.close(), () => other.close());
    const count = 3 * SHARE_SLICE_PARTITIONS;
    const t = server.broker.topics.create('sliced-share', count);
    for (const p of t.partitions) {
      const appended = p.appendProduced(encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records: [{ key: null, value: Buffer.from('v') }] }));
      if (!('durable' in appended)) throw new Error(appended.errorMessage);
    }
    await server.broker.configs.store.setGroupConfigs('g-sliced', { 'share.auto.offset.reset': 'earliest' });
    const member = randomUUID();
    const joined = await c.send(76, 1, { groupId: 'g-sliced', memberId: member, memberEpoch: 0, rackId: null, subscribedTopicNames: ['sliced-share'] });
    await server.broker.share.initializationsSettled();
    await server.broker.runtime.flush();
    expect((await c.send(76, 1, { groupId: 'g-sliced', memberId: member, memberEpoch: joined.memberEpoch, rackId: null, subscribedTopicNames: null })).assignment!.topicPartitions[0]!.partitions.length).toBe(count);
    const all = Array.from({ length: count }, (_, partitionIndex) => partitionIndex);
    const pinged = () => other.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' });

    // The fetch: another connection answered while share partitions were still to be loaded.
    const loads = watchCall(server.broker.shares, 'forFetch');
    const fetched = c.send(78, 2, {
      groupId: 'g-sliced', memberId: member, shareSessionEpoch: 0, maxWaitMs: 0, minBytes: 1, maxBytes: 64 << 20, maxRecords: count, batchSize: count, shareAcquireMode: 0, isRenewAck: false,
      topics: [{ topicId: t.id, partitions: all.map((partitionIndex) => ({ partitionIndex, partitionMaxBytes: 0, acknowledgementBatches: [] })) }],
      forgottenTopicsData: [],
    });
    while (loads.calls === 0) await nextTurn();
    expect((await pinged()).errorCode).toBe(ErrorCode.NONE);
    expect(loads.calls).toBeLessThan(count);
    const acquired = (await fetched).responses[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.acquiredRecords.map((r) => [r.firstOffset, r.lastOffset, r.deliveryCount])]);
    expect(acquired.sort((a, b) => (a[0] as number) - (b[0] as number))).toEqual(all.map((p) => [p, ErrorCode.NONE, [[0n, 0n, 1]]]));

    // The acknowledgement: answered for every partition, after another connection was answered mid-way.
    const acks = watchCall(server.broker.shares, 'acknowledge');
    const acknowledged = c.send(79, 2, {
      groupId: 'g-sliced', memberId: member, shareSessionEpoch: 1, isRenewAck: false,
      topics: [{ topicId: t.id, partitions: all.map((partitionIndex) => ({ partitionIndex, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [1] }] })) }],
    });
    while (acks.calls === 0) await nextTurn();
    expect((await pinged()).errorCode).toBe(ErrorCode.NONE);
    expect(acks.calls).toBeLessThan(count);
    expect((await acknowledged).responses[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode])).toEqual(all.map((p) => [p, ErrorCode.NONE]));
    expect(server.broker.shares.get('g-sliced', t.id, count - 1)!.spso).toBe(1n);
    // The acknowledgements' state writes went together, not one batch each: those queued while the
    // one before was written in one batch (up to RECORDS_PER_APPEND), so at most one per slice of
    // the request (at least SHARE_BUDGET_EVERY partitions each).
    const stateLog = server.broker.topics.get('__share_group_state')!.partition(0)!.log;
    const sizes = batchesOf(stateLog.read(stateLog.logEndOffset - BigInt(count), 64 << 20)).map(([, n]) => n);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(count);
    expect(sizes.length).toBeLessThanOrEqual(count / SHARE_BUDGET_EVERY);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(RECORDS_PER_APPEND);
  });
});
