/**
 * Hostile Produce batches over the raw protocol against a real server: what Kafka 4.3.1's
 * `LogValidator.validateBatch` refuses is refused with its error, and the log is left as it was.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { batchOf, createTopic, initProducer, produce } from '../support/raw-transactions.js';

describe('Produce from a hostile client', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  it('a batch with a producer id and a negative base sequence: INVALID_RECORD, nothing appended, the producer goes on at sequence 0', async () => {
    const { server } = await startClosableServer(cleanups, {}, 'kmc-adv-produce-');
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    await createTopic(c, 't');
    const p = await initProducer(c, 'adv-txn');
    const idem = await c.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
    const producer = { producerId: idem.producerId, producerEpoch: idem.producerEpoch };
    for (const baseSequence of [-1, -5, -2_147_483_648]) {
      expect(await produce(c, 't', null, batchOf({ ...producer, baseSequence, count: 2, transactional: false }))).toMatchObject({
        // As Kafka 4.3.1 answers it (the malformed-batches conformance scenario): no message, the log start offset.
        errorCode: ErrorCode.INVALID_RECORD,
        errorMessage: null,
        logStartOffset: 0n,
        baseOffset: -1n,
      });
    }
    // A producer id the broker never handed out is checked the same way.
    expect((await produce(c, 't', null, batchOf({ producerId: p.producerId + 1000n, producerEpoch: 0, baseSequence: -3, count: 1, transactional: false }))).errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(server.broker.topics.get('t')!.partition(0)!.logEndOffset).toBe(0n);
    expect(await produce(c, 't', null, batchOf({ ...producer, baseSequence: 0, count: 2, transactional: false }))).toMatchObject({ errorCode: 0, baseOffset: 0n });
    // No producer id (-1): no sequence is needed.
    expect(await produce(c, 't', null, batchOf({ producerId: -1n, producerEpoch: -1, baseSequence: -1, count: 1, transactional: false }))).toMatchObject({ errorCode: 0, baseOffset: 2n });
  });
});
