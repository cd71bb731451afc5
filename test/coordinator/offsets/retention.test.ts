import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { BrokerConfig } from '../../../src/config.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { Writer } from '../../../src/protocol/primitives.js';
import * as Subscription from '../../../src/records/schemas/ConsumerProtocolSubscription.js';
import { ClassicGroupCoordinator } from '../../../src/coordinator/classic/classic-coordinator.js';
import { ClassicGroupState } from '../../../src/coordinator/classic/group-state.js';
import { OffsetStore } from '../../../src/coordinator/offsets/offset-store.js';
import { OffsetRetention, SWEEP_GROUPS_PER_SLICE, SWEEP_OFFSETS_PER_SLICE, classicRetentionSource } from '../../../src/coordinator/offsets/retention.js';
import {
  COMMIT_TIMESTAMP_EXPIRATION,
  expirationFrom,
  isOffsetExpired,
} from '../../../src/coordinator/offsets/expiration-condition.js';
import type { JoinGroupRequest } from '../../../src/protocol/messages/JoinGroupRequest.js';
import { FakeTime } from '../../support/fake-time.js';
import { MemoryGroupLog } from '../../support/memory-group-log.js';
import { leaveGroupAt } from '../classic/harness.js';

const RETENTION_MINUTES = 10;
const RETENTION_MS = RETENTION_MINUTES * 60_000;
const CHECK_MS = 60_000;
const T0 = 1_700_000_000_000;
const SESSION_MS = 2_000_000_000;

function subscription(topics: string[]): Buffer {
  const w = new Writer();
  w.int16(1);
  Subscription.encode(w, 1, { topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null });
  return Buffer.from(w.finish());
}

function setup(config: Record<string, string | number> = {}) {
  const time = new FakeTime(T0);
  const groupLog = new MemoryGroupLog();
  const brokerConfig = new BrokerConfig({
    'offsets.retention.minutes': RETENTION_MINUTES,
    'offsets.retention.check.interval.ms': CHECK_MS,
    // members stay in their groups across the long clock jumps below without heartbeats
    'group.max.session.timeout.ms': SESSION_MS,
    ...config,
  });
  const logLines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const log = pino({ level: 'info' }, sink);
  const runtime = groupLog.runtime();
  const offsets = new OffsetStore({ runtime, time });
  const coordinator = new ClassicGroupCoordinator({ config: brokerConfig, log, time, writer: runtime, offsets });
  runtime.register(offsets);
  runtime.register(coordinator);
  const retention = new OffsetRetention({ config: brokerConfig, log, time, offsets, sources: [classicRetentionSource(coordinator)] });
  return { time, groupLog, offsets, coordinator, retention, logLines };
}

type H = ReturnType<typeof setup>;

const client = { apiVersion: 5, clientId: 'c', clientHost: '/127.0.0.1' };

function joinRequest(groupId: string, topics: string[], memberId = '', protocolType = 'consumer'): JoinGroupRequest {
  return {
    groupId,
    sessionTimeoutMs: SESSION_MS,
    rebalanceTimeoutMs: 30_000,
    memberId,
    groupInstanceId: null,
    protocolType,
    protocols: [{ name: 'range', metadata: subscription(topics) }],
    reason: null,
  };
}

/** One dynamic member joins (two-phase, v5) and syncs: the group is Stable at generation 1. */
async function stableGroup(h: H, groupId: string, topics: string[], protocolType = 'consumer'): Promise<{ memberId: string; generationId: number }> {
  const first = await h.coordinator.joinGroup(joinRequest(groupId, topics, '', protocolType), client);
  expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
  const parked = h.coordinator.joinGroup(joinRequest(groupId, topics, first.memberId, protocolType), client);
  h.time.advance(0);
  const joined = await parked;
  expect(joined.errorCode).toBe(ErrorCode.NONE);
  const sync = await h.coordinator.syncGroup(
    { groupId, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [{ memberId: joined.memberId, assignment: Buffer.alloc(0) }] },
    { apiVersion: 3 },
  );
  expect(sync.errorCode).toBe(ErrorCode.NONE);
  expect(h.coordinator.group(groupId)!.state).toBe(ClassicGroupState.STABLE);
  return { memberId: joined.memberId, generationId: joined.generationId };
}

async function leave(h: H, groupId: string, memberId: string): Promise<void> {
  const res = await leaveGroupAt(h.coordinator, { groupId, memberId, members: [{ memberId, groupInstanceId: null, reason: null }] }, { apiVersion: 3 });
  expect(res.errorCode).toBe(ErrorCode.NONE);
  expect(h.coordinator.group(groupId)!.state).toBe(ClassicGroupState.EMPTY);
}

