/**
 * The start-up replay of `__consumer_offsets` rebuilds exactly the offsets a server held before
 * it stopped: offsets overwritten many times, tombstones and keys committed again after one,
 * expire timestamps (v2 commits), committed, aborted and still pending transactional offsets, and
 * each group's partition order, as OffsetFetch and the admin views answer them. A guard for any
 * shortcut in the replay (reading records in place, skipping overwritten values).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../../support/raw-client.js';
import { startClosableServer, tempDataDir } from '../../support/server.js';
import type { ServerHandle } from '../../../src/index.js';
import { ZERO_UUID } from '../../../src/protocol/primitives.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const TOPIC = 'replayed';
const GROUPS = ['rp-a', 'rp-b', 'rp-c'];

async function client(server: ServerHandle): Promise<RawClient> {
  const c = await RawClient.connect(server.port);
  cleanups.push(() => c.close());
  return c;
}

/** OffsetCommit v2 (retention time) or v8 of one group's partitions; expects no error. */
async function commit(c: RawClient, groupId: string, offsets: Array<[partition: number, offset: bigint, epoch: number, metadata: string]>, version = 8, retentionTimeMs = -1n) {
  const r = await c.send(8, version, {
    groupId,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs,
    topics: [{ name: TOPIC, topicId: '', partitions: offsets.map(([partitionIndex, committedOffset, committedLeaderEpoch, committedMetadata]) => ({ partitionIndex, committedOffset, committedLeaderEpoch, committedMetadata })) }],
  });
  expect(r.topics[0]!.partitions.map((p) => p.errorCode)).toEqual(offsets.map(() => 0));
}

/** One transaction of `transactionalId` committing `offset` for `partition` of `groupId`; ended with `end` (or left open). */
async function transaction(server: ServerHandle, c: RawClient, transactionalId: string, groupId: string, partition: number, offset: bigint, end: 'commit' | 'abort' | 'open') {
  const { producerId, producerEpoch, errorCode } = await c.send(22, 4, { transactionalId, transactionTimeoutMs: 600_000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
  expect(errorCode).toBe(0);
  expect((await c.send(25, 3, { transactionalId, producerId, producerEpoch, groupId })).errorCode).toBe(0);
  const r = await c.send(28, 3, {
    transactionalId,
    groupId,
    producerId,
    producerEpoch,
    generationId: -1,
    memberId: '',
    groupInstanceId: null,
    topics: [{ name: TOPIC, partitions: [{ partitionIndex: partition, committedOffset: offset, committedLeaderEpoch: 2, committedMetadata: `txn-${end}` }] }],
  });
  expect(r.topics[0]!.partitions[0]!.errorCode).toBe(0);
  if (end === 'open') return;
  expect((await c.send(26, 3, { transactionalId, producerId, producerEpoch, committed: end === 'commit' })).errorCode).toBe(0);
  await server.broker.transactions.flush();
}

/** Everything a restart must keep: the admin views of every group and OffsetFetch's answers (all partitions, stable and not). */
async function state(server: ServerHandle, c: RawClient) {
  const offsets = server.broker.offsets;
  const fetchAll = async (requireStable: boolean) =>
    (await c.send(9, 9, { groupId: '', topics: null, groups: GROUPS.map((groupId) => ({ groupId, memberId: null, memberEpoch: -1, topics: null })), requireStable })).groups;
  return {
    // Sorted: replay reads the log partition by partition (as Kafka loads each partition on its
    // own), so groups of different __consumer_offsets partitions come back in partition order.
    groupIds: [...offsets.groupIds()].sort(),
    views: GROUPS.map((g) => ({ g, committed: offsets.offsetsOf(g), pending: offsets.pendingOffsetsOf(g), hasPending: offsets.hasPendingOffsets(g) })),
    fetched: await fetchAll(false),
    fetchedStable: await fetchAll(true),
  };
}

/**
 * `value` with every array of partition entries (`partition` or `partitionIndex`) sorted by
 * partition: compaction keeps a key's latest record only, so a replay after it meets keys in
 * another order.
 */
function partitionOrderFree<T>(value: T): T {
  if (Array.isArray(value)) {
    const items = value.map((v: unknown) => partitionOrderFree(v));
    const partitionOf = (v: unknown): number | undefined => {
      const o = v as { partition?: number; partitionIndex?: number } | null;
      return typeof o === 'object' && o !== null ? (o.partition ?? o.partitionIndex) : undefined;
    };
    if (items.every((v) => partitionOf(v) !== undefined)) items.sort((a, b) => partitionOf(a)! - partitionOf(b)!);
    return items as T;
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, partitionOrderFree(v)])) as T;
  }
  return value;
}

