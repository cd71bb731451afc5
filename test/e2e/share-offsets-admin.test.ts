/**
 * AlterShareGroupOffsets (91) and DeleteShareGroupOffsets (92) over the raw protocol against a
 * real server with real files, as Kafka 4.3.1 answers them: the errors (invalid, unknown and
 * foreign group ids, a group with members, unknown topics and partitions), an altered start offset
 * that the next member fetches from (the broker dropped the group's share partitions when its last
 * consumer disconnected), a deleted
 * share state that the next member starts again from `share.auto.offset.reset`, and record 15
 * (ShareGroupStatePartitionMetadata) following both.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { randomUUID } from 'node:crypto';
import type { ServerHandle } from '../../src/index.js';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { hb as consumerHb } from '../support/kip848-group.js';

const CONFIG = { 'group.share.assignment.interval.ms': 0 };
const UNKNOWN_TOPIC = 'This server does not host this topic-partition.';
const ACCEPT = 1;


describe('AlterShareGroupOffsets / DeleteShareGroupOffsets (raw protocol)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function client(server: ServerHandle) {
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    return c;
  }

  async function produce(server: ServerHandle, topic: string, n: number) {
    const partition = server.broker.topics.get(topic)!.partition(0)!;
    const records = Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`v${partition.logEndOffset + BigInt(i)}`) }));
    const appended = partition.appendProduced(encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records }));
    if (!('durable' in appended)) throw new Error(appended.errorMessage);
    await appended.durable;
  }

  /**
   * A member joins (its share state initialized), fetches partition 0 of `topic` (after its first
   * fetch, `thenProduce` records are produced and it fetches again), accepts what it got, leaves
   * and disconnects (or, given `keepOpen`, leaves its connection open and adds it there).
   */
  async function consumeOnce(server: ServerHandle, groupId: string, topic: string, topicId: string, thenProduce = 0, keepOpen?: RawClient[]): Promise<Array<{ firstOffset: bigint; lastOffset: bigint }>> {
    const c = await client(server);
    const member = randomUUID();
    await c.send(76, 1, { groupId, memberId: member, memberEpoch: 0, rackId: null, subscribedTopicNames: [topic] });
    await server.broker.share.initializationsSettled();
    await server.broker.runtime.flush();
    const fetch = (epoch: number, acks: Array<{ firstOffset: bigint; lastOffset: bigint; acknowledgeTypes: number[] }>) =>
      c.send(78, 2, {
        groupId, memberId: member, shareSessionEpoch: epoch, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500, shareAcquireMode: 0, isRenewAck: false,
        topics: [{ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: acks }] }], forgottenTopicsData: [],
      });
    const acquired = async (epoch: number) => ((await fetch(epoch, [])) as any).responses[0].partitions[0].acquiredRecords as Array<{ firstOffset: bigint; lastOffset: bigint }>;
    const got = await acquired(0);
    if (thenProduce > 0) {
      await produce(server, topic, thenProduce);
      got.push(...(await acquired(1)));
    }
    const acks = got.map((r) => ({ firstOffset: r.firstOffset, lastOffset: r.lastOffset, acknowledgeTypes: [ACCEPT] }));
    await fetch(-1, acks);
    const left = await c.send(76, 1, { groupId, memberId: member, memberEpoch: -1, rackId: null, subscribedTopicNames: null });
    expect(left.errorCode).toBe(0);
    // The consumer disconnects: the group has no share session left, so the broker retires its
    // share partitions (Kafka's onGroupEmpty) and the next fetch reads the share coordinator's state.
    if (keepOpen) keepOpen.push(c);
    else {
      c.socket.destroy();
      await until(() => server.broker.shares.isRetired(groupId, topicId, 0));
    }
    return got.map((r) => ({ firstOffset: r.firstOffset, lastOffset: r.lastOffset }));
  }

  it('answers the errors Kafka 4.3.1 answers, changing nothing', async () => {
    const { server } = await startClosableServer(cleanups, { config: CONFIG }, 'kmc-share-admin-');
    await server.broker.topics.create('ea', 1);
    const c = await client(server);
    const alter = (groupId: string, topics: Array<{ topicName: string; partitions: number[] }>) =>
      c.send(91, 0, { groupId, topics: topics.map((t) => ({ topicName: t.topicName, partitions: t.partitions.map((p) => ({ partitionIndex: p, startOffset: 5n })) })) });
    const del = (groupId: string, topics: string[]) => c.send(92, 0, { groupId, topics: topics.map((topicName) => ({ topicName })) });
    const top = (errorCode: number, errorMessage: string) => ({ throttleTimeMs: 0, errorCode, errorMessage, responses: [] });

    expect(await alter('', [{ topicName: 'ea', partitions: [0] }])).toEqual(top(ErrorCode.INVALID_GROUP_ID, 'The group id is invalid.'));
    expect(await del('', ['ea'])).toEqual(top(ErrorCode.INVALID_GROUP_ID, 'The group id is invalid.'));
    expect(await del('nobody', ['ea'])).toEqual(top(ErrorCode.GROUP_ID_NOT_FOUND, 'Group nobody not found.'));

    // A consumer group (KIP-848) is not a share group.
    const joined = await c.send(68, 0, consumerHb('cg', randomUUID(), 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: ['ea'], topicPartitions: [] }));
    expect(joined.errorCode).toBe(0);
    expect(await alter('cg', [{ topicName: 'ea', partitions: [0] }])).toEqual(top(ErrorCode.GROUP_ID_NOT_FOUND, 'Group cg is not a share group.'));
    expect(await del('cg', ['ea'])).toEqual(top(ErrorCode.GROUP_ID_NOT_FOUND, 'Group cg is not a share group.'));

    // Only unknown topics and partitions: answered per partition, and no group is created.
    const topicId = server.broker.topics.get('ea')!.topicId;
    expect(await alter('fresh', [{ topicName: 'missing', partitions: [0, 1] }])).toEqual({
      throttleTimeMs: 0, errorCode: 0, errorMessage: null,
      responses: [{ topicName: 'missing', topicId: ZERO_UUID, partitions: [0, 1].map((p) => ({ partitionIndex: p, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: UNKNOWN_TOPIC })) }],
    });
    expect(server.broker.share.group('fresh')).toBeUndefined();

    // A group with a member.
    const member = randomUUID();
    expect((await c.send(76, 1, { groupId: 'busy', memberId: member, memberEpoch: 0, rackId: null, subscribedTopicNames: ['ea'] })).errorCode).toBe(0);
    await server.broker.share.initializationsSettled();
    await server.broker.runtime.flush();
    expect(await alter('busy', [{ topicName: 'ea', partitions: [0] }])).toEqual(top(ErrorCode.NON_EMPTY_GROUP, 'The group is not empty.'));
    expect(await del('busy', ['ea'])).toEqual(top(ErrorCode.NON_EMPTY_GROUP, 'The group is not empty.'));
    expect(server.broker.shareCoordinator.stateOf('busy', topicId, 0)).toMatchObject({ startOffset: -1n, snapshotEpoch: 0 });
  });

  it('alters the start offset the next member fetches from, then deletes the state so the next starts from share.auto.offset.reset', async () => {
    const { server } = await startClosableServer(cleanups, { config: CONFIG }, 'kmc-share-admin-');
    const topic = await server.broker.topics.create('ao', 1);
    const other = await server.broker.topics.create('other', 1);
    await produce(server, 'ao', 10);
    const c = await client(server);

    // share.auto.offset.reset latest: the first member starts at 10 and gets what is produced after.
    expect(await consumeOnce(server, 'g', 'ao', topic.topicId, 5)).toEqual([{ firstOffset: 10n, lastOffset: 14n }]);

    // Unknown topics first, then the rest in request order; a partition past the count per partition.
    const altered = await c.send(91, 0, {
      groupId: 'g',
      topics: [
        { topicName: 'ao', partitions: [{ partitionIndex: 0, startOffset: 3n }, { partitionIndex: 4, startOffset: 3n }] },
        { topicName: 'missing', partitions: [{ partitionIndex: 0, startOffset: 0n }] },
      ],
    });
    expect(altered).toEqual({
      throttleTimeMs: 0, errorCode: 0, errorMessage: null,
      responses: [
        { topicName: 'missing', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: UNKNOWN_TOPIC }] },
        { topicName: 'ao', topicId: topic.topicId, partitions: [
          { partitionIndex: 0, errorCode: 0, errorMessage: null },
          { partitionIndex: 4, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: UNKNOWN_TOPIC },
        ] },
      ],
    });
    // A fresh ShareSnapshot at start offset 3 (delivery-complete count 0: the lag is known).
    expect(server.broker.shareCoordinator.stateOf('g', topic.topicId, 0)).toMatchObject({ startOffset: 3n, deliveryCompleteCount: 0, stateBatches: [], leaderEpoch: 0 });
    expect(server.broker.share.committedGroup('g')!.stateMetadata!.initialized.get(topic.topicId)!.partitions).toEqual(new Set([0]));
    const described = await c.send(90, 1, { groups: [{ groupId: 'g', topics: null }] });
    expect((described as any).groups[0].topics).toEqual([{ topicName: 'ao', topicId: topic.topicId, partitions: [{ partitionIndex: 0, startOffset: 3n, leaderEpoch: 0, lag: 12n, errorCode: 0, errorMessage: null }] }]);
    expect(await consumeOnce(server, 'g', 'ao', topic.topicId)).toEqual([{ firstOffset: 3n, lastOffset: 14n }]);

    // Delete: the deleted topic (with its id) first, then the failures in request order.
    const deleted = await c.send(92, 0, { groupId: 'g', topics: [{ topicName: 'missing' }, { topicName: 'other' }, { topicName: 'ao' }] });
    expect(deleted).toEqual({
      throttleTimeMs: 0, errorCode: 0, errorMessage: null,
      responses: [
        { topicName: 'ao', topicId: topic.topicId, errorCode: 0, errorMessage: null },
        { topicName: 'missing', topicId: ZERO_UUID, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: UNKNOWN_TOPIC },
        { topicName: 'other', topicId: ZERO_UUID, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'There is no offset information to delete.' },
      ],
    });
    expect(other.topicId).not.toBe(topic.topicId);
    expect(server.broker.shareCoordinator.stateOf('g', topic.topicId, 0)).toBeUndefined();
    expect(server.broker.share.committedGroup('g')!.stateMetadata).toEqual({ initializing: new Map(), initialized: new Map(), deleting: new Set() });
    expect((await c.send(90, 1, { groups: [{ groupId: 'g', topics: null }] })).groups[0]!.topics).toEqual([]);
    expect((await c.send(92, 0, { groupId: 'g', topics: [{ topicName: 'ao' }] })).responses).toEqual([
      { topicName: 'ao', topicId: ZERO_UUID, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'There is no offset information to delete.' },
    ]);

    // The next member initializes the partition again: from latest (16), not from 3.
    await produce(server, 'ao', 1);
    expect(await consumeOnce(server, 'g', 'ao', topic.topicId, 2)).toEqual([{ firstOffset: 16n, lastOffset: 17n }]);
  });

  it('an alter is seen once the consumers that were connected have disconnected, not before (as Kafka)', async () => {
    const { server } = await startClosableServer(cleanups, { config: CONFIG }, 'kmc-share-admin-');
    const topic = await server.broker.topics.create('oc', 1);
    await produce(server, 'oc', 5);
    const open: RawClient[] = [];
    expect(await consumeOnce(server, 'g', 'oc', topic.topicId, 3, open)).toEqual([{ firstOffset: 5n, lastOffset: 7n }]);
    const c = await client(server);
    expect((await c.send(91, 0, { groupId: 'g', topics: [{ topicName: 'oc', partitions: [{ partitionIndex: 0, startOffset: 2n }] }] })).responses[0]!.partitions[0]!.errorCode).toBe(0);
    // The broker still holds the share partition as it was (from 8): nothing for B.
    expect(await consumeOnce(server, 'g', 'oc', topic.topicId, 0, open)).toEqual([]);
    for (const o of open) o.socket.destroy();
    await until(() => server.broker.shares.isRetired('g', topic.topicId, 0));
    expect(await consumeOnce(server, 'g', 'oc', topic.topicId)).toEqual([{ firstOffset: 2n, lastOffset: 7n }]);
  });

  it('an altered start offset and a deleted state are kept across a restart (record 15 and __share_group_state replayed)', async () => {
    const first = await startClosableServer(cleanups, { config: CONFIG }, 'kmc-share-admin-');
    const t1 = await first.server.broker.topics.create('ra', 1);
    const t2 = await first.server.broker.topics.create('rb', 1);
    let c = await client(first.server);
    await c.send(91, 0, { groupId: 'r', topics: [{ topicName: 'ra', partitions: [{ partitionIndex: 0, startOffset: 7n }] }, { topicName: 'rb', partitions: [{ partitionIndex: 0, startOffset: 4n }] }] });
    expect((await c.send(92, 0, { groupId: 'r', topics: [{ topicName: 'rb' }] })).responses).toEqual([{ topicName: 'rb', topicId: t2.topicId, errorCode: 0, errorMessage: null }]);
    c.socket.destroy();
    await first.close();

    const second = await startClosableServer(cleanups, { config: CONFIG, dataDir: first.dataDir }, 'kmc-share-admin-');
    c = await client(second.server);
    // The lag is Kafka's formula as is: latest offset (0) - start offset (7) - delivered (0).
    expect((await c.send(90, 1, { groups: [{ groupId: 'r', topics: null }] })).groups[0]!.topics).toEqual([
      { topicName: 'ra', topicId: t1.topicId, partitions: [{ partitionIndex: 0, startOffset: 7n, leaderEpoch: 0, lag: -7n, errorCode: 0, errorMessage: null }] },
    ]);
    expect(second.server.broker.share.committedGroup('r')!.stateMetadata).toEqual({
      initializing: new Map(), initialized: new Map([[t1.topicId, expect.objectContaining({ name: 'ra', partitions: new Set([0]) })]]), deleting: new Set(),
    });
    expect(second.server.broker.shareCoordinator.stateOf('r', t2.topicId, 0)).toBeUndefined();
  });

  it('creates the share group it alters, with its partitions initialized at the given offsets', async () => {
    const { server } = await startClosableServer(cleanups, { config: CONFIG }, 'kmc-share-admin-');
    const topic = await server.broker.topics.create('na', 2);
    const c = await client(server);
    const res = await c.send(91, 0, { groupId: 'new', topics: [{ topicName: 'na', partitions: [{ partitionIndex: 1, startOffset: 0n }] }] });
    expect(res.responses).toEqual([{ topicName: 'na', topicId: topic.topicId, partitions: [{ partitionIndex: 1, errorCode: 0, errorMessage: null }] }]);
    const described = await c.send(77, 1, { groupIds: ['new'], includeAuthorizedOperations: false });
    expect((described as any).groups[0]).toMatchObject({ groupId: 'new', errorCode: 0, groupState: 'Empty', groupEpoch: 1, members: [] });
    expect(server.broker.shareCoordinator.stateOf('new', topic.topicId, 1)).toMatchObject({ startOffset: 0n, stateEpoch: 1, snapshotEpoch: 0 });
    expect(server.broker.shareCoordinator.stateOf('new', topic.topicId, 0)).toBeUndefined();
  });
});
