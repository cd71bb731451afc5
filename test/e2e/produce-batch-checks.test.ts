/**
 * What Kafka 4.3.1 does to a produced batch before it stores it, over a real socket, as the
 * differential trial of 2026-12-06 found it answering (KafkaApis' first look at the batches,
 * `ProduceRequest.validateRecords`, `UnifiedLog.analyzeAndValidateRecords` and `trimInvalidBytes`,
 * `LogValidator`'s timestamp checks and restamp, and a duplicate's log append time).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { encodeRecordBatch, readBatchHeader, TIMESTAMP_TYPE_MASK, validateBatch } from '../../src/records/record-batch.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/messages/FetchRequest.js';
import { crc32c } from '../../src/records/crc32c.js';
import { rawBatch, record, recordBody } from '../support/raw-records.js';
import type { ServerHandle } from '../../src/index.js';

const batch = (options: { baseOffset?: bigint; timestamp?: bigint; attributes?: number; records?: Array<{ key?: string; value?: string; timestamp?: bigint }>; maxTimestamp?: bigint; producerId?: bigint; baseSequence?: number }) => {
  const b = encodeRecordBatch({
    baseOffset: options.baseOffset ?? 0n,
    timestamp: options.timestamp ?? 1_000n,
    attributes: options.attributes ?? 0,
    ...(options.producerId !== undefined ? { producerId: options.producerId, producerEpoch: 0, baseSequence: options.baseSequence ?? 0 } : {}),
    records: (options.records ?? [{ value: 'v' }]).map((r) => ({ key: r.key === undefined ? null : Buffer.from(r.key), value: r.value === undefined ? null : Buffer.from(r.value), ...(r.timestamp !== undefined ? { timestamp: r.timestamp } : {}) })),
  });
  if (options.maxTimestamp !== undefined) {
    // A header the client got wrong: its max timestamp rewritten, the CRC made right again.
    b.writeBigInt64BE(options.maxTimestamp, 35);
    fixCrc(b);
  }
  return b;
};

/** Recomputes a batch's CRC-32C (at byte 17, over its bytes from the attributes on) after an edit. */
function fixCrc(b: Buffer): void {
  b.writeUInt32BE(crc32c(b.subarray(21)), 17);
}

