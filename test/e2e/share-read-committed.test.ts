/**
 * Share groups with `share.isolation.level=read_committed` (Kafka 4.3.1's `SharePartition` with
 * `FetchIsolation.TXN_COMMITTED`): ShareFetch acquires only below the last stable offset, and the
 * records of aborted transactions are archived instead of acquired
 * (`filterAbortedTransactionalAcquiredRecords`); the transaction markers are acquired like any
 * offset and acknowledged as gaps. A read_uncommitted group on the same partition acquires
 * everything up to the high watermark. Raw protocol: the test plays the transactional producers and
 * their coordinator (WriteTxnMarkers), as transactions-read-committed.test.ts does.
 *
 * The log: a-0..a-2 (0-2, A), b-0 b-1 (3-4, B), COMMIT A (5), a-3..a-5 (6-8, A), ABORT B (9),
 * COMMIT A (10), plain-0 plain-1 (11-12), c-0 (13, C open), plain-2 plain-3 (14-15), then COMMIT C (16).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { startTestServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeRecords } from '../../src/records/record-batch.js';
import { isControlBatch } from '../../src/records/control-batch.js';
import type { ShareFetchRequest } from '../../src/protocol/messages/ShareFetchRequest.js';
import type { ShareFetchResponse } from '../../src/protocol/messages/ShareFetchResponse.js';
import { batchOf, createTopic, initProducer, logOnly, markerError, produce, writeMarker, type RawProducer } from '../support/raw-transactions.js';

const TOPIC = 'src';
const ACCEPT = 1;
const GAP = 0;
const uuid = () => randomBytes(16).toString('base64url');

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Ack = { firstOffset: bigint; lastOffset: bigint; acknowledgeTypes: number[] };

function fetchReq(groupId: string, memberId: string, epoch: number, topicId: string, acks: Ack[] = []): ShareFetchRequest {
  return {
    groupId, memberId, shareSessionEpoch: epoch, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
    shareAcquireMode: 0, isRenewAck: false,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: acks }] }],
    forgottenTopicsData: [],
  };
}

/** The data records a response carries, as "offset=value" (control batches left out, as clients do). */
function valuesOf(res: ShareFetchResponse): string[] {
  const records = res.responses[0]?.partitions[0]?.records;
  const out: string[] = [];
  let rest = records ?? Buffer.alloc(0);
  while (rest.length > 0) {
    const size = rest.readInt32BE(8) + 12;
    const batch = rest.subarray(0, size);
    if (!isControlBatch(batch)) for (const r of decodeRecords(batch)) out.push(`${r.offset}=${r.value?.toString()}`);
    rest = rest.subarray(size);
  }
  return out;
}

