import { describe, it, expect } from 'vitest';
import { decodeRecord, encodeKey, encodeValue, type CoordinatorRecord } from '../../../src/coordinator/records.js';
import { encodeRecordKey } from '../../../src/records/coordinator-record.js';

describe('__consumer_offsets records', () => {
  it('writes an OffsetCommit key as type 1 + {group, topic, partition}', () => {
    const rec: CoordinatorRecord = { kind: 'offset-commit', groupId: 'g', topic: 't', partition: 2, value: null };
    expect(encodeKey(rec).toString('hex')).toBe('0001' + '0001' + '67' + '0001' + '74' + '00000002');
    expect(encodeValue(rec)).toBeNull();
  });

  it('reuses an OffsetCommit key per group, topic and partition (kept keys and keys past the cache\'s bounds are the bytes the registry encodes)', () => {
    const key = (groupId: string, topic: string, partition: number): Buffer => encodeKey({ kind: 'offset-commit', groupId, topic, partition, value: null });
    const registry = (groupId: string, topic: string, partition: number): string => {
      const record: CoordinatorRecord = { kind: 'offset-commit', groupId, topic, partition, value: null };
      return encodeRecordKey(record).toString('hex');
    };
    expect(key('g', 't', 2)).toBe(key('g', 't', 2));
    expect(key('g', 't', 2)).not.toBe(key('g', 't', 3));
    // More keys than the cache keeps (it starts over), non-ASCII names, partitions it does not keep.
    const names: Array<[string, string, number]> = [];
    for (let i = 0; i < 5000; i++) names.push([`group-${i % 7}`, i % 2 ? 'caf\u00e9' : `topic-${i % 3}`, i]);
    names.push(['g', 't', 70_000], ['g', 't', -1], ['\u{1F600}', 't', 0]);
    for (const [g, t, p] of names) expect(key(g, t, p).toString('hex')).toBe(registry(g, t, p));
    for (const [g, t, p] of names.slice(-50)) expect(key(g, t, p).toString('hex')).toBe(registry(g, t, p));
    expect(decodeRecord(key('caf\u00e9', 'x', 9), null)).toEqual({ kind: 'offset-commit', groupId: 'caf\u00e9', topic: 'x', partition: 9, value: null });
  });

  it('writes OffsetCommitValue v4 with the tagged topic id, v1 when an expire timestamp is set', () => {
    const topicId = Buffer.alloc(16, 7).toString('base64url');
    const base = { offset: 12n, leaderEpoch: 0, metadata: '', commitTimestamp: 1793247619231n, expireTimestamp: -1n, topicId };
    const v4 = encodeValue({ kind: 'offset-commit', groupId: 'g', topic: 't', partition: 1, value: base })!;
    expect(v4.readInt16BE(0)).toBe(4);
    // offset, leaderEpoch, compact metadata "", commitTimestamp, then 1 tagged field: tag 0, size 16, the uuid.
    expect(v4.subarray(2).toString('hex')).toBe(
      '000000000000000c' + '00000000' + '01' + '000001a185e3289f' + '01' + '00' + '10' + '07'.repeat(16),
    );
    const v1 = encodeValue({ kind: 'offset-commit', groupId: 'g', topic: 't', partition: 1, value: { ...base, expireTimestamp: 99n } })!;
    expect(v1.readInt16BE(0)).toBe(1);
    const back = decodeRecord(encodeKey({ kind: 'offset-commit', groupId: 'g', topic: 't', partition: 1, value: null }), v1);
    expect(back).toMatchObject({ kind: 'offset-commit', groupId: 'g', topic: 't', partition: 1, value: { offset: 12n, expireTimestamp: 99n } });
  });

  it('writes GroupMetadataValue v3 and skips record types it does not serve', () => {
    const value = { protocolType: 'consumer', generation: 2, protocol: 'range', leader: 'm1', currentStateTimestamp: 5n, members: [] };
    const bytes = encodeValue({ kind: 'group-metadata', groupId: 'g', value })!;
    expect(bytes.readInt16BE(0)).toBe(3);
    const back = decodeRecord(encodeKey({ kind: 'group-metadata', groupId: 'g', value: null }), bytes);
    expect(back).toEqual({ kind: 'group-metadata', groupId: 'g', value });
    // No 4.3.1 coordinator-record schema has type 18.
    expect(decodeRecord(Buffer.from([0, 18, 0, 1, 0x67]), null)).toEqual({ kind: 'unknown', type: 18 });
  });
});
