/**
 * A share partition's acknowledgement whose state write fails changes nothing, even when another
 * acknowledgement's write succeeds while it is in flight (adversarial trial 17: member A's ACCEPT of
 * 0-9 succeeded while member B's ACCEPT of 10-19 failed on a full disk, and the SPSO had already
 * moved past 10-19, so B's records were never delivered again). As Kafka's ongoing state
 * transitions: until its write ends a change is neither passed by the SPSO nor acquired.
 * The share coordinator here is a stand-in whose writes the test settles one by one, on a real
 * partition of an in-memory server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { createTopic, produce } from '../support/raw-transactions.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { systemTime, type Time } from '../../src/util/time.js';
import { ManualTime } from '../../src/util/manual-time.js';
import { AcknowledgeType, SharePartition, ShareAcquireMode, type ShareStateAccess } from '../../src/share/share-partition.js';
import type { PersisterWriteEntry } from '../../src/share/state/share-coordinator.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const TOPIC = 'share-write-failure';

/** A share coordinator whose writes wait until the test settles each with an error code. */
function heldWrites() {
  const writes: Array<{ entry: PersisterWriteEntry; settle: (errorCode: number) => void }> = [];
  const state: ShareStateAccess = {
    readState: async (_groupId, p) => ({ topicId: p.topicId, partition: p.partition, errorCode: ErrorCode.NONE, errorMessage: null, stateEpoch: 0, startOffset: 0n, stateBatches: [] }),
    writeState: (_groupId, entry) =>
      new Promise((resolve) => {
        writes.push({ entry, settle: (errorCode) => resolve({ topicId: entry.topicId, partition: entry.partition, errorCode, errorMessage: errorCode === ErrorCode.NONE ? null : 'disk full' }) });
      }),
  };
  return { writes, state };
}

/**
 * A share partition (group `g`, `earliest`, 5 deliveries, 2,000 in flight) over `count` records
 * produced to TOPIC on an in-memory server, its writes held by the test; `acquire` takes 10 records.
 */
async function sharePartitionOver(count: number, time: Time, lockMs: number) {
  const { server } = await startClosableServer(cleanups, { inMemory: true });
  const raw = await RawClient.connect(server.port);
  cleanups.push(() => raw.close());
  await createTopic(raw, TOPIC);
  const records = Array.from({ length: count }, (_, i) => ({ key: null, value: Buffer.from(`r${i}`) }));
  expect((await produce(raw, TOPIC, null, encodeRecordBatch({ baseOffset: 0n, timestamp: BigInt(Date.now()), records }))).errorCode).toBe(ErrorCode.NONE);
  const topic = server.broker.topics.get(TOPIC)!;
  const partition = topic.partition(0)!;
  const { writes, state } = heldWrites();
  const sp = new SharePartition('g', topic.topicId, 0, partition, time, state, {
    recordLockDurationMs: () => lockMs,
    deliveryCountLimit: () => 5,
    maxInFlightRecords: () => 2000,
    renewAcknowledgeEnabled: () => false,
    autoOffsetReset: () => 'earliest',
    isolationLevel: () => 'read_uncommitted',
  });
  cleanups.push(() => sp.close());
  await sp.maybeInitialize();
  const batches = [...partition.log.batches()];
  const acquire = (memberId: string) => sp.acquire(memberId, batches, 10, ShareAcquireMode.RECORD_LIMIT).ranges;
  return { sp, writes, acquire };
}