describe('a produced batch, checked and restamped as Kafka 4.3.1 does', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function setup(): Promise<{ server: ServerHandle; c: RawClient }> {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const c = await RawClient.connectCleaned(server.port, cleanups);
    const res = await c.send(19, 7, {
      timeoutMs: 10_000,
      validateOnly: false,
      topics: [
        { name: 'ct', numPartitions: 2, replicationFactor: -1, assignments: [], configs: [] },
        { name: 'lat', numPartitions: 1, replicationFactor: -1, assignments: [], configs: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }] },
      ],
    });
    expect(res.topics.map((t) => t.errorCode)).toEqual([0, 0]);
    return { server, c };
  }
  const produce = async (c: RawClient, topic: string, records: Array<Buffer | null>, version = 11) => {
    const res = await c.send(0, version, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 10_000,
      topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: records.map((r, index) => ({ index, records: r })) }],
    });
    return res.responses[0]!.partitionResponses;
  };
  /** The stored batches' headers of `topic`-`partition`. */
  const stored = async (c: RawClient, topic: string, partition = 0) => {
    const req = defaultFetchRequest();
    req.maxWaitMs = 0;
    req.topics = [{ topic, topicId: ZERO_UUID, partitions: [{ ...defaultFetchPartition(), partition, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }];
    const records = Buffer.from((await c.send(1, 12, req)).responses[0]!.partitions[0]!.records ?? Buffer.alloc(0));
    const out = [];
    for (let at = 0; at < records.length; ) {
      const h = readBatchHeader(records, at);
      out.push({ baseOffset: h.baseOffset, logAppendTime: (h.attributes & TIMESTAMP_TYPE_MASK) !== 0, maxTimestamp: h.maxTimestamp, crcOk: validateBatch(records.subarray(at, at + h.batchLength + 12)).ok });
      at += h.batchLength + 12;
    }
    return out;
  };

  it('a first batch of an unknown magic fails the whole request with CORRUPT_MESSAGE and the reader\'s message; magic 0/1 is INVALID_RECORD for its partition', async () => {
    const { c } = await setup();
    const magic3 = batch({});
    magic3[16] = 3;
    const whole = await produce(c, 'ct', [batch({}), magic3]);
    expect(whole.map((p) => [p.index, p.errorCode, p.errorMessage, p.baseOffset])).toEqual([
      [0, ErrorCode.CORRUPT_MESSAGE, 'Invalid magic found in record: 3', -1n],
      [1, ErrorCode.CORRUPT_MESSAGE, 'Invalid magic found in record: 3', -1n],
    ]);
    const legacy = batch({});
    legacy[16] = 1;
    const one = await produce(c, 'ct', [legacy, batch({})]);
    expect(one.map((p) => [p.errorCode, p.errorMessage, p.baseOffset])).toEqual([[ErrorCode.INVALID_RECORD, null, -1n], [0, null, 0n]]);
    expect(await stored(c, 'ct', 0)).toEqual([]);
  });

  it('bytes after the batch too few for another are dropped; a base offset other than 0 is INVALID_RECORD', async () => {
    const { c } = await setup();
    const [trailing] = await produce(c, 'ct', [Buffer.concat([batch({}), Buffer.from([1, 2, 3])])]);
    expect([trailing!.errorCode, trailing!.baseOffset]).toEqual([0, 0n]);
    const [based] = await produce(c, 'ct', [batch({ baseOffset: 77n })]);
    expect([based!.errorCode, based!.errorMessage, based!.baseOffset, based!.logStartOffset]).toEqual([ErrorCode.INVALID_RECORD, null, -1n, 0n]);
    expect((await stored(c, 'ct')).map((b) => b.baseOffset)).toEqual([0n]);
  });

  it('a batch the client marked LogAppendTime: INVALID_TIMESTAMP on a LogAppendTime topic, stored as CreateTime on a CreateTime topic', async () => {
    const { c } = await setup();
    const flagged = () => batch({ attributes: TIMESTAMP_TYPE_MASK, records: [{ key: 'k', value: 'vv' }, { value: 'v' }] });
    const [onLat] = await produce(c, 'lat', [flagged()]);
    expect(onLat).toMatchObject({
      errorCode: ErrorCode.INVALID_TIMESTAMP,
      errorMessage: 'One or more records have been rejected due to invalid timestamp',
      recordErrors: [
        { batchIndex: 0, batchIndexErrorMessage: 'Invalid timestamp type in message DefaultRecord(offset=0, timestamp=1000, key=1 bytes, value=2 bytes). Producer should not set timestamp type to LogAppendTime.' },
        { batchIndex: 1, batchIndexErrorMessage: 'Invalid timestamp type in message DefaultRecord(offset=1, timestamp=1000, key=0 bytes, value=1 bytes). Producer should not set timestamp type to LogAppendTime.' },
      ],
    });
    // A compressed batch's records are read partially: Kafka names them PartialDefaultRecord.
    const gzipped = rawBatch(Buffer.concat([record(recordBody({ key: Buffer.from('k'), value: Buffer.from('vv') }))]), 1, { codec: 1, flags: TIMESTAMP_TYPE_MASK, timestamp: 1_000n });
    const [compressed] = await produce(c, 'lat', [gzipped]);
    expect(compressed!.recordErrors).toEqual([
      { batchIndex: 0, batchIndexErrorMessage: 'Invalid timestamp type in message PartialDefaultRecord(offset=0, timestamp=1000, key=1 bytes, value=2 bytes). Producer should not set timestamp type to LogAppendTime.' },
    ]);
    expect([compressed!.errorCode, compressed!.logAppendTimeMs]).toEqual([ErrorCode.INVALID_TIMESTAMP, -1n]);
    expect(await stored(c, 'lat')).toEqual([]);
    // On a CreateTime topic its records' timestamps are the header's max timestamp, within the
    // (default, unbounded) window: accepted, and stored as CreateTime.
    const [onCreateTime] = await produce(c, 'ct', [flagged()]);
    expect([onCreateTime!.errorCode, onCreateTime!.logAppendTimeMs]).toEqual([0, -1n]);
    expect(await stored(c, 'ct')).toEqual([{ baseOffset: 0n, logAppendTime: false, maxTimestamp: 1_000n, crcOk: true }]);
  });

  it("a CreateTime batch's max timestamp is its records' largest, whatever its header said; a duplicate answers its original's as the log append time", async () => {
    const { c } = await setup();
    const wrong = batch({ timestamp: 1_000n, records: [{ value: 'a', timestamp: 1_000n }, { value: 'b', timestamp: 1_500n }], maxTimestamp: 1_000n });
    expect((await produce(c, 'ct', [wrong]))[0]!.errorCode).toBe(0);
    const init = await c.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
    const idempotent = () => batch({ producerId: init.producerId, records: [{ value: 'x', timestamp: 2_000n }, { value: 'y', timestamp: 2_700n }] });
    const [first] = await produce(c, 'ct', [idempotent()]);
    const [retry] = await produce(c, 'ct', [idempotent()]);
    expect([first!.baseOffset, first!.logAppendTimeMs]).toEqual([2n, -1n]);
    expect([retry!.errorCode, retry!.baseOffset, retry!.logAppendTimeMs]).toEqual([0, 2n, 2_700n]);
    expect(await stored(c, 'ct')).toEqual([
      { baseOffset: 0n, logAppendTime: false, maxTimestamp: 1_500n, crcOk: true },
      { baseOffset: 2n, logAppendTime: false, maxTimestamp: 2_700n, crcOk: true },
    ]);
  });
});
