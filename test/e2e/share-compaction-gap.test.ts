/**
 * A share group reading a compacted topic: the offsets the cleaner removed are skipped by the log,
 * and a ShareFetch past them archives them as one run (src/share/in-flight-runs.ts), counted as
 * delivered, never handed out; the start offset moves past them with the next acknowledgement.
 * On the manual clock: the roll and the cleaner run when the test moves time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { SHARE_TEST_CONFIG } from '../support/share-group.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import type { ServerHandle } from '../../src/index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Records of `keys` (one each), empty values. */
const batch = (keys: string[]) => encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records: keys.map((k) => ({ key: Buffer.from(k), value: Buffer.alloc(0) })) });

async function append(server: ServerHandle, keys: string[]): Promise<void> {
  const appended = server.broker.topics.get('compacted')!.partitions[0]!.appendProduced(batch(keys));
  if (!('durable' in appended)) throw new Error(appended.errorMessage);
  await appended.durable;
}

describe('share groups over a compacted topic', () => {
  it('a ShareFetch past a gap the cleaner left archives the gap as delivered, never hands it out, and the start offset moves past it', async () => {
    const { server } = await startClosableServer(cleanups, {
      inMemory: true,
      clock: 'manual',
      config: { ...SHARE_TEST_CONFIG, 'log.cleaner.backoff.ms': 1000 },
    });
    const c = await RawClient.connect(server.port);
    cleanups.push(() => c.close());
    const BATCHES = 20;
    const PER_BATCH = 1000;
    const GAP = (BATCHES - 1) * PER_BATCH;
    const LAST = BigInt(GAP + 1);
    const t = server.broker.topics.create('compacted', 1, { 'cleanup.policy': 'compact', 'segment.ms': '1000', 'min.cleanable.dirty.ratio': '0.01', 'delete.retention.ms': '0' });
    // Offset 0 (key a), then 20 batches of key k: compaction removes all but the last batch, which
    // keeps its last record (and its offsets: LAST..LAST + 999); then a roll.
    await append(server, ['a']);
    for (let i = 0; i < BATCHES; i++) await append(server, Array.from({ length: PER_BATCH }, () => 'k'));
    server.clock.advance(2000);
    await append(server, ['b']);
    const log = t.partitions[0]!.log;
    // The cleaner's pass on the manual clock; it ends when the log no longer holds the dirty records.
    const before = log.sizeInBytes;
    server.clock.advance(2000);
    while (log.sizeInBytes >= before) {
      server.clock.advance(1000);
      await new Promise((resolve) => setImmediate(resolve));
    }

    await server.broker.configs.store.setGroupConfigs('g-gap', { 'share.auto.offset.reset': 'earliest' });
    const member = randomUUID();
    const joined = await c.send(76, 1, { groupId: 'g-gap', memberId: member, memberEpoch: 0, rackId: null, subscribedTopicNames: ['compacted'] });
    await server.broker.share.initializationsSettled();
    await server.broker.runtime.flush();
    expect((await c.send(76, 1, { groupId: 'g-gap', memberId: member, memberEpoch: joined.memberEpoch, rackId: null, subscribedTopicNames: null })).assignment!.topicPartitions).toEqual([{ topicId: t.id, partitions: [0] }]);
    let epoch = 0;
    const fetch = async (maxRecords: number, acks: Array<{ firstOffset: bigint; lastOffset: bigint; acknowledgeTypes: number[] }> = []) => {
      const res = await c.send(78, 2, {
        groupId: 'g-gap', memberId: member, shareSessionEpoch: epoch++, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords, batchSize: maxRecords, shareAcquireMode: 0, isRenewAck: false,
        topics: [{ topicId: t.id, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: acks }] }],
        forgottenTopicsData: [],
      });
      return res.responses[0]?.partitions[0]?.acquiredRecords.map((r) => [r.firstOffset, r.lastOffset, r.deliveryCount]) ?? [];
    };
    const view = () => server.broker.shares.get('g-gap', t.id, 0)!;

    expect(await fetch(1)).toEqual([[0n, 0n, 1]]);
    // Past the gap: offsets 1..GAP archived as one run, which counts as in flight until the start
    // offset passes it (`share.partition.max.record.locks`, 2,000): the first record after it alone.
    expect(await fetch(10)).toEqual([[LAST, LAST, 1]]);
    expect([view().spso, view().speo, view().counts()]).toEqual([0n, LAST, { acquired: 2, available: 0, acknowledged: 0, archived: GAP }]);
    // Accepting offset 0: the start offset moves past the archived gap to the record still held,
    // and the rest of the last batch can be acquired.
    const lastOfBatch = LAST + BigInt(PER_BATCH - 1);
    expect(await fetch(10, [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [1] }])).toEqual([[LAST + 1n, lastOfBatch, 1]]);
    expect([view().spso, view().counts()]).toEqual([LAST, { acquired: PER_BATCH, available: 0, acknowledged: 0, archived: 0 }]);
    expect(server.broker.shareCoordinator.stateOf('g-gap', t.id, 0)).toMatchObject({ startOffset: 0n });
  });
});
