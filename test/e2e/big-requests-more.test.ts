/**
 * More big requests and passes that do not stall the others (issue #16 item 5), shown by order of
 * events or by turns of the event loop, never by time:
 * - The retention and cleaner passes look at `MAINTENANCE_SLICE_PARTITIONS` partitions per turn of
 *   the event loop, resolving each topic's LogConfig once (`TopicStore.logConfigs`).
 * - The request log gathers the error codes of a huge response a slice per turn before it is sent
 *   (`LoggedRequest.setResponseInSlices`), here of a topic named twice with 100,000 partitions each.
 * - DeleteGroups works on `DELETE_GROUPS_PER_SLICE` ids per turn and logs one line per request.
 * - ListGroups materialises offsets-only groups, then lists the groups, `LIST_GROUPS_PER_SLICE` per turn.
 * - An OffsetFetch of every offset of a group (topics null) answers `ELEMENTS_PER_SLICE` per turn.
 * - A Produce checks, then appends, `PRODUCE_SLICE_PARTITIONS` partitions per turn, at most
 *   `APPENDS_IN_FLIGHT` of them waiting for their write and sync at once; ListOffsets
 *   looks up `ELEMENTS_PER_SLICE` partitions per turn.
 * - DeleteRecords checks, then answers, `ELEMENTS_PER_SLICE` partitions per turn.
 * - OffsetDelete checks its topics `ELEMENTS_PER_SLICE` partitions per turn, then deletes in one
 *   step; tombstones that cannot fit one batch answer UNKNOWN_SERVER_ERROR, as Kafka 4.3.1.
 * - DescribeConfigs describes `DESCRIBE_CONFIGS_RESOURCES_PER_SLICE` resources per turn.
 * - A small request with a huge answer (`largeAnswers` APIs) has its answer encoded
 *   `ELEMENTS_PER_SLICE` elements per turn; Metadata of every topic describes that many
 *   partitions per turn.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { MAINTENANCE_SLICE_PARTITIONS } from '../../src/topics/log-maintenance.js';
import { commitWholeGroup, createTopics, fetchWholeGroup, nextTurn, offsetCommit, topic, watchCall } from '../support/big-requests.js';
import { ELEMENTS_PER_SLICE } from '../../src/protocol/primitives.js';
import { PRODUCE_SLICE_PARTITIONS } from '../../src/apis/00-produce.js';
import { APPENDS_IN_FLIGHT } from '../../src/topics/append-window.js';
import { FETCH_SLICE_PARTITIONS } from '../../src/apis/01-fetch.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/messages/FetchRequest.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { DELETE_GROUPS_PER_SLICE } from '../../src/coordinator/classic/classic-coordinator.js';
import { api as describeLogDirs } from '../../src/apis/35-describe-log-dirs.js';
import { DESCRIBE_CONFIGS_RESOURCES_PER_SLICE } from '../../src/apis/32-describe-configs.js';
import { LIST_GROUPS_PER_SLICE } from '../../src/coordinator/group-views.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Turns of the event loop until `work` settles (each turn also polls the sockets). */
async function turnsUntil(work: Promise<unknown>): Promise<number> {
  let done = false;
  void work.then(() => (done = true));
  let turns = 0;
  while (!done) {
    await nextTurn();
    turns++;
  }
  return turns;
}

