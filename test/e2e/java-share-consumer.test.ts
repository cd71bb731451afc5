/**
 * Java kafka-clients 4.3.1 `KafkaShareConsumer` (KIP-932) against the server
 * (test/clients/java ShareConsume): two consumers share a 2-partition topic, every record once;
 * explicit acknowledgement (a RELEASEd record comes back with delivery count 2, a REJECTed one never);
 * a record released `share.delivery.count.limit` times is archived. (Redelivery after a lock runs
 * out is shown with raw clients in share-fetch-raw.test.ts: a Java consumer that stops polling may
 * still have a ShareFetch in flight that takes the released records back.) Needs ShareGroupHeartbeat (the group side of issue 14): skipped while the server does not
 * serve it. Skipped without java and mvn (test/support/provision.ts).
 */
import { describe, expect, it } from 'vitest';
import { API_HANDLERS } from '../../src/apis/registry.js';
import { expectOk, javaClasspath, runJava } from '../support/java.js';
import { startTestServer } from '../support/server.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

const classpath = javaClasspath!;
const SHARE_GROUPS_SERVED = API_HANDLERS.has(76);

/** Share-group timings short enough for a test (their bounds lowered with them). */
const CONFIG = {
  'group.share.min.heartbeat.interval.ms': 100,
  'group.share.heartbeat.interval.ms': 200,
  'group.share.assignment.interval.ms': 0,
};

async function withServer<T>(options: { manual?: boolean }, fn: (server: Server) => Promise<T>): Promise<T> {
  const server = await startTestServer({ logLevel: 'warn', config: CONFIG, ...(options.manual ? { clock: 'manual' } : {}) } as any);
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

  it('a record released share.delivery.count.limit times is archived', async () => {
    await withServer({}, async (server) => {
      await earliest(server, 'sg-poison', { 'share.delivery.count.limit': '2' });
      await setup(server, 'share-poison', 1, 3);
      const run = expectOk(await runJava(classpath, 'ShareConsume', [server.bootstrap, 'share-poison', 'sg-poison', 'poison', '6']));
      const deliveries = (run.events.find((e) => e['event'] === 'poison')!['deliveries'] as string[]).sort();
      expect(deliveries).toEqual(['v0#1', 'v0#2', 'v1#1', 'v1#2', 'v2#1', 'v2#2']);
      const topicId = server.broker.topics.get('share-poison')!.id;
      expect(server.broker.shares.get('sg-poison', topicId, 0)!.spso).toBe(3n);
      expect(server.broker.shareCoordinator.stateOf('sg-poison', topicId, 0)!.stateBatches).toEqual([{ firstOffset: 0n, lastOffset: 2n, deliveryState: 4, deliveryCount: 2 }]);
    });
  }, 180_000);
});
