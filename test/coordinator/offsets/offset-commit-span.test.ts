import { describe, expect, it } from 'vitest';
import { OffsetCommitSpanDecoder } from '../../../src/coordinator/offsets/offset-commit-span.js';
import { decodeRecord, encodeKey, type OffsetCommitRecord } from '../../../src/coordinator/records.js';
import { encodeRecordValue } from '../../../src/records/coordinator-record.js';
import { CorruptRecordError, encodeRecordBatch, forEachRecordSpanOfBatch, decodeRecords } from '../../../src/records/record-batch.js';

const TOPIC_ID = 'S2Fma2FNb2NrQmVuY2gxMg';

function commit(groupId: string, topic: string, partition: number, value: Partial<NonNullable<OffsetCommitRecord['value']>> | null): OffsetCommitRecord {
  return {
    kind: 'offset-commit',
    groupId,
    topic,
    partition,
    value: value === null ? null : { offset: 42n, leaderEpoch: -1, metadata: '', commitTimestamp: 1_700_000_000_000n, expireTimestamp: -1n, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', ...value },
  };
}

/** Key and value laid out in one buffer after some padding, as they sit in a batch. */
function inBuffer(key: Buffer, value: Buffer | null): { buf: Buffer; ks: number; ke: number; vs: number; ve: number } {
  const pad = Buffer.from([9, 9, 9]);
  const buf = Buffer.concat([pad, key, pad, value ?? Buffer.alloc(0), pad]);
  const ks = pad.length;
  const vs = value === null ? -1 : ks + key.length + pad.length;
  return { buf, ks, ke: ks + key.length, vs, ve: value === null ? -1 : vs + value.length };
}

function spanDecode(decoder: OffsetCommitSpanDecoder, key: Buffer, value: Buffer | null): OffsetCommitRecord | undefined {
  const { buf, ks, ke, vs, ve } = inBuffer(key, value);
  return decoder.decode(buf, ks, ke, vs, ve);
}

describe('OffsetCommitSpanDecoder (replay of OffsetCommit records in place)', () => {
  it('reads OffsetCommitValue v0-v4 and tombstones as the registry decoder does', () => {
    const decoder = new OffsetCommitSpanDecoder();
    const cases: Array<[OffsetCommitRecord, number | undefined]> = [];
    for (const version of [0, 1, 2, 3, 4]) {
      cases.push([commit('grp', 'orders', 3, { offset: 7n + BigInt(version), leaderEpoch: version >= 3 ? 5 : -1, metadata: 'méta', expireTimestamp: version === 1 ? 1_800_000_000_000n : -1n }), version]);
    }
    cases.push([commit('grp', 'orders', 3, { topicId: TOPIC_ID, leaderEpoch: 2 }), 4]);
    cases.push([commit('grp', 'orders', 3, { offset: 2n ** 60n, commitTimestamp: -5n }), 4]);
    cases.push([commit('grp', 'orders', 2_000_000, null), undefined]);
    for (const [record, version] of cases) {
      const key = encodeKey(record);
      const value = encodeRecordValue(record, version);
      const expected = decodeRecord(key, value);
      expect(spanDecode(decoder, key, value)).toEqual(expected);
    }
  });

  it('tells apart strings of one length that differ in their first four-byte words or in their tail, across buffers', () => {
    const decoder = new OffsetCommitSpanDecoder();
    // 'group-0001' vs 'group-0002' differ in the tail after two words; 'xroup-0001' in the first word.
    const groups = ['group-0001', 'group-0001', 'group-0002', 'xroup-0002', 'xroup-0002', 'group-0001'];
    const got = groups.map((g, i) => {
      const record = commit(g, 'orders-topic', i, { metadata: i < 3 ? 'meta-data-one' : 'meta-data-two' });
      return spanDecode(decoder, encodeKey(record), encodeRecordValue(record, 4));
    });
    expect(got.map((r) => [r!.groupId, r!.topic, r!.value!.metadata])).toEqual(groups.map((g, i) => [g, 'orders-topic', i < 3 ? 'meta-data-one' : 'meta-data-two']));
  });

  it('gives each record its own strings and timestamp when they change but keep their length', () => {
    const decoder = new OffsetCommitSpanDecoder();
    const got = ['g-1', 'g-2', 'g-2', 'g-1'].map((g, i) => {
      const record = commit(g, i < 2 ? 'ta' : 'tb', i, { metadata: i % 2 === 0 ? 'm0' : 'm1', topicId: i === 3 ? TOPIC_ID : 'AAAAAAAAAAAAAAAAAAAAAA', commitTimestamp: i === 2 ? 0n : 5n });
      return spanDecode(decoder, encodeKey(record), encodeRecordValue(record, 4));
    });
    expect(got.map((r) => [r!.groupId, r!.topic, r!.partition, r!.value!.metadata, r!.value!.topicId, r!.value!.commitTimestamp])).toEqual([
      ['g-1', 'ta', 0, 'm0', 'AAAAAAAAAAAAAAAAAAAAAA', 5n],
      ['g-2', 'ta', 1, 'm1', 'AAAAAAAAAAAAAAAAAAAAAA', 5n],
      ['g-2', 'tb', 2, 'm0', 'AAAAAAAAAAAAAAAAAAAAAA', 0n],
      ['g-1', 'tb', 3, 'm1', TOPIC_ID, 5n],
    ]);
  });

  it('skips unknown tagged fields as the registry does', () => {
    const record = commit('grp', 'orders', 1, { topicId: TOPIC_ID });
    const v4 = encodeRecordValue(record, 4)!;
    // v4: int16 version, int64 offset, int32 epoch, compact string '' (1 byte), int64 timestamp, then the tag section.
    const head = v4.subarray(0, 2 + 8 + 4 + 1 + 8);
    const tags = Buffer.concat([Buffer.from([2, 7, 3, 0xaa, 0xbb, 0xcc, 0, 16]), Buffer.from(TOPIC_ID, 'base64url')]);
    const value = Buffer.concat([head, tags]);
    const expected = decodeRecord(encodeKey(record), value);
    expect(expected).toEqual(record);
    expect(spanDecode(new OffsetCommitSpanDecoder(), encodeKey(record), value)).toEqual(expected);
  });

  it('leaves other record types, newer value versions and malformed bytes to the registry decoder', () => {
    const decoder = new OffsetCommitSpanDecoder();
    const record = commit('grp', 'orders', 1, {});
    const key = encodeKey(record);
    const value = encodeRecordValue(record, 4)!;
    const groupKey = encodeKey({ kind: 'group-metadata', groupId: 'grp', value: null });
    expect(spanDecode(decoder, groupKey, null)).toBeUndefined();
    const v5 = Buffer.from(value);
    v5.writeInt16BE(5, 0);
    expect(spanDecode(decoder, key, v5)).toBeUndefined();
    expect(decodeRecord(key, v5)).toEqual(record); // the registry reads a newer version with v4's layout
    const cut = value.subarray(0, value.length - 2);
    expect(spanDecode(decoder, key, cut)).toBeUndefined();
    expect(() => decodeRecord(key, cut)).toThrow();
    expect(spanDecode(decoder, key.subarray(0, key.length - 1), value)).toBeUndefined();
    const wrongTopicIdSize = Buffer.concat([value.subarray(0, value.length - 1), Buffer.from([1, 0, 4, 1, 2, 3, 4])]);
    expect(spanDecode(decoder, key, wrongTopicIdSize)).toBeUndefined();
  });
});

describe('forEachRecordSpanOfBatch', () => {
  it('visits the keys and values decodeRecords reads, skipping headers, and throws on the same corruption', () => {
    const batch = encodeRecordBatch({
      baseOffset: 10n,
      timestamp: 1_000n,
      records: [
        { key: Buffer.from('k0'), value: Buffer.from('v0'), headers: [{ key: 'h', value: Buffer.from('x') }, { key: 'n', value: null }] },
        { key: null, value: Buffer.from('v1') },
        { key: Buffer.from('k2'), value: null, timestamp: 2n ** 40n },
      ],
    });
    const spans: Array<[string | null, string | null]> = [];
    forEachRecordSpanOfBatch(batch, (ks, ke, vs, ve) =>
      spans.push([ks < 0 ? null : batch.toString('utf8', ks, ke), vs < 0 ? null : batch.toString('utf8', vs, ve)]),
    );
    expect(spans).toEqual(decodeRecords(batch).map((r) => [r.key?.toString('utf8') ?? null, r.value?.toString('utf8') ?? null]));
    expect(spans).toEqual([['k0', 'v0'], [null, 'v1'], ['k2', null]]);

    const extra = Buffer.from(batch);
    extra.writeInt32BE(2, 57); // record count 2: the third record's bytes follow the last
    expect(() => forEachRecordSpanOfBatch(extra, () => {})).toThrow(CorruptRecordError);
    expect(() => decodeRecords(extra)).toThrow(CorruptRecordError);
  });
});
