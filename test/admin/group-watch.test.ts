/**
 * The group watch behind the console's timeline and `kmc_rebalances_total` (src/admin/group-watch.ts):
 * each new generation of a classic group gets the cause that the changes before it show, with a
 * real server, raw JoinGroup/SyncGroup/LeaveGroup requests and the manual clock for the session
 * timeout. The watch looks only when told to (`touched`; its own look after requests is set to an
 * hour away), so every step is checked at a known point.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { defaultJoinGroupRequest, type JoinGroupRequest } from '../../src/protocol/messages/JoinGroupRequest.js';
import { defaultSyncGroupRequest } from '../../src/protocol/messages/SyncGroupRequest.js';
import { GroupWatch, nextLookDelayMs, type ChangeNotice, type TimelineEvent } from '../../src/admin/group-watch.js';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { SHARE_TEST_CONFIG } from '../support/share-group.js';
import { hb } from '../support/kip848-group.js';
import { createTopic, initProducer } from '../support/raw-transactions.js';

const GROUP = 'watch-group';
const SESSION_MS = 10_000;
/** SyncGroup v3 of `groupId` without assignments, as (client, member id, instance id, generation, client id). */
const syncIn = (groupId: string) => (c: RawClient, memberId: string, instanceId: string, generationId: number, clientId: string) =>
  c.send(14, 3, { ...defaultSyncGroupRequest(), groupId, generationId, memberId, groupInstanceId: instanceId, assignments: [] }, clientId);

const join = (instanceId: string): JoinGroupRequest => ({
  ...defaultJoinGroupRequest(),
  groupId: GROUP, sessionTimeoutMs: SESSION_MS, rebalanceTimeoutMs: 30_000, memberId: '', groupInstanceId: instanceId, protocolType: 'consumer',
  protocols: [{ name: 'range', metadata: Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) }],
});

