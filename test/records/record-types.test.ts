/**
 * The registry of coordinator record types (src/records/schemas/record-types.ts, generated from
 * the coordinator-key/value schemas): it lists every record type Kafka 4.3 has, each record type
 * round-trips through src/records/coordinator-record.ts at every value version, and
 * src/coordinator/records.ts serves the replayed families through it.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Writer } from '../../src/protocol/primitives.js';
import { decodeRegistryRecord, encodeRecordKey, encodeRecordValue, recordTypeEntry, recordTypeOfKind } from '../../src/records/coordinator-record.js';
import {
  COORDINATOR_RECORD_TYPES,
  CONSUMER_OFFSETS_RECORD_KINDS,
  SHARE_GROUP_STATE_RECORD_KINDS,
  TRANSACTION_STATE_RECORD_KINDS,
  ConsumerOffsetsRecordType,
  ShareGroupStateRecordType,
  TransactionStateRecordType,
  type CoordinatorLog,
} from '../../src/records/schemas/record-types.js';
import * as LegacyOffsetCommitKey from '../../src/records/schemas/LegacyOffsetCommitKey.js';
import * as LegacyOffsetCommitValue from '../../src/records/schemas/LegacyOffsetCommitValue.js';
import { decodeRecord, encodeKey, encodeValue, RecordType, type CoordinatorRecord } from '../../src/coordinator/records.js';
import { SCHEMA_DIR, loadSchema, parseRange } from '../protocol/schema-values.js';
import { recordSamples, recordTypeSamples } from '../support/record-samples.js';

const LOGS = Object.keys(COORDINATOR_RECORD_TYPES) as CoordinatorLog[];

describe('the record-type registry', () => {
  it("has one entry per coordinator-key schema, with the schema's record type, codecs and value versions", () => {
    const keySchemas = readdirSync(SCHEMA_DIR)
      .filter((f) => f.endsWith('Key.json'))
      .map((f) => loadSchema(join(SCHEMA_DIR, f)))
      .filter((s) => s.type === 'coordinator-key');
    const entries = LOGS.flatMap((log) => COORDINATOR_RECORD_TYPES[log]);
    expect(entries.map((e) => `${e.name}Key`).sort()).toEqual(keySchemas.map((s) => s.name).sort());
    for (const e of entries) {
      const key = loadSchema(join(SCHEMA_DIR, `${e.name}Key.json`));
      const value = loadSchema(join(SCHEMA_DIR, `${e.name}Value.json`));
      expect(e.type, e.name).toBe(key.apiKey);
      expect(value.apiKey, e.name).toBe(key.apiKey);
      expect(e.valueVersions, e.name).toEqual(parseRange(value.validVersions));
      expect([e.value.MIN_VERSION, e.value.MAX_VERSION], e.name).toEqual(e.valueVersions);
      expect(recordTypeEntry(e.log as CoordinatorLog, e.type)).toBe(e);
      expect(recordTypeOfKind(e.kind)).toBe(e);
    }
  });

  it("numbers and names the types of each log as Kafka 4.3's CoordinatorRecordType enums do", () => {
    // org.apache.kafka.coordinator.{group,share,transaction}.generated.CoordinatorRecordType in the 4.3.1 jars.
    expect(ConsumerOffsetsRecordType).toMatchObject({
      LEGACY_OFFSET_COMMIT: 0,
      OFFSET_COMMIT: 1,
      GROUP_METADATA: 2,
      CONSUMER_GROUP_METADATA: 3,
      CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT: 8,
      SHARE_GROUP_MEMBER_METADATA: 10,
      SHARE_GROUP_STATE_PARTITION_METADATA: 15,
      CONSUMER_GROUP_REGULAR_EXPRESSION: 16,
      STREAMS_GROUP_METADATA: 17,
      STREAMS_GROUP_TOPOLOGY: 23,
    });
    // Kafka 4.3 has no types 9 and 18 (its CoordinatorRecordType.fromId refuses them).
    expect(COORDINATOR_RECORD_TYPES['__consumer_offsets'].map((e) => e.type)).not.toContain(9);
    expect(COORDINATOR_RECORD_TYPES['__consumer_offsets'].map((e) => e.type)).not.toContain(18);
    expect(ShareGroupStateRecordType).toEqual({ SHARE_SNAPSHOT: 0, SHARE_UPDATE: 1 });
    expect(TransactionStateRecordType).toEqual({ TRANSACTION_LOG: 0 });
    const families = (log: CoordinatorLog): Record<string, string[]> => {
      const out: Record<string, string[]> = {};
      for (const e of COORDINATOR_RECORD_TYPES[log]) (out[e.family] ??= []).push(e.name);
      return out;
    };
    expect(Object.keys(families('__consumer_offsets'))).toEqual(['offsets', 'classic-group', 'consumer-group', 'share-group', 'streams-group']);
    expect(families('__consumer_offsets')['offsets']).toEqual(['LegacyOffsetCommit', 'OffsetCommit']);
    expect(families('__share_group_state')).toEqual({ 'share-state': ['ShareSnapshot', 'ShareUpdate'] });
    expect(families('__transaction_state')).toEqual({ transaction: ['TransactionLog'] });
    for (const [log, kinds] of [['__consumer_offsets', CONSUMER_OFFSETS_RECORD_KINDS], ['__share_group_state', SHARE_GROUP_STATE_RECORD_KINDS], ['__transaction_state', TRANSACTION_STATE_RECORD_KINDS]] as const) {
      const byFamily: Record<string, string[]> = {};
      for (const e of COORDINATOR_RECORD_TYPES[log]) (byFamily[e.family] ??= []).push(e.kind);
      expect(kinds).toEqual(byFamily);
    }
  });

  it('keeps the record kinds and key property names records.ts has always served', () => {
    const kinds = Object.fromEntries(COORDINATOR_RECORD_TYPES['__consumer_offsets'].map((e) => [e.type, [e.kind, e.keyFields]]));
    expect(kinds[1]).toEqual(['offset-commit', { group: 'groupId', topic: 'topic', partition: 'partition' }]);
    expect(kinds[2]).toEqual(['group-metadata', { group: 'groupId' }]);
    expect(kinds[16]).toEqual(['cg-regex', { groupId: 'groupId', regularExpression: 'regex' }]);
    expect([3, 4, 5, 6, 7, 8].map((t) => kinds[t]![0])).toEqual(['cg-metadata', 'cg-partition-metadata', 'cg-member-metadata', 'cg-target-metadata', 'cg-target-member', 'cg-current-assignment']);
    expect(kinds[10]).toEqual(['share-group-member-metadata', { groupId: 'groupId', memberId: 'memberId' }]);
    expect(recordTypeEntry('__share_group_state', 0)!.keyFields).toEqual({ groupId: 'groupId', topicId: 'topicId', partition: 'partition' });
    expect(recordTypeEntry('__transaction_state', 0)!.kind).toBe('transaction-log');
  });
});

for (const log of LOGS) {
  describe(`${log} records round-trip`, () => {
    for (const entry of COORDINATOR_RECORD_TYPES[log]) {
      it(`type ${entry.type} (${entry.name}), value versions ${entry.valueVersions.join('-')} and a tombstone`, () => {
        const samples = recordTypeSamples(entry);
        expect(samples).toHaveLength((entry.valueVersions[1] - entry.valueVersions[0] + 1) * 5 + 1);
        for (const s of samples) {
          const key = encodeRecordKey(s.input);
          expect(key.readInt16BE(0)).toBe(entry.type);
          const value = encodeRecordValue(s.input, s.valueVersion ?? undefined);
          if (s.valueVersion === null) expect(value).toBeNull();
          else expect(value!.readInt16BE(0)).toBe(s.valueVersion);
          const decoded = decodeRegistryRecord(log, key, value);
          expect(decoded.entry, `${entry.name} ${s.mode}`).toBe(entry);
          if (decoded.entry === undefined) continue;
          expect(decoded.valueVersion).toBe(s.valueVersion);
          expect(decoded.record, `${entry.name} v${s.valueVersion} ${s.mode}`).toStrictEqual(s.expected);
          // What was decoded encodes to the same bytes.
          expect(encodeRecordKey(decoded.record).equals(key)).toBe(true);
          if (value !== null) expect(encodeRecordValue(decoded.record, s.valueVersion!)!.equals(value)).toBe(true);
        }
      });
    }
  });
}

describe('reading records', () => {
  it('returns the type of a record type the log does not have', () => {
    expect(decodeRegistryRecord('__consumer_offsets', Buffer.from([0, 9, 0, 0]), null)).toEqual({ entry: undefined, type: 9 });
    expect(decodeRegistryRecord('__transaction_state', Buffer.from([0, 1, 0, 0]), null)).toEqual({ entry: undefined, type: 1 });
  });

  it('reads a value version newer than the schema with the newest layout', () => {
    const [sample] = recordTypeSamples(recordTypeEntry('__consumer_offsets', RecordType.OFFSET_COMMIT)!).filter((s) => s.valueVersion === 4 && s.mode === 'max');
    const value = encodeRecordValue(sample!.input, 4)!;
    value.writeInt16BE(5, 0);
    const decoded = decodeRegistryRecord('__consumer_offsets', encodeRecordKey(sample!.input), value);
    expect(decoded.entry?.name).toBe('OffsetCommit');
    expect(decoded).toMatchObject({ valueVersion: 5, record: sample!.expected });
  });
});

describe('records.ts through the registry', () => {
  it('decodes every record type of the replayed families as the registry does, and the others as unknown', () => {
    // The families replayed today: offsets (type 0 is read as type 1, below), classic, consumer, share and streams groups.
    const replayedFamilies = new Set(['offsets', 'classic-group', 'consumer-group', 'share-group', 'streams-group']);
    const replayed = new Set(COORDINATOR_RECORD_TYPES['__consumer_offsets'].filter((e) => replayedFamilies.has(e.family) && e.type !== RecordType.LEGACY_OFFSET_COMMIT).map((e) => e.kind));
    expect(replayed).toContain('cg-regex');
    expect(replayed).toContain('share-group-state-partition-metadata');
    expect(replayed).toContain('streams-group-topology');
    const seen = new Set<string>();
    for (const s of recordSamples('__consumer_offsets')) {
      const decoded = decodeRecord(encodeRecordKey(s.input), encodeRecordValue(s.input, s.valueVersion ?? undefined));
      if (s.entry.type === RecordType.LEGACY_OFFSET_COMMIT) continue;
      if (replayed.has(s.entry.kind)) {
        expect(decoded, `${s.entry.name} ${s.mode}`).toStrictEqual(s.expected);
        seen.add(s.entry.kind);
      } else {
        expect(decoded).toEqual({ kind: 'unknown', type: s.entry.type });
      }
    }
    expect(seen).toEqual(replayed);
  });

  it('reads a type 0 (legacy) offset commit as a type 1 one, as GroupCoordinatorShard.replay', () => {
    const key = new Writer(32);
    key.int16(0);
    LegacyOffsetCommitKey.encode(key, 0, { group: 'g', topic: 't', partition: 3 });
    const value = new Writer(32);
    value.int16(0);
    LegacyOffsetCommitValue.encode(value, 0, { offset: 42n, metadata: 'm', commitTimestamp: 7n });
    expect(decodeRecord(Buffer.from(key.finish()), Buffer.from(value.finish()))).toStrictEqual({
      kind: 'offset-commit',
      groupId: 'g',
      topic: 't',
      partition: 3,
      value: { offset: 42n, leaderEpoch: -1, metadata: 'm', commitTimestamp: 7n, expireTimestamp: -1n, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' },
    });
    expect(decodeRecord(Buffer.from(key.finish()), null)).toStrictEqual({ kind: 'offset-commit', groupId: 'g', topic: 't', partition: 3, value: null });
  });

  it('writes values at the versions Kafka 4.3 writes: OffsetCommit v4 (v1 with an expire timestamp), GroupMetadata v3, the others at their newest', () => {
    const written = (r: CoordinatorRecord): number => encodeValue(r)!.readInt16BE(0);
    const commit = { offset: 1n, leaderEpoch: 0, metadata: '', commitTimestamp: 2n, expireTimestamp: -1n, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' };
    expect(written({ kind: 'offset-commit', groupId: 'g', topic: 't', partition: 0, value: commit })).toBe(4);
    expect(written({ kind: 'offset-commit', groupId: 'g', topic: 't', partition: 0, value: { ...commit, expireTimestamp: 9n } })).toBe(1);
    expect(written({ kind: 'group-metadata', groupId: 'g', value: { protocolType: '', generation: 0, protocol: null, leader: null, currentStateTimestamp: -1n, members: [] } })).toBe(3);
    expect(written({ kind: 'cg-metadata', groupId: 'g', value: { epoch: 1, metadataHash: 0n } })).toBe(0);
    const regex: CoordinatorRecord = { kind: 'cg-regex', groupId: 'g', regex: 'r.*', value: { topics: [], version: 1n, timestamp: 2n } };
    expect(encodeKey(regex).equals(encodeRecordKey(regex))).toBe(true);
    expect(encodeValue(regex)!.equals(encodeRecordValue(regex, 0)!)).toBe(true);
  });
});
