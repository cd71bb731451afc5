import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { JS_MAX_BYTES, crc32c, crc32cInJs } from '../../src/records/crc32c.js';
import {
  CorruptRecordError,
  DecompressionError,
  READ_INFLATE_LIMIT,
  RECORD_BATCH_OVERHEAD,
  batchLastOffset,
  decodeRecords,
  forEachProducedRecordHead,
  encodeRecordBatch,
  readBatchHeader,
  recordOffsetsAndTimestamps,
  restampBaseOffset,
  setPartitionLeaderEpoch,
  validateBatch,
} from '../../src/records/record-batch.js';

import { gzipBombRecords } from '../support/gzip-bomb.js';
import { rawBatch } from '../support/raw-records.js';

const require = createRequire(import.meta.url);
const snappy = require('snappy') as typeof import('snappy');
const lz4 = require('lz4-napi') as typeof import('lz4-napi');

describe('crc32c', () => {
  it('matches the CRC-32C check value of "123456789"', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  it('continues from an initial value', () => {
    expect(crc32c(Buffer.from('6789'), crc32c(Buffer.from('12345')))).toBe(0xe3069283);
  });

  it('is unsigned', () => {
    expect(crc32c(Buffer.from('a'))).toBe(0xc1d04330);
  });

  it('computes in JavaScript what the native binding computes, for every length around the switch and continued', () => {
    const native = (require('@node-rs/crc32') as { crc32c: (d: Uint8Array, i?: number) => number }).crc32c;
    const bytes = Buffer.alloc(JS_MAX_BYTES + 40);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 151 + 7) & 0xff;
    for (let n = 0; n <= bytes.length; n++) {
      const data = bytes.subarray(0, n);
      expect([n, crc32cInJs(data)]).toEqual([n, native(data) >>> 0]);
      expect([n, crc32c(data)]).toEqual([n, native(data) >>> 0]);
      const cut = n >>> 1;
      expect([n, crc32cInJs(data.subarray(cut), crc32cInJs(data.subarray(0, cut)))]).toEqual([n, native(data) >>> 0]);
      expect([n, crc32cInJs(data, crc32cInJs(data, 0, 0, cut), cut)]).toEqual([n, native(data) >>> 0]);
    }
  });
});

describe('encodeRecordBatch', () => {
  it('writes the exact v2 bytes for one record with a null key', () => {
    const batch = encodeRecordBatch({ baseOffset: 5n, timestamp: 1000n, records: [{ key: null, value: Buffer.from('v') }] });
    expect(batch.length).toBe(RECORD_BATCH_OVERHEAD + 8);
    // record: length 7 (zig-zag 0x0e), attributes 0, tsDelta 0, offsetDelta 0, key -1 (0x01), value len 1 (0x02) 'v', 0 headers
    expect(batch.subarray(RECORD_BATCH_OVERHEAD).toString('hex')).toBe('0e00000001027600');
    const h = readBatchHeader(batch);
    expect(h).toEqual({
      baseOffset: 5n,
      batchLength: batch.length - 12,
      partitionLeaderEpoch: -1,
      magic: 2,
      crc: crc32c(batch.subarray(21)),
      attributes: 0,
      lastOffsetDelta: 0,
      baseTimestamp: 1000n,
      maxTimestamp: 1000n,
      producerId: -1n,
      producerEpoch: -1,
      baseSequence: -1,
      recordCount: 1,
    });
  });

  it('produces the same bytes as kafkajs 2.2.4 for the same records', async () => {
    const KafkajsBatch = require('kafkajs/src/protocol/recordBatch/v0/index.js').RecordBatch;
    const KafkajsRecord = require('kafkajs/src/protocol/recordBatch/record/v0/index.js');
    const Long = require('kafkajs/src/utils/long.js');
    const records = [
      { key: Buffer.from('k1'), value: Buffer.from('hello'), headers: { h: Buffer.from('x') }, offsetDelta: 0, timestampDelta: 0 },
      { key: null, value: Buffer.alloc(300, 7), headers: {}, offsetDelta: 1, timestampDelta: 70 },
    ];
    const theirs = await KafkajsBatch({
      firstOffset: Long.fromInt(0),
      firstTimestamp: 1700000000000,
      maxTimestamp: 1700000000070,
      partitionLeaderEpoch: -1,
      lastOffsetDelta: 1,
      producerId: Long.fromValue(42),
      producerEpoch: 3,
      firstSequence: 10,
      records: records.map(KafkajsRecord),
    });
    const ours = encodeRecordBatch({
      baseOffset: 0n,
      timestamp: 1700000000000n,
      producerId: 42n,
      producerEpoch: 3,
      baseSequence: 10,
      records: [
        { key: Buffer.from('k1'), value: Buffer.from('hello'), headers: [{ key: 'h', value: Buffer.from('x') }] },
        { key: null, value: Buffer.alloc(300, 7), timestamp: 1700000000070n },
      ],
    });
    expect(ours.toString('hex')).toBe(theirs.buffer.toString('hex'));
  });

  it('refuses empty batches and compression bits', () => {
    expect(() => encodeRecordBatch({ baseOffset: 0n, timestamp: 0n, records: [] })).toThrow(RangeError);
    expect(() => encodeRecordBatch({ baseOffset: 0n, timestamp: 0n, records: [{ key: null, value: null }], attributes: 1 })).toThrow(RangeError);
  });
});

