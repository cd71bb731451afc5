/**
 * Java kafka-clients 4.3.1 `KafkaShareConsumer` (KIP-932) against the server
 * (test/clients/java ShareConsume): two consumers share a 2-partition topic, every record once;
 * explicit acknowledgement (a RELEASEd record comes back with delivery count 2, a REJECTed one never);
 * a record released `share.delivery.count.limit` times is archived; records held by a member that
 * stops fetching (a raw-protocol member: see its test for why not a Java consumer) go to a Java
 * consumer once `share.record.lock.duration.ms` runs out on the (manual) server clock, and those of
 * a consumer killed with SIGKILL at once (its connection closes, which ends its share session, as
 * Kafka's ShareSessionCache does), both with delivery count 2. Needs ShareGroupHeartbeat (the group
 * side of issue 14): skipped while the server does not serve it. Skipped without java and mvn (test/support/provision.ts).
 */
import { describe, expect, it } from 'vitest';
import { API_HANDLERS } from '../../src/apis/registry.js';
import { expectOk, javaClasspath, runJava } from '../support/java.js';
import { startTestServer } from '../support/server.js';
import { randomUUID } from 'node:crypto';
import { RawClient } from '../support/raw-client.js';
import { shareFetchRequest } from '../support/share-group.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

const classpath = javaClasspath!;
const SHARE_GROUPS_SERVED = API_HANDLERS.has(76);

/** Share-group timings short enough for a test (their bounds lowered with them). */
const CONFIG = {
  'group.share.min.heartbeat.interval.ms': 100,
  'group.share.heartbeat.interval.ms': 200,
  'group.share.assignment.interval.ms': 0,
};

