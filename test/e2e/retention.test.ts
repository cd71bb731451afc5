import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { rmSync } from 'node:fs';
import { startServer } from '../../src/index.js';
import { startTestServer } from '../support/server.js';
import { FakeTime } from '../support/fake-time.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Writer } from '../../src/protocol/primitives.js';
import * as Subscription from '../../src/records/schemas/ConsumerProtocolSubscription.js';
import { defaultCreateTopicsRequest, defaultCreatableTopic } from '../../src/protocol/messages/CreateTopicsRequest.js';
import { defaultJoinGroupRequest, type JoinGroupRequest } from '../../src/protocol/messages/JoinGroupRequest.js';
import { defaultSyncGroupRequest } from '../../src/protocol/messages/SyncGroupRequest.js';
import { defaultOffsetCommitRequest } from '../../src/protocol/messages/OffsetCommitRequest.js';

/**
 * Offsets retention (KIP-211) over the wire, with the server's clock injected: each test starts
 * its own server (the clock is shared by every group of a server) and moves time by hand.
 */

const RETENTION_MINUTES = 1;
const RETENTION_MS = RETENTION_MINUTES * 60_000;
const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

function subscription(topics: string[]): Buffer {
  const w = new Writer();
  w.int16(1);
  Subscription.encode(w, 1, { topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null });
  return Buffer.from(w.finish());
}

type Server = Awaited<ReturnType<typeof startTestServer>>;

const running: Array<{ server: Server; client: RawClient }> = [];
afterEach(async () => {
  for (const { server, client } of running.splice(0)) {
    client.close();
    await server.stop();
  }
});

/** A server whose periodic sweep is far away (manual sweeps) unless `checkIntervalMs` is given. */
async function start(checkIntervalMs = 100 * RETENTION_MS) {
  const time = new FakeTime();
  const server = await startTestServer({
    time,
    config: {
      'offsets.retention.minutes': RETENTION_MINUTES,
      'offsets.retention.check.interval.ms': checkIntervalMs,
      'group.initial.rebalance.delay.ms': 0,
    },
  });
  const client = await RawClient.connect(server.port);
  running.push({ server, client });
  for (const name of ['orders', 'payments']) {
    const created = await client.send(19, 4, {
      ...defaultCreateTopicsRequest(),
      topics: [{ ...defaultCreatableTopic(), name, numPartitions: 2, replicationFactor: 1 }],
      timeoutMs: 5000,
    });
    expect(created.topics[0]!.errorCode).toBe(ErrorCode.NONE);
  }
  return { time, server, client };
}

type Ctx = Awaited<ReturnType<typeof start>>;

/** Resolves `promise`, advancing the fake clock by 0 ms meanwhile so due timers (the join completion) fire. */
async function driving<T>({ time }: Ctx, promise: Promise<T>): Promise<T> {
  let done = false;
  const result = promise.finally(() => (done = true));
  while (!done) {
    time.advance(0);
    await new Promise((r) => setTimeout(r, 5));
  }
  return result;
}

function joinRequest(groupId: string, topics: string[], memberId = ''): JoinGroupRequest {
  return {
    ...defaultJoinGroupRequest(),
    groupId,
    sessionTimeoutMs: 1_800_000, // the broker's maximum: members outlive the clock jumps below
    rebalanceTimeoutMs: 60_000,
    memberId,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: subscription(topics) }],
  };
}

/** JoinGroup v5 in two phases, then SyncGroup: the member's group is Stable. */
async function joinAndSync(ctx: Ctx, groupId: string, topics: string[]): Promise<{ memberId: string; generationId: number }> {
  const first = await ctx.client.send(11, 5, joinRequest(groupId, topics));
  expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
  const joined = await driving(ctx, ctx.client.send(11, 5, joinRequest(groupId, topics, first.memberId)));
  expect(joined.errorCode).toBe(ErrorCode.NONE);
  const synced = await ctx.client.send(14, 3, {
    ...defaultSyncGroupRequest(),
    groupId,
    generationId: joined.generationId,
    memberId: joined.memberId,
    assignments: [{ memberId: joined.memberId, assignment: Buffer.alloc(0) }],
  });
  expect(synced.errorCode).toBe(ErrorCode.NONE);
  return { memberId: joined.memberId, generationId: joined.generationId };
}