describe('decodeRecords', () => {
  it('round-trips keys, values, tombstones, headers, offsets and timestamps', () => {
    const batch = encodeRecordBatch({
      baseOffset: 100n,
      timestamp: 5000n,
      records: [
        { key: Buffer.from('a'), value: Buffer.from('1'), headers: [{ key: 'trace', value: Buffer.from('t') }, { key: 'n', value: null }] },
        { key: Buffer.from('b'), value: null },
        { key: null, value: Buffer.from('3'), timestamp: 4000n },
        { key: Buffer.alloc(0), value: Buffer.alloc(200, 1), timestamp: 123456789012n },
      ],
    });
    const records = decodeRecords(batch);
    expect(records.map((r) => r.offset)).toEqual([100n, 101n, 102n, 103n]);
    expect(records.map((r) => r.timestamp)).toEqual([5000n, 5000n, 4000n, 123456789012n]);
    expect(records[0]!.key!.toString()).toBe('a');
    expect(records[0]!.headers).toEqual([{ key: 'trace', value: Buffer.from('t') }, { key: 'n', value: null }]);
    expect(records[1]!.value).toBeNull();
    expect(records[2]!.key).toBeNull();
    expect(records[3]!.key!.length).toBe(0);
    expect(records[3]!.value!.equals(Buffer.alloc(200, 1))).toBe(true);
    expect(readBatchHeader(batch).maxTimestamp).toBe(123456789012n);
    expect(batchLastOffset(batch)).toBe(103n);
  });

  it('reads the one-byte and longer zig-zag varints at their edges (lengths 63 and 64, null)', () => {
    const records = [63, 64, 0, 8191, 8192].map((n) => ({ key: n === 0 ? null : Buffer.alloc(n, 2), value: Buffer.alloc(n, 3) }));
    const decoded = decodeRecords(encodeRecordBatch({ baseOffset: 0n, timestamp: 0n, records }));
    expect(decoded.map((r) => [r.key?.length ?? null, r.value!.length])).toEqual([
      [63, 63],
      [64, 64],
      [null, 0],
      [8191, 8191],
      [8192, 8192],
    ]);
  });

  it('throws a clear error for compressed batches', () => {
    const batch = encodeRecordBatch({ baseOffset: 0n, timestamp: 0n, records: [{ key: null, value: Buffer.from('x') }] });
    batch.writeInt16BE(1, 21); // gzip
    expect(() => decodeRecords(batch)).toThrow(/compression codec 1/);
  });

  it('throws CorruptRecordError when the record bytes lie', () => {
    const batch = encodeRecordBatch({ baseOffset: 0n, timestamp: 0n, records: [{ key: null, value: Buffer.from('x') }] });
    batch[RECORD_BATCH_OVERHEAD] = 0x20; // record length 16: runs past the batch
    expect(() => decodeRecords(batch)).toThrow(CorruptRecordError);
  });

  it('gives every record the max timestamp in a LogAppendTime batch', () => {
    const batch = encodeRecordBatch({ baseOffset: 0n, timestamp: 10n, attributes: 0x08, records: [{ key: null, value: null }, { key: null, value: null, timestamp: 20n }] });
    expect(decodeRecords(batch).map((r) => r.timestamp)).toEqual([20n, 20n]);
  });
});

