/**
 * Transactions v2 (KIP-890): a producer's next transaction may start while its previous one still
 * writes its markers. Kafka 4.3's `ReplicaManager.handleProduceAppend` asks the coordinator again
 * every `add.partitions.to.txn.retry.backoff.ms` while it answers CONCURRENT_TRANSACTIONS, for at
 * most `add.partitions.to.txn.retry.backoff.max.ms`, so the producer does not see it. Here the
 * next transaction's Produce v12 is pipelined behind the EndTxn v5 that ends the previous one on
 * the same connection: it is read as soon as EndTxn is answered, before the markers can be durable
 * (a data directory: they wait for the turn's write), so its first verification always finds the
 * transaction in PrepareCommit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { Pipeliner, type PipelinedRequest } from '../support/pipeliner.js';
import { startTestServer } from '../support/server.js';
import { batchOf, createTopic, initProducer } from '../support/raw-transactions.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { defaultPartitionProduceData, defaultProduceRequest } from '../../src/protocol/messages/ProduceRequest.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function produceV12(transactionalId: string, topic: string, batch: Buffer) {
  const req = defaultProduceRequest();
  req.transactionalId = transactionalId;
  req.acks = -1;
  req.timeoutMs = 10_000;
  req.topicData = [{ name: topic, topicId: ZERO_UUID, partitionData: [{ ...defaultPartitionProduceData(), index: 0, records: batch }] }];
  return req;
}

/** Two transactions back to back: the second's first Produce pipelined behind the first's EndTxn; its answer. */
async function backToBack(config: Record<string, number>): Promise<{ endTxn: number; produce: number }> {
  const server = await startTestServer({ config });
  cleanups.push(() => server.stop());
  const raw = await RawClient.connect(server.port);
  cleanups.push(() => raw.close());
  await createTopic(raw, 'v2-out');
  const { producerId, producerEpoch } = await initProducer(raw, 'v2-tx');
  const first = await raw.send(0, 12, produceV12('v2-tx', 'v2-out', batchOf({ producerId, producerEpoch, baseSequence: 0, count: 1, transactional: true })));
  expect(first.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
  // EndTxn v5 bumps the epoch by one: the next transaction's batch is built before the answer.
  const next = batchOf({ producerId, producerEpoch: producerEpoch + 1, baseSequence: 0, count: 1, transactional: true, prefix: 'next' });
  const pipe = await Pipeliner.connect(server.port);
  cleanups.push(() => pipe.close());
  const requests: PipelinedRequest[] = [
    { apiKey: 26, version: 5, body: { transactionalId: 'v2-tx', producerId, producerEpoch, committed: true } },
    { apiKey: 0, version: 12, body: produceV12('v2-tx', 'v2-out', next) },
  ];
  pipe.write(requests, 1);
  const [endTxn, produced] = await pipe.read(requests, 1);
  expect(endTxn.producerEpoch).toBe(producerEpoch + 1);
  return { endTxn: endTxn.errorCode, produce: produced.responses[0].partitionResponses[0].errorCode };
}

describe('transactions v2: the next transaction while the markers of the last are written', () => {
  it('a Produce v12 verified while the coordinator answers CONCURRENT_TRANSACTIONS is asked again until it does not (Kafka 4.3.1 ReplicaManager)', async () => {
    expect(await backToBack({ 'add.partitions.to.txn.retry.backoff.max.ms': 30_000 })).toEqual({ endTxn: ErrorCode.NONE, produce: ErrorCode.NONE });
  });

  it('with no time to retry (add.partitions.to.txn.retry.backoff.max.ms 0) the producer gets CONCURRENT_TRANSACTIONS', async () => {
    expect(await backToBack({ 'add.partitions.to.txn.retry.backoff.max.ms': 0 })).toEqual({ endTxn: ErrorCode.NONE, produce: ErrorCode.CONCURRENT_TRANSACTIONS });
  });
});