async function commit(
  ctx: Ctx,
  groupId: string,
  member: { memberId: string; generationId: number } | null,
  offsets: Array<[topic: string, partition: number, offset: bigint]>,
  options: { version?: number; retentionTimeMs?: bigint } = {},
): Promise<void> {
  const byTopic = new Map<string, Array<[number, bigint]>>();
  for (const [topic, partition, offset] of offsets) byTopic.set(topic, [...(byTopic.get(topic) ?? []), [partition, offset]]);
  const res = await ctx.client.send(8, options.version ?? 8, {
    ...defaultOffsetCommitRequest(),
    groupId,
    generationIdOrMemberEpoch: member?.generationId ?? -1,
    memberId: member?.memberId ?? '',
    retentionTimeMs: options.retentionTimeMs ?? -1n,
    topics: [...byTopic].map(([name, parts]) => ({
      name,
      topicId: ZERO_UUID,
      partitions: parts.map(([partitionIndex, committedOffset]) => ({ partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: '' })),
    })),
  });
  for (const t of res.topics) for (const p of t.partitions) expect(p.errorCode).toBe(ErrorCode.NONE);
}

/** Committed offsets by OffsetFetch v5 ("topic-partition" -> offset; -1 when none). */
async function fetchOffsets(ctx: Ctx, groupId: string, topics: Record<string, number[]>): Promise<Record<string, bigint>> {
  const res = await ctx.client.send(9, 5, {
    groupId,
    topics: Object.entries(topics).map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
    groups: [],
    requireStable: false,
  });
  expect(res.errorCode).toBe(ErrorCode.NONE);
  const out: Record<string, bigint> = {};
  for (const t of res.topics) for (const p of t.partitions) {
    expect(p.errorCode).toBe(ErrorCode.NONE);
    out[`${t.name}-${p.partitionIndex}`] = p.committedOffset;
  }
  return out;
}

async function leave(ctx: Ctx, groupId: string, memberId: string): Promise<void> {
  const res = await ctx.client.send(13, 3, { groupId, memberId: '', members: [{ memberId, groupInstanceId: null, reason: null }] });
  expect(res.errorCode).toBe(ErrorCode.NONE);
  expect(res.members[0]!.errorCode).toBe(ErrorCode.NONE);
}

async function describeState(ctx: Ctx, groupId: string): Promise<string> {
  const res = await ctx.client.send(15, 5, { groups: [groupId], includeAuthorizedOperations: false });
  return res.groups[0]!.groupState;
}

async function listedGroups(ctx: Ctx): Promise<string[]> {
  const res = await ctx.client.send(16, 4, { statesFilter: [], typesFilter: [] });
  expect(res.errorCode).toBe(ErrorCode.NONE);
  return res.groups.map((g) => g.groupId).sort();
}