describe('validateBatch and restamping', () => {
  const batch = (): Buffer => encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, records: [{ key: null, value: Buffer.from('payload') }] });

  it('accepts a valid batch and reports its size', () => {
    const b = batch();
    expect(validateBatch(b)).toEqual({ ok: true, size: b.length });
  });

  it('keeps the CRC valid after restamping base offset and leader epoch', () => {
    const b = batch();
    restampBaseOffset(b, 9876543210n);
    setPartitionLeaderEpoch(b, 7);
    expect(validateBatch(b).ok).toBe(true);
    expect(readBatchHeader(b).baseOffset).toBe(9876543210n);
    expect(readBatchHeader(b).partitionLeaderEpoch).toBe(7);
    expect(decodeRecords(b)[0]!.offset).toBe(9876543210n);
  });

  it('detects a flipped payload byte as a CRC mismatch', () => {
    const b = batch();
    b[b.length - 2] = b[b.length - 2]! ^ 0xff;
    const r = validateBatch(b);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toBe('crc-mismatch');
  });

  it('detects a wrong magic, a short buffer and a bad length', () => {
    const b = batch();
    b[16] = 1;
    expect(validateBatch(b)).toMatchObject({ ok: false, problem: 'invalid-magic' });
    expect(validateBatch(batch().subarray(0, 40))).toMatchObject({ ok: false, problem: 'truncated' });
    const c = batch();
    c.writeInt32BE(10, 8);
    expect(validateBatch(c)).toMatchObject({ ok: false, problem: 'invalid-length' });
  });

  it('validates a batch at an offset inside a larger buffer', () => {
    const b = batch();
    const both = Buffer.concat([b, b]);
    expect(validateBatch(both, b.length)).toEqual({ ok: true, size: b.length });
  });
});

describe('recordOffsetsAndTimestamps', () => {
  it('lists record offsets and timestamps of plain, gzip and lz4 batches; a body that does not decompress throws', () => {
    const plain = encodeRecordBatch({ baseOffset: 3n, timestamp: 100n, records: [{ key: null, value: null }, { key: null, value: null, timestamp: 150n }] });
    expect(recordOffsetsAndTimestamps(plain)).toEqual([
      { offset: 3n, timestamp: 100n },
      { offset: 4n, timestamp: 150n },
    ]);
    const body = gzipSync(plain.subarray(RECORD_BATCH_OVERHEAD));
    const gz = Buffer.concat([plain.subarray(0, RECORD_BATCH_OVERHEAD), body]);
    gz.writeInt32BE(gz.length - 12, 8);
    gz.writeInt16BE(1, 21);
    expect(recordOffsetsAndTimestamps(gz)).toEqual([
      { offset: 3n, timestamp: 100n },
      { offset: 4n, timestamp: 150n },
    ]);
    const lz = Buffer.concat([plain.subarray(0, RECORD_BATCH_OVERHEAD), lz4.compressFrameSync(plain.subarray(RECORD_BATCH_OVERHEAD))]);
    lz.writeInt32BE(lz.length - 12, 8);
    lz.writeInt16BE(3, 21);
    expect(recordOffsetsAndTimestamps(lz)).toEqual([
      { offset: 3n, timestamp: 100n },
      { offset: 4n, timestamp: 150n },
    ]);
    // gzip bytes called zstd: the readers' CorruptRecordError (ListOffsets then answers at batch level).
    gz.writeInt16BE(4, 21);
    expect(() => recordOffsetsAndTimestamps(gz)).toThrow(CorruptRecordError);
    gz.writeInt16BE(6, 21);
    expect(recordOffsetsAndTimestamps(gz)).toBeNull();
  });

  it('refuses to inflate a stored gzip batch past READ_INFLATE_LIMIT (ListOffsets then answers at batch level)', () => {
    const bomb = gzipBombRecords(READ_INFLATE_LIMIT / (1024 * 1024) + 1);
    const gz = rawBatch(Buffer.alloc(0), 1, { codec: 1, payload: bomb.compressed });
    expect(() => recordOffsetsAndTimestamps(gz)).toThrow(CorruptRecordError);
  });
});

