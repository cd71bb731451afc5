/**
 * The storage boundary of the coordinator runtime: one failed `__consumer_offsets` append (the
 * file layer answers ENOSPC, as a full disk does) under each kind of operation, on a real server
 * with real files and a manual clock. The client gets the error Kafka's runtime gives a storage
 * failure (NOT_COORDINATOR, 16), and the group, its offsets and every read of them (DescribeGroups,
 * ConsumerGroupDescribe, OffsetFetch, ListGroups, the admin API, the coordinator's own latest
 * state) are exactly as before. The next write succeeds as if the failed one had never been tried.
 *
 * Classic groups follow Kafka where Kafka changes in-memory state it does not revert: a failed
 * SyncGroup assignment sends the members back to rebalance (`resetAndPropagateAssignmentWithError`),
 * and a LeaveGroup or session expiry that empties a group leaves it Empty; those cases assert
 * Kafka's outcome, with nothing of the failed write visible.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { randomBytes } from 'node:crypto';
import type { ServerHandle } from '../../src/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { CoordinatorRecord } from '../../src/coordinator/records.js';
import { describeGroup } from '../../src/admin/groups.js';
import { defaultJoinGroupRequest } from '../../src/protocol/messages/JoinGroupRequest.js';
import { defaultSyncGroupRequest } from '../../src/protocol/messages/SyncGroupRequest.js';
import { defaultOffsetCommitRequest } from '../../src/protocol/messages/OffsetCommitRequest.js';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { FakeTime } from '../support/fake-time.js';
import { hb } from '../support/kip848-group.js';

const TOPIC = 'boundary';
const SESSION_MS = 10_000;
const CONFIG = {
  'group.consumer.assignment.interval.ms': 0,
  'group.consumer.session.timeout.ms': 45_000,
  'group.initial.rebalance.delay.ms': 0,
  'offsets.retention.minutes': 1,
};
const uuid = (): string => randomBytes(16).toString('base64url');

/** JSON with Maps, Sets and bigints spelled out, keys in insertion order: a byte-comparable picture. */
function picture(value: unknown): string {
  return JSON.stringify(value, (key, v: unknown) => {
    // An in-memory cache flag, not state: a group put back recomputes its metadata hash once.
    if (key === 'metadataExpired') return undefined;
    if (v instanceof Map) return [...v];
    if (v instanceof Set) return [...v];
    if (typeof v === 'bigint') return `${v}n`;
    if (Buffer.isBuffer(v) || (v && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer')) return Buffer.from(v as Buffer).toString('hex');
    return v;
  });
}

interface Harness {
  server: ServerHandle;
  time: FakeTime;
  c: RawClient;
  topicId: string;
  /** Everything a client, the admin API and the coordinator itself show of the group. */
  observe(groupId: string): Promise<string>;
  /** Makes the next `__consumer_offsets` append fail as a full disk does; returns the records it refused. */
  failNextAppend(): CoordinatorRecord[];
  /** Every record appended so far (successful appends only). */
  written: CoordinatorRecord[];
  /** Lets the event loop run until `done()` holds (the server has reached a state a test waits for). */
  until(done: () => boolean): Promise<void>;
}

describe('a failed __consumer_offsets write changes nothing (coordinator runtime)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function start(): Promise<Harness> {
    const time = new FakeTime(Date.now());
    const { server } = await startClosableServer(cleanups, { config: CONFIG, time }, 'kmc-boundary-');
    server.broker.topics.create(TOPIC, 2);
    const topicId = server.broker.topics.get(TOPIC)!.topicId;
    const c = await RawClient.connect(server.port);
    cleanups.push(() => c.close());
    const groupLog = server.broker.groupLog;
    const original = groupLog.append.bind(groupLog);
    const written: CoordinatorRecord[] = [];
    let refuse: CoordinatorRecord[] | null = null;
    groupLog.append = (records) => {
      if (refuse) {
        refuse.push(...records);
        refuse = null;
        return Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' }));
      }
      return original(records).then(() => void written.push(...records));
    };
    const observe = async (groupId: string): Promise<string> => {
      const described = await c.send(15, 5, { groups: [groupId], includeAuthorizedOperations: false });
      const consumerDescribed = await c.send(69, 0, { groupIds: [groupId], includeAuthorizedOperations: false });
      const fetched = await c.send(9, 8, { groupId: '', topics: null, groups: [{ groupId, memberId: null, memberEpoch: -1, topics: null }], requireStable: false });
      const listed = await c.send(16, 5, { statesFilter: [], typesFilter: [] });
      return picture({
        described,
        consumerDescribed,
        fetched,
        listed,
        admin: describeGroup(server.broker, groupId),
        latestConsumerGroup: server.broker.consumer.group(groupId) ?? null,
        latestClassicGroup: server.broker.classic.describeGroups([groupId], 5),
        hasOffsets: server.broker.offsets.hasOffsets(groupId),
      });
    };
    return {
      server,
      time,
      c,
      topicId,
      observe,
      failNextAppend: () => (refuse = []),
      written,
      until,
    };
  }

  async function commit(h: Harness, groupId: string, offset: bigint, member = { memberId: '', epoch: -1 }): Promise<number[]> {
    const res = await h.c.send(8, 9, {
      ...defaultOffsetCommitRequest(),
      groupId,
      memberId: member.memberId,
      generationIdOrMemberEpoch: member.epoch,
      topics: [{ name: TOPIC, topicId: h.topicId, partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: 'm' })) }],
    });
    return res.topics[0]!.partitions.map((p) => p.errorCode);
  }

  /** A one-member KIP-848 group owning both partitions, Stable; the member and its epoch. */
  async function consumerGroup(h: Harness, groupId: string): Promise<{ memberId: string; epoch: number }> {
    const memberId = uuid();
    const joined = await h.c.send(68, 1, hb(groupId, memberId, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [TOPIC], topicPartitions: [] }));
    expect(joined.errorCode).toBe(ErrorCode.NONE);
    const acked = await h.c.send(68, 1, hb(groupId, memberId, joined.memberEpoch, { topicPartitions: [{ topicId: h.topicId, partitions: [0, 1] }] }));
    expect(acked.errorCode).toBe(ErrorCode.NONE);
    return { memberId, epoch: acked.memberEpoch };
  }

  /** A classic group with one member (JoinGroup v5 as a static member, then SyncGroup): Stable, generation 1. */
  async function classicGroup(h: Harness, groupId: string, sync = true): Promise<{ memberId: string; generationId: number }> {
    const join = h.c.send(11, 5, {
      ...defaultJoinGroupRequest(),
      groupId,
      sessionTimeoutMs: SESSION_MS,
      rebalanceTimeoutMs: SESSION_MS,
      groupInstanceId: 'instance-1',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.from('subscription') }],
    });
    await h.until(() => h.server.broker.classic.group(groupId)?.numAwaitingJoinResponse === 1);
    h.time.advance(0); // the initial rebalance delay (0) completes the join phase
    const joined = await join;
    expect(joined.errorCode).toBe(ErrorCode.NONE);
    if (sync) {
      const synced = await h.c.send(14, 3, { ...defaultSyncGroupRequest(), groupId, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: 'instance-1', assignments: [{ memberId: joined.memberId, assignment: Buffer.from('assignment') }] });
      expect(synced.errorCode).toBe(ErrorCode.NONE);
    }
    return { memberId: joined.memberId, generationId: joined.generationId };
  }

  it('OffsetCommit: every partition answers 16; the offsets are as before; the next commit succeeds', async () => {
    const h = await start();
    expect(await commit(h, 'g-commit', 5n)).toEqual([0, 0]);
    const before = await h.observe('g-commit');
    h.failNextAppend();
    expect(await commit(h, 'g-commit', 9n)).toEqual([16, 16]);
    expect(await h.observe('g-commit')).toBe(before);
    expect(await commit(h, 'g-commit', 9n)).toEqual([0, 0]);
    expect(h.server.broker.offsets.fetch('g-commit', TOPIC, 1)?.committedOffset).toBe(9n);
  });

  it('OffsetCommit creating a group: answered 16, and no group appears (a standalone commit\'s simple group comes with its first durable offset)', async () => {
    const h = await start();
    const before = await h.observe('g-new-commit');
    h.failNextAppend();
    expect(await commit(h, 'g-new-commit', 1n)).toEqual([16, 16]);
    expect(await h.observe('g-new-commit')).toBe(before);
    expect(await commit(h, 'g-new-commit', 1n)).toEqual([0, 0]);
    const listed = await h.c.send(16, 5, { statesFilter: [], typesFilter: [] });
    expect(listed.groups.filter((g) => g.groupId === 'g-new-commit')).toEqual([{ groupId: 'g-new-commit', protocolType: '', groupState: 'Empty', groupType: 'classic' }]);
  });

  it('a write larger than message.max.bytes is refused whole: UNKNOWN_SERVER_ERROR on every partition, nothing committed', async () => {
    const h = await start();
    h.server.broker.topics.create('wide', 300);
    const wideId = h.server.broker.topics.get('wide')!.topicId;
    const before = await h.observe('g-wide');
    const res = await h.c.send(8, 9, {
      ...defaultOffsetCommitRequest(),
      groupId: 'g-wide',
      topics: [{ name: 'wide', topicId: wideId, partitions: Array.from({ length: 300 }, (_, partitionIndex) => ({ partitionIndex, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: 'm'.repeat(4000) })) }],
    });
    // 300 records of ~4 KB: a batch of ~1.2 MB against Kafka's default 1048588 (RecordTooLargeException).
    expect(new Set(res.topics[0]!.partitions.map((p) => p.errorCode))).toEqual(new Set([ErrorCode.UNKNOWN_SERVER_ERROR]));
    expect(await h.observe('g-wide')).toBe(before);
  });

  it('OffsetDelete: answers 16 at the top level; the offsets stay', async () => {
    const h = await start();
    expect(await commit(h, 'g-odel', 3n)).toEqual([0, 0]);
    const before = await h.observe('g-odel');
    h.failNextAppend();
    const res = await h.c.send(47, 0, { groupId: 'g-odel', topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0 }] }] });
    expect(res).toEqual({ errorCode: 16, throttleTimeMs: 0, topics: [] });
    expect(await h.observe('g-odel')).toBe(before);
  });

  it('DeleteGroups (classic and KIP-848): the group answers 16; the group and its offsets stay', async () => {
    const h = await start();
    expect(await commit(h, 'g-del-classic', 4n)).toEqual([0, 0]);
    const m = await consumerGroup(h, 'g-del-consumer');
    expect(await commit(h, 'g-del-consumer', 7n, { memberId: m.memberId, epoch: m.epoch })).toEqual([0, 0]);
    const left = await h.c.send(68, 1, hb('g-del-consumer', m.memberId, -1));
    expect(left.errorCode).toBe(ErrorCode.NONE);
    for (const groupId of ['g-del-classic', 'g-del-consumer']) {
      const before = await h.observe(groupId);
      const refused = h.failNextAppend();
      const res = await h.c.send(42, 2, { groupsNames: [groupId] });
      expect(res.results).toEqual([{ groupId, errorCode: 16 }]);
      // One write: the offsets' tombstones and the group's, as Kafka's `deleteGroups` writes them.
      expect(refused.filter((r) => r.kind === 'offset-commit').length).toBe(2);
      expect(refused.at(-1)).toMatchObject({ groupId, value: null });
      expect(await h.observe(groupId)).toBe(before);
      const again = await h.c.send(42, 2, { groupsNames: [groupId] });
      expect(again.results).toEqual([{ groupId, errorCode: 0 }]);
    }
  });

  it('offsets retention sweep: the sweep fails; the expired offsets and the group stay until the next sweep', async () => {
    const h = await start();
    expect(await commit(h, 'g-expire', 2n)).toEqual([0, 0]);
    h.time.advance(61_000 - 1); // past offsets.retention.minutes=1, before the periodic sweep's interval ends
    const before = await h.observe('g-expire');
    h.failNextAppend();
    await expect(h.server.broker.sweepExpiredOffsets()).rejects.toThrow('ENOSPC');
    expect(await h.observe('g-expire')).toBe(before);
    const swept = await h.server.broker.sweepExpiredOffsets();
    expect(swept).toEqual({ expiredOffsets: 2, deletedGroups: ['g-expire'] });
  });

  it('KIP-848 heartbeat join: the joining member gets 16; the group is as before; the retry joins at the next epoch', async () => {
    const h = await start();
    const a = await consumerGroup(h, 'g-join');
    const epochBefore = h.server.broker.consumer.group('g-join')!.groupEpoch;
    const before = await h.observe('g-join');
    const b = uuid();
    h.failNextAppend();
    const failed = await h.c.send(68, 1, hb('g-join', b, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [TOPIC], topicPartitions: [] }));
    expect(failed.errorCode).toBe(16);
    expect(await h.observe('g-join')).toBe(before);
    // A's heartbeat at its epoch is answered as before the failed join.
    const beat = await h.c.send(68, 1, hb('g-join', a.memberId, a.epoch, { topicPartitions: [{ topicId: h.topicId, partitions: [0, 1] }] }));
    expect([beat.errorCode, beat.memberEpoch]).toEqual([0, a.epoch]);
    const joined = await h.c.send(68, 1, hb('g-join', b, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [TOPIC], topicPartitions: [] }));
    expect(joined.errorCode).toBe(0);
    expect(h.server.broker.consumer.group('g-join')!.groupEpoch).toBe(epochBefore + 1);
  });

  it('KIP-848 heartbeat leave: the member gets 16 and stays in the group with its partitions', async () => {
    const h = await start();
    const a = await consumerGroup(h, 'g-leave');
    const before = await h.observe('g-leave');
    h.failNextAppend();
    const failed = await h.c.send(68, 1, hb('g-leave', a.memberId, -1));
    expect(failed.errorCode).toBe(16);
    expect(await h.observe('g-leave')).toBe(before);
    const beat = await h.c.send(68, 1, hb('g-leave', a.memberId, a.epoch, { topicPartitions: [{ topicId: h.topicId, partitions: [0, 1] }] }));
    expect([beat.errorCode, beat.memberEpoch]).toEqual([0, a.epoch]);
  });

  it('KIP-848 fence on session expiry: nothing changes, the member keeps its session; the next expiry fences it', async () => {
    const h = await start();
    const a = await consumerGroup(h, 'g-fence');
    const before = await h.observe('g-fence');
    const refused = h.failNextAppend();
    h.time.advance(45_000);
    await h.until(() => refused.length > 0);
    await h.server.broker.runtime.flush();
    expect(refused.map((r) => r.kind)).toEqual(['cg-current-assignment', 'cg-target-member', 'cg-member-metadata', 'cg-metadata']);
    expect(await h.observe('g-fence')).toBe(before);
    // The group was put back with its member's session restarted: it expires again and is fenced.
    h.time.advance(45_000);
    await h.until(() => h.server.broker.consumer.group('g-fence')?.members.has(a.memberId) === false);
    await h.server.broker.runtime.flush();
    expect(h.written.filter((r) => r.groupId === 'g-fence' && r.kind === 'cg-member-metadata').at(-1)).toMatchObject({ memberId: a.memberId, value: null });
  });

  it('classic JoinGroup creating a group: the join gets 16 and no group exists, as before', async () => {
    const h = await start();
    const before = await h.observe('g-classic-new');
    h.failNextAppend();
    const res = await h.c.send(11, 5, {
      ...defaultJoinGroupRequest(),
      groupId: 'g-classic-new',
      sessionTimeoutMs: SESSION_MS,
      rebalanceTimeoutMs: SESSION_MS,
      groupInstanceId: 'instance-1',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.from('subscription') }],
    });
    expect(res.errorCode).toBe(16);
    expect(await h.observe('g-classic-new')).toBe(before);
    expect(h.written.filter((r) => r.groupId === 'g-classic-new')).toEqual([]);
  });

  it('classic JoinGroup converting an empty KIP-848 group: one write; the join gets 16 and the consumer group is as before', async () => {
    const h = await start();
    const m = await consumerGroup(h, 'g-convert');
    expect((await h.c.send(68, 1, hb('g-convert', m.memberId, -1))).errorCode).toBe(ErrorCode.NONE);
    const before = await h.observe('g-convert');
    const refused = h.failNextAppend();
    const join = {
      ...defaultJoinGroupRequest(),
      groupId: 'g-convert',
      sessionTimeoutMs: SESSION_MS,
      rebalanceTimeoutMs: SESSION_MS,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.from('subscription') }],
    };
    expect((await h.c.send(11, 3, join)).errorCode).toBe(16);
    // The consumer group's tombstones and the classic group's first record, refused together.
    expect(refused.map((r) => r.kind).slice(-2)).toEqual(['cg-metadata', 'group-metadata']);
    expect(await h.observe('g-convert')).toBe(before);
    const retried = h.c.send(11, 3, join);
    await h.until(() => h.server.broker.classic.group('g-convert')?.numAwaitingJoinResponse === 1);
    h.time.advance(0);
    expect((await retried).errorCode).toBe(0);
    const listed = await h.c.send(16, 5, { statesFilter: [], typesFilter: [] });
    expect(listed.groups.filter((g) => g.groupId === 'g-convert').map((g) => g.groupType)).toEqual(['classic']);
  });

  it('classic SyncGroup: the leader gets 16, no assignment is handed out or visible, the group rebalances (Kafka)', async () => {
    const h = await start();
    const m = await classicGroup(h, 'g-sync', false);
    h.failNextAppend();
    const res = await h.c.send(14, 3, { ...defaultSyncGroupRequest(), groupId: 'g-sync', generationId: m.generationId, memberId: m.memberId, groupInstanceId: 'instance-1', assignments: [{ memberId: m.memberId, assignment: Buffer.from('assignment') }] });
    expect([res.errorCode, res.assignment.length]).toEqual([16, 0]);
    const described = await h.c.send(15, 5, { groups: ['g-sync'], includeAuthorizedOperations: false });
    expect(described.groups[0]!.groupState).toBe('PreparingRebalance');
    expect(described.groups[0]!.members.map((x) => x.memberAssignment.length)).toEqual([0]);
    expect(h.written.filter((r) => r.groupId === 'g-sync' && r.kind === 'group-metadata' && r.value?.members.length)).toEqual([]);
  });

  it('classic LeaveGroup of the last member: answered 16; the group is Empty as Kafka leaves it, its Empty record unwritten', async () => {
    const h = await start();
    const m = await classicGroup(h, 'g-classic-leave');
    const written = h.written.length;
    h.failNextAppend();
    const res = await h.c.send(13, 3, { groupId: 'g-classic-leave', memberId: '', members: [{ memberId: m.memberId, groupInstanceId: 'instance-1', reason: null }] });
    expect(res).toEqual({ throttleTimeMs: 0, errorCode: 16, members: [] });
    expect(h.written.length).toBe(written);
    const described = await h.c.send(15, 5, { groups: ['g-classic-leave'], includeAuthorizedOperations: false });
    expect([described.groups[0]!.groupState, described.groups[0]!.members.length]).toEqual(['Empty', 0]);
  });

  it('classic session expiry emptying the group: the Empty record fails and is only logged; nothing of it is in the log', async () => {
    const h = await start();
    await classicGroup(h, 'g-classic-expiry');
    const written = h.written.length;
    const refused = h.failNextAppend();
    h.time.advance(SESSION_MS);
    await h.until(() => refused.length > 0);
    await h.server.broker.runtime.flush();
    expect(refused).toMatchObject([{ kind: 'group-metadata', groupId: 'g-classic-expiry' }]);
    expect(h.written.length).toBe(written);
  });
});
