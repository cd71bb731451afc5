/**
 * The allocation-free paths of the primitives (src/protocol/primitives.ts) write the same bytes as
 * Node's BigInt writers and Kafka's layouts: int64 on both sides of ±2^53, uuids in and out of the
 * usual 22-character form, tagged fields whose size prefix takes one, two or three bytes. Codecs in
 * slices (issue #16) yield once per `ELEMENTS_PER_SLICE` array elements, nested arrays counted together,
 * plain values (an OffsetFetch's partition indexes, DescribeGroups' group ids) as structs.
 */
import { describe, expect, it } from 'vitest';
import { BYTES_PER_SLICE, ELEMENTS_PER_SLICE, Reader, Writer, readInt64BE, writeInt64BE } from '../../src/protocol/primitives.js';
import * as DescribeTransactionsRequest from '../../src/protocol/messages/DescribeTransactionsRequest.js';
import * as DescribeTransactionsResponse from '../../src/protocol/messages/DescribeTransactionsResponse.js';
import * as OffsetCommitRequest from '../../src/protocol/messages/OffsetCommitRequest.js';
import * as OffsetCommitResponse from '../../src/protocol/messages/OffsetCommitResponse.js';
import * as OffsetFetchRequest from '../../src/protocol/messages/OffsetFetchRequest.js';
import * as DescribeGroupsRequest from '../../src/protocol/messages/DescribeGroupsRequest.js';

const INT64 = [
  0n, 1n, -1n, 255n, 4294967295n, 4294967296n, -4294967296n, -4294967297n, 1796194354287n, -1796194354287n,
  2n ** 53n - 1n, -(2n ** 53n - 1n), 2n ** 53n, -(2n ** 53n), 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n),
];

describe('int64', () => {
  it.each(INT64.map((v) => [v]))('%s: the bytes of writeBigInt64BE, read back the same', (v) => {
    const ours = Buffer.alloc(10);
    const node = Buffer.alloc(10);
    writeInt64BE(ours, v, 1);
    node.writeBigInt64BE(v, 1);
    expect(ours.toString('hex')).toBe(node.toString('hex'));
    expect(readInt64BE(node, 1)).toBe(v);
    const w = new Writer(4);
    w.int64(v);
    expect(new Reader(w.finish()).int64()).toBe(v);
  });

  it('refuses values outside the int64 range as Node does', () => {
    expect(() => writeInt64BE(Buffer.alloc(8), 2n ** 63n, 0)).toThrow(RangeError);
    expect(() => writeInt64BE(Buffer.alloc(8), -(2n ** 63n) - 1n, 0)).toThrow(RangeError);
  });
});

describe('uuid', () => {
  it('writes the 16 bytes of a 22-character id in place, and of a padded one; refuses a malformed one', () => {
    const id = 'AQIDBAUGBwgJCgsMDQ4PEA';
    const w = new Writer(8);
    w.int8(7);
    w.uuid(id);
    w.uuid(`${id}==`);
    expect(w.finish().toString('hex')).toBe(`07${'0102030405060708090a0b0c0d0e0f10'.repeat(2)}`);
    expect(new Reader(w.finish(), 1).uuid()).toBe(id);
    expect(() => new Writer().uuid('AQIDBAUGBwgJCgsMDQ4P')).toThrow(/not a Kafka UUID/);
    expect(() => new Writer().uuid('AQIDBAUGBwgJCgsMDQ4P!!')).toThrow(/not a Kafka UUID/);
  });

  it('reads and writes each id right when ids alternate and a read buffer is reused (the last id is remembered)', () => {
    const a = 'AQIDBAUGBwgJCgsMDQ4PEA';
    const b = 'EA8ODQwLCgkIBwYFBAMCAQ';
    const w = new Writer(8);
    for (const id of [a, a, b, a, b, b]) w.uuid(id);
    const bytes = w.finish();
    const aHex = '0102030405060708090a0b0c0d0e0f10';
    const bHex = '100f0e0d0c0b0a090807060504030201';
    expect(bytes.toString('hex')).toBe([aHex, aHex, bHex, aHex, bHex, bHex].join(''));
    const r = new Reader(bytes);
    expect([r.uuid(), r.uuid(), r.uuid(), r.uuid(), r.uuid(), r.uuid()]).toEqual([a, a, b, a, b, b]);
    // The same buffer, overwritten with the other id after it was read: read again, it is the other id.
    const reused = Buffer.from(aHex, 'hex');
    expect(new Reader(reused).uuid()).toBe(a);
    Buffer.from(bHex, 'hex').copy(reused);
    expect(new Reader(reused).uuid()).toBe(b);
  });
});