describe('forEachProducedRecordHead (Produce checks, no record objects)', () => {
  const heads = (batch: Buffer) => {
    const out: Array<[number, bigint, bigint, boolean]> = [];
    const readable = forEachProducedRecordHead(batch, true, (i, offset, timestamp, keyNull) => void out.push([i, offset(), timestamp, keyNull]));
    expect(readable).not.toBeInstanceOf(Promise);
    return readable ? out : null;
  };
  const gzipped = (plain: Buffer, codec = 1) => {
    const gz = Buffer.concat([plain.subarray(0, RECORD_BATCH_OVERHEAD), gzipSync(plain.subarray(RECORD_BATCH_OVERHEAD))]);
    gz.writeInt32BE(gz.length - 12, 8);
    gz.writeInt16BE(codec, 21);
    return gz;
  };
  const plain = encodeRecordBatch({
    baseOffset: 7n,
    timestamp: 5000n,
    records: [
      { key: Buffer.from('a'), value: Buffer.from('1'), headers: [{ key: 'trace', value: Buffer.from('t') }, { key: 'n', value: null }] },
      { key: null, value: null, timestamp: 4000n },
      { key: Buffer.alloc(0), value: Buffer.alloc(200, 1), timestamp: 123456789012n },
    ],
  });

  it('gives what decodeRecords gives: index, offset, timestamp, null key; gzip, snappy and lz4 decompressed; null for codecs not read', () => {
    const expected: Array<[number, bigint, bigint, boolean]> = [[0, 7n, 5000n, false], [1, 8n, 4000n, true], [2, 9n, 123456789012n, false]];
    expect(heads(plain)).toEqual(expected);
    expect(decodeRecords(plain).map((r, i) => [i, r.offset, r.timestamp, r.key === null])).toEqual(expected);
    expect(heads(gzipped(plain))).toEqual(expected);
    const compressedWith = (codec: number, compress: (b: Buffer) => Buffer) => {
      const out = Buffer.concat([plain.subarray(0, RECORD_BATCH_OVERHEAD), compress(plain.subarray(RECORD_BATCH_OVERHEAD))]);
      out.writeInt32BE(out.length - 12, 8);
      out.writeInt16BE(codec, 21);
      return out;
    };
    expect(heads(compressedWith(2, (b) => snappy.compressSync(b)))).toEqual(expected);
    expect(heads(compressedWith(3, (b) => lz4.compressFrameSync(b)))).toEqual(expected);
    // gzip bytes called lz4: not an LZ4 frame (Kafka: KafkaException, UNKNOWN_SERVER_ERROR).
    expect(() => heads(gzipped(plain, 3))).toThrow(DecompressionError);
    expect(heads(gzipped(plain, 6))).toBeNull();
  });

  it('gives a LogAppendTime batch max timestamp to every record', () => {
    const batch = encodeRecordBatch({ baseOffset: 0n, timestamp: 10n, attributes: 0x08, records: [{ key: null, value: null }, { key: null, value: null, timestamp: 20n }] });
    expect(heads(batch)!.map(([, , t]) => t)).toEqual([20n, 20n]);
  });

  it('throws CorruptRecordError where decodeRecords does (uncompressed); gzip reads lengths as Kafka\'s readPartiallyFrom: not checked', () => {
    const lying = Buffer.from(plain);
    lying[RECORD_BATCH_OVERHEAD] = lying[RECORD_BATCH_OVERHEAD]! + 2; // the first record declares one byte more than its fields use
    expect(() => decodeRecords(lying)).toThrow(CorruptRecordError);
    expect(() => heads(lying)).toThrow(CorruptRecordError);
    expect(heads(gzipped(lying))).toEqual(heads(plain));
    const short = Buffer.from(plain);
    short.writeInt32BE(4, RECORD_BATCH_OVERHEAD - 4); // declares 4 records, holds 3
    expect(() => heads(short)).toThrow(CorruptRecordError);
    expect(() => heads(gzipped(short))).toThrow(CorruptRecordError);
  });
});
