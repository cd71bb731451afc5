/**
 * Produce batches whose CRC is right but whose records are malformed, over the raw protocol against
 * a real server: each gets the answer a real Kafka 4.3.1 broker gave the same bytes (checked side by
 * side on 2026-12-03), and nothing is appended. Kafka's `LogValidator` reads an uncompressed batch
 * with `DefaultRecord.readFrom` (InvalidRecordException -> INVALID_RECORD, a record length varint past
 * 5 bytes -> UNKNOWN_SERVER_ERROR) and a gzip one with `readPartiallyFrom` over the inflating stream
 * (record lengths unchecked; bytes that do not inflate -> UNKNOWN_SERVER_ERROR); neither answer has a
 * message. A compacted topic refused such batches and goes on being cleaned (manual clock).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { createTopic, produce } from '../support/raw-transactions.js';
import { rawBatch, record, recordBody, varint } from '../support/raw-records.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { defaultCreatableTopic, defaultCreateTopicsRequest } from '../../src/protocol/messages/CreateTopicsRequest.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/messages/FetchRequest.js';
import { decodeRecords, encodeRecordBatch } from '../../src/records/record-batch.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const GZIP = 1;
const one = record(recordBody({ key: Buffer.from('k') }));
const second = record(recordBody({ offsetDelta: 1 }));
/** A record body with a key length of 100 and one key byte. */
const keyPastEnd = Buffer.concat([Buffer.from([0]), varint(0), varint(0), varint(100), Buffer.from('x'), varint(-1), varint(0)]);
/** A record whose length varint has six bytes. */
const longLength = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0, 0, 0, 0]);
/** A record body whose timestamp delta varlong has eleven bytes. */
const longTimestamp = Buffer.concat([Buffer.from([0]), Buffer.alloc(10, 0xff), Buffer.from([0x01]), varint(0), varint(-1), varint(-1), varint(0)]);
const negativeHeaderKey = recordBody({ headerCount: 1, headerBytes: Buffer.concat([varint(-1), varint(1), Buffer.from('v')]) });
const gzipped = gzipSync(one);

/** [records, declared count, codec, Kafka 4.3.1's answer]. */
const CASES: Record<string, [Buffer, number, number, number]> = {
  'count above the records': [one, 2, 0, ErrorCode.INVALID_RECORD],
  'count below the records': [Buffer.concat([one, second]), 1, 0, ErrorCode.INVALID_RECORD],
  'bytes after the last record': [Buffer.concat([one, Buffer.from([1, 2, 3])]), 1, 0, ErrorCode.INVALID_RECORD],
  'length past the batch end': [record(recordBody(), 50), 1, 0, ErrorCode.INVALID_RECORD],
  'length short of the fields': [record(recordBody({ value: Buffer.from('abcdef') }), -3), 1, 0, ErrorCode.INVALID_RECORD],
  'length past the fields, inside the batch': [Buffer.concat([record(recordBody(), 2), Buffer.from([0, 0])]), 1, 0, ErrorCode.INVALID_RECORD],
  'negative length': [Buffer.concat([varint(-5), recordBody()]), 1, 0, ErrorCode.INVALID_RECORD],
  'zero length': [Buffer.concat([varint(0), recordBody()]), 1, 0, ErrorCode.INVALID_RECORD],
  'header count -1': [record(recordBody({ headerCount: -1 })), 1, 0, ErrorCode.INVALID_RECORD],
  'more headers than bytes': [record(recordBody({ headerCount: 5 })), 1, 0, ErrorCode.INVALID_RECORD],
  'key length past the record end': [record(keyPastEnd), 1, 0, ErrorCode.INVALID_RECORD],
  'negative header key length': [record(negativeHeaderKey), 1, 0, ErrorCode.INVALID_RECORD],
  'timestamp varlong of 11 bytes': [record(longTimestamp), 1, 0, ErrorCode.INVALID_RECORD],
  'length varint of 6 bytes': [longLength, 1, 0, ErrorCode.UNKNOWN_SERVER_ERROR],
  'gzip: count above the records': [one, 2, GZIP, ErrorCode.INVALID_RECORD],
  'gzip: count below the records': [Buffer.concat([one, second]), 1, GZIP, ErrorCode.INVALID_RECORD],
  'gzip: bytes after the last record': [Buffer.concat([one, Buffer.from([9, 9])]), 1, GZIP, ErrorCode.INVALID_RECORD],
  'gzip: header count -1': [record(recordBody({ headerCount: -1 })), 1, GZIP, ErrorCode.INVALID_RECORD],
  'gzip: key length past the end': [record(keyPastEnd), 1, GZIP, ErrorCode.INVALID_RECORD],
  'gzip: length varint of 6 bytes': [longLength, 1, GZIP, ErrorCode.INVALID_RECORD],
  'gzip: negative header key length': [record(negativeHeaderKey), 1, GZIP, ErrorCode.INVALID_RECORD],
};

/** Batches Kafka 4.3.1 appends although a reader would call them odd: the same here. */
const ACCEPTED: Record<string, Buffer> = {
  'key length -2 (a null key)': rawBatch(record(Buffer.concat([Buffer.from([0]), varint(0), varint(0), varint(-2), varint(-1), varint(0)])), 1),
  'gzip: length short of the fields (readPartiallyFrom reads no length)': rawBatch(record(recordBody({ value: Buffer.from('abcdef') }), -3), 1, { codec: GZIP }),
  'gzip: zero length': rawBatch(Buffer.concat([varint(0), recordBody()]), 1, { codec: GZIP }),
};

