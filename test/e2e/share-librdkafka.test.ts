/**
 * librdkafka's share consumer (KIP-932) against the server: Python confluent-kafka's experimental
 * `ShareConsumer` (pinned in test/support/clients.ts), driven by test/e2e/clients/librdkafka_share.py
 * (records produced by librdkafka_resume.py).
 * Two consumers in one share group share a 2-partition topic of 200 records, each record once
 * (implicit acknowledgement); with explicit acknowledgement a RELEASEd record comes back with
 * delivery count 2 and a REJECTed one never does; fault rules on the share APIs (session errors,
 * an unavailable coordinator, delayed acknowledgements) are ridden out. librdkafka speaks ShareGroupHeartbeat v1,
 * ShareFetch v1 and ShareAcknowledge v1.
 *
 * The interpreter and its confluent-kafka come from test/support/provision.ts; without python3 on
 * the machine the suite is skipped.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from './clients/group-resume.js';
import { python, runPythonClient, type PythonClientResult } from '../support/python.js';
import { startTestServer } from '../support/server.js';
import { waitFor } from '../support/kafkajs.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

const SCRIPT = join(REPO_ROOT, 'test', 'e2e', 'clients', 'librdkafka_share.py');
const PRODUCER = join(REPO_ROOT, 'test', 'e2e', 'clients', 'librdkafka_resume.py');

/** Share-group timings short enough for a test (their bounds lowered with them). */
const CONFIG = {
  'group.share.min.heartbeat.interval.ms': 100,
  'group.share.heartbeat.interval.ms': 200,
  'group.share.assignment.interval.ms': 0,
};

interface ShareResult extends PythonClientResult {
  produced?: Record<string, number>;
  records?: string[][];
  deliveryCounts?: Array<Record<string, number>>;
  errors?: string[];
  deliveries?: string[];
  commits?: Array<{ partition: number; error: string | null }>;
}

function run(mode: string, server: Server, args: string[]): Promise<ShareResult> {
  const debug = process.env['KMC_LIBRDKAFKA_DEBUG'];
  return runPythonClient<ShareResult>(
    'librdkafka share consumer',
    [mode === 'produce' ? PRODUCER : SCRIPT, mode, '--bootstrap', server.bootstrap, ...args, '--timeout', '60', ...(debug ? ['--debug', debug] : [])],
    90_000,
  );
}

async function withServer<T>(fn: (server: Server) => Promise<T>): Promise<T> {
  const server = await startTestServer({ config: CONFIG });
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

/** A topic of `partitions` partitions, and `share.auto.offset.reset=earliest` for the group. */
async function setup(server: Server, topic: string, partitions: number, group: string): Promise<string> {
  server.broker.topics.create(topic, partitions);
  await server.broker.configs.store.setGroupConfigs(group, { 'share.auto.offset.reset': 'earliest' });
  return server.broker.topics.get(topic)!.id;
}

/** `count` records to `topic` (record i to partition i % partitions, value `value-i`). */
async function produce(server: Server, topic: string, partitions: number, count: number): Promise<void> {
  const produced = await run('produce', server, ['--topic', topic, '--count', String(count), '--partitions', String(partitions)]);
  expect(Object.values(produced.produced!).reduce((a, b) => a + b, 0)).toBe(count);
}

describe.skipIf(python === null)('librdkafka ShareConsumer', () => {
  it('two consumers in one share group on a 2-partition topic get every one of 200 records once (implicit acknowledgement)', async () => {
    await withServer(async (server) => {
      const topicId = await setup(server, 'rdk-share-two', 2, 'rdk-sg-two');
      const consuming = run('two', server, ['--topic', 'rdk-share-two', '--group', 'rdk-sg-two', '--count', '200']);
      // The records come once both members hold partitions, so that neither takes them all first.
      await waitFor(() => {
        const members = [...(server.broker.share.committedGroup('rdk-sg-two')?.members.values() ?? [])];
        return members.length === 2 && members.every((m) => m.assigned.size > 0);
      }, 60_000, 'both share consumers to be assigned partitions');
      await produce(server, 'rdk-share-two', 2, 200);
      const r = await consuming;
      expect(r.errors).toEqual([]);
      const all = [...r.records![0]!, ...r.records![1]!];
      expect(all.length).toBe(200);
      expect(new Set(all).size).toBe(200);
      for (const p of [0, 1]) expect(all.filter((k) => k.startsWith(`${p}:`)).length).toBe(100);
      // Each delivered once, and the consumers shared the work.
      expect(r.deliveryCounts!.map((c) => Object.keys(c))).toEqual([['1'], ['1']]);
      expect(r.records![0]!.length).toBeGreaterThan(0);
      expect(r.records![1]!.length).toBeGreaterThan(0);
      // close() sent the last acknowledgements: each share partition's start offset is past its 100 records.
      for (const p of [0, 1]) expect(server.broker.shares.get('rdk-sg-two', topicId, p)!.spso).toBe(100n);
      // Both left: the group is empty.
      const [described] = server.broker.groups.shareGroupDescribe(['rdk-sg-two'], false, 0);
      expect([described!.groupState, described!.members]).toEqual(['Empty', []]);
    });
  }, 180_000);

  it('copes with fault rules on the share APIs: share session errors on ShareFetch, an unavailable coordinator, delayed acknowledgements', async () => {
    await withServer(async (server) => {
      await setup(server, 'rdk-share-faults', 2, 'rdk-sg-faults');
      const rules = [
        server.faults.add({ match: { api: 'ShareFetch', group: 'rdk-sg-faults', nth: 3 }, action: { type: 'errors', errors: ['SHARE_SESSION_NOT_FOUND', 'INVALID_SHARE_SESSION_EPOCH'] } }),
        server.faults.add({ match: { api: 'ShareGroupHeartbeat', group: 'rdk-sg-faults', nth: 4 }, action: { type: 'error', error: 'COORDINATOR_NOT_AVAILABLE' } }),
        server.faults.add({ match: { api: 'ShareAcknowledge', group: 'rdk-sg-faults' }, action: { type: 'delay', ms: 300 } }),
      ];
      await produce(server, 'rdk-share-faults', 2, 200);
      const r = await run('two', server, ['--topic', 'rdk-share-faults', '--group', 'rdk-sg-faults', '--count', '200']);
      expect(r.errors).toEqual([]);
      // Every record delivered (an acknowledgement that rode on a failed fetch may bring one back: at least once).
      expect(new Set([...r.records![0]!, ...r.records![1]!]).size).toBe(200);
      // (The delay fires on the first ShareAcknowledge, if the consumers send one rather than piggy-backing on ShareFetch.)
      expect(rules.slice(0, 2).map((rule) => rule.fired)).toEqual([2, 1]);
    });
  }, 180_000);

  it('explicit acknowledgement: RELEASE redelivers with delivery count 2, REJECT never redelivers', async () => {
    await withServer(async (server) => {
      const topicId = await setup(server, 'rdk-share-explicit', 1, 'rdk-sg-explicit');
      await produce(server, 'rdk-share-explicit', 1, 10);
      const r = await run('explicit', server, ['--topic', 'rdk-share-explicit', '--group', 'rdk-sg-explicit', '--count', '10']);
      expect(r.deliveries).toEqual([...Array.from({ length: 10 }, (_, i) => `value-${i}#1`), 'value-3#2']);
      expect(r.commits!.every((c) => c.partition === 0 && c.error === null)).toBe(true);
      const sp = server.broker.shares.get('rdk-sg-explicit', topicId, 0)!;
      expect(sp.spso).toBe(10n);
    });
  }, 180_000);
});