describe('share groups with share.isolation.level=read_committed', () => {
  it('acquire below the last stable offset only, archive aborted transactions, and take the open one once it commits', async () => {
    // The raw producers add no partitions with AddPartitionsToTxn: the Produce path accepts their batches.
    const server = logOnly(await startTestServer());
    cleanups.push(() => server.stop());
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    await createTopic(raw, TOPIC);
    const topicId = server.broker.topics.get(TOPIC)!.id;

    const [a, b, c] = [await initProducer(raw, 'src-a'), await initProducer(raw, 'src-b'), await initProducer(raw, 'src-c')];
    const txn = async (p: RawProducer, id: string, prefix: string, baseSequence: number, count: number, at: bigint) => {
      const res = await produce(raw, TOPIC, id, batchOf({ ...p, baseSequence, count, transactional: true, prefix }));
      expect([res.errorCode, res.baseOffset]).toEqual([ErrorCode.NONE, at]);
    };
    const plain = async (baseSequence: number, at: bigint) => {
      const res = await produce(raw, TOPIC, null, batchOf({ producerId: -1n, producerEpoch: -1, baseSequence, count: 2, transactional: false, prefix: 'plain' }));
      expect([res.errorCode, res.baseOffset]).toEqual([ErrorCode.NONE, at]);
    };
    const end = async (p: RawProducer, commit: boolean) => expect(markerError(await writeMarker(raw, { ...p, commit }, [{ topic: TOPIC, partitions: [0] }]))).toBe(ErrorCode.NONE);
    await txn(a, 'src-a', 'a', 0, 3, 0n);
    await txn(b, 'src-b', 'b', 0, 2, 3n);
    await end(a, true);
    await txn(a, 'src-a', 'a', 3, 3, 6n);
    await end(b, false);
    await end(a, true);
    await plain(0, 11n);
    await txn(c, 'src-c', 'c', 0, 1, 13n);
    await plain(2, 14n);
    const partition = server.broker.topics.get(TOPIC)!.partition(0)!;
    expect([partition.lastStableOffset, partition.highWatermark]).toEqual([13n, 16n]);

    for (const group of ['rc', 'ru']) {
      const init = await server.broker.sharePersister.initializeState(group, [{ topicId, partition: 0, stateEpoch: 0, startOffset: 0n }]);
      expect(init[0]!.errorCode).toBe(0);
    }
    await server.broker.configs.store.setGroupConfigs('rc', { 'share.isolation.level': 'read_committed' });

    // read_committed: 0-12 read, b-0 b-1 (3-4) archived, 13-15 (C open) not acquired.
    const m = uuid();
    const first = await raw.send(78, 2, fetchReq('rc', m, 0, topicId));
    expect(first.responses[0]!.partitions[0]!.acquiredRecords).toEqual([
      { firstOffset: 0n, lastOffset: 2n, deliveryCount: 1 },
      { firstOffset: 5n, lastOffset: 12n, deliveryCount: 1 },
    ]);
    // The aborted batch travels between acquired ones, as Kafka sends the log from the first record
    // acquired to the last (ShareFetchUtils.maybeSliceFetchRecords); not acquired, clients skip it.
    expect(valuesOf(first)).toEqual(['0=a-0', '1=a-1', '2=a-2', '3=b-0', '4=b-1', '6=a-3', '7=a-4', '8=a-5', '11=plain-0', '12=plain-1']);
    const sp = server.broker.shares.get('rc', topicId, 0)!;
    expect(sp.counts()).toEqual({ acquired: 11, available: 0, acknowledged: 0, archived: 2 });

    // Accept the records, acknowledge the markers as gaps (as a client does): the start offset
    // moves past the archived aborted records to the open transaction; nothing more to acquire.
    const acks: Ack[] = [
      { firstOffset: 0n, lastOffset: 2n, acknowledgeTypes: [ACCEPT] },
      { firstOffset: 5n, lastOffset: 5n, acknowledgeTypes: [GAP] },
      { firstOffset: 6n, lastOffset: 8n, acknowledgeTypes: [ACCEPT] },
      { firstOffset: 9n, lastOffset: 10n, acknowledgeTypes: [GAP] },
      { firstOffset: 11n, lastOffset: 12n, acknowledgeTypes: [ACCEPT] },
    ];
    const second = await raw.send(78, 2, fetchReq('rc', m, 1, topicId, acks));
    expect(second.responses[0]!.partitions[0]).toMatchObject({ errorCode: 0, acknowledgeErrorCode: 0, acquiredRecords: [] });
    expect(sp.spso).toBe(13n);

    // C commits: its record, the plain records after it and the marker are acquired.
    await end(c, true);
    const third = await raw.send(78, 2, fetchReq('rc', m, 2, topicId));
    expect(third.responses[0]!.partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 13n, lastOffset: 16n, deliveryCount: 1 }]);
    expect(valuesOf(third)).toEqual(['13=c-0', '14=plain-2', '15=plain-3']);

    // read_uncommitted: everything up to the high watermark, the aborted records too.
    const ru = await raw.send(78, 2, fetchReq('ru', uuid(), 0, topicId));
    expect(ru.responses[0]!.partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 16n, deliveryCount: 1 }]);
    expect(valuesOf(ru)).toEqual([
      '0=a-0', '1=a-1', '2=a-2', '3=b-0', '4=b-1', '6=a-3', '7=a-4', '8=a-5', '11=plain-0', '12=plain-1', '13=c-0', '14=plain-2', '15=plain-3',
    ]);
  }, 60_000);
});