describe('big requests and passes, more', () => {
  it('an OffsetCommit naming one topic twice with 100,000 partitions each is answered; its request log entry has its error', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const c = await RawClient.connect(server.port);
    cleanups.push(() => c.close());
    expect((await c.send(19, 7, createTopics([topic('twice', 10)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const partitions = Array.from({ length: 100_000 }, (_, i) => ({ partitionIndex: i, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }));
    const res = await c.send(8, 8, offsetCommit('g-twice', [{ name: 'twice', partitions }, { name: 'twice', partitions }]));
    // The topic has 10 partitions: those commit, the others do not exist.
    for (const t of res.topics) {
      expect([t.name, t.partitions.length]).toEqual(['twice', 100_000]);
      expect(t.partitions.every((p, i) => p.partitionIndex === i && p.errorCode === (i < 10 ? ErrorCode.NONE : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION))).toBe(true);
    }
    expect(c.closed).toBe(false);
    const [entry] = server.faults.requests({ api: 'OffsetCommit' });
    expect([entry!.topics, entry!.outcome, entry!.error, entry!.errors]).toEqual([['twice'], 'response', 'UNKNOWN_TOPIC_OR_PARTITION', ['UNKNOWN_TOPIC_OR_PARTITION']]);
  });

  it('the retention and cleaner passes over 3 x MAINTENANCE_SLICE_PARTITIONS partitions take a turn of the event loop per slice', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { 'log.cleaner.enable': false } });
    const c = await RawClient.connect(server.port);
    cleanups.push(() => c.close());
    // Under Kafka's 10,000 partitions per CreateTopics: one request per topic.
    for (const name of ['kept-a', 'kept-b', 'kept-c']) {
      expect((await c.send(19, 7, createTopics([topic(name, MAINTENANCE_SLICE_PARTITIONS)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    }
    const retention = server.broker.logMaintenance.retentionPass();
    // A request sent while the pass runs is answered (the pass yields between its slices).
    const answered = c.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' });
    expect(await turnsUntil(retention)).toBeGreaterThanOrEqual(3);
    expect(await retention).toEqual({ partitions: [], segmentsDeleted: 0 });
    expect((await answered).errorCode).toBe(ErrorCode.NONE);
    expect(await turnsUntil(server.broker.logMaintenance.cleanerPass())).toBeGreaterThanOrEqual(3);
  });

  it('a DeleteGroups of 200,000 ids works in slices: another connection commits and is answered meanwhile', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    expect((await other.send(19, 7, createTopics([topic('deleted', 1)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const commit = (groupId: string) => offsetCommit(groupId, [{ name: 'deleted', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }] }]);
    for (const g of ['g-1', `g-${DELETE_GROUPS_PER_SLICE * 100}`]) expect((await other.send(8, 8, commit(g))).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    const deleting = watchCall(server.broker.groups, 'deleteGroups');
    const ids = Array.from({ length: 200_000 }, (_, i) => `g-${i}`);
    expect(ids.length).toBeGreaterThan(DELETE_GROUPS_PER_SLICE * 100);
    const order: string[] = [];
    const deleted = big.send(42, 2, { groupsNames: ids }).then((r) => {
      order.push('big');
      return r;
    });
    // Decoded (in slices); the coordinator's deletion has begun and not ended. Checked once per turn.
    while (!deleting.called && order.length === 0) await nextTurn();
    expect([deleting.called, deleting.settled]).toEqual([true, false]);
    // A group made now, far down the list: the slice that reaches it later finds it (an Empty group) and deletes it.
    const small = await other.send(8, 8, commit('g-150000'));
    order.push('small');
    expect(small.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode])).toEqual([[0, ErrorCode.NONE]]);
    const res = await deleted;
    expect(order).toEqual(['small', 'big']);
    expect(res.results.length).toBe(200_000);
    const deletedIds = res.results.filter((r) => r.errorCode === ErrorCode.NONE).map((r) => r.groupId);
    expect(deletedIds).toEqual(['g-1', `g-${DELETE_GROUPS_PER_SLICE * 100}`, 'g-150000']);
    expect(res.results.filter((r) => r.errorCode !== ErrorCode.NONE).every((r) => r.errorCode === ErrorCode.GROUP_ID_NOT_FOUND)).toBe(true);
    const fetched = await other.send(9, 8, { groups: ['g-1', 'g-150000'].map((groupId) => ({ groupId, memberId: null, memberEpoch: -1, topics: null })), groupId: '', topics: [], requireStable: false });
    expect(fetched.groups.map((g) => [g.groupId, g.topics.length])).toEqual([
      ['g-1', 0],
      ['g-150000', 0],
    ]);
  });

  it('a ListGroups of 3 x LIST_GROUPS_PER_SLICE groups known only by their offsets works in slices: another connection commits meanwhile and is answered first', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    expect((await other.send(19, 7, createTopics([topic('listed', 1)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const commit = (groupId: string) => offsetCommit(groupId, [{ name: 'listed', partitions: [{ partitionIndex: 0, committedOffset: 3n, committedLeaderEpoch: -1, committedMetadata: '' }] }]);
    const ids = Array.from({ length: 3 * LIST_GROUPS_PER_SLICE }, (_, i) => `lg-${i}`);
    const committers = await Promise.all(Array.from({ length: 6 }, () => RawClient.connect(server.port)));
    cleanups.push(() => committers.forEach((c) => c.close()));
    await Promise.all(committers.map(async (c, k) => {
      for (let i = k; i < ids.length; i += committers.length) expect((await c.send(8, 8, commit(ids[i]!))).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    }));
    const listing = watchCall(server.broker.offsets, 'groupIds');
    const order: string[] = [];
    const listed = big.send(16, 5, { statesFilter: [], typesFilter: [] }).then((r) => {
      order.push('big');
      return r;
    });
    // The handler has begun with the groups' ids. Checked once per turn.
    while (!listing.called && order.length === 0) await nextTurn();
    expect([listing.called, order]).toEqual([true, []]);
    expect((await other.send(8, 8, commit('lg-late'))).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    order.push('small');
    const res = await listed;
    // Failed before: every group was materialised and listed in one piece, before the commit was read.
    expect(order).toEqual(['small', 'big']);
    expect(res.errorCode).toBe(ErrorCode.NONE);
    const byId = new Map(res.groups.map((g) => [g.groupId, g]));
    expect(ids.every((id) => byId.get(id)?.groupState === 'Empty' && byId.get(id)?.protocolType === '' && byId.get(id)?.groupType === 'classic')).toBe(true);
    // A later listing has the late group too.
    expect((await big.send(16, 5, { statesFilter: ['Empty'], typesFilter: ['classic'] })).groups).toHaveLength(ids.length + 1);
  });

  it('an OffsetFetch of all the offsets (topics null) of a group of 3 x ELEMENTS_PER_SLICE partitions is answered in slices: another connection is answered meanwhile', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    const perTopic = (ELEMENTS_PER_SLICE * 3) / 2;
    expect(await commitWholeGroup(other, 'g-all', ['all-a', 'all-b'], perTopic)).toEqual([ErrorCode.NONE]);
    const partitions = [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: 2, committedMetadata: '' }];
    const fetchState = watchCall(server.broker.groups, 'fetchOffsets');
    const order: string[] = [];
    const fetched = big.send(9, 8, fetchWholeGroup('g-all')).then((r) => {
      order.push('big');
      return r;
    });
    // A small request (decoded at once): the coordinator's fetch has begun and, after a turn, not ended.
    while (!fetchState.called && order.length === 0) await nextTurn();
    expect([fetchState.called, fetchState.settled]).toEqual([true, false]);
    const small = await other.send(8, 8, offsetCommit('g-other', [{ name: 'all-a', partitions: [partitions[0]!] }]));
    order.push('small');
    expect(small.topics[0]!.partitions.map((p) => p.errorCode)).toEqual([ErrorCode.NONE]);
    const res = await fetched;
    expect(order).toEqual(['small', 'big']);
    const [group] = res.groups;
    expect([group!.groupId, group!.errorCode, group!.topics.map((t) => [t.name, t.partitions.length])]).toEqual(['g-all', ErrorCode.NONE, [['all-a', perTopic], ['all-b', perTopic]]]);
    for (const t of group!.topics) {
      const sorted = [...t.partitions].sort((a, b) => a.partitionIndex - b.partitionIndex);
      expect(sorted.every((p, i) => p.partitionIndex === i && p.committedOffset === BigInt(i) && p.committedLeaderEpoch === 2 && p.errorCode === ErrorCode.NONE)).toBe(true);
    }
  });

  it('an OffsetFetch of a whole group in slices while another connection deletes the group: all its offsets as committed, or none, never some', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    const perTopic = (ELEMENTS_PER_SLICE * 3) / 2;
    expect(await commitWholeGroup(other, 'g-whole', ['whole-a', 'whole-b'], perTopic)).toEqual([ErrorCode.NONE]);
    const fetchState = watchCall(server.broker.groups, 'fetchOffsets');
    const order: string[] = [];
    const fetched = big.send(9, 8, fetchWholeGroup('g-whole')).then((r) => (order.push('fetch'), r));
    // The coordinator's fetch has begun and not ended: the delete comes between its slices.
    while (!fetchState.called && order.length === 0) await nextTurn();
    expect([fetchState.called, fetchState.settled]).toEqual([true, false]);
    const deleted = await other.send(42, 2, { groupsNames: ['g-whole'] });
    order.push('delete');
    expect(deleted.results.map((r) => [r.groupId, r.errorCode])).toEqual([['g-whole', ErrorCode.NONE]]);
    const [group] = (await fetched).groups;
    expect([order, group!.errorCode]).toEqual([['delete', 'fetch'], ErrorCode.NONE]);
    const answered = group!.topics.flatMap((t) => t.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.errorCode] as const));
    expect([0, perTopic * 2]).toContain(answered.length);
    expect(answered.every(([index, offset, errorCode]) => offset === BigInt(index) && errorCode === ErrorCode.NONE)).toBe(true);
    const after = await other.send(9, 8, fetchWholeGroup('g-whole'));
    expect(after.groups.map((g) => [g.groupId, g.errorCode, g.topics.length])).toEqual([['g-whole', ErrorCode.NONE, 0]]);
  });

  it('a Produce to 4 x PRODUCE_SLICE_PARTITIONS partitions appends in slices: another connection appends to its last partition first', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    const count = PRODUCE_SLICE_PARTITIONS * 4;
    expect((await other.send(19, 7, createTopics([topic('produced', count)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const records = (value: string) => encodeRecordBatch({ baseOffset: 0n, timestamp: BigInt(Date.now()), records: [{ key: null, value: Buffer.from(value) }] });
    const produce = (partitions: number[], value: string) => ({ transactionalId: null, acks: 1, timeoutMs: 30000, topicData: [{ name: 'produced', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitionData: partitions.map((index) => ({ index, records: records(value) })) }] });
    const first = watchCall(server.broker.topics.get('produced')!.partition(0)!, 'appendProduced');
    const order: string[] = [];
    const produced = big.send(0, 9, produce(Array.from({ length: count }, (_, i) => i), 'big')).then((r) => {
      order.push('big');
      return r;
    });
    // The big request's checks are done and its appends have begun (partition 0's). Checked once per turn.
    while (!first.called && order.length === 0) await nextTurn();
    expect(first.called).toBe(true);
    const small = await other.send(0, 9, produce([count - 1], 'small'));
    order.push('small');
    const res = await produced;
    expect(order).toEqual(['small', 'big']);
    // The last partition: the small request's batch first (offset 0), the big one's after it.
    expect(small.responses[0]!.partitionResponses.map((p) => [p.index, p.errorCode, p.baseOffset])).toEqual([[count - 1, ErrorCode.NONE, 0n]]);
    const answers = res.responses[0]!.partitionResponses;
    expect(answers.length).toBe(count);
    expect(answers.every((p, i) => p.index === i && p.errorCode === ErrorCode.NONE && p.baseOffset === (i === count - 1 ? 1n : 0n))).toBe(true);
  });

  it('a Produce to 2 x PRODUCE_SLICE_PARTITIONS partitions of a data directory (flush always) has at most APPENDS_IN_FLIGHT of them waiting for their write and sync at once', async () => {
    const { server } = await startClosableServer(cleanups);
    const c = await RawClient.connect(server.port);
    cleanups.push(() => c.close());
    const count = PRODUCE_SLICE_PARTITIONS * 2;
    expect((await c.send(19, 7, createTopics([topic('durable', count)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const partitions = Array.from({ length: count }, (_, i) => server.broker.topics.get('durable')!.partition(i)!);
    const records = encodeRecordBatch({ baseOffset: 0n, timestamp: BigInt(Date.now()), records: [{ key: null, value: Buffer.from('v') }] });
    const produced = c.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 30000, topicData: [{ name: 'durable', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitionData: partitions.map((p) => ({ index: p.index, records })) }] });
    let done = false;
    void produced.then(() => (done = true));
    // Appended and not yet durable (the high watermark moves once the record is written and synced), looked at every turn.
    let most = 0;
    while (!done) {
      await nextTurn();
      most = Math.max(most, partitions.filter((p) => p.logEndOffset > p.highWatermark).length);
    }
    const answers = (await produced).responses[0]!.partitionResponses;
    expect(answers.every((p, i) => p.index === i && p.errorCode === ErrorCode.NONE && p.baseOffset === 0n)).toBe(true);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(APPENDS_IN_FLIGHT);
    expect(partitions.every((p) => p.highWatermark === 1n)).toBe(true);
  });

  it('a ListOffsets of 3 x ELEMENTS_PER_SLICE partitions is answered in slices: a record produced meanwhile to its last partition shows', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    const perTopic = (ELEMENTS_PER_SLICE * 3) / 2;
    for (const name of ['listed-a', 'listed-b']) expect((await other.send(19, 7, createTopics([topic(name, perTopic)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const lookups = watchCall(server.broker.topics.get('listed-a')!, 'partition');
    const latest = (name: string) => ({ name, partitions: Array.from({ length: perTopic }, (_, partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -1n })) });
    const order: string[] = [];
    const listed = big.send(2, 7, { replicaId: -1, isolationLevel: 0, timeoutMs: 30000, topics: [latest('listed-a'), latest('listed-b')] }).then((r) => {
      order.push('big');
      return r;
    });
    // The handler has looked up its first partitions. Checked once per turn.
    while (lookups.calls === 0 && order.length === 0) await nextTurn();
    expect(lookups.calls).toBeGreaterThan(0);
    const batch = encodeRecordBatch({ baseOffset: 0n, timestamp: BigInt(Date.now()), records: [{ key: null, value: Buffer.from('late') }] });
    const produced = await other.send(0, 9, { transactionalId: null, acks: 1, timeoutMs: 30000, topicData: [{ name: 'listed-b', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitionData: [{ index: perTopic - 1, records: batch }] }] });
    order.push('small');
    expect(produced.responses[0]!.partitionResponses.map((p) => [p.errorCode, p.baseOffset])).toEqual([[ErrorCode.NONE, 0n]]);
    const res = await listed;
    expect(order).toEqual(['small', 'big']);
    expect(res.topics.map((t) => [t.name, t.partitions.length])).toEqual([['listed-a', perTopic], ['listed-b', perTopic]]);
    const offsets = res.topics.flatMap((t) => t.partitions.map((p) => [t.name, p.partitionIndex, p.errorCode, p.offset]));
    // Every partition empty (latest offset 0) but the last, looked up after the record was appended.
    expect(offsets.filter(([, , errorCode, offset]) => errorCode !== ErrorCode.NONE || offset !== 0n)).toEqual([['listed-b', perTopic - 1, ErrorCode.NONE, 1n]]);
  });

  it('a Fetch of 8 x FETCH_SLICE_PARTITIONS partitions reads them in slices: a record produced meanwhile to its last partition shows; a topic deleted meanwhile is unknown for the partitions read after', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    const third = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close(), () => third.close());
    const perTopic = FETCH_SLICE_PARTITIONS * 4;
    for (const name of ['fetched-a', 'fetched-b', 'fetched-gone']) expect((await other.send(19, 7, createTopics([topic(name, name === 'fetched-gone' ? 2 : perTopic)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const lookups = watchCall(server.broker.topics.get('fetched-a')!, 'partition');
    const fetched = (name: string, count: number) => ({ topic: name, topicId: ZERO_UUID, partitions: Array.from({ length: count }, (_, partition) => ({ ...defaultFetchPartition(), partition, fetchOffset: 0n, partitionMaxBytes: 1 << 20 })) });
    const order: string[] = [];
    const request = { ...defaultFetchRequest(), replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 50 << 20, sessionEpoch: -1, topics: [fetched('fetched-a', perTopic), fetched('fetched-b', perTopic), fetched('fetched-gone', 2)] };
    const answer = big.send(1, 12, request).then((r) => {
      order.push('big');
      return r;
    });
    // The handler has read its first partitions. Checked once per turn.
    while (lookups.calls === 0 && order.length === 0) await nextTurn();
    expect(lookups.calls).toBeGreaterThan(0);
    const batch = encodeRecordBatch({ baseOffset: 0n, timestamp: BigInt(Date.now()), records: [{ key: null, value: Buffer.from('late') }] });
    const [produced, deleted] = await Promise.all([
      other.send(0, 9, { transactionalId: null, acks: 1, timeoutMs: 30000, topicData: [{ name: 'fetched-b', topicId: ZERO_UUID, partitionData: [{ index: perTopic - 1, records: batch }] }] }),
      third.send(20, 6, { topicNames: [], topics: [{ name: 'fetched-gone', topicId: ZERO_UUID }], timeoutMs: 30000 }),
    ]);
    order.push('small');
    expect(produced.responses[0]!.partitionResponses.map((p) => [p.errorCode, p.baseOffset])).toEqual([[ErrorCode.NONE, 0n]]);
    expect(deleted.responses.map((r) => r.errorCode)).toEqual([ErrorCode.NONE]);
    const res = await answer;
    expect(order).toEqual(['small', 'big']);
    expect(res.responses.map((t) => [t.topic, t.partitions.length])).toEqual([['fetched-a', perTopic], ['fetched-b', perTopic], ['fetched-gone', 2]]);
    // Every partition empty but the last of fetched-b, read after the record was appended; the
    // deleted topic's partitions are unknown.
    const notEmpty = res.responses.flatMap((t) => t.partitions.filter((p) => p.errorCode !== ErrorCode.NONE || p.highWatermark !== 0n).map((p) => [t.topic, p.partitionIndex, p.errorCode, p.highWatermark, (p.records?.length ?? 0) > 0]));
    expect(notEmpty).toEqual([
      ['fetched-b', perTopic - 1, ErrorCode.NONE, 1n, true],
      ['fetched-gone', 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1n, false],
      ['fetched-gone', 1, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1n, false],
    ]);
  });

  it('a DescribeLogDirs of every partition (8 x ELEMENTS_PER_SLICE) is encoded in slices: another connection is answered after its handler returned and before its answer', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    const perTopic = ELEMENTS_PER_SLICE * 2;
    const names = ['dirs-a', 'dirs-b', 'dirs-c', 'dirs-d'];
    for (const name of names) expect((await other.send(19, 7, createTopics([topic(name, perTopic)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    // The handler answers at once (one synchronous call): only the encoding can leave turns to the others.
    const { handle } = describeLogDirs;
    cleanups.push(() => void (describeLogDirs.handle = handle));
    const handled = watchCall(describeLogDirs, 'handle');
    const order: string[] = [];
    const described = big.send(35, 4, { topics: null }).then((r) => {
      order.push('big');
      return r;
    });
    while (!handled.settled && order.length === 0) await nextTurn();
    expect([handled.settled, order]).toEqual([true, []]);
    const small = await other.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' });
    order.push('small');
    expect(small.errorCode).toBe(ErrorCode.NONE);
    const res = await described;
    expect(order).toEqual(['small', 'big']);
    const listed = res.results[0]!.topics.filter((t) => names.includes(t.name));
    expect(listed.map((t) => [t.name, t.partitions.length])).toEqual(names.map((n) => [n, perTopic]));
    expect(listed.every((t) => t.partitions.every((p, i) => p.partitionIndex === i && p.partitionSize === 0n))).toBe(true);
  });

  it('a DescribeConfigs of 3 x DESCRIBE_CONFIGS_RESOURCES_PER_SLICE topics describes them in slices: a config another connection sets meanwhile on its last topic is answered first, and shows', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    const names = Array.from({ length: 3 * DESCRIBE_CONFIGS_RESOURCES_PER_SLICE }, (_, i) => `dc-${i}`);
    expect((await other.send(19, 7, createTopics(names.map((n) => topic(n, 1))))).topics.every((t) => t.errorCode === ErrorCode.NONE)).toBe(true);
    const looking = watchCall(server.broker.topics, 'get');
    const order: string[] = [];
    const described = big
      .send(32, 4, { resources: names.map((resourceName) => ({ resourceType: 2, resourceName, configurationKeys: ['retention.ms'] })), includeSynonyms: true, includeDocumentation: true })
      .then((r) => {
        order.push('big');
        return r;
      });
    // The handler has looked up its first topic. Checked once per turn.
    while (!looking.called && order.length === 0) await nextTurn();
    expect([looking.called, order]).toEqual([true, []]);
    const last = names[names.length - 1]!;
    const set = await other.send(44, 1, { resources: [{ resourceType: 2, resourceName: last, configs: [{ name: 'retention.ms', configOperation: 0, value: '1234' }] }], validateOnly: false });
    order.push('small');
    expect(set.responses[0]!.errorCode).toBe(ErrorCode.NONE);
    const res = await described;
    // Failed before: the whole request was described in one piece, before the other was read.
    expect(order).toEqual(['small', 'big']);
    expect(res.results.map((r) => r.configs[0]!.value)).toEqual(names.map((n) => (n === last ? '1234' : '604800000')));
  });

  it('a Metadata of every topic (3 x ELEMENTS_PER_SLICE partitions) is answered in slices: another connection creates a topic meanwhile, answered first and not in it', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    const perTopic = (ELEMENTS_PER_SLICE * 3) / 2;
    for (const name of ['meta-a', 'meta-b']) expect((await other.send(19, 7, createTopics([topic(name, perTopic)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const listing = watchCall(server.broker.topics, 'list');
    const order: string[] = [];
    const all = { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false };
    const described = big.send(3, 12, all).then((r) => {
      order.push('big');
      return r;
    });
    // The handler has listed the topics and described its first slice. Checked once per turn.
    while (!listing.called && order.length === 0) await nextTurn();
    expect([listing.called, order]).toEqual([true, []]);
    const created = await other.send(19, 7, createTopics([topic('meta-late', 1)]));
    order.push('small');
    expect(created.topics.map((t) => [t.name, t.errorCode])).toEqual([['meta-late', ErrorCode.NONE]]);
    const res = await described;
    expect(order).toEqual(['small', 'big']);
    // The topics as listed when the request began, each partition described.
    const answered = res.topics.filter((t) => t.name!.startsWith('meta-'));
    expect(answered.map((t) => [t.name, t.errorCode, t.partitions.length])).toEqual([
      ['meta-a', ErrorCode.NONE, perTopic],
      ['meta-b', ErrorCode.NONE, perTopic],
    ]);
    expect(answered.every((t) => t.partitions.every((p, i) => p.partitionIndex === i && p.leaderId === server.broker.nodeId && p.errorCode === ErrorCode.NONE))).toBe(true);
  });

  it('an OffsetDelete naming 10 x ELEMENTS_PER_SLICE partitions checks them in slices: a commit made meanwhile by another connection is answered first, then deleted', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    expect((await other.send(19, 7, createTopics([topic('del', 2)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const commit = (partitionIndex: number) => offsetCommit('g-del', [{ name: 'del', partitions: [{ partitionIndex, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: '' }] }]);
    expect((await other.send(8, 8, commit(0))).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    const deleting = watchCall(server.broker.groups, 'deleteOffsets');
    const count = ELEMENTS_PER_SLICE * 10;
    const order: string[] = [];
    // Partitions 0 and 1 exist; the others are answered UNKNOWN_TOPIC_OR_PARTITION by the topic checks.
    const deleted = big.send(47, 0, { groupId: 'g-del', topics: [{ name: 'del', partitions: Array.from({ length: count }, (_, partitionIndex) => ({ partitionIndex })) }] }).then((r) => {
      order.push('big');
      return r;
    });
    while (!deleting.called && order.length === 0) await nextTurn();
    expect([deleting.called, deleting.settled]).toEqual([true, false]);
    expect((await other.send(8, 8, commit(1))).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    order.push('small');
    const res = await deleted;
    expect(order).toEqual(['small', 'big']);
    expect([res.errorCode, res.topics.map((t) => [t.name, t.partitions.length])]).toEqual([ErrorCode.NONE, [['del', count]]]);
    // Kafka's merge: the partitions KafkaApis answered first, in request order, then the coordinator's.
    const answers = res.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode]);
    expect(answers.slice(-2)).toEqual([[0, ErrorCode.NONE], [1, ErrorCode.NONE]]);
    expect(answers.slice(0, -2).every(([index, errorCode], i) => index === i + 2 && errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)).toBe(true);
    const fetched = await other.send(9, 8, fetchWholeGroup('g-del'));
    expect(fetched.groups.map((g) => [g.groupId, g.errorCode, g.topics.length])).toEqual([['g-del', ErrorCode.NONE, 0]]);
  });

  it('an OffsetDelete whose tombstones cannot fit one batch of message.max.bytes answers UNKNOWN_SERVER_ERROR at the top level and deletes nothing, as Kafka 4.3.1', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { 'message.max.bytes': 2000 } });
    const c = await RawClient.connect(server.port);
    cleanups.push(() => c.close());
    expect((await c.send(19, 7, createTopics([topic('full', 100)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const partitions = Array.from({ length: 100 }, (_, partitionIndex) => ({ partitionIndex, committedOffset: 3n, committedLeaderEpoch: -1, committedMetadata: '' }));
    // Commits of 10 partitions fit a batch of 2,000 bytes; 100 tombstones do not (about 25 bytes each at least).
    for (let i = 0; i < 100; i += 10) {
      const committed = await c.send(8, 8, offsetCommit('g-full', [{ name: 'full', partitions: partitions.slice(i, i + 10) }]));
      expect(committed.topics[0]!.partitions.map((p) => p.errorCode)).toEqual(Array(10).fill(ErrorCode.NONE));
    }
    const all = await c.send(47, 0, { groupId: 'g-full', topics: [{ name: 'full', partitions: partitions.map(({ partitionIndex }) => ({ partitionIndex })) }] });
    expect(all).toEqual({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, throttleTimeMs: 0, topics: [] });
    const kept = await c.send(9, 8, fetchWholeGroup('g-full'));
    expect(kept.groups[0]!.topics.map((t) => [t.name, t.partitions.length])).toEqual([['full', 100]]);
    const some = await c.send(47, 0, { groupId: 'g-full', topics: [{ name: 'full', partitions: [{ partitionIndex: 0 }, { partitionIndex: 1 }] }] });
    expect(some).toEqual({ errorCode: ErrorCode.NONE, throttleTimeMs: 0, topics: [{ name: 'full', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NONE }, { partitionIndex: 1, errorCode: ErrorCode.NONE }] }] });
  });

  it('a DeleteRecords of 8 x ELEMENTS_PER_SLICE partitions is checked in slices: a record produced meanwhile to its last partition is deleted too', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    const perTopic = ELEMENTS_PER_SLICE * 2;
    const names = ['dr-a', 'dr-b', 'dr-c', 'dr-d'];
    // Under Kafka's 10,000 partitions per CreateTopics: one request per topic.
    for (const name of names) expect((await other.send(19, 7, createTopics([topic(name, perTopic)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const lookups = watchCall(server.broker.topics.get('dr-a')!, 'partition');
    // Offset -1: up to each partition's high watermark when its turn comes.
    const toHighWatermark = (name: string) => ({ name, partitions: Array.from({ length: perTopic }, (_, partitionIndex) => ({ partitionIndex, offset: -1n })) });
    const order: string[] = [];
    const deleted = big.send(21, 2, { timeoutMs: 30000, topics: names.map(toHighWatermark) }).then((r) => {
      order.push('big');
      return r;
    });
    while (lookups.calls === 0 && order.length === 0) await nextTurn();
    expect(lookups.calls).toBeGreaterThan(0);
    const batch = encodeRecordBatch({ baseOffset: 0n, timestamp: BigInt(Date.now()), records: [{ key: null, value: Buffer.from('late') }] });
    const produced = await other.send(0, 9, { transactionalId: null, acks: 1, timeoutMs: 30000, topicData: [{ name: 'dr-d', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitionData: [{ index: perTopic - 1, records: batch }] }] });
    order.push('small');
    expect(produced.responses[0]!.partitionResponses.map((p) => [p.errorCode, p.baseOffset])).toEqual([[ErrorCode.NONE, 0n]]);
    const res = await deleted;
    expect(order).toEqual(['small', 'big']);
    expect(res.topics.map((t) => [t.name, t.partitions.length])).toEqual(names.map((n) => [n, perTopic]));
    const answers = res.topics.flatMap((t) => t.partitions.map((p) => [t.name, p.partitionIndex, p.errorCode, p.lowWatermark]));
    // Every partition empty (low watermark 0) but the last, checked after the record was appended.
    expect(answers.filter(([, , errorCode, lowWatermark]) => errorCode !== ErrorCode.NONE || lowWatermark !== 0n)).toEqual([['dr-d', perTopic - 1, ErrorCode.NONE, 1n]]);
    expect(server.broker.topics.get('dr-d')!.partition(perTopic - 1)!.logStartOffset).toBe(1n);
  });
});
