/**
 * Bounded file descriptors (issue #16): segment files are opened on use and the least recently used
 * closed above `mock.max.open.files` (src/storage/fd-cache.ts). A server capped at 64 holds a topic
 * of 1,000 partitions (each with several segments), takes produce to every partition, serves a
 * fetch of all of them, and gives every record back after a restart, while the process's open
 * descriptors (/proc/self/fd, the server runs in this process) stay within the cap plus a few.
 */
import { existsSync, readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer, tempDataDir } from '../support/server.js';
import { kafkaClient } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/messages/FetchRequest.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const CAP = 64;
const PARTITIONS = 1000;
/**
 * Descriptors beyond the cap: sockets (listener, clients, a few), file-io's own opens (directory
 * syncs, checkpoint files: at most 16 at once) and segment files pinned by a running write or sync
 * (at most 16 at once).
 */
const SLACK = 8 + 16 + 16;
const openFds = (): number => readdirSync('/proc/self/fd').length;

function fetchAll(topic: string) {
  const req = defaultFetchRequest();
  req.maxWaitMs = 0;
  req.topics = [{ topic, topicId: ZERO_UUID, partitions: Array.from({ length: PARTITIONS }, (_, partition) => ({ ...defaultFetchPartition(), partition, fetchOffset: 0n, partitionMaxBytes: 1 << 20 })) }];
  return req;
}

describe.skipIf(!existsSync('/proc/self/fd'))('bounded open files', () => {
  it(`a topic of ${PARTITIONS} partitions with mock.max.open.files=${CAP}: produce, fetch and restart keep every record, descriptors stay bounded`, async () => {
    const data = tempDataDir();
    cleanups.push(() => data.remove());
    const baseline = openFds();
    let peak = 0;
    const sample = (): void => {
      peak = Math.max(peak, openFds() - baseline);
    };
    // Tiny segments: each produce round rolls a new segment in every partition. Syncs by interval
    // (an hour): a file the cache closes is synced first, the rest at close.
    const config = { 'mock.max.open.files': String(CAP), 'log.segment.bytes': '100', 'mock.flush.policy': 'interval', 'log.flush.interval.ms': '3600000' };
    const first = await startClosableServer(cleanups, { dataDir: data.dir, config });
    const kafka = kafkaClient(first.server.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'wide', numPartitions: PARTITIONS }] });
    sample();
    const producer = kafka.producer();
    await producer.connect();
    for (const round of ['a', 'b']) {
      await producer.send({ topic: 'wide', acks: -1, messages: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, value: `p${partition}-${round}` })) });
      sample();
    }
    await producer.disconnect();
    await admin.disconnect();
    expect(readdirSync(`${data.dir}/wide-7`).filter((f) => f.endsWith('.log'))).toHaveLength(2);

    const check = async (port: number): Promise<void> => {
      const raw = await RawClient.connect(port);
      try {
        const res = await raw.send(1, 12, fetchAll('wide'));
        sample();
        const partitions = res.responses[0]!.partitions;
        expect(partitions).toHaveLength(PARTITIONS);
        for (const p of partitions) {
          expect([p.partitionIndex, p.errorCode, p.highWatermark]).toEqual([p.partitionIndex, 0, 2n]);
          const bytes = Buffer.from(p.records!);
          for (const round of ['a', 'b']) expect(bytes.includes(`p${p.partitionIndex}-${round}`), `partition ${p.partitionIndex} round ${round}`).toBe(true);
        }
      } finally {
        raw.close();
      }
    };
    await check(first.server.port);
    await first.close();
    sample();

    const second = await startClosableServer(cleanups, { dataDir: data.dir, config });
    sample();
    await check(second.server.port);
    expect(peak).toBeLessThanOrEqual(CAP + SLACK);
    await second.close();
    expect(openFds()).toBeLessThanOrEqual(baseline + 2);
  }, 120_000);
});
