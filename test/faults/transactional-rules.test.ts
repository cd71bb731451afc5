/**
 * Fault rules matched by transactional id (`match.transactionalId`, issue 13): every request that
 * names the id (InitProducerId, AddPartitionsToTxn v3 and the brokers' batched v4+, AddOffsetsToTxn,
 * EndTxn, TxnOffsetCommit, FindCoordinator with key type TRANSACTION in a v3 single key and a v4+
 * batch, DescribeTransactions, a transactional Produce) gets the rule's error where Kafka's
 * getErrorResponse puts it; the same requests for another id are handled. The request log carries
 * the id and filters on it; the CLI's `--transactional-id` and the OpenAPI document know the field.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { batchOf, createTopic } from '../support/raw-transactions.js';
import { normalizeRule } from '../../src/faults/index.js';
import { OPENAPI_DOCUMENT } from '../../src/admin/openapi.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { defaultInitProducerIdRequest } from '../../src/protocol/messages/InitProducerIdRequest.js';
import { defaultPartitionProduceData, defaultProduceRequest } from '../../src/protocol/messages/ProduceRequest.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** One request of each API that names `id`, sent on `client`; resolves with each one's answer. */
async function sendAll(client: RawClient, id: string) {
  const partitions = [{ name: 't', partitions: [0] }];
  return {
    InitProducerId: await client.send(22, 4, { ...defaultInitProducerIdRequest(), transactionalId: id, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 }),
    'FindCoordinator v3': await client.send(10, 3, { key: id, keyType: 1, coordinatorKeys: [] }),
    'FindCoordinator v4': await client.send(10, 4, { key: '', keyType: 1, coordinatorKeys: [id, 'other'] }),
    'AddPartitionsToTxn v3': await client.send(24, 3, { transactions: [], v3AndBelowTransactionalId: id, v3AndBelowProducerId: 1n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: partitions }),
    'AddPartitionsToTxn v5': await client.send(24, 5, {
      transactions: [{ transactionalId: id, producerId: 1n, producerEpoch: 0, verifyOnly: true, topics: partitions }],
      v3AndBelowTransactionalId: '', v3AndBelowProducerId: 0n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [],
    }),
    AddOffsetsToTxn: await client.send(25, 4, { transactionalId: id, producerId: 1n, producerEpoch: 0, groupId: 'g' }),
    TxnOffsetCommit: await client.send(28, 4, {
      transactionalId: id, groupId: 'g', producerId: 1n, producerEpoch: 0, generationId: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    }),
    EndTxn: await client.send(26, 4, { transactionalId: id, producerId: 1n, producerEpoch: 0, committed: true }),
    DescribeTransactions: await client.send(65, 0, { transactionalIds: [id] }),
    Produce: await client.send(0, 9, {
      ...defaultProduceRequest(), transactionalId: id, acks: -1, timeoutMs: 10_000,
      topicData: [{ name: 't', topicId: ZERO_UUID, partitionData: [{ ...defaultPartitionProduceData(), index: 0, records: batchOf({ producerId: 1n, producerEpoch: 0, baseSequence: 0, count: 1, transactional: true }) }] }],
    }),
  };
}

/** Where each answer carries its error (Kafka's getErrorResponse of each request). */
function errorsOf(res: Awaited<ReturnType<typeof sendAll>>): Record<keyof typeof res, number | number[]> {
  return {
    InitProducerId: res.InitProducerId.errorCode,
    'FindCoordinator v3': res['FindCoordinator v3'].errorCode,
    'FindCoordinator v4': res['FindCoordinator v4'].coordinators.map((c) => c.errorCode),
    'AddPartitionsToTxn v3': res['AddPartitionsToTxn v3'].resultsByTopicV3AndBelow.flatMap((t) => t.resultsByPartition.map((p) => p.partitionErrorCode)),
    'AddPartitionsToTxn v5': res['AddPartitionsToTxn v5'].errorCode,
    AddOffsetsToTxn: res.AddOffsetsToTxn.errorCode,
    TxnOffsetCommit: res.TxnOffsetCommit.topics.flatMap((t) => t.partitions.map((p) => p.errorCode)),
    EndTxn: res.EndTxn.errorCode,
    DescribeTransactions: res.DescribeTransactions.transactionStates.map((s) => s.errorCode),
    Produce: res.Produce.responses.flatMap((t) => t.partitionResponses.map((p) => p.errorCode)),
  };
}

describe('fault rules by transactional id', () => {
  it('fail every request naming the id, where Kafka puts the error, and leave other ids alone', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    const client = await RawClient.connect(server.port);
    cleanups.push(() => client.close());
    await createTopic(client, 't');
    const rule = server.faults.add({ match: { transactionalId: 'tx-1' }, action: { type: 'error', error: 'CONCURRENT_TRANSACTIONS' }, times: 'unlimited' });

    const CT = 51;
    expect(errorsOf(await sendAll(client, 'tx-1'))).toEqual({
      InitProducerId: CT,
      'FindCoordinator v3': CT,
      // A batch: the error on every key of a request that names the id.
      'FindCoordinator v4': [CT, CT],
      'AddPartitionsToTxn v3': [CT],
      'AddPartitionsToTxn v5': CT,
      AddOffsetsToTxn: CT,
      TxnOffsetCommit: [CT],
      EndTxn: CT,
      DescribeTransactions: [CT],
      Produce: [CT],
    });
    expect(rule.fired).toBe(10);
    // Nothing was applied: tx-1 was never initialized.
    expect(server.broker.transactions.get('tx-1')).toBeUndefined();

    const other = errorsOf(await sendAll(client, 'tx-2'));
    expect(Object.values(other).flat().includes(CT)).toBe(false);
    expect(other.InitProducerId).toBe(0);
    expect(rule.fired).toBe(10);

    // The request log names the id and filters on it.
    const logged = server.faults.requests({ transactionalId: 'tx-1' });
    expect(logged.map((e) => [e.api, e.error, e.faults])).toEqual(
      ['InitProducerId', 'FindCoordinator', 'FindCoordinator', 'AddPartitionsToTxn', 'AddPartitionsToTxn', 'AddOffsetsToTxn', 'TxnOffsetCommit', 'EndTxn', 'DescribeTransactions', 'Produce'].map((api) => [
        api,
        'CONCURRENT_TRANSACTIONS',
        [rule.id],
      ]),
    );
    expect(server.faults.requests({ api: 'FindCoordinator', transactionalId: 'tx-2' }).map((e) => e.transactionalId)).toEqual(['tx-2', 'tx-2']);
    expect(server.faults.requests({ api: 'CreateTopics' })[0]!.transactionalId).toBeNull();
  });

  it('is a match field of the rule model and of the OpenAPI document', () => {
    expect(normalizeRule({ match: { api: 'EndTxn', transactionalId: 'tx' }, action: { type: 'error', error: 'CONCURRENT_TRANSACTIONS' } }).match).toEqual({ api: 'EndTxn', apiKey: 26, transactionalId: 'tx', nth: 1 });
    expect(() => normalizeRule({ match: { transactionalId: 7 }, action: { type: 'delay', ms: 1 } })).toThrow(/match.transactionalId must be a string/);
    expect(Object.keys(OPENAPI_DOCUMENT.components.schemas.FaultMatch.properties)).toContain('transactionalId');
  });
});
