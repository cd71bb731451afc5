/**
 * End to end with librdkafka, through the Python `confluent-kafka` wheel (which bundles a recent
 * librdkafka): a server started in-process on port 0 with a temporary data directory; kafkajs creates
 * a 3-partition topic; test/e2e/clients/librdkafka_group.py produces 20 messages (message i to
 * partition i % 3, so 7/7/6), consumes them in a classic consumer group and commits synchronously;
 * kafkajs then reads the committed offsets back with OffsetFetch and they must equal the counts.
 *
 * The interpreter and its confluent-kafka come from test/support/provision.ts; without python3 on
 * the machine the suite is skipped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';

import { startServer } from '../../src/index.js';
import { python, runPython } from '../support/python.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SCRIPT = join(HERE, 'clients', 'librdkafka_group.py');
const PARTITIONS = 3;
const COUNT = 20;
/** Message i goes to partition i % 3: 20 messages land 7, 7, 6. */
const EXPECTED_COUNTS = [7, 7, 6];

interface PartitionOffset {
  partition: number;
  offset: number;
  error: string | null;
}

interface ClientResult {
  ok: boolean;
  stage: string;
  error?: string;
  confluentKafkaVersion?: string;
  librdkafkaVersion?: string;
  produced?: Record<string, number>;
  consumed?: Record<string, number>;
  consumedMessages?: Array<{ partition: number; offset: number; key: string | null; value: string | null }>;
  assignments?: number[][];
  commitResult?: PartitionOffset[];
  committed?: PartitionOffset[];
}


function lastJsonLine(stdout: string): ClientResult | null {
  const lines = stdout.trim().split('\n').reverse();
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    try {
      return JSON.parse(line) as ClientResult;
    } catch {
      // keep looking
    }
  }
  return null;
}

describe.skipIf(python === null)('librdkafka (confluent-kafka Python) against the server', () => {
  it('produces, consumes in a classic group, commits synchronously; kafkajs reads the committed offsets', async () => {
    const versions = `${python!.confluentKafka} ${python!.librdkafka}`;

    const dataDir = mkdtempSync(join(tmpdir(), 'kmc-librdkafka-'));
    const server = await startServer({ port: 0, dataDir });
    const kafka = new Kafka({ clientId: 'kmc-e2e-admin', brokers: [server.bootstrap], logLevel: logLevel.ERROR });
    const admin = kafka.admin();
    const topic = 'lrk-e2e-orders';
    const groupId = 'lrk-e2e-group';
    try {
      await admin.connect();
      await admin.createTopics({
        topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }],
        waitForLeaders: true,
      });

      const run = await runPython(
        [SCRIPT, '--bootstrap', server.bootstrap, '--topic', topic, '--group', groupId, '--count', String(COUNT),
          '--partitions', String(PARTITIONS), '--timeout', '20'],
        50_000,
      );
      const result = lastJsonLine(run.stdout);
      const context = `confluent-kafka/librdkafka ${versions}; exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr.slice(-8000)}`;
      if (result === null || !result.ok || run.code !== 0) {
        throw new Error(`the librdkafka client failed at stage '${result?.stage ?? '?'}': ${result?.error ?? 'no JSON result'}\n${context}`);
      }

      const expected = EXPECTED_COUNTS.map((n, partition) => ({ partition, offset: n, error: null }));
      expect(result.produced, context).toEqual({ '0': 7, '1': 7, '2': 6 });
      expect(result.consumed, context).toEqual({ '0': 7, '1': 7, '2': 6 });
      // Every partition read from offset 0 without a gap, each message where it was sent.
      for (let p = 0; p < PARTITIONS; p++) {
        const inPartition = (result.consumedMessages ?? []).filter((m) => m.partition === p);
        expect(inPartition.map((m) => m.offset), context).toEqual([...Array(EXPECTED_COUNTS[p] ?? 0).keys()]);
        for (const m of inPartition) {
          const i = Number(m.key?.slice('key-'.length));
          expect(i % PARTITIONS, context).toBe(p);
          expect(m.value, context).toBe(`value-${i}`);
        }
      }
      expect(result.commitResult, context).toEqual(expected);
      expect(result.committed, context).toEqual(expected);

      const fetched = await admin.fetchOffsets({ groupId, topics: [topic] });
      expect(fetched.map((t) => t.topic)).toEqual([topic]);
      const offsets = [...(fetched[0]?.partitions ?? [])]
        .sort((a, b) => a.partition - b.partition)
        .map(({ partition, offset }) => ({ partition, offset }));
      expect(offsets).toEqual(EXPECTED_COUNTS.map((n, partition) => ({ partition, offset: String(n) })));
    } finally {
      await admin.disconnect().catch(() => undefined);
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
