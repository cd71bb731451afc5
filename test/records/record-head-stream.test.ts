import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CorruptRecordError, RECORD_BATCH_OVERHEAD, encodeRecordBatch, forEachProducedRecordHead } from '../../src/records/record-batch.js';
import { RecordHeadStream } from '../../src/records/record-head-stream.js';
import { GZIP_STREAM_CHUNK_BYTES, GZIP_SYNC_INFLATE_LIMIT, checkGzipRecords } from '../../src/records/gzip-records.js';
import { gzipBombRecords } from '../support/gzip-bomb.js';
import { record, recordBody, varint } from '../support/raw-records.js';

type Head = [number, bigint, number, boolean];

/** The heads a RecordHeadStream gives for `bytes` fed in pieces of `piece` bytes. */
function streamed(bytes: Buffer, count: number, piece: number): Head[] {
  const out: Head[] = [];
  const s = new RecordHeadStream(count, true, (i, t, o, k) => void out.push([i, t, o, k]));
  for (let at = 0; at < bytes.length; at += piece) s.push(bytes.subarray(at, at + piece));
  s.finish();
  return out;
}

describe('RecordHeadStream (compressed records read as they inflate, as Kafka\'s readPartiallyFrom)', () => {
  const base = 1_700_000_000_000n;
  const batch = encodeRecordBatch({
    baseOffset: 0n,
    timestamp: base,
    records: [
      { key: Buffer.from('a'), value: Buffer.alloc(300, 1), headers: [{ key: 'trace', value: Buffer.from('t') }, { key: 'n', value: null }] },
      { key: null, value: null, timestamp: base - (1n << 40n) },
      { key: Buffer.alloc(0), value: Buffer.from('z'), timestamp: base + (1n << 60n) },
    ],
  });
  const records = batch.subarray(RECORD_BATCH_OVERHEAD);
  const expected: Head[] = [[0, 0n, 0, false], [1, -(1n << 40n), 1, true], [2, 1n << 60n, 2, false]];

  it('gives each record\'s index, timestamp delta, offset delta and null key, however the bytes are cut', () => {
    for (const piece of [1, 2, 3, 7, 64, records.length]) expect(streamed(records, 3, piece)).toEqual(expected);
    const viaBatch: Head[] = [];
    forEachProducedRecordHead(batch, true, (i, offset, timestamp, keyNull) => void viaBatch.push([i, timestamp - base, Number(offset()), keyNull]));
    expect(viaBatch).toEqual(expected);
  });

  it('throws CorruptRecordError for what Kafka refuses: cut records, missing or extra records, bad counts and varints', () => {
    const bad: Record<string, [Buffer, number]> = {
      cut: [records.subarray(0, records.length - 1), 3],
      'one record missing': [records, 4],
      'bytes after the last': [Buffer.concat([records, Buffer.from([0])]), 3],
      'header count -1': [record(recordBody({ headerCount: -1 })), 1],
      'header key length -1': [record(recordBody({ headerCount: 1, headerBytes: Buffer.concat([varint(-1), varint(-1)]) })), 1],
      'varint of 6 bytes': [Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), 1],
      'varlong of 11 bytes': [record(Buffer.concat([Buffer.from([0]), Buffer.alloc(10, 0xff), Buffer.from([1])])), 1],
    };
    for (const [name, [bytes, count]] of Object.entries(bad)) {
      for (const piece of [1, bytes.length]) expect(() => streamed(bytes, count, piece), `${name} in pieces of ${piece}`).toThrow(CorruptRecordError);
    }
  });

  it('reads past a record length that lies, as Kafka\'s readPartiallyFrom does', () => {
    expect(streamed(Buffer.concat([record(recordBody(), -3), record(recordBody({ offsetDelta: 1 }), 40)]), 2, 5)).toEqual([[0, 0n, 0, true], [1, 0n, 1, true]]);
  });
});

describe('checkGzipRecords (bounded inflating)', () => {
  it('checks a small batch in one synchronous gunzip', () => {
    const heads: number[] = [];
    const s = new RecordHeadStream(2, false, (i) => void heads.push(i));
    const done = checkGzipRecords(gzipSync(Buffer.concat([record(recordBody()), record(recordBody({ offsetDelta: 1 }))])), s);
    expect(done).toBeUndefined();
    expect(heads).toEqual([0, 1]);
  });

  it('streams a batch inflating past the synchronous limit (its trailer saying a few bytes) in chunks of at most GZIP_STREAM_CHUNK_BYTES', async () => {
    const bomb = gzipBombRecords(64);
    expect(bomb.compressed.readUInt32LE(bomb.compressed.length - 4)).toBeLessThan(GZIP_SYNC_INFLATE_LIMIT);
    const heads: Head[] = [];
    const chunks: number[] = [];
    const done = checkGzipRecords(bomb.compressed, new RecordHeadStream(1, true, (i, t, o, k) => void heads.push([i, t, o, k])), (n) => void chunks.push(n));
    expect(done).toBeInstanceOf(Promise);
    await done;
    expect(heads).toEqual([[0, 0n, 0, true]]);
    expect(Math.max(...chunks)).toBe(GZIP_STREAM_CHUNK_BYTES);
    expect(chunks.reduce((a, b) => a + b, 0)).toBe(bomb.inflatedBytes);
  });

  it('stops inflating at the first malformed record: a bad first record before 64 MiB of zeros costs one chunk', async () => {
    const zeros = gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
    const compressed = Buffer.concat([gzipSync(record(recordBody({ headerCount: -1 }))), ...Array.from({ length: 64 }, () => zeros)]);
    const chunks: number[] = [];
    await expect(checkGzipRecords(compressed, new RecordHeadStream(2, false, () => {}), (n) => void chunks.push(n))).rejects.toThrow(CorruptRecordError);
    expect(chunks).toEqual([GZIP_STREAM_CHUNK_BYTES]);
  });
});
