/**
 * The partition-log side of transactions (issue 13), over raw requests: transactional batches on
 * Produce, COMMIT/ABORT markers by WriteTxnMarkers (key 27), the last stable offset, read_committed
 * Fetch with Kafka's aborted-transactions list, ListOffsets latest under read_committed, the producer
 * state and open transactions rebuilt from the log after a restart, and the control records in
 * dump-log. The observed example: 10 committed + 5 aborted records -> data 0-9, COMMIT at 10,
 * data 11-15, ABORT at 16, high watermark = last stable offset = 17.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/messages/FetchRequest.js';
import { defaultPartitionProduceData, defaultProduceRequest } from '../../src/protocol/messages/ProduceRequest.js';
import { readBatchHeader, TRANSACTIONAL_FLAG_MASK, CONTROL_FLAG_MASK } from '../../src/records/record-batch.js';
import { batchOf, createTopic, initProducer, latestOffset, logOnly, produce as produceTo, writeMarker as writeMarkerTo, type MarkerSpec } from '../support/raw-transactions.js';
import { readEndTxnMarker } from '../../src/records/control-batch.js';
import { dumpLogFile } from '../../src/tools/dump-log.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const TOPIC = 'txn-log';

/** A server whose Produce path accepts every transactional batch (see `logOnly`). */
async function logOnlyServer(options: Parameters<typeof startClosableServer>[1]): ReturnType<typeof startClosableServer> {
  const started = await startClosableServer(cleanups, options);
  logOnly(started.server);
  return started;
}

async function connect(port: number): Promise<RawClient> {
  const raw = await RawClient.connect(port);
  cleanups.push(() => raw.close());
  return raw;
}

const produce = (raw: RawClient, transactionalId: string | null, batch: Buffer) => produceTo(raw, TOPIC, transactionalId, batch);
const writeMarker = (raw: RawClient, marker: MarkerSpec, partitions = [{ topic: TOPIC, partitions: [0] }], version = 1) => writeMarkerTo(raw, marker, partitions, version);

async function fetch(raw: RawClient, isolationLevel: number, fetchOffset = 0n, partitionMaxBytes = 1 << 20) {
  const req = defaultFetchRequest();
  req.maxWaitMs = 0;
  req.maxBytes = 1 << 24;
  req.isolationLevel = isolationLevel;
  req.topics = [{ topic: TOPIC, topicId: ZERO_UUID, partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset, partitionMaxBytes }] }];
  const res = await raw.send(1, 11, req);
  return res.responses[0]!.partitions[0]!;
}

const latest = (raw: RawClient, isolationLevel: number): Promise<bigint> => latestOffset(raw, TOPIC, isolationLevel);

/** The batches of a Fetch answer: [base offset, last offset, kind]. */
function batchesOf(records: Buffer | null): Array<[bigint, bigint, string]> {
  const out: Array<[bigint, bigint, string]> = [];
  let at = 0;
  while (records !== null && at < records.length) {
    const h = readBatchHeader(records, at);
    const size = h.batchLength + 12;
    const batch = records.subarray(at, at + size);
    let kind = (h.attributes & TRANSACTIONAL_FLAG_MASK) !== 0 ? 'txn-data' : 'data';
    if ((h.attributes & CONTROL_FLAG_MASK) !== 0) kind = readEndTxnMarker(batch)?.commit ? 'COMMIT' : 'ABORT';
    out.push([h.baseOffset, h.baseOffset + BigInt(h.lastOffsetDelta), kind]);
    at += size;
  }
  return out;
}

