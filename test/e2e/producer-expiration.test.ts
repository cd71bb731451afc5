/**
 * `producer.id.expiration.ms` on the partition leaders' producer state, driven by the manual clock
 * (Kafka's `PeriodicProducerExpirationCheck` every `producer.id.expiration.check.interval.ms`,
 * `ProducerStateManager.removeExpiredProducers`): a producer idle for a day with no transaction
 * open is forgotten at the next check (DescribeProducers no longer lists it, and its next batch is
 * taken at any sequence, as a producer never seen); one with a transaction open stays; the
 * expiration is read at each check, so a dynamic change through AlterConfigs takes effect.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { waitFor } from '../support/kafkajs.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeRecordBatch, TRANSACTIONAL_FLAG_MASK } from '../../src/records/record-batch.js';
import { defaultInitProducerIdRequest } from '../../src/protocol/messages/InitProducerIdRequest.js';
import { createTopic, initProducer, logOnly, produce, writeMarker, type RawProducer } from '../support/raw-transactions.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const TOPIC = 'pid-expiry';
const DAY_MS = 86_400_000;
const CHECK_MS = 600_000;

/** A batch of `count` records from `producer` at `baseSequence`, timestamped `timestamp` (ms). */
function batchAt(producer: RawProducer, baseSequence: number, count: number, timestamp: number, transactional = false): Buffer {
  return encodeRecordBatch({
    baseOffset: 0n,
    timestamp: BigInt(timestamp),
    records: Array.from({ length: count }, (_, i) => ({ key: null, value: Buffer.from(`v-${baseSequence + i}`) })),
    producerId: producer.producerId,
    producerEpoch: producer.producerEpoch,
    baseSequence,
    attributes: transactional ? TRANSACTIONAL_FLAG_MASK : 0,
  });
}

/** The producer ids DescribeProducers lists for the partition, sorted. */
async function described(raw: RawClient): Promise<bigint[]> {
  const res = await raw.send(61, 0, { topics: [{ name: TOPIC, partitionIndexes: [0] }] });
  const partition = res.topics[0]!.partitions[0]!;
  expect(partition.errorCode).toBe(ErrorCode.NONE);
  return partition.activeProducers.map((p) => p.producerId).sort((a, b) => (a < b ? -1 : 1));
}

async function setup() {
  // The raw connection stays open across the day's advance (connections.max.idle.ms would close it).
  const { server } = await startClosableServer(cleanups, { clock: 'manual', config: { 'connections.max.idle.ms': -1 } });
  logOnly(server);
  const raw = await RawClient.connect(server.port);
  cleanups.push(() => raw.close());
  await createTopic(raw, TOPIC);
  const idempotent = await raw.send(22, 4, { ...defaultInitProducerIdRequest(), transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
  expect(idempotent.errorCode).toBe(ErrorCode.NONE);
  const idle: RawProducer = { producerId: idempotent.producerId, producerEpoch: idempotent.producerEpoch };
  const inTxn = await initProducer(raw, 'pid-expiry-txn');
  const entryOf = (p: RawProducer) => server.broker.topics.get(TOPIC)!.partition(0)!.producers.entry(p.producerId);
  return { server, raw, idle, inTxn, entryOf };
}

describe('producer.id.expiration.ms', () => {
  it('an idle producer is forgotten at the first check a day after its last batch; one with an open transaction stays', async () => {
    const { server, raw, idle, inTxn, entryOf } = await setup();
    expect((await produce(raw, TOPIC, null, batchAt(idle, 0, 2, server.clock.now()))).errorCode).toBe(ErrorCode.NONE);
    expect((await produce(raw, TOPIC, 'pid-expiry-txn', batchAt(inTxn, 0, 1, server.clock.now(), true))).errorCode).toBe(ErrorCode.NONE);
    // A gap in the sequence of a known producer: Kafka's OUT_OF_ORDER_SEQUENCE_NUMBER.
    expect((await produce(raw, TOPIC, null, batchAt(idle, 5, 1, server.clock.now()))).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(await described(raw)).toEqual([idle.producerId, inTxn.producerId].sort((a, b) => (a < b ? -1 : 1)));

    // Checks ran every 10 minutes up to a second short of the day: both stay.
    server.clock.advance(DAY_MS - 1000);
    expect(await described(raw)).toEqual([idle.producerId, inTxn.producerId].sort((a, b) => (a < b ? -1 : 1)));

    // The next check, past the day: the idle producer goes, the one inside its transaction stays.
    server.clock.advance(CHECK_MS);
    await waitFor(() => entryOf(idle) === undefined, 10_000, 'the idle producer to expire');
    expect(await described(raw)).toEqual([inTxn.producerId]);
    // Unknown again: its next batch is taken at any sequence (KIP-360), as Kafka takes it.
    const after = await produce(raw, TOPIC, null, batchAt(idle, 5, 1, server.clock.now()));
    expect([after.errorCode, after.baseOffset]).toEqual([ErrorCode.NONE, 3n]);
    expect(entryOf(idle)?.batches.map((b) => [b.firstSeq, b.lastSeq])).toEqual([[5, 5]]);
  });

  it('the expiration is read at each check: lowered through AlterConfigs, it expires a producer whose transaction closed', async () => {
    const { server, raw, inTxn, entryOf } = await setup();
    expect((await produce(raw, TOPIC, 'pid-expiry-txn', batchAt(inTxn, 0, 1, server.clock.now(), true))).errorCode).toBe(ErrorCode.NONE);
    expect((await writeMarker(raw, { ...inTxn, commit: true }, [{ topic: TOPIC, partitions: [0] }])).markers[0]!.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    server.clock.advance(CHECK_MS);
    expect(await described(raw)).toEqual([inTxn.producerId]);

    // The cluster-wide default (broker resource ""), as `kafka-configs --entity-default --alter` sets it
    // (IncrementalAlterConfigs: a legacy AlterConfigs replaces every cluster-level config, and one
    // without min.insync.replicas is refused, as by Kafka 4.3.1).
    const altered = await raw.send(44, 1, { resources: [{ resourceType: 4, resourceName: '', configs: [{ name: 'producer.id.expiration.ms', configOperation: 0, value: '60000' }] }], validateOnly: false });
    expect(altered.responses[0]!.errorCode).toBe(ErrorCode.NONE);
    server.clock.advance(CHECK_MS);
    await waitFor(() => entryOf(inTxn) === undefined, 10_000, 'the producer to expire');
    expect(await described(raw)).toEqual([]);
  });
});