async function withServer<T>(options: { manual?: boolean; config?: Record<string, number> }, fn: (server: Server) => Promise<T>): Promise<T> {
  const server = await startTestServer({ logLevel: 'warn', config: { ...CONFIG, ...options.config }, ...(options.manual ? { clock: 'manual' } : {}) } as any);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

/** `share.auto.offset.reset=earliest` for the group, so records produced before it joined are delivered. */
async function earliest(server: Server, group: string, extra: Record<string, string> = {}): Promise<void> {
  await server.broker.configs.store.setGroupConfigs(group, { 'share.auto.offset.reset': 'earliest', ...extra });
}

async function setup(server: Server, topic: string, partitions: number, count: number): Promise<void> {
  expectOk(await runJava(classpath, 'ShareConsume', [server.bootstrap, topic, '-', 'setup', `${partitions}:${count}`]));
}

describe.skipIf(javaClasspath === null || !SHARE_GROUPS_SERVED)('Java KafkaShareConsumer', () => {
  it('two consumers in one share group on a 2-partition topic get every one of 200 records once (implicit acknowledgement)', async () => {
    await withServer({}, async (server) => {
      await earliest(server, 'sg-two');
      await setup(server, 'share-two', 2, 200);
      const run = expectOk(await runJava(classpath, 'ShareConsume', [server.bootstrap, 'share-two', 'sg-two', 'two', '200']));
      const event = run.events.find((e) => e['event'] === 'two')!;
      const all = [...(event['first'] as string[]), ...(event['second'] as string[])];
      expect(all.length).toBe(200);
      expect(new Set(all).size).toBe(200);
      const topicId = server.broker.topics.get('share-two')!.id;
      // Everything acknowledged: each share partition's start offset is past its 100 records.
      for (const p of [0, 1]) expect(server.broker.shares.get('sg-two', topicId, p)!.spso).toBe(100n);
    });
  }, 180_000);

  it('explicit acknowledgement: RELEASE redelivers with delivery count 2, REJECT never redelivers', async () => {
    await withServer({}, async (server) => {
      await earliest(server, 'sg-explicit');
      await setup(server, 'share-explicit', 1, 10);
      const run = expectOk(await runJava(classpath, 'ShareConsume', [server.bootstrap, 'share-explicit', 'sg-explicit', 'explicit', '10']));
      const event = run.events.find((e) => e['event'] === 'explicit')!;
      const deliveries = event['deliveries'] as string[];
      expect(deliveries.filter((d) => d.startsWith('v3#'))).toEqual(['v3#1', 'v3#2']);
      expect(deliveries.filter((d) => d.startsWith('v5#'))).toEqual(['v5#1']);
      expect(deliveries.length).toBe(11);
      const topicId = server.broker.topics.get('share-explicit')!.id;
      const sp = server.broker.shares.get('sg-explicit', topicId, 0)!;
      expect(sp.spso).toBe(10n);
    });
  }, 180_000);

  it.each([
    ['share.delivery.count.limit (group config)', {}, { 'share.delivery.count.limit': '2' }],
    ['group.share.delivery.count.limit (broker config)', { 'group.share.delivery.count.limit': 2 }, {}],
  ])('a record released %s times is archived', async (_, brokerConfig, groupConfig) => {
    await withServer({ config: brokerConfig }, async (server) => {
      await earliest(server, 'sg-poison', groupConfig);
      await setup(server, 'share-poison', 1, 3);
      const run = expectOk(await runJava(classpath, 'ShareConsume', [server.bootstrap, 'share-poison', 'sg-poison', 'poison', '6']));
      const deliveries = (run.events.find((e) => e['event'] === 'poison')!['deliveries'] as string[]).sort();
      expect(deliveries).toEqual(['v0#1', 'v0#2', 'v1#1', 'v1#2', 'v2#1', 'v2#2']);
      const topicId = server.broker.topics.get('share-poison')!.id;
      expect(server.broker.shares.get('sg-poison', topicId, 0)!.spso).toBe(3n);
      expect(server.broker.shareCoordinator.stateOf('sg-poison', topicId, 0)!.stateBatches).toEqual([{ firstOffset: 0n, lastOffset: 2n, deliveryState: 4, deliveryCount: 2 }]);
    });
  }, 180_000);

  it('records held by a member that stops fetching go to a Java consumer when share.record.lock.duration.ms runs out, with delivery count 2', async () => {
    // The holder is a raw-protocol member: it sends one ShareFetch (MaxWaitMs 0) and then nothing,
    // its connection open. A Java consumer cannot play it: after a poll that returned records it may
    // still have a fetch request pending (a poll that began before the response was handled asks for
    // more, and the client re-fetches after every empty response), and that parked fetch takes the
    // records back the moment their locks run out, as Kafka's DelayedShareFetch does.
    await withServer({ manual: true }, async (server) => {
      await earliest(server, 'sg-stall', { 'share.record.lock.duration.ms': '15000' });
      await setup(server, 'share-stall', 1, 10);
      const topicId = server.broker.topics.get('share-stall')!.id;
      const c = await RawClient.connect(server.port);
      try {
        const member = randomUUID();
        expect((await c.send(76, 1, { groupId: 'sg-stall', memberId: member, memberEpoch: 0, rackId: null, subscribedTopicNames: ['share-stall'] })).memberEpoch).toBe(2);
        await server.broker.share.initializationsSettled();
        await server.broker.runtime.flush();
        const assigned = await c.send(76, 1, { groupId: 'sg-stall', memberId: member, memberEpoch: 2, rackId: null, subscribedTopicNames: null });
        expect(assigned.assignment!.topicPartitions).toEqual([{ topicId, partitions: [0] }]);
        const request = shareFetchRequest('sg-stall', member, 0, topicId);
        const fetched = await c.send(78, 2, { ...request, topics: [{ topicId, partitions: [request.topics[0]!.partitions[0]!] }] });
        expect(fetched.responses[0]!.partitions.map((p) => p.acquiredRecords)).toEqual([[{ firstOffset: 0n, lastOffset: 9n, deliveryCount: 1 }]]);
        // The lock runs out on the server clock, which moves only here.
        const sp = server.broker.shares.get('sg-stall', topicId, 0)!;
        const acquired = { acquired: 10, available: 0, acknowledged: 0, archived: 0 };
        expect(sp.counts()).toEqual(acquired);
        server.clock.advance(14_999);
        expect(sp.counts()).toEqual(acquired);
        server.clock.advance(1);
        expect(sp.counts()).toEqual({ acquired: 0, available: 10, acknowledged: 0, archived: 0 });
        const run = expectOk(await runJava(classpath, 'ShareConsume', [server.bootstrap, 'share-stall', 'sg-stall', 'redeliver', '10']));
        const redelivered = run.events.find((e) => e['event'] === 'redelivered')!['deliveries'] as string[];
        expect(redelivered).toEqual(Array.from({ length: 10 }, (_, i) => `v${i}#2`));
        expect(sp.spso).toBe(10n);
      } finally {
        c.socket.destroy();
      }
    });
  }, 180_000);

  it('records held by a consumer killed with SIGKILL go to the other consumer at once (its share session ends with its connection), with delivery count 2', async () => {
    // The manual clock never moves: no lock can run out, so only the closed connection releases them.
    await withServer({ manual: true }, async (server) => {
      await earliest(server, 'sg-killed');
      await setup(server, 'share-killed', 1, 10);
      const hold = await runJava(classpath, 'ShareConsume', [server.bootstrap, 'share-killed', 'sg-killed', 'hold'], { killOn: (e) => e['event'] === 'held' });
      expect(hold.signal).toBe('SIGKILL');
      expect(hold.events.find((e) => e['event'] === 'held')!['deliveries']).toEqual(Array.from({ length: 10 }, (_, i) => `v${i}#1`));
      const run = expectOk(await runJava(classpath, 'ShareConsume', [server.bootstrap, 'share-killed', 'sg-killed', 'redeliver', '10']));
      const redelivered = run.events.find((e) => e['event'] === 'redelivered')!['deliveries'] as string[];
      const topicId = server.broker.topics.get('share-killed')!.id;
      // What the server held when the second consumer gave up, should it have: for a failure message.
      const seen = JSON.stringify({ counts: server.broker.shares.get('sg-killed', topicId, 0)?.counts(), sessions: server.broker.shares.sessions.size, stderr: run.stderr.slice(-2000) });
      expect(redelivered, seen).toEqual(Array.from({ length: 10 }, (_, i) => `v${i}#2`));
      expect(server.broker.shares.get('sg-killed', topicId, 0)!.spso).toBe(10n);
    });
  }, 180_000);
});
