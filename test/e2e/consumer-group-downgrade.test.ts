/**
 * Online downgrade (KIP-848, Kafka 4.3's `convertToClassicGroup`) over real sockets: a kafkajs
 * (classic protocol) member and a KIP-848 member share group G; the KIP-848 member leaves, G
 * becomes a classic group again, kafkajs rejoins through the classic protocol and keeps
 * consuming; the group survives a restart as a classic group. Plus the JoinGroup session
 * timeout bounds, which Kafka checks before routing a request to a classic or consumer group.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type ServerHandle } from '../../src/index.js';
import { Reader, Writer } from '../../src/protocol/primitives.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import * as Sub from '../../src/records/schemas/ConsumerProtocolSubscription.js';
import * as Asg from '../../src/records/schemas/ConsumerProtocolAssignment.js';
import { kafkaClient, waitFor } from '../support/kafkajs.js';
import { KIP848_CONFIG, hb } from '../support/kip848-group.js';
import { RawClient } from '../support/raw-client.js';
import { tempDataDir } from '../support/server.js';

const CONFIG = { ...KIP848_CONFIG, 'group.consumer.heartbeat.interval.ms': 500, 'group.consumer.min.heartbeat.interval.ms': 100 };

function subscription(topics: string[]): Buffer {
  const w = new Writer();
  w.int16(1);
  Sub.encode(w, 1, { topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null });
  return w.finish();
}

function assignedPartitions(bytes: Buffer): number[] {
  if (bytes.length === 0) return [];
  const r = new Reader(bytes);
  const version = r.int16();
  return Asg.decode(r, version).assignedPartitions.flatMap((tp) => tp.partitions).sort((a, b) => a - b);
}

describe('online downgrade of a consumer group (real sockets)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function start(dataDir?: string, config: Record<string, string | number> = {}, clock: 'system' | 'manual' = 'system') {
    const data = dataDir ? null : tempDataDir('kmc-dg-');
    const dir = dataDir ?? data!.dir;
    const server = await startServer({ port: 0, dataDir: dir, config: { ...CONFIG, ...config }, clock });
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await server.close();
    };
    if (data) cleanups.push(() => data.remove());
    cleanups.push(close);
    return { server, close, dataDir: dir };
  }

  async function raw(server: ServerHandle) {
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    return c;
  }

  const describeGroup = async (c: RawClient, groupId: string) => (await c.send(15, 5, { groups: [groupId], includeAuthorizedOperations: false })).groups[0]!;
  const groupType = async (c: RawClient, groupId: string) => (await c.send(16, 5, { statesFilter: [], typesFilter: [] })).groups.find((g) => g.groupId === groupId)?.groupType;

  it('kafkajs keeps consuming through the classic protocol after the KIP-848 member leaves, and after a restart', async () => {
    const { server, close, dataDir } = await start();
    const kafka = kafkaClient(server.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(() => admin.disconnect().catch(() => {}));
    const topic = 'downgrade-topic';
    const groupId = 'G';
    await admin.createTopics({ topics: [{ topic, numPartitions: 4 }] });
    const producer = kafka.producer();
    await producer.connect();
    cleanups.push(() => producer.disconnect().catch(() => {}));
    const produce = async (n: number) => {
      for (let p = 0; p < 4; p++) await producer.send({ topic, messages: Array.from({ length: n }, (_, i) => ({ partition: p, value: `v${i}` })) });
    };
    await produce(10);

    // kafkajs (classic protocol) consumes everything and commits after every message.
    const consumed: Array<{ partition: number; offset: number }> = [];
    const startConsumer = async () => {
      const consumer = kafka.consumer({ groupId, sessionTimeout: 10000, heartbeatInterval: 1000, rebalanceTimeout: 10000, maxWaitTimeInMs: 200, retry: { retries: 8 } });
      const assignments: number[][] = [];
      consumer.on(consumer.events.GROUP_JOIN, (e) => assignments.push([...(e.payload.memberAssignment[topic] ?? [])].sort((a, b) => a - b)));
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          consumed.push({ partition, offset: Number(message.offset) });
          await consumer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
        },
      });
      return { consumer, assignments };
    };
    const first = await startConsumer();
    cleanups.push(() => first.consumer.disconnect().catch(() => {}));
    await waitFor(() => consumed.length >= 40, 30000, 'kafkajs consumed the first 40');

    // A KIP-848 member joins (online upgrade) and heartbeats until both hold two partitions.
    const c = await raw(server);
    const topicId = server.broker.topics.get(topic)!.topicId;
    const memberId = 'downgrade-member-aaaaaa';
    let epoch = 0;
    let owned: number[] = [];
    const heartbeat = async (first: boolean) => {
      const res = await c.send(68, 1, hb(groupId, memberId, epoch, first ? { rebalanceTimeoutMs: 30000, subscribedTopicNames: [topic], topicPartitions: [] } : { topicPartitions: [{ topicId, partitions: owned }] }));
      expect(res.errorCode).toBe(0);
      epoch = res.memberEpoch;
      if (res.assignment) owned = res.assignment.topicPartitions.flatMap((t) => t.partitions).sort((a, b) => a - b);
    };
    await heartbeat(true);
    expect(await groupType(c, groupId)).toBe('consumer');
    const deadline = Date.now() + 30000;
    for (;;) {
      await heartbeat(false);
      const d = (await c.send(69, 1, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0]!;
      if (d.groupState === 'Stable' && owned.length === 2) break;
      if (Date.now() > deadline) throw new Error(`the consumer group did not settle: ${d.groupState}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const groupEpoch = server.broker.consumer.group(groupId)!.groupEpoch;

    // The KIP-848 member leaves: the group becomes classic (generation = group epoch) and rebalances.
    expect((await c.send(68, 1, hb(groupId, memberId, -1))).errorCode).toBe(0);
    expect(await groupType(c, groupId)).toBe('classic');
    // kafkajs heartbeats on its own clock and may already have rejoined (completing the join phase
    // at the next generation) by the time we look: either way the classic group took the group
    // epoch as its generation and rebalanced.
    const preparing = await describeGroup(c, groupId);
    expect(preparing).toMatchObject({ errorCode: 0, protocolType: 'consumer' });
    const downgradedGeneration = server.broker.classic.group(groupId)!.generationId;
    if (preparing.groupState === 'PreparingRebalance') expect(downgradedGeneration).toBe(groupEpoch);
    else expect([preparing.groupState, downgradedGeneration]).toEqual([expect.stringMatching(/^(CompletingRebalance|Stable)$/), groupEpoch + 1]);

    // kafkajs is told to rejoin, rejoins through the classic protocol and takes all four partitions.
    await waitFor(() => first.assignments.at(-1)?.length === 4, 30000, 'kafkajs rejoined with all partitions');
    let stable = await describeGroup(c, groupId);
    const stableBy = Date.now() + 10000;
    while (stable.groupState !== 'Stable' && Date.now() < stableBy) {
      await new Promise((r) => setTimeout(r, 100));
      stable = await describeGroup(c, groupId);
    }
    expect(stable.groupState).toBe('Stable');
    expect(stable.members).toHaveLength(1);
    expect(assignedPartitions(stable.members[0]!.memberAssignment)).toEqual([0, 1, 2, 3]);
    expect(server.broker.classic.group(groupId)!.generationId).toBe(groupEpoch + 1);

    // It consumes the new messages of every partition exactly once and commits them.
    const mark = consumed.length;
    await produce(10);
    await waitFor(() => consumed.length - mark >= 40, 30000, 'kafkajs consumed the next 40');
    await new Promise((r) => setTimeout(r, 500));
    const after = consumed.slice(mark).map((m) => `${m.partition}:${m.offset}`).sort();
    expect(after).toEqual([0, 1, 2, 3].flatMap((p) => Array.from({ length: 10 }, (_, i) => `${p}:${10 + i}`)).sort());
    const committed = async () => new Map((await admin.fetchOffsets({ groupId, topics: [topic] }))[0]!.partitions.map((p) => [p.partition, Number(p.offset)]));
    expect([...(await committed()).entries()].sort()).toEqual([[0, 20], [1, 20], [2, 20], [3, 20]]);

    // Restarting the consumption: a new kafkajs member resumes at the committed offsets.
    await first.consumer.disconnect();
    const mark2 = consumed.length;
    const second = await startConsumer();
    cleanups.push(() => second.consumer.disconnect().catch(() => {}));
    await produce(5);
    await waitFor(() => consumed.length - mark2 >= 20, 30000, 'the new kafkajs member consumed the next 20');
    await new Promise((r) => setTimeout(r, 500));
    expect(consumed.slice(mark2).map((m) => m.offset).every((o) => o >= 20)).toBe(true);
    expect(second.assignments.at(-1)).toEqual([0, 1, 2, 3]);
    expect([...(await committed()).entries()].sort()).toEqual([[0, 25], [1, 25], [2, 25], [3, 25]]);
    expect(await groupType(c, groupId)).toBe('classic');

    // A server restart: the group is still a classic group, with the generation it had.
    await second.consumer.disconnect();
    const generation = server.broker.classic.group(groupId)!.generationId;
    await producer.disconnect();
    await admin.disconnect();
    await close();
    const restarted = await start(dataDir);
    const c2 = await raw(restarted.server);
    expect(await groupType(c2, groupId)).toBe('classic');
    expect(restarted.server.broker.consumer.hasGroup(groupId)).toBe(false);
    expect(restarted.server.broker.classic.group(groupId)!.generationId).toBe(generation);
    const offsets = await c2.send(9, 7, { groupId, topics: [{ name: topic, partitionIndexes: [0, 1, 2, 3] }], requireStable: false, groups: [] });
    expect(offsets.topics[0]!.partitions.map((p) => p.committedOffset)).toEqual([25n, 25n, 25n, 25n]);
  }, 120000);

  it('a group downgraded by the leave of its KIP-848 member reloads after a restart as the classic group of the GroupMetadata record', async () => {
    const { server, close, dataDir } = await start();
    server.broker.topics.create('dt', 2);
    const c = await raw(server);
    const g = 'dg-restart';
    const kip = 'kip848-member-aaaaaaaaa';
    expect((await c.send(68, 1, hb(g, kip, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: ['dt'], topicPartitions: [] }))).errorCode).toBe(0);
    // A classic member joins the consumer group (two-phase join at v5), then syncs.
    const join1 = await c.send(11, 5, { groupId: g, sessionTimeoutMs: 30000, rebalanceTimeoutMs: 40000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: subscription(['dt']) }], reason: null }, 'classic-client');
    expect(join1.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const join = await c.send(11, 5, { groupId: g, sessionTimeoutMs: 30000, rebalanceTimeoutMs: 40000, memberId: join1.memberId, groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: subscription(['dt']) }], reason: null }, 'classic-client');
    expect(join.errorCode).toBe(0);
    expect((await c.send(14, 5, { groupId: g, generationId: join.generationId, memberId: join.memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] })).errorCode).toBe(0);
    const consumerGroup = server.broker.consumer.group(g)!;
    const epoch = consumerGroup.groupEpoch;
    const target = [...(consumerGroup.targetAssignment.get(join.memberId)?.values() ?? [])].flatMap((s) => [...s]).sort((a, b) => a - b);
    expect(target.length).toBe(1);

    expect((await c.send(68, 1, hb(g, kip, -1))).errorCode).toBe(0);
    expect(await groupType(c, g)).toBe('classic');
    expect((await describeGroup(c, g)).groupState).toBe('PreparingRebalance');
    await close();

    const restarted = await start(dataDir);
    const c2 = await raw(restarted.server);
    expect(await groupType(c2, g)).toBe('classic');
    const d = await describeGroup(c2, g);
    expect(d).toMatchObject({ groupState: 'Stable', protocolType: 'consumer', protocolData: 'range' });
    expect(d.members.map((m) => [m.memberId, m.clientId])).toEqual([[join.memberId, 'classic-client']]);
    expect(assignedPartitions(d.members[0]!.memberAssignment)).toEqual(target);
    expect(restarted.server.broker.classic.group(g)!.generationId).toBe(epoch);
    // The member carries on in the classic group at that generation.
    expect((await c2.send(12, 4, { groupId: g, generationId: epoch, memberId: join.memberId, groupInstanceId: null })).errorCode).toBe(0);
  }, 60000);

  it('JoinGroup checks the session timeout bounds before routing, for consumer groups too', async () => {
    const { server } = await start();
    server.broker.topics.create('sb', 1);
    const c = await raw(server);
    const g = 'sb-group';
    const kip = 'kip848-member-bbbbbbbbb';
    expect((await c.send(68, 1, hb(g, kip, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: ['sb'], topicPartitions: [] }))).errorCode).toBe(0);
    const joinWith = (sessionTimeoutMs: number, groupId = g, memberId = 'm') =>
      c.send(11, 5, { groupId, sessionTimeoutMs, rebalanceTimeoutMs: 30000, memberId, groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: subscription(['sb']) }], reason: null });
    // group.min.session.timeout.ms = 6000, group.max.session.timeout.ms = 1800000 (defaults).
    for (const timeout of [5999, 1_800_001]) {
      expect(await joinWith(timeout)).toMatchObject({ errorCode: ErrorCode.INVALID_SESSION_TIMEOUT, memberId: 'm', generationId: -1 });
    }
    expect((await joinWith(30000, '')).errorCode).toBe(ErrorCode.INVALID_GROUP_ID);
    expect([...server.broker.consumer.group(g)!.members.keys()]).toEqual([kip]);
    // An empty consumer group is not converted by a JoinGroup that fails the check.
    expect((await c.send(68, 1, hb(g, kip, -1))).errorCode).toBe(0);
    expect((await joinWith(1000)).errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
    expect(await groupType(c, g)).toBe('consumer');
    // Within the bounds the JoinGroup converts the empty group and asks for a member id.
    expect((await joinWith(6000, g, '')).errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(await groupType(c, g)).toBe('classic');
  }, 30000);

  /**
   * A JoinGroup converting an empty consumer group meets a ConsumerGroupHeartbeat of a new member
   * (Kafka 4.3's `GroupMetadataManager`, one coordinator step each; which comes first is the order
   * the coordinator reads them). The server runs on a manual clock with Kafka's default
   * `group.initial.rebalance.delay.ms` (3000), so the classic group's first join phase stays open
   * until the test advances the clock: each order below is forced by events, not by timing.
   * - JoinGroup first, heartbeat while the first join phase is open: the heartbeat finds the classic
   *   group the JoinGroup created (never an empty slot where it could create a second group) and
   *   tries the online upgrade; `convertToConsumerGroup` answers the parked JoinGroup
   *   REBALANCE_IN_PROGRESS, then `ConsumerGroup.fromClassicGroup` fails (no protocol chosen yet:
   *   `protocolName().get()`), which answers UNKNOWN_SERVER_ERROR and leaves the classic group.
   * - JoinGroup first, heartbeat after the join phase completed: the upgrade succeeds.
   * - Heartbeat first: the consumer group is no longer empty, the JoinGroup joins it as a
   *   classic-protocol member.
   */
  describe('a JoinGroup converting an empty consumer group and a ConsumerGroupHeartbeat', () => {
    const g = 'race-group';
    const kip = 'kip848-member-rrrrrrrrr';
    const newKip = 'kip848-member-sssssssss';
    const INITIAL_DELAY_MS = 3000;

    /** A server on a manual clock, topic `race` (4 partitions), and the empty consumer group `g` a KIP-848 member joined and left. */
    async function emptyConsumerGroup() {
      const started = await start(undefined, { 'group.initial.rebalance.delay.ms': INITIAL_DELAY_MS }, 'manual');
      started.server.broker.topics.create('race', 4);
      const a = await raw(started.server);
      const b = await raw(started.server);
      expect((await a.send(68, 1, hb(g, kip, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: ['race'], topicPartitions: [] }))).errorCode).toBe(0);
      expect((await a.send(68, 1, hb(g, kip, -1))).errorCode).toBe(0);
      expect(await groupType(a, g)).toBe('consumer');
      return { ...started, a, b, emptyEpoch: started.server.broker.consumer.group(g)!.groupEpoch };
    }
    const join = (c: RawClient) =>
      c.send(11, 5, { groupId: g, sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: '', groupInstanceId: 'inst', protocolType: 'consumer', protocols: [{ name: 'range', metadata: subscription(['race']) }], reason: null });
    const heartbeat = (c: RawClient) => c.send(68, 1, hb(g, newKip, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: ['race'], topicPartitions: [] }));
    /** Resolves in the turn of the event loop in which the server has made `g` a classic group (checked once per turn). */
    const convertedToClassic = async (server: ServerHandle) => {
      while (!server.broker.classic.group(g)) await new Promise((resolve) => setImmediate(resolve));
    };
    const listedTypes = async (c: RawClient) => (await c.send(16, 5, { statesFilter: [], typesFilter: [] })).groups.filter((x) => x.groupId === g).map((x) => x.groupType);

    type JoinAnswer = Awaited<ReturnType<typeof join>>;
    type HeartbeatAnswer = Awaited<ReturnType<typeof heartbeat>>;

    /** JoinGroup first, heartbeat during the first join phase: Kafka's answers, one classic group, which completes its join phase when the delay ends and survives a restart. */
    async function expectHeartbeatDuringFirstJoinPhase(s: Awaited<ReturnType<typeof emptyConsumerGroup>>, joined: JoinAnswer, beat: HeartbeatAnswer) {
      expect(beat).toMatchObject({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, memberId: null, assignment: null });
      expect(joined).toMatchObject({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS, generationId: -1, memberId: expect.stringMatching(/^inst-/) });
      expect(await listedTypes(s.a)).toEqual(['classic']);
      expect(s.server.broker.consumer.hasGroup(g)).toBe(false);
      // The static member stays in the classic group, in its first join phase.
      const classic = await describeGroup(s.a, g);
      expect([classic.groupState, classic.members.map((m) => m.memberId)]).toEqual(['PreparingRebalance', [joined.memberId]]);
      await s.close();
      const restarted = await start(s.dataDir);
      expect(restarted.server.broker.consumer.hasGroup(g)).toBe(false);
      expect(restarted.server.broker.classic.group(g)).toBeDefined();
    }

    /** Heartbeat first: the KIP-848 member takes every partition, the JoinGroup joins the consumer group as a classic-protocol member. */
    async function expectHeartbeatFirst(s: Awaited<ReturnType<typeof emptyConsumerGroup>>, joined: JoinAnswer, beat: HeartbeatAnswer) {
      expect(beat).toMatchObject({ errorCode: ErrorCode.NONE, memberId: newKip, memberEpoch: s.emptyEpoch + 1 });
      expect(beat.assignment!.topicPartitions.flatMap((t) => t.partitions).sort()).toEqual([0, 1, 2, 3]);
      // A consumer group names its members with a Uuid, the classic-protocol ones too.
      expect(joined).toMatchObject({ errorCode: ErrorCode.NONE, protocolName: 'range', memberId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) });
      expect(await listedTypes(s.a)).toEqual(['consumer']);
      expect([...s.server.broker.consumer.group(g)!.members.keys()].sort()).toEqual([joined.memberId, newKip].sort());
      expect(s.server.broker.classic.group(g)).toBeUndefined();
      await s.close();
      const restarted = await start(s.dataDir);
      expect(restarted.server.broker.classic.group(g)).toBeUndefined();
      expect([...restarted.server.broker.consumer.group(g)!.members.keys()].sort()).toEqual([joined.memberId, newKip].sort());
    }

    it('JoinGroup first, the heartbeat during its first join phase: UNKNOWN_SERVER_ERROR, the JoinGroup REBALANCE_IN_PROGRESS, one classic group', async () => {
      const s = await emptyConsumerGroup();
      const joining = join(s.a);
      await convertedToClassic(s.server);
      expect(s.server.broker.consumer.hasGroup(g)).toBe(false);
      const beat = await heartbeat(s.b);
      await expectHeartbeatDuringFirstJoinPhase(s, await joining, beat);
    });

    it('JoinGroup first, the heartbeat after the join phase completed: the classic group is upgraded to a consumer group', async () => {
      const s = await emptyConsumerGroup();
      const joining = join(s.a);
      await convertedToClassic(s.server);
      s.server.clock.advance(INITIAL_DELAY_MS);
      const joined = await joining;
      expect(joined).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 1, protocolName: 'range', leader: joined.memberId });
      const beat = await heartbeat(s.b);
      // `fromClassicGroup`: the group epoch is the generation (1), the new member's join bumps it.
      expect(beat).toMatchObject({ errorCode: ErrorCode.NONE, memberId: newKip, memberEpoch: 2 });
      expect(await listedTypes(s.a)).toEqual(['consumer']);
      expect([...s.server.broker.consumer.group(g)!.members.keys()].sort()).toEqual([joined.memberId, newKip].sort());
      expect(s.server.broker.classic.group(g)).toBeUndefined();
    });

    it('heartbeat first: the JoinGroup joins the consumer group, no longer empty, as a classic-protocol member', async () => {
      const s = await emptyConsumerGroup();
      const beat = await heartbeat(s.b);
      await expectHeartbeatFirst(s, await join(s.a), beat);
    });

    it('sent at once on two connections: the outcome of whichever order the server read them in, never two groups with one id', async () => {
      const s = await emptyConsumerGroup();
      const [joined, beat] = await Promise.all([join(s.a), heartbeat(s.b)]);
      // The group's type tells the order: still classic when the JoinGroup came first (its join
      // phase waits for the clock, so the heartbeat met it open), consumer when the heartbeat did.
      const types = await listedTypes(s.a);
      expect(types).toHaveLength(1);
      if (types[0] === 'classic') await expectHeartbeatDuringFirstJoinPhase(s, joined, beat);
      else await expectHeartbeatFirst(s, joined, beat);
    });
  });
});