describe('strings', () => {
  /** The bytes Kafka's layout gives: an int16 length (a uvarint of length + 1 when compact), then UTF-8. */
  const kafkaBytes = (v: string, compact: boolean): string => {
    const utf8 = Buffer.from(v, 'utf8');
    const prefix = compact ? Buffer.from([utf8.length + 1]) : Buffer.from([utf8.length >> 8, utf8.length & 0xff]);
    return Buffer.concat([prefix, utf8]).toString('hex');
  };
  const cases = ['', 'g', 'bench-commit-group', 'a'.repeat(63), 'b'.repeat(64), 'c'.repeat(65), 'caf\u00e9', 'topic-\u00e9-later', '\u{1F600}x', '\u007f\u0080', 'x'.repeat(60) + '\u00e9'];
  it.each(cases.flatMap((v) => [[v, false], [v, true]] as const))('%j (compact %s): the bytes of Kafka\'s layout, after other bytes, read back the same', (v, compact) => {
    // A writer smaller than the string: the ASCII loop and the UTF-8 path both grow it.
    const w = new Writer(2);
    w.int8(9);
    w.string(v, compact);
    w.int8(7);
    expect(w.finish().toString('hex')).toBe(`09${kafkaBytes(v, compact)}07`);
    const r = new Reader(w.finish(), 1);
    expect(r.string(compact)).toBe(v);
    expect(r.int8()).toBe(7);
  });

  it('refuses to write one over 32,767 bytes, compact too, as Kafka\'s serializers ("field is too long to be serialized")', () => {
    for (const compact of [false, true]) {
      expect(() => new Writer(8).string('x'.repeat(32_768), compact)).toThrow(/too long to be serialized/);
      expect(() => new Writer(8).string('\u00e9'.repeat(16_384), compact)).toThrow(/too long to be serialized/);
      const w = new Writer(8);
      w.string('x'.repeat(32_767), compact);
      expect(new Reader(w.finish()).string(compact)).toHaveLength(32_767);
    }
  });
});

describe('compact lengths', () => {
  /** A compact nullable string whose length varint is `varint` (bytes), then `tail`. */
  const frame = (varint: number[], tail = 'ab') => Buffer.concat([Buffer.from(varint), Buffer.from(tail)]);
  // Kafka reads the varint into a Java int and subtracts one: every value of 2^31 + 1 and up is negative, so null.
  it.each([
    ['0', [0x00], null],
    ['0xffffffff', [0xff, 0xff, 0xff, 0xff, 0x0f], null],
    ['0xfffffffe', [0xfe, 0xff, 0xff, 0xff, 0x0f], null],
    ['0x80000001', [0x81, 0x80, 0x80, 0x80, 0x08], null],
  ] as const)('a length varint of %s is null, as Kafka reads it', (_label, varint, expected) => {
    const r = new Reader(frame([...varint]));
    expect(r.nullableString(true)).toBe(expected);
    expect(new Reader(frame([...varint])).nullableBytes(true)).toBe(expected);
    expect(new Reader(frame([...varint])).nullableArray(true, () => 1)).toBe(expected);
    expect(() => new Reader(frame([...varint])).string(true)).toThrow(/non-nullable string is null/);
  });

  it('a length varint of 0x80000000 wraps to 2^31 - 1: past the frame, as in Kafka', () => {
    const varint = [0x80, 0x80, 0x80, 0x80, 0x08];
    expect(() => new Reader(frame(varint)).nullableString(true)).toThrow(/runs past|longer than/);
    expect(() => new Reader(frame(varint)).nullableArray(true, () => 1)).toThrow(/exceeds the frame/);
  });
});

