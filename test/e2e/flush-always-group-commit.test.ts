/**
 * Group commit under `mock.flush.policy=always` over real sockets: OffsetCommits that reach the
 * server while the group's `__consumer_offsets` partition has MAX_SYNCS_IN_FLIGHT fdatasyncs in
 * flight all wait for ONE next write and fdatasync (not one each), and none is answered before a
 * completed sync covers its record. The sync is held in flight by occupying libuv's thread pool (test/support/thread-pool.ts;
 * `mock.flush.inline.sync.max.ms=0` keeps every sync there),
 * so nothing here depends on how fast the disk or the machine is.
 *
 * And an fdatasync on the event-loop thread first waits for the clients just answered to send their
 * next request (util/returning-clients.ts, `mock.flush.inline.sync.wait.ms`): a commit read while
 * another client's answer is out waits for that client's next commit, and the two share one write
 * and one sync; a lone client committing one at a time waits for nothing, nor does any commit wait
 * for a connection that did not commit. There the wait is a minute and the inline-sync limit out of
 * reach, so only the clients' sends end it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { blockThreadPool, nextTurn } from '../support/thread-pool.js';
import { MAX_SYNCS_IN_FLIGHT } from '../../src/storage/sync-pipeline.js';

const GROUP = 'group-commit';
const CONNECTIONS = 12;

const commit = (partition: number, offset: bigint) => ({
  groupId: GROUP,
  generationIdOrMemberEpoch: -1,
  memberId: '',
  groupInstanceId: null,
  retentionTimeMs: -1n,
  topics: [{ name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partitionIndex: partition, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }],
});

describe('flush always: group commit', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  it(`${CONNECTIONS} connections committing while a sync runs share one next fdatasync, and each answer follows the sync covering it`, async () => {
    // Every sync on the pool, where the test holds them (fast syncs would run inline: inline-sync-gate.ts).
    const { server } = await startClosableServer(cleanups, { config: { 'mock.flush.policy': 'always', 'mock.flush.inline.sync.max.ms': '0' } });
    server.broker.topics.create('t', CONNECTIONS + 1);
    const clients = await Promise.all(Array.from({ length: CONNECTIONS + 1 }, () => RawClient.connect(server.port)));
    for (const c of clients) cleanups.push(() => void c.socket.destroy());
    const [first, ...others] = clients as [RawClient, ...RawClient[]];
    // The group's partition is opened by a first commit, answered as usual.
    expect((await first.send(8, 8, commit(0, 1n))).topics[0]!.partitions[0]!.errorCode).toBe(0);
    const groupLog = server.broker.groupLog;
    const log = groupLog.partitionLogs()[groupLog.partitionFor(GROUP)]!;
    const start = { offset: log.logEndOffset, ...log.stats };
    expect(log.recoveryPoint).toBe(start.offset);

    const release = blockThreadPool();
    cleanups.push(release);
    const answers: Array<Promise<{ errorCode: number; recoveryPoint: bigint }>> = [];
    const send = (client: RawClient, partition: number): void => {
      answers.push(client.send(8, 8, commit(partition, 2n)).then((r) => ({ errorCode: r.topics[0]!.partitions[0]!.errorCode, recoveryPoint: log.recoveryPoint })));
    };
    const appended = async (n: bigint): Promise<void> => {
      while (log.logEndOffset < start.offset + n) await nextTurn();
    };
    // One commit: written, its fdatasync held in the pool's queue.
    send(first, 0);
    await appended(1n);
    await nextTurn();
    expect([log.stats.writes - start.writes, log.stats.syncs - start.syncs]).toEqual([1, 0]);
    // Then one commit per connection, each appended in its own turn and followed by a turn without
    // one while the syncs wait (a step gathers appends while they keep arriving: sync-pipeline.ts):
    // the first ones each get their own write and sync until MAX_SYNCS_IN_FLIGHT run, the others
    // wait together.
    for (const [i, client] of others.entries()) {
      send(client, i + 1);
      await appended(BigInt(i + 2));
      await nextTurn();
      await nextTurn();
    }
    await nextTurn();
    expect([log.stats.writes - start.writes, log.stats.syncs - start.syncs, log.recoveryPoint]).toEqual([MAX_SYNCS_IN_FLIGHT, 0, start.offset]);
    release();
    const done = await Promise.all(answers);
    // The pool's syncs may complete out of order: a later one acknowledges what an earlier one
    // covers, whose count may still be pending. Count once none runs.
    await log.whenIdle();
    // Those syncs, then ONE write and sync for the remaining commits (not one each).
    expect([log.stats.writes - start.writes, log.stats.syncs - start.syncs]).toEqual([MAX_SYNCS_IN_FLIGHT + 1, MAX_SYNCS_IN_FLIGHT + 1]);
    expect(done.map((a) => a.errorCode)).toEqual(new Array(CONNECTIONS + 1).fill(0));
    // Each answer left only once a completed sync covered its record (commit i is at start.offset + i),
    // and the commits that waited together were answered after the sync covering all of them.
    done.forEach((a, i) => expect(a.recoveryPoint).toBeGreaterThan(start.offset + BigInt(i)));
    for (const a of done.slice(MAX_SYNCS_IN_FLIGHT)) expect(a.recoveryPoint).toBe(start.offset + BigInt(CONNECTIONS + 1));
    for (let p = 0; p <= CONNECTIONS; p++) expect(server.broker.offsets.fetch(GROUP, 't', p)).toMatchObject({ committedOffset: 2n });
  });

  it('a lone client waits for nothing; a commit read while another client is answered waits for its next commit and shares its sync', async () => {
    const config = { 'mock.flush.policy': 'always', 'mock.flush.inline.sync.max.ms': '1000000', 'mock.flush.inline.sync.wait.ms': '60000' };
    const { server } = await startClosableServer(cleanups, { config });
    server.broker.topics.create('t', 2);
    const [a, b, other] = await Promise.all([RawClient.connect(server.port), RawClient.connect(server.port), RawClient.connect(server.port)]);
    for (const c of [a!, b!, other!]) cleanups.push(() => void c.socket.destroy());
    const errorCode = async (answer: Promise<{ topics: Array<{ partitions: Array<{ errorCode: number }> }> }>) => (await answer).topics[0]!.partitions[0]!.errorCode;

    // A alone: each commit is answered after its own write and sync (a minute's wait would time out).
    expect(await errorCode(a!.send(8, 8, commit(0, 1n)))).toBe(0);
    const groupLog = server.broker.groupLog;
    const log = groupLog.partitionLogs()[groupLog.partitionFor(GROUP)]!;
    let start = { offset: log.logEndOffset, ...log.stats };
    for (let offset = 2n; offset <= 4n; offset++) expect(await errorCode(a!.send(8, 8, commit(0, offset)))).toBe(0);
    expect([log.logEndOffset - start.offset, log.stats.writes - start.writes, log.stats.syncs - start.syncs]).toEqual([3n, 3, 3]);

    // A was just answered: B's commit is appended, then waits, unwritten and unsynced, for A (not
    // for another connection answered meanwhile that sends nothing more: it did not commit).
    expect((await other!.send(18, 3, { clientSoftwareName: 'other', clientSoftwareVersion: '1' })).errorCode).toBe(0);
    start = { offset: log.logEndOffset, ...log.stats };
    let bAnswered = false;
    const bAnswer = errorCode(b!.send(8, 8, commit(1, 1n))).then((code) => ((bAnswered = true), code));
    while (log.logEndOffset === start.offset) await nextTurn();
    for (let i = 0; i < 20; i++) await nextTurn();
    expect([bAnswered, log.stats.writes - start.writes, log.stats.syncs - start.syncs, log.recoveryPoint]).toEqual([false, 0, 0, start.offset]);

    // A's next commit ends the wait: one write and one sync carry both, and both are answered.
    expect(await errorCode(a!.send(8, 8, commit(0, 5n)))).toBe(0);
    expect(await bAnswer).toBe(0);
    expect([log.logEndOffset - start.offset, log.stats.writes - start.writes, log.stats.syncs - start.syncs, log.recoveryPoint]).toEqual([2n, 1, 1, start.offset + 2n]);
    expect(server.broker.offsets.fetch(GROUP, 't', 0)).toMatchObject({ committedOffset: 5n });
    expect(server.broker.offsets.fetch(GROUP, 't', 1)).toMatchObject({ committedOffset: 1n });
  });
});