describe('a share partition whose state write fails', () => {
  it("puts its records back even when another member's write succeeded meanwhile; they are acquired again only once released", async () => {
    const { sp, writes, acquire } = await sharePartitionOver(20, systemTime, 60_000);
    expect(acquire('m1')).toEqual([{ firstOffset: 0n, lastOffset: 9n, deliveryCount: 1 }]);
    expect(acquire('m2')).toEqual([{ firstOffset: 10n, lastOffset: 19n, deliveryCount: 1 }]);

    const a = sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 9n, acknowledgeTypes: [AcknowledgeType.ACCEPT] }]);
    const b = sp.acknowledge('m2', [{ firstOffset: 10n, lastOffset: 19n, acknowledgeTypes: [AcknowledgeType.ACCEPT] }]);
    expect(writes.map((w) => w.entry.stateBatches.map((s) => [s.firstOffset, s.lastOffset]))).toEqual([[[0n, 9n]], [[10n, 19n]]]);
    writes[0]!.settle(ErrorCode.NONE);
    await a;
    // The SPSO passes m1's records, not m2's, whose write is still in flight.
    expect(sp.spso).toBe(10n);
    writes[1]!.settle(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    await expect(b).rejects.toMatchObject({ errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE });
    expect(sp.spso).toBe(10n);
    expect(sp.counts()).toEqual({ acquired: 10, available: 0, acknowledged: 0, archived: 0 });

    // Still m2's: its RELEASE is taken; until that write ends no one acquires them.
    const released = sp.acknowledge('m2', [{ firstOffset: 10n, lastOffset: 19n, acknowledgeTypes: [AcknowledgeType.RELEASE] }]);
    expect(writes[2]!.entry).toMatchObject({ startOffset: 10n, stateBatches: [{ firstOffset: 10n, lastOffset: 19n, deliveryState: 0, deliveryCount: 1 }] });
    expect(acquire('m3')).toEqual([]);
    expect(sp.nextFetchOffset()).toBe(20n);
    writes[2]!.settle(ErrorCode.NONE);
    await released;
    expect(sp.nextFetchOffset()).toBe(10n);
    expect(acquire('m3')).toEqual([{ firstOffset: 10n, lastOffset: 19n, deliveryCount: 2 }]);
  });

  it('keeps the lock deadline of records a failed acknowledgement puts back; a lock timeout releases at once and for good, whatever its write', async () => {
    const time = new ManualTime(1_000_000);
    const { sp, writes, acquire } = await sharePartitionOver(10, time, 30_000);
    expect(acquire('m1')).toEqual([{ firstOffset: 0n, lastOffset: 9n, deliveryCount: 1 }]);

    // 29 s in, m1's ACCEPT fails: its records are m1's again, under the lock taken at 0 s.
    time.advance(29_000);
    const accepted = sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 9n, acknowledgeTypes: [AcknowledgeType.ACCEPT] }]);
    writes[0]!.settle(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    await expect(accepted).rejects.toMatchObject({ errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE });
    // ... and an acknowledgement refused before any write (its second batch is past the records) too.
    await expect(sp.acknowledge('m1', [
      { firstOffset: 0n, lastOffset: 9n, acknowledgeTypes: [AcknowledgeType.ACCEPT] },
      { firstOffset: 50n, lastOffset: 50n, acknowledgeTypes: [AcknowledgeType.ACCEPT] },
    ])).rejects.toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST });
    expect([writes.length, sp.counts()]).toEqual([1, { acquired: 10, available: 0, acknowledged: 0, archived: 0 }]);

    // At 30 s the lock runs out: released at once, before (and whatever) its write.
    time.advance(1_000);
    expect([writes.length, sp.counts()]).toEqual([2, { acquired: 0, available: 10, acknowledged: 0, archived: 0 }]);
    expect(acquire('m2')).toEqual([{ firstOffset: 0n, lastOffset: 9n, deliveryCount: 2 }]);
    writes[1]!.settle(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    await new Promise((resolve) => setImmediate(resolve));
    // The failed write gave nothing back to m1: the records are m2's.
    expect(sp.counts()).toEqual({ acquired: 10, available: 0, acknowledged: 0, archived: 0 });
    const byM2 = sp.acknowledge('m2', [{ firstOffset: 0n, lastOffset: 9n, acknowledgeTypes: [AcknowledgeType.ACCEPT] }]);
    writes[2]!.settle(ErrorCode.NONE);
    await byM2;
    expect(sp.spso).toBe(10n);
  });
});