describe('taggedFields', () => {
  it.each([0, 1, 127, 128, 300, 16383, 16384, 70000])('a %i-byte value: tag, uvarint size, value; read back', (n) => {
    const value = Buffer.alloc(n, 0xab);
    const w = new Writer(16);
    w.int16(0x1234);
    w.taggedFields([
      [0, (inner) => inner.int32(42)],
      [3, (inner) => inner.raw(value)],
    ]);
    w.int8(9);
    const out = w.finish();
    // Expected bytes, built by hand: count, (tag, size, value) per field.
    const uvarint = (v: number): number[] => {
      const bytes: number[] = [];
      while (v >= 0x80) {
        bytes.push((v & 0x7f) | 0x80);
        v >>>= 7;
      }
      return [...bytes, v];
    };
    const expected = Buffer.concat([
      Buffer.from([0x12, 0x34, 2, 0, 4, 0, 0, 0, 42, 3, ...uvarint(n)]),
      value,
      Buffer.from([9]),
    ]);
    expect(out.equals(expected)).toBe(true);
    const r = new Reader(out, 2);
    const seen: Array<[number, number]> = [];
    r.taggedFields((tag) => {
      const before = r.offset;
      if (tag === 0) r.int32();
      else r.offset += n;
      seen.push([tag, r.offset - before]);
      return true;
    });
    expect(seen).toEqual([[0, 4], [3, n]]);
    expect(r.int8()).toBe(9);
    // The same fields through beginTaggedField/endTaggedField (what the generated writers call): the same bytes.
    const inPlace = new Writer(16);
    inPlace.int16(0x1234);
    inPlace.uvarint(2);
    const first = inPlace.beginTaggedField(0);
    inPlace.int32(42);
    inPlace.endTaggedField(first);
    const second = inPlace.beginTaggedField(3);
    inPlace.raw(value);
    inPlace.endTaggedField(second);
    inPlace.int8(9);
    expect(inPlace.finish().equals(expected)).toBe(true);
    // And read through taggedFieldsInto (what the generated readers call), its value and version passed along.
    const into = new Reader(out, 2);
    const fields: Array<[number, number]> = [];
    into.taggedFieldsInto(fields, 7, (reader, tag, list, version) => {
      expect(version).toBe(7);
      if (tag !== 0) return false; // skipped by the reader
      list.push([tag, reader.int32()]);
      return true;
    });
    expect(fields).toEqual([[0, 42]]);
    expect(into.int8()).toBe(9);
  });
});