describe('GroupWatch', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let watch: GroupWatch;
  const notices: ChangeNotice[] = [];

  beforeAll(async () => {
    server = await startTestServer({ clock: 'manual' });
    watch = new GroupWatch({ broker: server.broker, faults: server.faults, clock: server.clock, sampleIntervalMs: 0, settleMs: 3_600_000 });
    watch.subscribe((n) => notices.push(n));
  });
  afterAll(async () => {
    watch.close();
    await server.stop();
  });

  const kinds = (): Array<Pick<TimelineEvent, 'kind'> & Record<string, unknown>> => watch.history(GROUP)!.events.filter((e) => e.kind !== 'state' && e.kind !== 'commit').map((e) => {
    const { at: _at, ...rest } = e;
    return rest;
  });

  it('names join, leave and session timeout as the causes of the rebalances they start', async () => {
    const a = await RawClient.connect(server.port);
    const b = await RawClient.connect(server.port);
    const joinedA = await a.send(11, 5, join('a'), 'watch-a');
    expect(joinedA.errorCode).toBe(ErrorCode.NONE);
    const sync = syncIn(GROUP);
    await sync(a, joinedA.memberId, 'a', 1, 'watch-a');
    await watch.touched({});
    // Created since the watch started: its first generation is a rebalance too.
    expect(kinds()).toEqual([
      { kind: 'seen', state: 'Stable', generation: 1, members: 1, clientIds: ['watch-a'] },
      { kind: 'rebalance', generation: 1, cause: 'join', members: 1, detail: '1 joined' },
    ]);
    expect(notices.at(-1)).toEqual({ groups: [GROUP], overview: true, faults: false, clock: false, transactions: false });

    // b joins: a must rejoin, and generation 2 has both.
    const joiningB = b.send(11, 5, join('b'), 'watch-b');
    const rejoinedA = await a.send(11, 5, { ...join('a'), memberId: joinedA.memberId }, 'watch-a');
    const joinedB = await joiningB;
    expect([rejoinedA.generationId, joinedB.generationId]).toEqual([2, 2]);
    await Promise.all([sync(a, joinedA.memberId, 'a', 2, 'watch-a'), sync(b, joinedB.memberId, 'b', 2, 'watch-b')]);
    await watch.touched({});
    expect(kinds().slice(2)).toEqual([
      { kind: 'member-joined', memberId: joinedB.memberId, clientId: 'watch-b' },
      { kind: 'rebalance', generation: 2, cause: 'join', members: 2, detail: `1 joined; adding new member ${joinedB.memberId} with group instance id b; client reason: not provided` },
    ]);

    // b leaves with LeaveGroup; a rejoins into generation 3.
    const left = await b.send(13, 3, { groupId: GROUP, memberId: '', members: [{ memberId: joinedB.memberId, groupInstanceId: 'b', reason: null }] }, 'watch-b');
    expect(left.errorCode).toBe(ErrorCode.NONE);
    const third = await a.send(11, 5, { ...join('a'), memberId: joinedA.memberId }, 'watch-a');
    expect(third.generationId).toBe(3);
    await sync(a, joinedA.memberId, 'a', 3, 'watch-a');
    await watch.touched({});
    expect(kinds().slice(4)).toEqual([
      { kind: 'member-left', memberId: joinedB.memberId, clientId: 'watch-b', cause: 'leave' },
      { kind: 'rebalance', generation: 3, cause: 'leave', members: 1, detail: `1 left; explicit LeaveGroup request for (${joinedB.memberId}) members` },
    ]);

    // a stops heartbeating: its session runs out on the manual clock; the group is left empty.
    server.clock.advance(SESSION_MS + 1);
    await new Promise((resolve) => setImmediate(resolve));
    await watch.touched({ clock: true });
    expect(kinds().slice(6)).toEqual([
      { kind: 'member-left', memberId: joinedA.memberId, clientId: 'watch-a', cause: 'session timeout' },
      { kind: 'rebalance', generation: 4, cause: 'session timeout', members: 0, detail: `1 timed out; removing member ${joinedA.memberId} on heartbeat expiration` },
    ]);
    expect(notices.at(-1)).toMatchObject({ groups: [GROUP], clock: true });
    expect(watch.rebalanceCounts().sort((x, y) => x.cause.localeCompare(y.cause))).toEqual([
      { groupType: 'classic', cause: 'join', count: 2 },
      { groupType: 'classic', cause: 'leave', count: 1 },
      { groupType: 'classic', cause: 'session timeout', count: 1 },
    ]);
    a.close();
    b.close();
  });

  it("says when a transactional id changed (the console's Transactions page refreshes on it), and only then", async () => {
    const raw = await RawClient.connect(server.port);
    try {
      await watch.touched({});
      const before = notices.length;
      const { producerId } = await initProducer(raw, 'watch-txn');
      expect(producerId).toBeGreaterThanOrEqual(0n);
      await watch.touched({});
      expect(notices.slice(before)).toEqual([{ groups: [], overview: false, faults: false, clock: false, transactions: true }]);
      // Nothing changed since: no notice at all.
      await watch.touched({});
      expect(notices.length).toBe(before + 1);

      // Offsets sent to a group in the transaction move what its page shows, not its metadata: each TxnOffsetCommit says so.
      await createTopic(raw, 'watch-txn-topic');
      const { producerId: pid, producerEpoch } = await initProducer(raw, 'watch-txn-offsets');
      expect((await raw.send(25, 3, { transactionalId: 'watch-txn-offsets', producerId: pid, producerEpoch, groupId: 'watch-txn-group' })).errorCode).toBe(ErrorCode.NONE);
      await watch.touched({});
      const txnCommit = (offset: bigint) => raw.send(28, 3, {
        transactionalId: 'watch-txn-offsets', groupId: 'watch-txn-group', producerId: pid, producerEpoch, generationId: -1, memberId: '', groupInstanceId: null,
        topics: [{ name: 'watch-txn-topic', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }],
      });
      for (const offset of [5n, 9n]) {
        const sent = notices.length;
        expect((await txnCommit(offset)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
        await watch.touched({});
        expect(notices.slice(sent).map((n) => n.transactions)).toEqual([true]);
      }
    } finally {
      raw.close();
    }
  });

  it("names a rebalance by the coordinator's reason when the looks saw no member change: a group first seen while a member joins, a client's leave reason", async () => {
    const group = 'watch-reasons';
    const sync = syncIn(group);
    const fast = await RawClient.connect(server.port);
    const slow = await RawClient.connect(server.port);
    const joinedFast = await fast.send(11, 5, { ...join('fast'), groupId: group }, 'fast');
    await sync(fast, joinedFast.memberId, 'fast', 1, 'fast');
    // slow joins before the watch first looks at the group (new-user trial, session 31): that look
    // finds both members at generation 1, so generation 2 comes with no member change to see.
    const joiningSlow = slow.send(11, 9, { ...join('slow'), groupId: group, reason: 'starting up' }, 'slow');
    await until(() => (server.broker.classic.existingGroup(group)?.allMembers().length ?? 0) === 2, 'slow to join');
    await watch.touched({});
    const rejoined = await fast.send(11, 5, { ...join('fast'), groupId: group, memberId: joinedFast.memberId }, 'fast');
    const joinedSlow = await joiningSlow;
    await Promise.all([sync(fast, joinedFast.memberId, 'fast', rejoined.generationId, 'fast'), sync(slow, joinedSlow.memberId, 'slow', joinedSlow.generationId, 'slow')]);
    await watch.touched({});
    // slow leaves as a Java consumer past max.poll.interval.ms does; fast rejoins into generation 3.
    await slow.send(13, 5, { groupId: group, memberId: '', members: [{ memberId: joinedSlow.memberId, groupInstanceId: 'slow', reason: 'consumer poll timeout has expired.' }] }, 'slow');
    const third = await fast.send(11, 5, { ...join('fast'), groupId: group, memberId: joinedFast.memberId }, 'fast');
    await sync(fast, joinedFast.memberId, 'fast', third.generationId, 'fast');
    await watch.touched({});
    expect(watch.history(group)!.events.filter((e) => e.kind === 'rebalance').map(({ at: _at, ...e }) => e)).toEqual([
      { kind: 'rebalance', generation: 1, cause: 'join', members: 2, detail: '2 joined' },
      // Was `rejoin` with no detail.
      { kind: 'rebalance', generation: 2, cause: 'join', members: 2, detail: `adding new member ${joinedSlow.memberId} with group instance id slow; client reason: starting up` },
      { kind: 'rebalance', generation: 3, cause: 'leave', members: 1, detail: `1 left; explicit LeaveGroup request for (${joinedSlow.memberId}) members; client reason: consumer poll timeout has expired.` },
    ]);
    fast.close();
    slow.close();
  });

  it('names a coordinator move only for the rebalance it came with: one the group came through names no later rebalance', async () => {
    const group = 'watch-moves';
    let coordinator = 1;
    const moves = new GroupWatch({ broker: server.broker, faults: server.faults, clock: server.clock, sampleIntervalMs: 0, settleMs: 3_600_000, coordinatorOf: () => coordinator });
    try {
      const sync = syncIn(group);
      const a = await RawClient.connect(server.port);
      const b = await RawClient.connect(server.port);
      const joinedA = await a.send(11, 5, { ...join('a'), groupId: group }, 'moves-a');
      await sync(a, joinedA.memberId, 'a', 1, 'moves-a');
      await moves.touched({});
      coordinator = 2;
      await moves.touched({});
      // b joins long after the move: its rebalance is a join.
      const joiningB = b.send(11, 5, { ...join('b'), groupId: group }, 'moves-b');
      const rejoinedA = await a.send(11, 5, { ...join('a'), groupId: group, memberId: joinedA.memberId }, 'moves-a');
      const joinedB = await joiningB;
      await Promise.all([sync(a, joinedA.memberId, 'a', rejoinedA.generationId, 'moves-a'), sync(b, joinedB.memberId, 'b', joinedB.generationId, 'moves-b')]);
      await moves.touched({});
      expect(moves.history(group)!.events.filter((e) => e.kind === 'coordinator' || e.kind === 'rebalance').map((e) => (e.kind === 'rebalance' ? [e.kind, e.generation, e.cause] : [e.kind]))).toEqual([
        ['rebalance', 1, 'join'],
        ['coordinator'],
        ['rebalance', 2, 'join'],
      ]);
      a.close();
      b.close();
    } finally {
      moves.close();
    }
  });

  it('names a leave whose records are still being written as a leave (the periodic look can fall between the two)', async () => {
    const group = 'watch-slow-leave';
    const a = await RawClient.connect(server.port);
    const joinedA = await a.send(11, 5, { ...join('a'), groupId: group }, 'slow-a');
    await a.send(14, 3, { ...defaultSyncGroupRequest(), groupId: group, generationId: 1, memberId: joinedA.memberId, groupInstanceId: 'a', assignments: [] }, 'slow-a');
    await watch.touched({});

    // The last member leaves: the group's (empty) metadata record is written before the answer.
    // That write is held, as a slow disk would: the member is gone, its answer not yet sent.
    const groupLog = server.broker.groupLog;
    const append = groupLog.append;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let writing = false;
    groupLog.append = (records) => {
      writing = true;
      return held.then(() => append.call(groupLog, records));
    };
    try {
      const leaving = a.send(13, 3, { groupId: group, memberId: '', members: [{ memberId: joinedA.memberId, groupInstanceId: 'a', reason: null }] }, 'slow-a');
      for (let i = 0; i < 10_000 && !writing; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(writing).toBe(true);
      await watch.touched({});
      expect(watch.history(group)!.events.filter((e) => e.kind === 'member-left' || e.kind === 'rebalance').map(({ at: _at, ...e }) => e)).toEqual([
        { kind: 'rebalance', generation: 1, cause: 'join', members: 1, detail: '1 joined' },
        { kind: 'member-left', memberId: joinedA.memberId, clientId: 'slow-a', cause: 'leave' },
        { kind: 'rebalance', generation: 2, cause: 'leave', members: 0, detail: `1 left; explicit LeaveGroup request for (${joinedA.memberId}) members` },
      ]);
      groupLog.append = append;
      release();
      expect((await leaving).errorCode).toBe(ErrorCode.NONE);
    } finally {
      groupLog.append = append;
      release();
      a.close();
    }
  });

  it("names a group's conversion: classic to consumer when a KIP-848 member joins, back to classic when it leaves", async () => {
    const group = 'watch-converted';
    const a = await RawClient.connect(server.port);
    const b = await RawClient.connect(server.port);
    try {
      const joined = await a.send(11, 5, { ...join('conv'), groupId: group }, 'watch-classic');
      expect(joined.errorCode).toBe(ErrorCode.NONE);
      await a.send(14, 3, { ...defaultSyncGroupRequest(), groupId: group, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: 'conv', assignments: [] }, 'watch-classic');
      await watch.touched({});
      const upgraded = await b.send(68, 1, hb(group, 'watch-kip848-member-aaaa', 0, { rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['watch-none'], topicPartitions: [] }), 'watch-kip848');
      expect(upgraded.errorCode).toBe(ErrorCode.NONE);
      await watch.touched({});
      expect((await b.send(68, 1, hb(group, 'watch-kip848-member-aaaa', -1), 'watch-kip848')).errorCode).toBe(ErrorCode.NONE);
      await watch.touched({});
      const events = watch.history(group)!.events.filter((e) => e.kind === 'type' || e.kind === 'member-joined' || e.kind === 'member-left').map(({ at: _at, ...rest }) => rest);
      expect(events).toEqual([
        { kind: 'type', from: 'classic', to: 'consumer' },
        { kind: 'member-joined', memberId: 'watch-kip848-member-aaaa', clientId: 'watch-kip848' },
        { kind: 'type', from: 'consumer', to: 'classic' },
        { kind: 'member-left', memberId: 'watch-kip848-member-aaaa', clientId: 'watch-kip848', cause: 'leave' },
      ]);
    } finally {
      a.close();
      b.close();
    }
  });

  it('cuts long client ids and member ids in the timeline (its memory stays bounded whatever ids clients choose)', async () => {
    const group = 'watch-long-ids';
    const clientId = 'c'.repeat(1000);
    const a = await RawClient.connect(server.port);
    try {
      await watch.touched({});
      const joined = await a.send(11, 5, { ...join('long'), groupId: group }, clientId);
      await watch.touched({});
      const [seen] = watch.history(group)!.events;
      expect(seen).toMatchObject({ kind: 'seen', clientIds: [`${'c'.repeat(255)}…`] });
      await a.send(13, 3, { groupId: group, memberId: '', members: [{ memberId: joined.memberId, groupInstanceId: 'long', reason: null }] }, clientId);
      await watch.touched({});
      const left = watch.history(group)!.events.find((e) => e.kind === 'member-left');
      // A static member's id is made of its instance id: short, kept whole.
      expect(left).toMatchObject({ memberId: joined.memberId, clientId: `${'c'.repeat(255)}…`, cause: 'leave' });
    } finally {
      a.close();
    }
  });

  it("names a share member's leaving heartbeat a leave, and the epoch its share partitions' initialization starts a metadata change", async () => {
    const shareServer = await startTestServer({ clock: 'manual', config: SHARE_TEST_CONFIG });
    const shareWatch = new GroupWatch({ broker: shareServer.broker, faults: shareServer.faults, clock: shareServer.clock, sampleIntervalMs: 0, settleMs: 3_600_000 });
    const c = await RawClient.connect(shareServer.port);
    try {
      const group = 'watch-share';
      shareServer.broker.topics.create('watch-share-topic', 1);
      await shareWatch.touched({});
      const member = 'share-member-1';
      const joined = await c.send(76, 1, { groupId: group, memberId: member, memberEpoch: 0, rackId: null, subscribedTopicNames: ['watch-share-topic'] }, 'share-a');
      expect(joined.errorCode).toBe(ErrorCode.NONE);
      await shareWatch.touched({});
      // The join started the share partition's initialization; once done, the group epoch moves on.
      await shareServer.broker.share.initializationsSettled();
      await shareServer.broker.runtime.flush();
      const assigned = await c.send(76, 1, { groupId: group, memberId: member, memberEpoch: joined.memberEpoch, rackId: null, subscribedTopicNames: null }, 'share-a');
      expect(assigned.memberEpoch).toBeGreaterThan(joined.memberEpoch);
      await shareWatch.touched({});
      // Failed before: Kafka's share consumer closes with a heartbeat of epoch -1, which was not
      // counted as leaving, so its member-left and rebalance read "session timeout".
      const left = await c.send(76, 1, { groupId: group, memberId: member, memberEpoch: -1, rackId: null, subscribedTopicNames: null }, 'share-a');
      expect(left.errorCode).toBe(ErrorCode.NONE);
      await shareWatch.touched({});
      const events = shareWatch.history(group)!.events;
      expect(events.filter((e) => e.kind === 'rebalance').map((e) => (e.kind === 'rebalance' ? e.cause : null))).toEqual(['join', 'metadata change', 'leave']);
      expect(events.filter((e) => e.kind === 'member-left')).toMatchObject([{ memberId: member, clientId: 'share-a', cause: 'leave' }]);
      expect(shareWatch.rebalanceCounts().filter((r) => r.groupType === 'share').map(({ cause }) => cause).sort()).toEqual(['join', 'leave', 'metadata change']);
    } finally {
      c.close();
      shareWatch.close();
      await shareServer.stop();
    }
  });
});

describe('nextLookDelayMs', () => {
  it('spaces periodic looks by the interval, or by ten times a long look from its start', () => {
    expect([nextLookDelayMs(1000, 0), nextLookDelayMs(1000, 100), nextLookDelayMs(1000, 300), nextLookDelayMs(1000, 2000)]).toEqual([1000, 1000, 2700, 18000]);
  });
});

describe('GroupWatch with as many groups as it follows', () => {
  it('looks at the groups it follows only, and follows another once one of them is gone', async () => {
    const server = await startTestServer({ clock: 'manual' });
    const watch = new GroupWatch({ broker: server.broker, faults: server.faults, clock: server.clock, sampleIntervalMs: 0, settleMs: 3_600_000 });
    try {
      const c = await RawClient.connect(server.port);
      await createTopic(c, 'watched', 1);
      // 2,001 groups known by an offset each: the watch follows 2,000 of them, in id order.
      const ids = Array.from({ length: 2001 }, (_, i) => `g-${String(i).padStart(4, '0')}`);
      for (const groupId of ids) {
        const res = await c.send(8, 8, { groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'watched', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
        expect(res.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
      }
      await watch.sample();
      expect([watch.history('g-0000') !== null, watch.history('g-1999') !== null, watch.history('g-2000')]).toEqual([true, true, null]);

      // Every group looked at goes through the share coordinator's lookup first (summary or description).
      const share = server.broker.share;
      const lookup = share.committedGroup;
      const looked: string[] = [];
      share.committedGroup = function (this: typeof share, groupId: string) {
        looked.push(groupId);
        return lookup.call(this, groupId);
      };
      const notices: ChangeNotice[] = [];
      watch.subscribe((n) => notices.push(n));
      try {
        await watch.sample();
        expect([looked.length, looked.includes('g-2000')]).toEqual([2000, false]);

        expect((await c.send(42, 2, { groupsNames: ['g-0000'] })).results[0]!.errorCode).toBe(ErrorCode.NONE);
        await watch.sample();
        expect(notices.at(-1)!.groups).toEqual(['g-0000']);
        expect(watch.history('g-0000')).toBeNull();
        // A place is free: the next look lists every group, and follows the one left out.
        looked.length = 0;
        await watch.sample();
        expect(looked.length).toBeGreaterThan(2000);
        expect(watch.history('g-2000')).not.toBeNull();
      } finally {
        share.committedGroup = lookup;
      }
      c.close();
    } finally {
      watch.close();
      await server.stop();
    }
  }, 60_000);
});