describe('transactions on the partition log', () => {
  it("10 committed + 5 aborted records: data 0-9, COMMIT at 10, data 11-15, ABORT at 16, HW = LSO = 17; read_committed gets the aborted list; all kept across a restart", async () => {
    const first = await logOnlyServer({ clock: 'manual' });
    let raw = await connect(first.server.port);
    await createTopic(raw, TOPIC);
    const { producerId, producerEpoch } = await initProducer(raw, 'tx-observed');

    const p1 = await produce(raw, 'tx-observed', batchOf({ producerId, producerEpoch, baseSequence: 0, count: 10, transactional: true }));
    expect([p1.errorCode, p1.baseOffset]).toEqual([ErrorCode.NONE, 0n]);
    // An open transaction holds the last stable offset at its first offset.
    expect(await latest(raw, 1)).toBe(0n);
    expect(await latest(raw, 0)).toBe(10n);
    const open = await fetch(raw, 1);
    expect([open.highWatermark, open.lastStableOffset, open.abortedTransactions, batchesOf(open.records)]).toEqual([10n, 0n, [], []]);

    const committed = await writeMarker(raw, { producerId, producerEpoch, commit: true });
    expect(committed.markers).toEqual([{ producerId, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NONE }] }] }]);
    expect(await latest(raw, 1)).toBe(11n);

    const p2 = await produce(raw, 'tx-observed', batchOf({ producerId, producerEpoch, baseSequence: 10, count: 5, transactional: true }));
    expect([p2.errorCode, p2.baseOffset]).toEqual([ErrorCode.NONE, 11n]);
    expect(await latest(raw, 1)).toBe(11n);
    const aborted = await writeMarker(raw, { producerId, producerEpoch, commit: false });
    expect(aborted.markers[0]!.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);

    const expectObserved = async (client: RawClient) => {
      const uncommitted = await fetch(client, 0);
      expect([uncommitted.highWatermark, uncommitted.lastStableOffset, uncommitted.abortedTransactions]).toEqual([17n, 17n, null]);
      expect(batchesOf(uncommitted.records)).toEqual([[0n, 9n, 'txn-data'], [10n, 10n, 'COMMIT'], [11n, 15n, 'txn-data'], [16n, 16n, 'ABORT']]);
      const readCommitted = await fetch(client, 1);
      expect([readCommitted.highWatermark, readCommitted.lastStableOffset]).toEqual([17n, 17n]);
      expect(readCommitted.abortedTransactions).toEqual([{ producerId, firstOffset: 11n }]);
      expect(batchesOf(readCommitted.records)).toEqual(batchesOf(uncommitted.records));
      // From past the aborted transaction's marker, no aborted transaction overlaps.
      expect((await fetch(client, 1, 17n)).abortedTransactions).toEqual([]);
      expect(await latest(client, 1)).toBe(17n);
      expect(await latest(client, 0)).toBe(17n);
    };
    await expectObserved(raw);

    // The control records as Kafka's DumpLogSegments prints them.
    const lines: string[] = [];
    await first.close();
    dumpLogFile(join(first.dataDir, `${TOPIC}-0`, '00000000000000000000.log'), (l) => lines.push(l));
    const control = lines.filter((l) => l.includes('isControl: true') || l.includes('endTxnMarker'));
    expect(control).toHaveLength(4);
    expect(control[0]).toMatch(new RegExp(`^baseOffset: 10 lastOffset: 10 count: 1 baseSequence: -1 lastSequence: -1 producerId: ${producerId} producerEpoch: ${producerEpoch} partitionLeaderEpoch: 0 isTransactional: true isControl: true `));
    expect(control[1]).toMatch(/^\| offset: 10 CreateTime: \d+ keySize: 4 valueSize: 6 sequence: -1 headerKeys: \[\] endTxnMarker: COMMIT coordinatorEpoch: 0$/);
    expect(control[3]).toMatch(/^\| offset: 16 CreateTime: \d+ keySize: 4 valueSize: 6 sequence: -1 headerKeys: \[\] endTxnMarker: ABORT coordinatorEpoch: 0$/);

    const second = await logOnlyServer({ clock: 'manual', dataDir: first.dataDir });
    raw = await connect(second.server.port);
    await expectObserved(raw);
    // The producer state came back from the log: a retry of the last batch is a duplicate, the next sequence appends.
    const retry = await produce(raw, 'tx-observed', batchOf({ producerId, producerEpoch, baseSequence: 10, count: 5, transactional: true }));
    expect([retry.errorCode, retry.baseOffset]).toEqual([ErrorCode.NONE, 11n]);
  });

  it('an open transaction survives a restart: the last stable offset stays at its first offset until the marker', async () => {
    const first = await logOnlyServer({ clock: 'manual' });
    let raw = await connect(first.server.port);
    await createTopic(raw, TOPIC);
    const a = await initProducer(raw, 'tx-a');
    const b = await initProducer(raw, 'tx-b');
    expect((await produce(raw, 'tx-a', batchOf({ ...a, baseSequence: 0, count: 2, transactional: true }))).baseOffset).toBe(0n);
    expect((await produce(raw, 'tx-b', batchOf({ ...b, baseSequence: 0, count: 3, transactional: true }))).baseOffset).toBe(2n);
    expect((await writeMarker(raw, { ...a, commit: false })).markers[0]!.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    // a's abort at 5 leaves b open from 2: the abort's last stable offset is b's first offset.
    expect(await latest(raw, 1)).toBe(2n);
    await first.close();

    const second = await logOnlyServer({ clock: 'manual', dataDir: first.dataDir });
    raw = await connect(second.server.port);
    const during = await fetch(raw, 1);
    expect([during.highWatermark, during.lastStableOffset]).toEqual([6n, 2n]);
    expect(batchesOf(during.records)).toEqual([[0n, 1n, 'txn-data']]);
    expect(during.abortedTransactions).toEqual([{ producerId: a.producerId, firstOffset: 0n }]);
    // DescribeProducers shows the state rebuilt from the log: a's transaction closed by its marker, b's open from 2.
    const described = await raw.send(61, 0, { topics: [{ name: TOPIC, partitionIndexes: [0] }] });
    const producers = described.topics[0]!.partitions[0]!.activeProducers.map((x) => [x.producerId, x.producerEpoch, x.lastSequence, x.coordinatorEpoch, x.currentTxnStartOffset]);
    expect(producers.sort((x, y) => (x[0]! < y[0]! ? -1 : 1))).toEqual([
      [a.producerId, a.producerEpoch, 1, 0, -1n],
      [b.producerId, b.producerEpoch, 2, -1, 2n],
    ]);
    // b's idempotent state came back too: its next batch continues the sequence inside the open transaction.
    expect((await produce(raw, 'tx-b', batchOf({ ...b, baseSequence: 3, count: 1, transactional: true }))).baseOffset).toBe(6n);
    expect((await writeMarker(raw, { ...b, commit: true })).markers[0]!.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    const after = await fetch(raw, 1);
    expect([after.highWatermark, after.lastStableOffset]).toEqual([8n, 8n]);
    expect(after.abortedTransactions).toEqual([{ producerId: a.producerId, firstOffset: 0n }]);
  });

  it("Kafka's errors: transactional batches without a transactional id, two producers in one request, a non-transactional batch inside a transaction, fenced markers", async () => {
    const { server } = await logOnlyServer({ clock: 'manual' });
    const raw = await connect(server.port);
    await createTopic(raw, TOPIC, 2);
    const p = await initProducer(raw, 'tx-errors');
    const txnBatch = batchOf({ ...p, baseSequence: 0, count: 1, transactional: true });
    expect((await produce(raw, null, txnBatch)).errorCode).toBe(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);

    const other = await initProducer(raw, 'tx-other');
    const req = defaultProduceRequest();
    req.transactionalId = 'tx-errors';
    req.acks = -1;
    req.topicData = [
      {
        name: TOPIC,
        topicId: ZERO_UUID,
        partitionData: [
          { ...defaultPartitionProduceData(), index: 0, records: txnBatch },
          { ...defaultPartitionProduceData(), index: 1, records: batchOf({ ...other, baseSequence: 0, count: 1, transactional: true }) },
        ],
      },
    ];
    const two = await raw.send(0, 9, req);
    expect(two.responses[0]!.partitionResponses.map((r) => r.errorCode)).toEqual([ErrorCode.INVALID_PRODUCER_ID_MAPPING, ErrorCode.INVALID_PRODUCER_ID_MAPPING]);

    expect((await produce(raw, 'tx-errors', txnBatch)).errorCode).toBe(ErrorCode.NONE);
    const plain = await produce(raw, 'tx-errors', batchOf({ ...p, baseSequence: 1, count: 1, transactional: false }));
    expect(plain.errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
    // As Kafka: the log start offset and no message (ReplicaManager keeps only custom messages).
    expect([plain.errorMessage, plain.logStartOffset]).toEqual([null, 0n]);

    // The first marker fixes coordinator epoch 5: an older one is a zombie coordinator.
    expect((await writeMarker(raw, { ...p, commit: true, coordinatorEpoch: 5 })).markers[0]!.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    const zombie = await writeMarker(raw, { ...p, commit: true, coordinatorEpoch: 4 });
    expect(zombie.markers[0]!.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.TRANSACTION_COORDINATOR_FENCED);
    // An older producer epoch; under transaction version 2 (v2) the same epoch while a transaction is open.
    const bumped = { producerId: p.producerId, producerEpoch: p.producerEpoch + 1 };
    expect((await produce(raw, 'tx-errors', batchOf({ ...bumped, baseSequence: 0, count: 1, transactional: true }))).errorCode).toBe(ErrorCode.NONE);
    expect((await writeMarker(raw, { ...p, commit: false, coordinatorEpoch: 5 })).markers[0]!.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect((await writeMarker(raw, { ...bumped, commit: false, coordinatorEpoch: 5, transactionVersion: 2 }, undefined, 2)).markers[0]!.topics[0]!.partitions[0]!.errorCode).toBe(
      ErrorCode.INVALID_PRODUCER_EPOCH,
    );
    const tv2 = { producerId: p.producerId, producerEpoch: p.producerEpoch + 2 };
    expect((await writeMarker(raw, { ...tv2, commit: false, coordinatorEpoch: 5, transactionVersion: 2 }, undefined, 2)).markers[0]!.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    // A TV2 retry of that marker after the transaction ended is written again (KAFKA-19999).
    expect((await writeMarker(raw, { ...tv2, commit: false, coordinatorEpoch: 5, transactionVersion: 2 }, undefined, 2)).markers[0]!.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);

    const unknown = await writeMarker(raw, { ...tv2, commit: true, coordinatorEpoch: 5 }, [{ topic: 'no-such-topic', partitions: [0] }, { topic: TOPIC, partitions: [7] }]);
    expect(unknown.markers).toEqual([
      {
        producerId: p.producerId,
        topics: expect.arrayContaining([
          { name: 'no-such-topic', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
          { name: TOPIC, partitions: [{ partitionIndex: 7, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
        ]),
      },
    ]);
    expect((await raw.send(27, 1, { markers: [] })).markers).toEqual([]);
  });
});