describe('offsets retention over the wire (injected clock)', () => {
  it('expires an Empty group\'s offsets retention after it became Empty, and deletes the group', async () => {
    const ctx = await start();
    const member = await joinAndSync(ctx, 'leaver', ['orders']);
    await commit(ctx, 'leaver', member, [['orders', 0, 42n], ['orders', 1, 43n]]);
    ctx.time.advance(10_000);
    await leave(ctx, 'leaver', member.memberId);
    expect(await describeState(ctx, 'leaver')).toBe('Empty');

    ctx.time.advance(RETENTION_MS - 1);
    expect(await ctx.server.sweepExpiredOffsets()).toEqual({ expiredOffsets: 0, deletedGroups: [] });
    expect(await fetchOffsets(ctx, 'leaver', { orders: [0, 1] })).toEqual({ 'orders-0': 42n, 'orders-1': 43n });
    expect(await describeState(ctx, 'leaver')).toBe('Empty');

    ctx.time.advance(1);
    expect(await ctx.server.sweepExpiredOffsets()).toEqual({ expiredOffsets: 2, deletedGroups: ['leaver'] });
    expect(await fetchOffsets(ctx, 'leaver', { orders: [0, 1] })).toEqual({ 'orders-0': -1n, 'orders-1': -1n });
    expect(await describeState(ctx, 'leaver')).toBe('Dead');
    expect(await listedGroups(ctx)).toEqual([]);
  });

  it('keeps a Stable consumer group\'s subscribed offsets; an unsubscribed topic\'s expire by commit time', async () => {
    const ctx = await start();
    const member = await joinAndSync(ctx, 'active', ['orders']);
    await commit(ctx, 'active', member, [['orders', 0, 5n], ['payments', 1, 9n]]);

    ctx.time.advance(RETENTION_MS - 1);
    expect(await ctx.server.sweepExpiredOffsets()).toEqual({ expiredOffsets: 0, deletedGroups: [] });
    expect(await fetchOffsets(ctx, 'active', { orders: [0], payments: [1] })).toEqual({ 'orders-0': 5n, 'payments-1': 9n });

    ctx.time.advance(1);
    expect(await ctx.server.sweepExpiredOffsets()).toEqual({ expiredOffsets: 1, deletedGroups: [] });
    expect(await fetchOffsets(ctx, 'active', { orders: [0], payments: [1] })).toEqual({ 'orders-0': 5n, 'payments-1': -1n });

    ctx.time.advance(20 * RETENTION_MS);
    expect(await ctx.server.sweepExpiredOffsets()).toEqual({ expiredOffsets: 0, deletedGroups: [] });
    expect(await fetchOffsets(ctx, 'active', { orders: [0] })).toEqual({ 'orders-0': 5n });
    expect(await describeState(ctx, 'active')).toBe('Stable');
  });

  it('keeps the offsets of a group that rejoins before the sweep', async () => {
    const ctx = await start();
    const member = await joinAndSync(ctx, 'returning', ['orders']);
    await commit(ctx, 'returning', member, [['orders', 0, 77n]]);
    await leave(ctx, 'returning', member.memberId);
    ctx.time.advance(RETENTION_MS - 1);
    const again = await joinAndSync(ctx, 'returning', ['orders']);
    expect(again.generationId).toBe(3); // 1 -> 2 (Empty after the leave) -> 3
    ctx.time.advance(5 * RETENTION_MS);
    expect(await ctx.server.sweepExpiredOffsets()).toEqual({ expiredOffsets: 0, deletedGroups: [] });
    expect(await fetchOffsets(ctx, 'returning', { orders: [0] })).toEqual({ 'orders-0': 77n });
    expect(await describeState(ctx, 'returning')).toBe('Stable');
  });

  it('expires a commit with retention_time_ms (OffsetCommit v4) at its own time', async () => {
    const ctx = await start();
    await commit(ctx, 'explicit', null, [['orders', 0, 1n]], { version: 4, retentionTimeMs: 5_000n });
    await commit(ctx, 'explicit', null, [['orders', 1, 2n]], { version: 4, retentionTimeMs: BigInt(3 * RETENTION_MS) });

    ctx.time.advance(4_999);
    expect(await ctx.server.sweepExpiredOffsets()).toEqual({ expiredOffsets: 0, deletedGroups: [] });
    ctx.time.advance(1);
    expect(await ctx.server.sweepExpiredOffsets()).toEqual({ expiredOffsets: 1, deletedGroups: [] });
    expect(await fetchOffsets(ctx, 'explicit', { orders: [0, 1] })).toEqual({ 'orders-0': -1n, 'orders-1': 2n });

    // offsets.retention.minutes has passed, the commit's own retention has not
    ctx.time.advance(3 * RETENTION_MS - 5_000 - 1);
    expect(await ctx.server.sweepExpiredOffsets()).toEqual({ expiredOffsets: 0, deletedGroups: [] });
    ctx.time.advance(1);
    expect(await ctx.server.sweepExpiredOffsets()).toEqual({ expiredOffsets: 1, deletedGroups: ['explicit'] });
    expect(await fetchOffsets(ctx, 'explicit', { orders: [1] })).toEqual({ 'orders-1': -1n });
  });

  it('expires a simple group\'s offsets by commit time', async () => {
    const ctx = await start();
    await commit(ctx, 'standalone', null, [['orders', 0, 10n]]);
    ctx.time.advance(30_000);
    await commit(ctx, 'standalone', null, [['payments', 0, 20n]]);
    expect(await describeState(ctx, 'standalone')).toBe('Empty');

    ctx.time.advance(RETENTION_MS - 30_000);
    expect(await ctx.server.sweepExpiredOffsets()).toEqual({ expiredOffsets: 1, deletedGroups: [] });
    expect(await fetchOffsets(ctx, 'standalone', { orders: [0], payments: [0] })).toEqual({ 'orders-0': -1n, 'payments-0': 20n });

    ctx.time.advance(30_000);
    expect(await ctx.server.sweepExpiredOffsets()).toEqual({ expiredOffsets: 1, deletedGroups: ['standalone'] });
    expect(await listedGroups(ctx)).toEqual([]);
  });

  it('writes the expiry durably: after a restart the offsets and the group stay gone', async () => {
    const ctx = await start();
    const member = await joinAndSync(ctx, 'durable', ['orders']);
    await commit(ctx, 'durable', member, [['orders', 0, 11n]]);
    await leave(ctx, 'durable', member.memberId);
    await commit(ctx, 'kept', null, [['payments', 0, 12n]]);
    ctx.time.advance(RETENTION_MS - 1);
    await commit(ctx, 'kept', null, [['payments', 0, 13n]]); // recommitted: its retention restarts
    ctx.time.advance(1);
    expect(await ctx.server.sweepExpiredOffsets()).toEqual({ expiredOffsets: 1, deletedGroups: ['durable'] });

    ctx.client.close();
    await ctx.server.close();
    const restarted = await startServer({ port: 0, dataDir: ctx.server.dataDir, time: ctx.time, config: { 'offsets.retention.minutes': RETENTION_MINUTES } });
    try {
      const client = await RawClient.connect(restarted.port);
      try {
        const again = { ...ctx, server: ctx.server, client };
        expect(await fetchOffsets(again, 'durable', { orders: [0] })).toEqual({ 'orders-0': -1n });
        expect(await fetchOffsets(again, 'kept', { payments: [0] })).toEqual({ 'payments-0': 13n });
        expect(await describeState(again, 'durable')).toBe('Dead');
        expect(await listedGroups(again)).toEqual(['kept']);
      } finally {
        client.close();
      }
    } finally {
      await restarted.close();
      running.splice(0);
      rmSync(ctx.server.dataDir, { recursive: true, force: true });
    }
  });

  it('sweeps every offsets.retention.check.interval.ms without a manual call', async () => {
    const checkMs = 15_000;
    const ctx = await start(checkMs);
    const member = await joinAndSync(ctx, 'periodic', ['orders']);
    await commit(ctx, 'periodic', member, [['orders', 0, 3n]]);
    await leave(ctx, 'periodic', member.memberId);
    await commit(ctx, 'simple', null, [['payments', 1, 4n]]);
    expect(await listedGroups(ctx)).toEqual(['periodic', 'simple']);

    // the server started at the clock's start, so its sweeps fall every checkMs from now: the
    // ones at 15, 30 and 45 s find nothing expired, the one at 60 s (= retention) expires both
    ctx.time.advance(RETENTION_MS - 1);
    expect(await fetchOffsets(ctx, 'periodic', { orders: [0] })).toEqual({ 'orders-0': 3n });
    expect(await fetchOffsets(ctx, 'simple', { payments: [1] })).toEqual({ 'payments-1': 4n });
    ctx.time.advance(1);
    expect(await ctx.server.broker.retention.lastSweep).toEqual({ expiredOffsets: 2, deletedGroups: ['periodic', 'simple'] });
    expect(await fetchOffsets(ctx, 'periodic', { orders: [0] })).toEqual({ 'orders-0': -1n });
    expect(await fetchOffsets(ctx, 'simple', { payments: [1] })).toEqual({ 'payments-1': -1n });
    expect(await listedGroups(ctx)).toEqual([]);
    expect(await describeState(ctx, 'periodic')).toBe('Dead');
  });
});
