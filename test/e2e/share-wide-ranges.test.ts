/**
 * A share partition keeps its records in flight as runs of offsets in one state, as Kafka keeps
 * in-flight batches (src/share/in-flight-runs.ts), so nothing it does walks offsets one by one:
 * here a topic of two stored batches claiming 2^31 - 1 offsets each (zstd-flagged batches are
 * stored without reading their records) is acquired, acknowledged from far below the start
 * offset, released, written and loaded again after a restart, each as one range. Kept per offset,
 * each step walked two billion offsets (adversarial trial, session 23: seconds per million, and
 * gigabytes).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { RawClient } from '../support/raw-client.js';
import { SHARE_TEST_CONFIG } from '../support/share-group.js';
import { startServer, type ServerHandle } from '../../src/index.js';
import { tempDataDir } from '../support/server.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { crc32c } from '../../src/records/crc32c.js';
import { RecordState } from '../../src/share/state/state-batches.js';

const SPAN = 2n ** 31n - 1n;
const ACCEPT = 1;
const RELEASE = 2;

/** A zstd-flagged batch at `baseOffset` whose header claims SPAN records (its body is never read here). */
function wideBatch(baseOffset: bigint): Buffer {
  const batch = Buffer.from(encodeRecordBatch({ baseOffset, timestamp: 1_700_000_000_000n, records: [{ key: null, value: Buffer.from('w') }] }));
  batch.writeInt16BE(4, 21);
  batch.writeInt32BE(Number(SPAN - 1n), 23);
  batch.writeInt32BE(Number(SPAN), 57);
  batch.writeUInt32BE(crc32c(batch.subarray(21)), 17);
  return batch;
}

describe('share partitions over wide offset ranges', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  it('acknowledges from two billion offsets below the start offset, and loads and acquires a written state of two billion offsets, each as one range', async () => {
    const data = tempDataDir('kmc-share-wide-');
    cleanups.push(() => data.remove());
    const start = async (): Promise<{ server: ServerHandle; c: RawClient }> => {
      const server = await startServer({ port: 0, dataDir: data.dir, logLevel: 'silent', config: SHARE_TEST_CONFIG });
      const c = await RawClient.connect(server.port);
      cleanups.push(() => server.close(), () => void c.socket.destroy());
      return { server, c };
    };
    const G = 'wide';
    const END = 2n * SPAN;
    let { server, c } = await start();
    const t = server.broker.topics.create('wide-topic', 1);
    const append = async (batch: Buffer): Promise<void> => {
      const appended = t.partitions[0]!.appendProduced(batch);
      if (!('durable' in appended)) throw new Error(appended.errorMessage);
      await appended.durable;
    };
    for (const base of [0n, SPAN]) await append(wideBatch(base));
    expect(t.partitions[0]!.logEndOffset).toBe(END);
    const member = randomUUID();
    const join = async (): Promise<void> => {
      const joined = await c.send(76, 1, { groupId: G, memberId: member, memberEpoch: 0, rackId: null, subscribedTopicNames: ['wide-topic'] });
      expect(joined.errorCode).toBe(0);
      await server.broker.share.initializationsSettled();
      await server.broker.runtime.flush();
      const assigned = await c.send(76, 1, { groupId: G, memberId: member, memberEpoch: joined.memberEpoch, rackId: null, subscribedTopicNames: null });
      // After a restart the member is known: its rejoin may already carry the assignment.
      expect((assigned.assignment ?? joined.assignment)!.topicPartitions).toEqual([{ topicId: t.id, partitions: [0] }]);
    };
    let epoch = 0;
    const fetch = async () => {
      const res = await c.send(78, 2, {
        groupId: G, memberId: member, shareSessionEpoch: epoch++, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500, shareAcquireMode: 0, isRenewAck: false,
        topics: [{ topicId: t.id, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: [] }] }],
        forgottenTopicsData: [],
      });
      const p = res.responses[0]!.partitions[0]!;
      return [p.errorCode, p.acquiredRecords.map((r) => [r.firstOffset, r.lastOffset, r.deliveryCount])];
    };
    const acknowledge = async (first: bigint, last: bigint, type: number) => {
      const res = await c.send(79, 2, {
        groupId: G, memberId: member, shareSessionEpoch: epoch++, isRenewAck: false,
        topics: [{ topicId: t.id, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: first, lastOffset: last, acknowledgeTypes: [type] }] }] }],
      });
      return res.responses[0]!.partitions[0]!.errorCode;
    };
    const view = () => server.broker.shares.get(G, t.id, 0)!;

    // `latest`: the share partition starts at the log end; a record appended then is acquired, and
    // accepted by an acknowledgement naming every offset from 0.
    await join();
    expect(await fetch()).toEqual([0, []]);
    await append(encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records: [{ key: null, value: Buffer.from('late') }] }));
    expect(await fetch()).toEqual([0, [[END, END, 1]]]);
    expect(await acknowledge(0n, END, ACCEPT)).toBe(0);
    expect([view().spso, view().counts()]).toEqual([END + 1n, { acquired: 0, available: 0, acknowledged: 0, archived: 0 }]);

    // A state written over the API (as any client may) makes the offsets below END available
    // again, with one delivery: loaded after a restart as one range, whose first batch is acquired
    // whole (records in flight already are not held to the in-flight limit).
    await server.close();
    ({ server, c } = await start());
    epoch = 0;
    const stateEpoch = server.broker.shareCoordinator.stateOf(G, t.id, 0)!.stateEpoch;
    const written = await c.send(85, 1, {
      groupId: G,
      topics: [{ topicId: t.id, partitions: [{ partition: 0, stateEpoch, leaderEpoch: -1, startOffset: 0n, deliveryCompleteCount: 0, stateBatches: [{ firstOffset: 0n, lastOffset: END - 1n, deliveryState: RecordState.AVAILABLE, deliveryCount: 1 }] }] }],
    });
    expect(written.results[0]!.partitions[0]!.errorCode).toBe(0);
    await join();
    expect(await fetch()).toEqual([0, [[0n, SPAN - 1n, 2]]]);
    // (The record at END stays acknowledged: the write was combined with the state it found.)
    expect([view().spso, view().counts()]).toEqual([0n, { acquired: Number(SPAN), available: Number(SPAN), acknowledged: 1, archived: 0 }]);
    expect(await acknowledge(0n, SPAN - 1n, RELEASE)).toBe(0);
    const state = server.broker.shareCoordinator.stateOf(G, t.id, 0)!;
    expect([state.startOffset, state.stateBatches[0]]).toEqual([0n, { firstOffset: 0n, lastOffset: SPAN - 1n, deliveryState: RecordState.AVAILABLE, deliveryCount: 2 }]);
  });
});
