/**
 * The log cleaner never moves the log start offset (Kafka's `Cleaner` keeps each cleaned segment's
 * base offset; only retention and DeleteRecords call `UnifiedLog.maybeIncrementLogStartOffset`):
 * after a compact topic's first segment lost its first four batches, ListOffsets EARLIEST still
 * answers 0, a Fetch at 0 or 10 returns the first batch kept (base offset 80), the cleaned segment
 * file keeps base offset 0, and a restart (log start = the first segment's base offset, as
 * `LogLoader`) agrees. Real kafkajs producer and raw Fetch/ListOffsets over sockets, real files,
 * manual clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startClosableServer } from '../support/server.js';
import { kafkaClient } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/messages/FetchRequest.js';
import { decodeRecords } from '../../src/records/record-batch.js';
import type { ServerHandle } from '../../src/index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function fetchAt(topic: string, fetchOffset: bigint) {
  const req = defaultFetchRequest();
  req.maxWaitMs = 0;
  req.topics = [{ topic, topicId: ZERO_UUID, partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset, partitionMaxBytes: 1 << 20 }] }];
  return req;
}

/** Fetch at `offset`: the error, the log start offset answered, and the first batch's base offset and record offsets/keys. */
async function fetchFirstBatch(server: ServerHandle, offset: bigint) {
  const raw = await RawClient.connect(server.port);
  try {
    const r = await raw.send(1, 11, fetchAt('cmp', offset));
    const p = r.responses[0]!.partitions[0]!;
    const records = p.records as Buffer | null;
    const batch = records && records.length > 0 ? records : null;
    return {
      errorCode: p.errorCode,
      logStartOffset: p.logStartOffset,
      baseOffset: batch ? batch.readBigInt64BE(0) : null,
      records: batch ? decodeRecords(batch).map((rec) => `${rec.offset}:${rec.key!.toString()}`) : [],
    };
  } finally {
    raw.close();
  }
}

async function earliest(server: ServerHandle): Promise<bigint> {
  const raw = await RawClient.connect(server.port);
  try {
    const r = await raw.send(2, 7, { replicaId: -1, isolationLevel: 0, timeoutMs: 1000, topics: [{ name: 'cmp', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2n }] }] });
    expect(r.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    return r.topics[0]!.partitions[0]!.offset;
  } finally {
    raw.close();
  }
}

describe('compaction and the log start offset', () => {
  it('the cleaner keeps the log start offset and the cleaned segment base offset; Fetch at 0 and 10 returns the first kept batch; a restart agrees', async () => {
    const first = await startClosableServer(cleanups, { clock: 'manual', config: { 'log.cleaner.backoff.ms': 3_600_000 } });
    const kafka = kafkaClient(first.server.bootstrap, 'cmp-lso');
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'cmp', numPartitions: 1, configEntries: [
      { name: 'cleanup.policy', value: 'compact' },
      { name: 'segment.ms', value: '60000' },
      { name: 'min.cleanable.dirty.ratio', value: '0.01' },
    ] }] });
    await admin.disconnect();
    // Six batches of 20 records, keys k0..k4 in turn: five in the first segment (offsets 0-99), the
    // sixth rolls (segment.ms passed) into the active segment at 100.
    const producer = kafka.producer();
    await producer.connect();
    for (let b = 0; b < 6; b++) {
      if (b === 5) first.server.clock.advance(60_000);
      const timestamp = String(first.server.clock.now());
      await producer.send({ topic: 'cmp', messages: Array.from({ length: 20 }, (_, i) => ({ key: `k${(b * 20 + i) % 5}`, value: `v${b * 20 + i}`, timestamp })) });
    }
    await producer.disconnect();
    const logFiles = (dir: string) => readdirSync(join(dir, 'cmp-0')).filter((f) => /^\d{20}\.log$/.test(f)).sort();
    expect(logFiles(first.dataDir)).toEqual(['00000000000000000000.log', '00000000000000000100.log']);

    await first.server.broker.logMaintenance.cleanerPass(true);
    // Offsets 0-79 are all superseded within the segment; batch 80 keeps 95-99 (the latest of each key).
    expect(logFiles(first.dataDir)).toEqual(['00000000000000000000.log', '00000000000000000100.log']);
    const kept = ['95:k0', '96:k1', '97:k2', '98:k3', '99:k4'];
    expect(await earliest(first.server)).toBe(0n);
    for (const at of [0n, 10n, 80n]) {
      expect(await fetchFirstBatch(first.server, at)).toEqual({ errorCode: ErrorCode.NONE, logStartOffset: 0n, baseOffset: 80n, records: kept });
    }
    await first.close();

    const second = await startClosableServer(cleanups, { clock: 'manual', dataDir: first.dataDir, config: { 'log.cleaner.backoff.ms': 3_600_000 } });
    expect(await earliest(second.server)).toBe(0n);
    expect(await fetchFirstBatch(second.server, 10n)).toEqual({ errorCode: ErrorCode.NONE, logStartOffset: 0n, baseOffset: 80n, records: kept });
  });
});