describe('codecs in slices', () => {
  /** Steps a generator to its end; returns its value and how many times it yielded. */
  function steps<T>(work: Generator<void, T>): { value: T; yields: number } {
    let yields = 0;
    for (;;) {
      const step = work.next();
      if (step.done) return { value: step.value, yields };
      yields++;
    }
  }
  // 3 topics of 5,000 partitions: 15,003 struct elements (topics and partitions), 3 slices of 4,096 and a rest.
  const partitions = Array.from({ length: 5000 }, (_, i) => ({ partitionIndex: i, committedOffset: BigInt(i) * 1000n, committedLeaderEpoch: 2, committedMetadata: `m${i}` }));
  const request = { groupId: 'g', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: ['a', 'b', 'c'].map((name) => ({ name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions })) };

  it('an OffsetCommit request of 15,000 partitions decodes in 4 slices to what decode gives', () => {
    expect(ELEMENTS_PER_SLICE).toBe(4096);
    const w = new Writer();
    OffsetCommitRequest.encode(w, 9, request);
    const bytes = Buffer.from(w.finish());
    const { value, yields } = steps(OffsetCommitRequest.decodeInSlices(new Reader(bytes), 9));
    expect(yields).toBe(3);
    expect(value).toStrictEqual(OffsetCommitRequest.decode(new Reader(bytes), 9));
    expect(value.topics.map((t) => [t.name, t.partitions.length, t.partitions[4999]!.committedMetadata])).toEqual([['a', 5000, 'm4999'], ['b', 5000, 'm4999'], ['c', 5000, 'm4999']]);
  });

  it('an OffsetFetch v7 of one topic and 10,000 partition indexes (int32s) decodes in 3 slices to what decode gives', () => {
    // 10,001 elements: the topic and its partition indexes, 2 slices of 4,096 and a rest.
    const fetch = { groupId: 'g', topics: [{ name: 't', partitionIndexes: Array.from({ length: 10_000 }, (_, i) => i) }], groups: [], requireStable: false };
    const w = new Writer();
    OffsetFetchRequest.encode(w, 7, fetch);
    const bytes = Buffer.from(w.finish());
    const { value, yields } = steps(OffsetFetchRequest.decodeInSlices(new Reader(bytes), 7));
    expect(yields).toBe(2);
    expect(value).toStrictEqual(OffsetFetchRequest.decode(new Reader(bytes), 7));
    expect(value.topics![0]!.partitionIndexes.slice(-2)).toEqual([9998, 9999]);
  });

  it('a DescribeGroups of 9,000 group ids (strings) decodes in 3 slices to what decode gives', () => {
    const describe = { groups: Array.from({ length: 9000 }, (_, i) => `group-${i}`), includeAuthorizedOperations: false };
    const w = new Writer();
    DescribeGroupsRequest.encode(w, 5, describe);
    const bytes = Buffer.from(w.finish());
    const { value, yields } = steps(DescribeGroupsRequest.decodeInSlices(new Reader(bytes), 5));
    expect(yields).toBe(2);
    expect(value).toStrictEqual(describe);
  });

  it('its response encodes in 4 slices to the bytes encode writes', () => {
    const response = { throttleTimeMs: 0, topics: request.topics.map((t) => ({ name: t.name, topicId: '', partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: 0 })) })) };
    const whole = new Writer();
    OffsetCommitResponse.encode(whole, 9, response);
    const sliced = new Writer(16);
    expect(steps(OffsetCommitResponse.encodeInSlices(sliced, 9, response)).yields).toBe(3);
    expect(Buffer.from(sliced.finish()).equals(Buffer.from(whole.finish()))).toBe(true);
  });

  it('400 transactional ids of 32,000 characters (12.8 MB, far fewer elements than a slice) decode and answer a slice per BYTES_PER_SLICE', () => {
    const ids = Array.from({ length: 400 }, (_, i) => `${'t'.repeat(32_000)}-${i}`);
    const w = new Writer();
    DescribeTransactionsRequest.encode(w, 0, { transactionalIds: ids });
    const bytes = Buffer.from(w.finish());
    // A yield once a slice has read BYTES_PER_SLICE, at the end of the id that crosses it.
    const slices = (total: number) => [Math.floor(total / (BYTES_PER_SLICE + 32_010)), Math.floor(total / BYTES_PER_SLICE)];
    const decoded = steps(DescribeTransactionsRequest.decodeInSlices(new Reader(bytes), 0));
    const [least, most] = slices(bytes.length);
    expect(least).toBeGreaterThanOrEqual(11);
    expect(decoded.yields).toBeGreaterThanOrEqual(least!);
    expect(decoded.yields).toBeLessThanOrEqual(most!);
    expect(decoded.value.transactionalIds).toEqual(ids);
    const response = { throttleTimeMs: 0, transactionStates: ids.map((transactionalId) => ({ errorCode: 105, transactionalId, transactionState: '', transactionTimeoutMs: 0, transactionStartTimeMs: -1n, producerId: -1n, producerEpoch: -1, topics: [] })) };
    const whole = new Writer();
    DescribeTransactionsResponse.encode(whole, 0, response);
    const sliced = new Writer(16);
    const encoded = steps(DescribeTransactionsResponse.encodeInSlices(sliced, 0, response));
    const out = Buffer.from(sliced.finish());
    expect(encoded.yields).toBeGreaterThanOrEqual(slices(out.length)[0]!);
    expect(out.equals(Buffer.from(whole.finish()))).toBe(true);
  });
});
