/**
 * Transactional ids as a hostile client can make them (32,000 characters each, hundreds of them),
 * then a ListTransactions v2 with a pattern: other connections are served while the ids are
 * matched (the matching yields between slices; it held the event loop for the whole list).
 * The server runs in this process, so the order of answers counts turns of the event loop, not time.
 * And a COMMIT marker a client writes into `__transaction_state` itself: the next start loads past it;
 * and WriteTxnMarkers / AddPartitionsToTxn v4 naming thousands of producers or transactions begin
 * them in slices, another connection answered meanwhile.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { createTopic, initProducer, markerError, writeMarker } from '../support/raw-transactions.js';
import { watchCall } from '../support/big-requests.js';
import { ErrorCode } from '../../src/protocol/errors.js';

describe('transactions from a hostile client', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  it('ListTransactions matching 400 ids of 32,000 characters: another connection gets two answers before it', async () => {
    const { server } = await startClosableServer(cleanups, {}, 'kmc-adv-txn-');
    const clients = await Promise.all(Array.from({ length: 4 }, () => RawClient.connect(server.port)));
    cleanups.push(() => clients.forEach((c) => c.socket.destroy()));
    const ids = Array.from({ length: 400 }, (_, k) => `long-${k}-${'y'.repeat(32_000)}`);
    await Promise.all(clients.map(async (c, i) => {
      for (let k = i; k < ids.length; k += clients.length) {
        const r = await c.send(22, 4, { transactionalId: ids[k]!, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
        expect(r.errorCode).toBe(0);
      }
    }));
    const [lister, other] = clients as [RawClient, RawClient];
    const order: string[] = [];
    // '.*z' never matches, so every id is read to its end.
    const listed = lister.send(66, 2, { stateFilters: [], producerIdFilters: [], durationFilter: -1n, transactionalIdPattern: '.*z' }).then((r) => {
      order.push('list');
      return r;
    });
    const served = (async () => {
      for (let i = 0; i < 2; i++) {
        expect((await other.send(18, 3, { clientSoftwareName: 'adv', clientSoftwareVersion: '1' })).errorCode).toBe(0);
        order.push(`other-${i}`);
      }
    })();
    const [res] = await Promise.all([listed, served]);
    expect(res).toMatchObject({ errorCode: 0, unknownStateFilters: [], transactionStates: [] });
    expect(order).toEqual(['other-0', 'other-1', 'list']);
    // The same pattern still matches whole ids.
    const some = await lister.send(66, 2, { stateFilters: [], producerIdFilters: [], durationFilter: -1n, transactionalIdPattern: 'long-1[0-9]-y+' });
    expect(some.transactionStates.map((t) => t.transactionalId.slice(0, 8)).sort()).toEqual(Array.from({ length: 10 }, (_, k) => `long-1${k}-`));
  }, 60_000);

  it('WriteTxnMarkers with 3,000 markers of one producer and AddPartitionsToTxn v4 with 3,000 transactions: another connection is answered before all have begun', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const [sender, other] = await Promise.all([RawClient.connect(server.port), RawClient.connect(server.port)]);
    cleanups.push(() => void sender.socket.destroy(), () => void other.socket.destroy());
    await createTopic(sender, 'many-markers', 2);
    const N = 3000;
    const versions = async () => expect((await other.send(18, 3, { clientSoftwareName: 'adv', clientSoftwareVersion: '1' })).errorCode).toBe(0);

    const writes = watchCall(server.broker.txnMarkers, 'write');
    const markers = Array.from({ length: N }, (_, k) => ({
      producerId: 7n, producerEpoch: 0, transactionResult: k % 2 === 0, coordinatorEpoch: 0, transactionVersion: 0,
      topics: [{ name: 'many-markers', partitionIndexes: [k % 2] }],
    }));
    const written = sender.send(27, 1, { markers });
    while (writes.calls === 0) await new Promise((resolve) => setImmediate(resolve));
    await versions();
    expect(writes.calls).toBeLessThan(N);
    // One entry for the producer, its two partitions once each (the later marker's answer).
    expect((await written).markers).toEqual([{ producerId: 7n, topics: [{ name: 'many-markers', partitions: [{ partitionIndex: 0, errorCode: 0 }, { partitionIndex: 1, errorCode: 0 }] }] }]);

    const verifies = watchCall(server.broker.transactions, 'verifyPartitions');
    const transactions = Array.from({ length: N }, (_, k) => ({ transactionalId: `v-${k}`, producerId: BigInt(k), producerEpoch: 0, verifyOnly: true, topics: [{ name: 'many-markers', partitions: [0] }] }));
    const verified = sender.send(24, 4, { transactions, v3AndBelowTransactionalId: '', v3AndBelowProducerId: 0n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [] });
    while (verifies.calls === 0) await new Promise((resolve) => setImmediate(resolve));
    await versions();
    expect(verifies.calls).toBeLessThan(N);
    const answer = await verified;
    expect(answer.resultsByTransaction.map((t) => t.transactionalId)).toEqual(transactions.map((t) => t.transactionalId));
  }, 60_000);

  it('a WriteTxnMarkers naming __transaction_state partitions: accepted as Kafka 4.3.1 does, and the next start loads past the markers', async () => {
    const first = await startClosableServer(cleanups, {}, 'kmc-adv-txn-');
    const raw = await RawClient.connect(first.server.port);
    cleanups.push(() => void raw.socket.destroy());
    const before = await initProducer(raw, 'kept-id');
    const answer = await writeMarker(raw, { producerId: 7n, producerEpoch: 0, commit: true }, [{ topic: '__transaction_state', partitions: [0, 1] }]);
    expect(answer.markers[0]!.topics[0]!.partitions.map((p) => p.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE]);
    expect(markerError(await writeMarker(raw, { producerId: 8n, producerEpoch: 0, commit: false }, [{ topic: '__transaction_state', partitions: [1] }]))).toBe(ErrorCode.NONE);
    raw.socket.destroy();
    await first.close();

    const again = await startClosableServer(cleanups, { dataDir: first.dataDir });
    const after = await RawClient.connect(again.server.port);
    cleanups.push(() => void after.socket.destroy());
    // The id written before the markers was loaded: its epoch is bumped, its producer id kept.
    expect(await initProducer(after, 'kept-id')).toEqual({ producerId: before.producerId, producerEpoch: before.producerEpoch + 1 });
    expect((await initProducer(after, 'new-id')).producerEpoch).toBe(0);
  }, 60_000);
});
