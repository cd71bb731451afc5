/**
 * A Fetch's long poll beside topics and partitions the broker does not know: Kafka answers those
 * beside the partitions it reads (KafkaApis.handleFetchRequest's `erroneous`) and waits out
 * max_wait_ms for the others, so a consumer still fetching a deleted topic waits between fetches;
 * ours answered at once (adversarial trial, session 31). A read that fails (offset out of range)
 * still answers at once, as Kafka's `errorReadingData`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { until } from '../support/until.js';
import { batchOf, createTopic } from '../support/raw-transactions.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/messages/FetchRequest.js';
import { defaultPartitionProduceData, defaultProduceRequest } from '../../src/protocol/messages/ProduceRequest.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Fetch v12 of `parts` ([topic, partition, offset]), min 1 byte, waiting up to an hour. */
function longPoll(client: RawClient, parts: Array<[string, number, bigint]>) {
  const req = defaultFetchRequest();
  req.maxWaitMs = 3_600_000;
  req.minBytes = 1;
  req.topics = parts.map(([topic, partition, fetchOffset]) => ({ topic, topicId: ZERO_UUID, partitions: [{ ...defaultFetchPartition(), partition, fetchOffset, partitionMaxBytes: 1 << 20 }] }));
  return client.send(1, 12, req);
}

describe('Fetch long poll', () => {
  it('waits for data beside an unknown topic and an unknown partition, answering both; an offset out of range answers at once', async () => {
    const { server } = await startClosableServer(cleanups, {});
    const client = await RawClient.connectCleaned(server.port, cleanups);
    const producer = await RawClient.connectCleaned(server.port, cleanups);
    await createTopic(producer, 'polled');
    const fetch = longPoll(client, [['polled', 0, 0n], ['polled', 9, 0n], ['gone', 0, 0n]]);
    let settled = false;
    void fetch.finally(() => (settled = true));
    // Still waiting once the server has it in hand (answered at once, it settles first).
    await until(() => settled || server.faults.requests({ api: 'Fetch' }).some((e) => e.outcome === 'pending'), 'the Fetch to be read');
    expect(settled).toBe(false);
    const produced = await producer.send(0, 9, {
      ...defaultProduceRequest(), acks: -1, timeoutMs: 30_000,
      topicData: [{ name: 'polled', topicId: ZERO_UUID, partitionData: [{ ...defaultPartitionProduceData(), index: 0, records: batchOf({ producerId: -1n, producerEpoch: -1, baseSequence: 0, count: 1, transactional: false }) }] }],
    });
    expect(produced.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
    const answer = await fetch;
    expect(answer.responses.map((t) => [t.topic, t.partitions.map((p) => [p.partitionIndex, p.errorCode, p.highWatermark, p.records!.length > 0, p.abortedTransactions])])).toEqual([
      ['polled', [[0, ErrorCode.NONE, 1n, true, null], [9, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1n, false, []]]],
      ['gone', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1n, false, []]]],
    ]);

    // A read that fails ends the wait at once: no produce follows this one.
    const outOfRange = await longPoll(client, [['polled', 0, 5n]]);
    expect(outOfRange.responses.flatMap((t) => t.partitions.map((p) => p.errorCode))).toEqual([ErrorCode.OFFSET_OUT_OF_RANGE]);
  });

  it('answers a topic deleted during the wait UNKNOWN_TOPIC_OR_PARTITION (aborted transactions null), and one created during it as unknown still', async () => {
    const { server } = await startClosableServer(cleanups, {});
    const client = await RawClient.connectCleaned(server.port, cleanups);
    const admin = await RawClient.connectCleaned(server.port, cleanups);
    await createTopic(admin, 'doomed');
    const fetch = longPoll(client, [['doomed', 0, 0n], ['newborn', 0, 0n]]);
    await until(() => server.faults.requests({ api: 'Fetch' }).some((e) => e.outcome === 'pending'), 'the Fetch to be read');
    await createTopic(admin, 'newborn');
    expect((await admin.send(20, 6, { topics: [{ name: 'doomed', topicId: ZERO_UUID }], topicNames: [], timeoutMs: 30_000 })).responses[0]!.errorCode).toBe(ErrorCode.NONE);
    const answer = await fetch;
    expect(answer.responses.map((t) => [t.topic, t.partitions.map((p) => [p.partitionIndex, p.errorCode, p.abortedTransactions])])).toEqual([
      ['doomed', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null]]],
      ['newborn', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, []]]],
    ]);
  });
});