function commit(h: H, groupId: string, topic: string, partition: number, offset: bigint, expireTimestamp = -1n): Promise<void> {
  return h.offsets.commit(groupId, [{ topic, partition, offset, leaderEpoch: -1, metadata: '', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', expireTimestamp }]);
}

const committed = (h: H, groupId: string, topic: string, partition: number) => h.offsets.fetch(groupId, topic, partition)?.committedOffset;

function tombstones(h: H) {
  return h.groupLog.records.filter((r) => r.value === null).map((r) => (r.kind === 'offset-commit' ? `${r.groupId}/${r.topic}-${r.partition}` : `${r.kind}:${r.groupId}`));
}

describe('isOffsetExpired (OffsetExpirationConditionImpl)', () => {
  const offset = (commitTimestamp: number, expireTimestamp = -1n) => ({
    committedOffset: 1n, leaderEpoch: -1, metadata: '', commitTimestamp: BigInt(commitTimestamp), expireTimestamp, topicId: '',
  });
  it('expires once now - base >= retention, the base chosen by the condition', () => {
    expect(isOffsetExpired(COMMIT_TIMESTAMP_EXPIRATION, offset(1000), 1000 + RETENTION_MS - 1, RETENTION_MS)).toBe(false);
    expect(isOffsetExpired(COMMIT_TIMESTAMP_EXPIRATION, offset(1000), 1000 + RETENTION_MS, RETENTION_MS)).toBe(true);
    expect(isOffsetExpired(expirationFrom(5000), offset(1000), 5000 + RETENTION_MS - 1, RETENTION_MS)).toBe(false);
    expect(isOffsetExpired(expirationFrom(5000), offset(1000), 5000 + RETENTION_MS, RETENTION_MS)).toBe(true);
  });
  it('uses an explicit expire timestamp instead of the retention when the commit carried one', () => {
    expect(isOffsetExpired(COMMIT_TIMESTAMP_EXPIRATION, offset(1000, 3000n), 2999, RETENTION_MS)).toBe(false);
    expect(isOffsetExpired(COMMIT_TIMESTAMP_EXPIRATION, offset(1000, 3000n), 3000, RETENTION_MS)).toBe(true);
    // a long explicit retention outlives offsets.retention.minutes
    expect(isOffsetExpired(COMMIT_TIMESTAMP_EXPIRATION, offset(1000, BigInt(1000 + 2 * RETENTION_MS)), 1000 + RETENTION_MS, RETENTION_MS)).toBe(false);
  });
});

describe('ClassicGroup.offsetExpirationCondition', () => {
  it('simple group: commit time; Empty with a protocol type: the time it became Empty; Stable consumer: commit time; rebalancing: none', async () => {
    const h = setup();
    const simple = h.coordinator.getOrCreateSimpleGroup('simple');
    expect(simple.offsetExpirationCondition()).toBe(COMMIT_TIMESTAMP_EXPIRATION);

    const { memberId } = await stableGroup(h, 'g', ['t1']);
    const g = h.coordinator.group('g')!;
    expect(g.offsetExpirationCondition()).toBe(COMMIT_TIMESTAMP_EXPIRATION);
    expect(g.isSubscribedToTopic('t1')).toBe(true);
    expect(g.isSubscribedToTopic('t2')).toBe(false);

    h.time.advance(1234);
    await leave(h, 'g', memberId);
    const cond = g.offsetExpirationCondition()!;
    const anyOffset = { committedOffset: 0n, leaderEpoch: -1, metadata: '', commitTimestamp: 1n, expireTimestamp: -1n, topicId: '' };
    expect(cond.baseTimestamp(anyOffset)).toBe(T0 + 1234);
    g.currentStateTimestamp = null; // as loaded from a GroupMetadata record older than v2
    expect(g.offsetExpirationCondition()).toBe(COMMIT_TIMESTAMP_EXPIRATION);

    // another protocol type, Stable: subscriptions unknown -> nothing expires
    await stableGroup(h, 'connect', ['t1'], 'connect');
    expect(h.coordinator.group('connect')!.offsetExpirationCondition()).toBeNull();
  });
});

describe('offsets retention sweep', () => {
  it('works in slices of at most SWEEP_GROUPS_PER_SLICE groups, a turn of the event loop between them', async () => {
    const h = setup();
    const groups = Array.from({ length: 3 * SWEEP_GROUPS_PER_SLICE + 1 }, (_, i) => `many-${i}`);
    for (const g of groups) await commit(h, g, 't1', 0, 1n);
    h.time.advance(RETENTION_MS);
    // The pending view: a tombstone counts from when the sweep applies it, before it is durable.
    const gone = () => groups.filter((g) => h.offsets.latestOffsetsOf(g).length === 0).length;
    const sweeping = h.retention.sweep();
    // Failed before: the whole sweep ran before sweep() returned.
    const afterFirstSlice = gone();
    expect(afterFirstSlice).toBeGreaterThan(0);
    expect(afterFirstSlice).toBeLessThanOrEqual(SWEEP_GROUPS_PER_SLICE);
    await new Promise((resolve) => setImmediate(resolve));
    expect(gone()).toBeLessThanOrEqual(2 * SWEEP_GROUPS_PER_SLICE);
    expect(await sweeping).toEqual({ expiredOffsets: groups.length, deletedGroups: groups });
    expect(gone()).toBe(groups.length);
  });

  it('expires a group of more offsets than SWEEP_OFFSETS_PER_SLICE over several slices, deciding each on its own turn: a commit made in between is kept', async () => {
    const h = setup();
    const count = 3 * SWEEP_OFFSETS_PER_SLICE + 5;
    await h.offsets.commit(
      'wide',
      Array.from({ length: count }, (_, p) => ({ topic: 'w', partition: p, offset: 1n, leaderEpoch: -1, metadata: '', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', expireTimestamp: -1n })),
    );
    h.time.advance(RETENTION_MS);
    const left = () => h.offsets.latestOffsetsOf('wide').length;
    const sweeping = h.retention.sweep();
    // Failed before: every offset was tombstoned before sweep() returned.
    expect(left()).toBe(count - SWEEP_OFFSETS_PER_SLICE);
    // Between two slices the last partition is committed again: fresh, it must stay.
    const fresh = commit(h, 'wide', 'w', count - 1, 99n);
    await new Promise((resolve) => setImmediate(resolve));
    expect(left()).toBe(count - 2 * SWEEP_OFFSETS_PER_SLICE);
    expect(await sweeping).toEqual({ expiredOffsets: count - 1, deletedGroups: [] });
    await fresh;
    expect(h.offsets.latestOffsetsOf('wide').map((o) => [o.partition, o.offset.committedOffset])).toEqual([[count - 1, 99n]]);
    // The next sweep, once that one has expired too, deletes the group.
    h.time.advance(RETENTION_MS);
    expect(await h.retention.sweep()).toEqual({ expiredOffsets: 1, deletedGroups: ['wide'] });
  });

  it('decides on the latest offsets: a commit still being written when the sweep runs is not expired, nor its group', async () => {
    const h = setup();
    await commit(h, 'standalone', 't1', 0, 5n);
    h.time.advance(RETENTION_MS);
    const fresh = commit(h, 'standalone', 't1', 0, 9n); // in flight while the sweep decides
    const swept = await h.retention.sweep();
    await fresh;
    expect(swept).toEqual({ expiredOffsets: 0, deletedGroups: [] });
    expect(committed(h, 'standalone', 't1', 0)).toBe(9n);
    expect(tombstones(h)).toEqual([]);
  });

  it('keeps an Empty group\'s offsets until retention after it became Empty, then expires them and deletes the group', async () => {
    const h = setup();
    const { memberId } = await stableGroup(h, 'g', ['orders']);
    await commit(h, 'g', 'orders', 0, 42n);
    await commit(h, 'g', 'orders', 1, 7n);
    h.time.advance(5_000);
    await leave(h, 'g', memberId);
    const emptySince = h.time.now();

    // commit time + retention has passed, but the group has only been Empty for retention - 1 ms
    h.time.advance(RETENTION_MS - 1);
    expect(h.time.now() - emptySince).toBe(RETENTION_MS - 1);
    expect(await h.retention.sweep()).toEqual({ expiredOffsets: 0, deletedGroups: [] });
    expect(committed(h, 'g', 'orders', 0)).toBe(42n);
    expect(committed(h, 'g', 'orders', 1)).toBe(7n);
    expect(h.coordinator.group('g')!.state).toBe(ClassicGroupState.EMPTY);

    h.time.advance(1);
    expect(await h.retention.sweep()).toEqual({ expiredOffsets: 2, deletedGroups: ['g'] });
    expect(committed(h, 'g', 'orders', 0)).toBeUndefined();
    expect(committed(h, 'g', 'orders', 1)).toBeUndefined();
    expect(h.coordinator.group('g')).toBeUndefined();
    expect(h.coordinator.describeGroups(['g'], 5)[0]!.groupState).toBe('Dead');
    expect((await h.coordinator.listGroups()).map((x) => x.groupId)).not.toContain('g');
    // tombstones: both offsets, then the group
    expect(tombstones(h)).toEqual(['g/orders-0', 'g/orders-1', 'group-metadata:g']);
    // one info line for the sweep, naming the group and its count
    const lines = h.logLines.filter((l) => l['msg'] === 'offsets retention sweep removed expired offsets');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, expiredOffsets: 2, groups: { g: 2 }, deletedGroups: ['g'] });
    // nothing left to do
    expect(await h.retention.sweep()).toEqual({ expiredOffsets: 0, deletedGroups: [] });
  });

  it('never expires a Stable consumer group\'s subscribed topics; an unsubscribed topic expires by commit time', async () => {
    const h = setup();
    await stableGroup(h, 'active', ['subscribed']);
    await commit(h, 'active', 'subscribed', 0, 100n);
    await commit(h, 'active', 'old-topic', 0, 200n);
    h.time.advance(RETENTION_MS - 1);
    expect(await h.retention.sweep()).toEqual({ expiredOffsets: 0, deletedGroups: [] });
    expect(committed(h, 'active', 'old-topic', 0)).toBe(200n);

    h.time.advance(1);
    expect(await h.retention.sweep()).toEqual({ expiredOffsets: 1, deletedGroups: [] });
    expect(committed(h, 'active', 'old-topic', 0)).toBeUndefined();
    expect(committed(h, 'active', 'subscribed', 0)).toBe(100n);

    h.time.advance(100 * RETENTION_MS);
    expect(await h.retention.sweep()).toEqual({ expiredOffsets: 0, deletedGroups: [] });
    expect(committed(h, 'active', 'subscribed', 0)).toBe(100n);
    expect(h.coordinator.group('active')!.state).toBe(ClassicGroupState.STABLE);
  });

  it('expires nothing in a non-Empty group of another protocol type, or while rebalancing', async () => {
    const h = setup();
    await stableGroup(h, 'connect', ['x'], 'connect');
    await commit(h, 'connect', 'x', 0, 1n);
    await stableGroup(h, 'rebalancing', ['a']);
    await commit(h, 'rebalancing', 'b', 0, 2n);
    // a second member joining moves the group to PreparingRebalance (the first member has not rejoined)
    const first = await h.coordinator.joinGroup(joinRequest('rebalancing', ['a']), client);
    void h.coordinator.joinGroup(joinRequest('rebalancing', ['a'], first.memberId), client);
    expect(h.coordinator.group('rebalancing')!.state).toBe(ClassicGroupState.PREPARING_REBALANCE);
    // a sweep that sees a clock far ahead (the real one stays put, so no rebalance or session
    // timeout fires) would expire any offset that may expire; these must not
    const later = new OffsetRetention({
      config: new BrokerConfig({ 'offsets.retention.minutes': 1 }),
      log: pino({ level: 'silent' }),
      time: { now: () => h.time.now() + 10 * RETENTION_MS, schedule: (ms, fn) => h.time.schedule(ms, fn) },
      offsets: h.offsets,
      sources: [classicRetentionSource(h.coordinator)],
    });
    expect(await later.sweep()).toEqual({ expiredOffsets: 0, deletedGroups: [] });
    expect(committed(h, 'connect', 'x', 0)).toBe(1n);
    expect(committed(h, 'rebalancing', 'b', 0)).toBe(2n);
  });

  it('keeps the offsets of a group that rejoins before the sweep', async () => {
    const h = setup();
    const { memberId } = await stableGroup(h, 'g', ['orders']);
    await commit(h, 'g', 'orders', 0, 42n);
    await leave(h, 'g', memberId);
    h.time.advance(RETENTION_MS - 10);
    await stableGroup(h, 'g', ['orders']);
    h.time.advance(10 * RETENTION_MS);
    expect(await h.retention.sweep()).toEqual({ expiredOffsets: 0, deletedGroups: [] });
    expect(committed(h, 'g', 'orders', 0)).toBe(42n);
  });

  it('honours an explicit expire timestamp (OffsetCommit v2-4 retention_time_ms)', async () => {
    const h = setup();
    h.coordinator.getOrCreateSimpleGroup('explicit');
    const shortExpiry = BigInt(T0 + 30_000);
    const longExpiry = BigInt(T0 + 3 * RETENTION_MS);
    await commit(h, 'explicit', 't', 0, 1n, shortExpiry);
    await commit(h, 'explicit', 't', 1, 2n, longExpiry);
    h.time.advance(29_999);
    expect((await h.retention.sweep()).expiredOffsets).toBe(0);
    h.time.advance(1);
    expect(await h.retention.sweep()).toEqual({ expiredOffsets: 1, deletedGroups: [] });
    expect(committed(h, 'explicit', 't', 0)).toBeUndefined();
    // past offsets.retention.minutes, but its own expire timestamp is later
    h.time.advance(RETENTION_MS);
    expect((await h.retention.sweep()).expiredOffsets).toBe(0);
    expect(committed(h, 'explicit', 't', 1)).toBe(2n);
    h.time.advance(Number(longExpiry) - h.time.now());
    expect(await h.retention.sweep()).toEqual({ expiredOffsets: 1, deletedGroups: ['explicit'] });
  });

  it('expires a simple group\'s offsets by commit time, each on its own, and then deletes the group', async () => {
    const h = setup();
    h.coordinator.getOrCreateSimpleGroup('simple');
    await commit(h, 'simple', 't', 0, 10n);
    h.time.advance(60_000);
    await commit(h, 'simple', 't', 1, 11n);
    h.time.advance(RETENTION_MS - 60_000 - 1);
    expect((await h.retention.sweep()).expiredOffsets).toBe(0);
    h.time.advance(1);
    expect(await h.retention.sweep()).toEqual({ expiredOffsets: 1, deletedGroups: [] });
    expect(committed(h, 'simple', 't', 0)).toBeUndefined();
    expect(committed(h, 'simple', 't', 1)).toBe(11n);
    h.time.advance(60_000);
    expect(await h.retention.sweep()).toEqual({ expiredOffsets: 1, deletedGroups: ['simple'] });
    expect(h.coordinator.group('simple')).toBeUndefined();
    expect(tombstones(h)).toEqual(['simple/t-0', 'simple/t-1', 'group-metadata:simple']);
  });

  it('treats a group known only by its offsets (as after a restart) as a simple group', async () => {
    const h = setup();
    await commit(h, 'offsets-only', 't', 0, 5n);
    h.time.advance(RETENTION_MS);
    expect(await h.retention.sweep()).toEqual({ expiredOffsets: 1, deletedGroups: ['offsets-only'] });
    expect(await h.coordinator.listGroups()).toEqual([]);
  });

  it('deletes an Empty group that never committed, but not one with members', async () => {
    const h = setup();
    const { memberId } = await stableGroup(h, 'no-offsets', ['t']);
    await stableGroup(h, 'busy', ['t']);
    expect(await h.retention.sweep()).toEqual({ expiredOffsets: 0, deletedGroups: [] });
    await leave(h, 'no-offsets', memberId);
    expect(await h.retention.sweep()).toEqual({ expiredOffsets: 0, deletedGroups: ['no-offsets'] });
    expect((await h.coordinator.listGroups()).map((g) => g.groupId)).toEqual(['busy']);
  });

  it('runs every offsets.retention.check.interval.ms once started, and not after stop', async () => {
    const h = setup();
    h.coordinator.getOrCreateSimpleGroup('periodic');
    await commit(h, 'periodic', 't', 0, 1n);
    h.retention.start();
    h.retention.start(); // idempotent: one timer
    expect(h.time.pendingTimers()).toBe(1);
    // RETENTION_MS is a multiple of CHECK_MS: the sweep at RETENTION_MS expires the offset
    h.time.advance(RETENTION_MS - 1);
    expect(committed(h, 'periodic', 't', 0)).toBe(1n);
    h.time.advance(1);
    expect(await h.retention.lastSweep).toEqual({ expiredOffsets: 1, deletedGroups: ['periodic'] });
    expect(committed(h, 'periodic', 't', 0)).toBeUndefined();
    expect(h.coordinator.group('periodic')).toBeUndefined();
    expect(h.time.pendingTimers()).toBe(1); // rescheduled

    h.coordinator.getOrCreateSimpleGroup('later');
    await commit(h, 'later', 't', 0, 2n);
    h.retention.stop();
    expect(h.time.pendingTimers()).toBe(0);
    h.time.advance(10 * RETENTION_MS);
    expect(committed(h, 'later', 't', 0)).toBe(2n);
  });

  it('rejects when a tombstone cannot be written', async () => {
    const h = setup();
    h.coordinator.getOrCreateSimpleGroup('s');
    await commit(h, 's', 't', 0, 1n);
    h.time.advance(RETENTION_MS);
    h.groupLog.failNextAppend();
    await expect(h.retention.sweep()).rejects.toThrow('simulated append failure');
  });
});