/** Compressed payloads that do not inflate: Kafka's KafkaException, UNKNOWN_SERVER_ERROR. */
const UNINFLATABLE: Record<string, Buffer> = {
  'gzip attribute, bytes not gzip': rawBatch(Buffer.alloc(0), 1, { codec: GZIP, payload: Buffer.from('garbage!') }),
  'gzip cut short': rawBatch(Buffer.alloc(0), 1, { codec: GZIP, payload: gzipped.subarray(0, gzipped.length - 6) }),
  'codec 5': rawBatch(one, 1, { codec: 5 }),
};

describe('Produce of malformed records inside a valid CRC', () => {
  it('answers each as Kafka 4.3.1 does (no message, the log start offset) and appends nothing', async () => {
    const { server } = await startClosableServer(cleanups, {}, 'kmc-malformed-');
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    await createTopic(c, 'm');
    const logEnd = () => server.broker.topics.get('m')!.partition(0)!.logEndOffset;
    const answers: Record<string, unknown> = {};
    const expected: Record<string, unknown> = {};
    const refused = [
      ...Object.entries(CASES).map(([name, [records, count, codec, code]]) => [name, rawBatch(records, count, { codec }), code] as const),
      ...Object.entries(UNINFLATABLE).map(([name, batch]) => [name, batch, ErrorCode.UNKNOWN_SERVER_ERROR] as const),
    ];
    for (const [name, batch, code] of refused) {
      const res = await produce(c, 'm', null, batch);
      answers[name] = { errorCode: res.errorCode, errorMessage: res.errorMessage, baseOffset: res.baseOffset, logStartOffset: res.logStartOffset, logEnd: logEnd() };
      expected[name] = { errorCode: code, errorMessage: null, baseOffset: -1n, logStartOffset: 0n, logEnd: 0n };
    }
    let next = 0n;
    for (const [name, batch] of Object.entries(ACCEPTED)) {
      const res = await produce(c, 'm', null, batch);
      answers[name] = { errorCode: res.errorCode, baseOffset: res.baseOffset, logEnd: logEnd() };
      expected[name] = { errorCode: ErrorCode.NONE, baseOffset: next, logEnd: ++next };
    }
    expect(answers).toEqual(expected);
  });

  it('a compacted topic refuses them and goes on being cleaned, pass after pass', async () => {
    const { server } = await startClosableServer(cleanups, { clock: 'manual', config: { 'log.cleaner.backoff.ms': 3_600_000 } }, 'kmc-malformed-');
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    const create = defaultCreateTopicsRequest();
    create.timeoutMs = 10_000;
    create.topics = [{
      ...defaultCreatableTopic(), name: 'cm', numPartitions: 1, replicationFactor: 1,
      configs: [['cleanup.policy', 'compact'], ['segment.ms', '60000'], ['min.cleanable.dirty.ratio', '0.01']].map(([name, value]) => ({ name: name!, value: value! })),
    }];
    expect((await c.send(19, 7, create)).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const keyed = (key: string, headerCount: number, lengthDelta = 0) => record(recordBody({ key: Buffer.from(key), headerCount }), lengthDelta);
    for (const bad of [rawBatch(keyed('k1', -1), 1), rawBatch(keyed('k2', 0, 40), 1), rawBatch(Buffer.concat([keyed('k3', 0), Buffer.from([7, 7])]), 1)]) {
      expect((await produce(c, 'cm', null, bad)).errorCode).toBe(ErrorCode.INVALID_RECORD);
    }
    const fetchKeys = async () => {
      const req = defaultFetchRequest();
      req.maxWaitMs = 0;
      req.topics = [{ topic: 'cm', topicId: ZERO_UUID, partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }];
      const p = (await c.send(1, 11, req)).responses[0]!.partitions[0]!;
      const out: string[] = [];
      let records = p.records as Buffer;
      while (records.length > 0) {
        const size = records.readInt32BE(8) + 12;
        for (const r of decodeRecords(records.subarray(0, size))) out.push(`${r.offset}:${r.key!.toString()}`);
        records = records.subarray(size);
      }
      return out;
    };
    const cleaner = () => server.broker.logMaintenance.cleanerPass(true);
    // Pass 1: ten records over keys a0..a4 in the first segment; the eleventh rolls a new segment.
    for (let round = 0; round < 2; round++) {
      const timestamp = BigInt(server.clock.now());
      const records = Array.from({ length: 10 }, (_, i) => ({ key: Buffer.from(`a${i % 5}`), value: Buffer.from(`v${round}-${i}`) }));
      expect((await produce(c, 'cm', null, encodeRecordBatch({ baseOffset: 0n, timestamp, records }))).errorCode).toBe(ErrorCode.NONE);
      server.clock.advance(60_000);
      const roll = encodeRecordBatch({ baseOffset: 0n, timestamp: BigInt(server.clock.now()), records: [{ key: Buffer.from(`roll${round}`), value: Buffer.from('r') }] });
      expect((await produce(c, 'cm', null, roll)).errorCode).toBe(ErrorCode.NONE);
      await cleaner();
    }
    // Cleaned twice: of offsets 0-9 and 11-20, only the latest of each a-key is left; the roll records stay.
    expect(await fetchKeys()).toEqual(['10:roll0', '16:a0', '17:a1', '18:a2', '19:a3', '20:a4', '21:roll1']);
  });
});
