/**
 * Cluster simulation with librdkafka (the Python confluent-kafka wheel, as test/e2e/librdkafka.test.ts):
 * 3 brokers; while test/e2e/clients/librdkafka_cluster.py consumes and commits message by message,
 * the group's coordinator is moved twice. librdkafka gets NOT_COORDINATOR, finds the new
 * coordinator and keeps committing; the committed offsets end at the log-end offsets.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';
import { waitFor } from '../support/kafkajs.js';
import { python, runPython } from '../support/python.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SCRIPT = join(HERE, 'clients', 'librdkafka_cluster.py');


describe.skipIf(python === null)('cluster simulation (librdkafka)', () => {
  it('moveCoordinator twice while librdkafka commits message by message: it rediscovers the coordinator, no commit is lost', async () => {
    const server = await startTestServer({ brokers: 3 });
    const kafka = new Kafka({ clientId: 'lrk-cluster-admin', brokers: [server.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    const producer = kafka.producer();
    const topic = 'lrk-cluster';
    const group = 'lrk-cluster-group';
    const COUNT = 30;
    try {
      await admin.connect();
      await admin.createTopics({ topics: [{ topic, numPartitions: 3 }] });
      await producer.connect();
      await producer.send({ topic, messages: Array.from({ length: COUNT }, (_, i) => ({ value: `v${i}`, partition: i % 3 })) });

      const committedTotal = () => [0, 1, 2].reduce((sum, p) => sum + Number(server.broker.offsets.fetch(group, topic, p)?.committedOffset ?? 0n), 0);
      const running = runPython([SCRIPT, '--bootstrap', server.bootstrap, '--topic', topic, '--group', group, '--count', String(COUNT), '--pause', '0.1'], 90_000);
      const moves: Array<[number, number]> = [];
      for (const threshold of [5, 15]) {
        await waitFor(() => committedTotal() >= threshold, 40_000, `${threshold} commits`);
        const from = server.cluster.coordinatorOf(group);
        const to = from === 3 ? 1 : from + 1;
        server.cluster.moveCoordinator(group, to);
        moves.push([from, to]);
      }
      const run = await running;
      const context = `exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr.slice(-6000)}`;
      const result = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}');
      expect(result.ok, context).toBe(true);
      expect(result.consumed, context).toEqual({ '0': 10, '1': 10, '2': 10 });
      expect(result.committed, context).toEqual([0, 1, 2].map((partition) => ({ partition, offset: 10 })));
      for (let p = 0; p < 3; p++) expect(server.broker.offsets.fetch(group, topic, p)?.committedOffset).toBe(10n);

      // librdkafka was told NOT_COORDINATOR by an old coordinator and asked FindCoordinator again.
      const fromClient = server.faults.requests({ clientId: 'librdkafka-cluster' });
      expect(fromClient.some((r) => r.error === 'NOT_COORDINATOR'), context).toBe(true);
      expect(fromClient.filter((r) => r.api === 'FindCoordinator').length, context).toBeGreaterThanOrEqual(3);
      expect(server.cluster.coordinatorOf(group)).toBe(moves[1]![1]);
    } finally {
      await producer.disconnect().catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
      await server.stop();
    }
  }, 120_000);
});
