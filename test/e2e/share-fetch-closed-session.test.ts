/**
 * A ShareFetch whose share session ends while it works (its connection closed between slices, or
 * while it waited for records) acquires nothing more, and what it acquired goes back: the closed
 * session's records were released at the close, and a fetch going on would otherwise lock records
 * for a client that is gone until the lock runs out (adversarial trial 23b). As "a consumer whose
 * connection closes releases its records at once" (README).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { SHARE_TEST_CONFIG } from '../support/share-group.js';
import { watchCall } from '../support/big-requests.js';
import { until } from '../support/until.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('a ShareFetch whose session ends while it works', () => {
  it('waiting for records when its connection closes: the record appended then is not acquired for it, and the member gets it on its next connection', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: SHARE_TEST_CONFIG });
    const t = server.broker.topics.create('closing', 1);
    await server.broker.configs.store.setGroupConfigs('g-close', { 'share.auto.offset.reset': 'earliest' });
    const member = randomUUID();
    const connect = async (): Promise<RawClient> => {
      const c = await RawClient.connect(server.port);
      cleanups.push(() => c.close());
      return c;
    };
    const first = await connect();
    const joined = await first.send(76, 1, { groupId: 'g-close', memberId: member, memberEpoch: 0, rackId: null, subscribedTopicNames: ['closing'] });
    await server.broker.share.initializationsSettled();
    await server.broker.runtime.flush();
    expect((await first.send(76, 1, { groupId: 'g-close', memberId: member, memberEpoch: joined.memberEpoch, rackId: null, subscribedTopicNames: null })).assignment!.topicPartitions).toEqual([{ topicId: t.id, partitions: [0] }]);
    const fetchRequest = (maxWaitMs: number) => ({
      groupId: 'g-close', memberId: member, shareSessionEpoch: 0, maxWaitMs, minBytes: 1, maxBytes: 1 << 20, maxRecords: 10, batchSize: 10, shareAcquireMode: 0, isRenewAck: false,
      topics: [{ topicId: t.id, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: [] }] }],
      forgottenTopicsData: [],
    });

    // A long poll: the fetch waits for an append; its connection closes meanwhile.
    const waits = watchCall(server.broker.topics, 'waitForAppend');
    void first.send(78, 2, fetchRequest(60_000)).catch(() => undefined);
    await until(() => waits.calls > 0);
    first.socket.destroy();
    await until(() => server.broker.shares.sessions.get('g-close', member) === undefined);
    // The append wakes the fetch: its session has ended, it takes nothing.
    const appended = t.partitions[0]!.appendProduced(encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records: [{ key: null, value: Buffer.from('late') }] }));
    if (!('durable' in appended)) throw new Error(appended.errorMessage);
    await appended.durable;
    await until(() => waits.settled);
    // (The fetch goes on in the microtasks after its wait: a turn of the event loop later it is done.)
    await new Promise((resolve) => setImmediate(resolve));
    expect(server.broker.shares.get('g-close', t.id, 0)!.counts()).toEqual({ acquired: 0, available: 0, acknowledged: 0, archived: 0 });
    // The member, back on a new connection, gets the record, delivered once.
    const second = await connect();
    const fetched = await second.send(78, 2, fetchRequest(0));
    expect(fetched.responses[0]!.partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 0n, deliveryCount: 1 }]);
  });
});