describe('offsets replay after a restart', () => {
  it('rebuilds overwritten, deleted and re-committed, expiring and transactional offsets as they were', async () => {
    const data = tempDataDir('kmc-replay-restart-');
    cleanups.push(() => data.remove());
    const first = await startClosableServer(cleanups, { dataDir: data.dir });
    let c = await client(first.server);
    const created = await c.send(19, 5, { topics: [{ name: TOPIC, numPartitions: 4, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    expect(created.topics[0]!.errorCode).toBe(0);

    await commit(c, 'rp-a', [[0, 1n, -1, 'a'], [1, 2n, -1, 'a'], [2, 3n, -1, 'a'], [3, 4n, -1, 'a']]);
    // Overwrites, several times each, with other epochs and metadata.
    for (let round = 1n; round <= 3n; round++) await commit(c, 'rp-a', [[0, 10n * round, 5, `b${round}`], [1, 10n * round + 1n, 6, '']]);
    // A tombstone (OffsetDelete), then the key committed again: it moves to the end of the group's order.
    const deleted = await c.send(47, 0, { groupId: 'rp-a', topics: [{ name: TOPIC, partitions: [{ partitionIndex: 1 }] }] });
    expect([deleted.errorCode, deleted.topics[0]!.partitions[0]!.errorCode]).toEqual([0, 0]);
    await commit(c, 'rp-a', [[1, 99n, 7, 're-added']]);
    // A tombstone that stays, of a partition committed once.
    expect((await c.send(47, 0, { groupId: 'rp-a', topics: [{ name: TOPIC, partitions: [{ partitionIndex: 2 }] }] })).errorCode).toBe(0);
    // Expire timestamps (v2's retention time), overwritten by a commit without one and the other way round.
    await commit(c, 'rp-b', [[0, 5n, -1, 'exp'], [1, 6n, -1, 'exp']], 2, 3_600_000n);
    await commit(c, 'rp-b', [[0, 7n, -1, 'no-exp']]);
    await commit(c, 'rp-b', [[1, 8n, -1, 'exp-again']], 2, 7_200_000n);
    // Transactional offsets: committed over a plain one, aborted over one, and one still pending.
    await transaction(first.server, c, 'rp-txn-commit', 'rp-a', 0, 500n, 'commit');
    await transaction(first.server, c, 'rp-txn-abort', 'rp-a', 3, 600n, 'abort');
    await commit(c, 'rp-c', [[0, 1n, -1, 'c'], [2, 2n, -1, 'c']]);
    await transaction(first.server, c, 'rp-txn-open', 'rp-c', 2, 700n, 'open');
    // A plain commit after a transaction committed the key (the last record wins).
    await transaction(first.server, c, 'rp-txn-commit-2', 'rp-b', 1, 800n, 'commit');
    await commit(c, 'rp-b', [[1, 801n, 3, 'after-txn']]);

    const before = await state(first.server, c);
    // What the records above must have made (so that the comparison below compares something).
    expect(before.views.map(({ g, committed }) => [g, committed.map((e) => [e.partition, e.offset.committedOffset, e.offset.leaderEpoch, e.offset.metadata, e.offset.expireTimestamp > 0n])])).toEqual([
      ['rp-a', [[0, 500n, 2, 'txn-commit', false], [3, 4n, -1, 'a', false], [1, 99n, 7, 're-added', false]]],
      ['rp-b', [[0, 7n, -1, 'no-exp', false], [1, 801n, 3, 'after-txn', false]]],
      ['rp-c', [[0, 1n, -1, 'c', false], [2, 2n, -1, 'c', false]]],
    ]);
    expect(before.views.map(({ pending }) => pending.map((p) => [p.partition, p.offset.committedOffset]))).toEqual([[], [], [[2, 700n]]]);
    await first.close();

    const second = await startClosableServer(cleanups, { dataDir: data.dir });
    c = await client(second.server);
    expect(await state(second.server, c)).toEqual(before);
  });

  it('compacts a log holding committed, aborted and open transactional offsets, and replays the same after it and a restart', async () => {
    const data = tempDataDir('kmc-replay-cleaned-');
    cleanups.push(() => data.remove());
    // One small-segment partition: every group shares it, and commits roll segments the cleaner may clean.
    const config = { 'offsets.topic.num.partitions': 1, 'offsets.topic.segment.bytes': 4096, 'log.cleaner.enable': false };
    const first = await startClosableServer(cleanups, { dataDir: data.dir, config });
    let c = await client(first.server);
    expect((await c.send(19, 5, { topics: [{ name: TOPIC, numPartitions: 4, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false })).topics[0]!.errorCode).toBe(0);
    const filler = async (rounds: number) => {
      for (let i = 0; i < rounds; i++) await commit(c, 'rp-b', [[0, BigInt(i), -1, 'filler']]);
    };
    await commit(c, 'rp-a', [[0, 1n, -1, 'a'], [1, 2n, -1, 'a'], [3, 4n, -1, 'a']]);
    await filler(40);
    await transaction(first.server, c, 'rp-txn-commit', 'rp-a', 0, 500n, 'commit');
    await transaction(first.server, c, 'rp-txn-abort', 'rp-a', 3, 600n, 'abort');
    await transaction(first.server, c, 'rp-txn-overwritten', 'rp-a', 1, 700n, 'commit');
    await commit(c, 'rp-a', [[1, 701n, -1, 'after-txn']]);
    await filler(40);
    await transaction(first.server, c, 'rp-txn-open', 'rp-c', 2, 800n, 'open');
    await filler(40);

    const before = await state(first.server, c);
    expect(before.views.map(({ g, committed }) => [g, committed.map((e) => [e.partition, e.offset.committedOffset])])).toEqual([
      ['rp-a', [[0, 500n], [1, 701n], [3, 4n]]],
      ['rp-b', [[0, 39n]]],
      ['rp-c', []],
    ]);
    expect(before.views.map(({ pending }) => pending.map((p) => [p.partition, p.offset.committedOffset]))).toEqual([[], [], [[2, 800n]]]);
    // Before: rejected with 'transactional and control batches are not cleaned by this server'.
    const summary = await first.server.compactOffsetsLog();
    expect(summary.partitionsCleaned).toBe(1);
    expect(summary.recordsAfter).toBeLessThan(summary.recordsBefore);
    expect(await state(first.server, c)).toEqual(before);
    await first.close();

    const second = await startClosableServer(cleanups, { dataDir: data.dir, config });
    c = await client(second.server);
    expect(partitionOrderFree(await state(second.server, c))).toEqual(partitionOrderFree(before));
    expect((await second.server.compactOffsetsLog()).partitionsCleaned).toBe(1);
    expect(partitionOrderFree(await state(second.server, c))).toEqual(partitionOrderFree(before));
  });

  it('keeps a v2 commit\'s expire timestamp across a restart, and the commit that later dropped it; its topic id as Kafka 4.3 does', async () => {
    const data = tempDataDir('kmc-replay-expire-');
    cleanups.push(() => data.remove());
    const first = await startClosableServer(cleanups, { dataDir: data.dir });
    let c = await client(first.server);
    const created = await c.send(19, 7, { topics: [{ name: TOPIC, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    expect(created.topics[0]!.errorCode).toBe(0);
    const topicId = created.topics[0]!.topicId;
    await commit(c, 'rp-b', [[0, 1n, -1, ''], [1, 2n, -1, '']]);
    await commit(c, 'rp-b', [[0, 3n, -1, '']], 2, 3_600_000n);
    const before = first.server.broker.offsets.offsetsOf('rp-b');
    expect(before.map((e) => [e.partition, e.offset.expireTimestamp - e.offset.commitTimestamp])).toEqual([[0, 3_600_000n], [1, -1n - before[1]!.offset.commitTimestamp]]);
    // OffsetFetch v10 names the topic by id: the answer carries the request's id, before and after.
    const fetchById = async () =>
      (await c.send(9, 10, { groupId: '', topics: null, groups: [{ groupId: 'rp-b', memberId: null, memberEpoch: -1, topics: [{ name: '', topicId, partitionIndexes: [0, 1] }] }], requireStable: true })).groups;
    const fetchedBefore = await fetchById();
    expect(fetchedBefore[0]!.topics.map((t) => [t.topicId, t.partitions.map((p) => [p.committedOffset, p.errorCode])])).toEqual([[topicId, [[3n, 0], [2n, 0]]]]);
    await first.close();
    const second = await startClosableServer(cleanups, { dataDir: data.dir });
    c = await client(second.server);
    expect(await fetchById()).toEqual(fetchedBefore);
    // The stored topic id: a commit with an expire timestamp is written as OffsetCommitValue v1,
    // which has no TopicId (`GroupCoordinatorRecordHelpers.newOffsetCommitRecord`). Kafka's live
    // state replays the record object it built (`CoordinatorRuntime` replays before it
    // serializes), so it holds the request's id until a reload reads ZERO_UUID from the bytes:
    // the same here. Only `isOffsetInvalid` (a fetch by another id of the name) would see it.
    const after = second.server.broker.offsets.offsetsOf('rp-b');
    expect([before, after].map((entries) => entries.map((e) => e.offset.topicId))).toEqual([
      [topicId, topicId],
      [ZERO_UUID, topicId],
    ]);
    const withoutTopicId = (entries: typeof before) => entries.map(({ offset: { topicId: _, ...offset }, ...e }) => ({ ...e, offset }));
    expect(withoutTopicId(after)).toEqual(withoutTopicId(before));
  });
});
