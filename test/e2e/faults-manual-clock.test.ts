import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';
import { groupConsumer, kafkaClient, waitFor } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { describeGroup } from '../../src/admin/groups.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Writer } from '../../src/protocol/primitives.js';
import * as Subscription from '../../src/records/schemas/ConsumerProtocolSubscription.js';
import { defaultJoinGroupRequest } from '../../src/protocol/messages/JoinGroupRequest.js';
import { defaultSyncGroupRequest } from '../../src/protocol/messages/SyncGroupRequest.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const RETENTION_MS = 7 * 24 * 60 * 60_000; // offsets.retention.minutes default (10080)

async function start(config: Record<string, number> = {}): Promise<Server> {
  const server = await startTestServer({ clock: 'manual', config });
  cleanups.push(() => server.stop());
  return server;
}

describe('manual clock', () => {
  it('a kafkajs group commits and leaves; its offsets survive retention - 1 ms and expire 1 ms later', async () => {
    // The periodic sweep (every 10 min, also fired by advancing) would run exactly at expiry; keep sweeps manual here.
    const server = await start({ 'offsets.retention.check.interval.ms': 100 * RETENTION_MS });
    expect(server.clock.mode).toBe('manual');
    const kafka = kafkaClient(server.bootstrap);
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'ledger', messages: [{ value: 'a' }, { value: 'b' }] });
    await producer.disconnect();
    const consumer = groupConsumer(kafka, 'accounts');
    await consumer.connect();
    await consumer.subscribe({ topic: 'ledger', fromBeginning: true });
    await consumer.run({ eachMessage: async () => undefined, autoCommitThreshold: 1 });
    await waitFor(() => server.broker.offsets.fetch('accounts', 'ledger', 0)?.committedOffset === 2n, 30_000, 'the commit');
    await consumer.disconnect();
    expect(describeGroup(server.broker, 'accounts')!.state).toBe('Empty');

    server.clock.advance(RETENTION_MS - 1);
    expect(await server.sweepExpiredOffsets()).toEqual({ expiredOffsets: 0, deletedGroups: [] });
    expect(server.broker.offsets.fetch('accounts', 'ledger', 0)?.committedOffset).toBe(2n);

    server.clock.advance(1);
    expect(await server.sweepExpiredOffsets()).toEqual({ expiredOffsets: 1, deletedGroups: ['accounts'] });
    const admin = kafka.admin();
    await admin.connect();
    const fetched = await admin.fetchOffsets({ groupId: 'accounts', topics: ['ledger'] });
    await admin.disconnect();
    expect(fetched[0]!.partitions[0]!.offset).toBe('-1');
  });

  it('a member that stops heartbeating is removed once the clock passes its session timeout', async () => {
    const server = await start();
    const client = await RawClient.connect(server.port);
    cleanups.push(() => client.close());
    const w = new Writer();
    w.int16(1);
    Subscription.encode(w, 1, { topics: ['t'], userData: null, ownedPartitions: [], generationId: -1, rackId: null });
    const join = { ...defaultJoinGroupRequest(), groupId: 'quiet', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 30_000, protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.from(w.finish()) }] };
    const first = await client.send(11, 5, join);
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const joined = await client.send(11, 5, { ...join, memberId: first.memberId }); // completes on its own: due "now"
    expect(joined.errorCode).toBe(ErrorCode.NONE);
    const synced = await client.send(14, 3, { ...defaultSyncGroupRequest(), groupId: 'quiet', generationId: joined.generationId, memberId: joined.memberId, assignments: [{ memberId: joined.memberId, assignment: Buffer.alloc(0) }] });
    expect(synced.errorCode).toBe(ErrorCode.NONE);
    expect(describeGroup(server.broker, 'quiet')!.members).toHaveLength(1);

    server.clock.advance(9_999);
    expect(describeGroup(server.broker, 'quiet')!).toMatchObject({ state: 'Stable', members: [{ memberId: joined.memberId }] });
    const { firedTimers } = server.clock.advance(1);
    expect(firedTimers).toBeGreaterThanOrEqual(1);
    await waitFor(() => describeGroup(server.broker, 'quiet')!.members.length === 0, 5000, 'the member to be removed');
    expect(describeGroup(server.broker, 'quiet')!.state).toBe('Empty');
  });
});
