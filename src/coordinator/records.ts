/**
 * The `__consumer_offsets` records this server replays, as Kafka 4.3 writes them
 * (`GroupCoordinatorRecordSerde`, `GroupCoordinatorRecordHelpers`): the record types, their codecs
 * and their shapes come from the generated registry (src/records/schemas/record-types.ts, from
 * Kafka's coordinator-record schemas); this file says which families are replayed and which
 * value versions are written.
 * Written: OffsetCommitValue v4 (flexible, tagged TopicId when known) or v1 when the commit
 * carries an explicit expire timestamp; GroupMetadataValue v3; every other value at its newest
 * version. Share groups (KIP-932): types 10-15. Streams groups (KIP-1071): types 17 and 19-23.
 * KIP-848 consumer groups: types 3, 5, 6, 7, 8 and 16; type 4 is read (so replay can
 * note it and the group tombstones it) but never written with a value, as Kafka 4.1+.
 * Read: the types of the replayed families, type 0 (legacy offset commits) as type 1; any other
 * type is returned as `unknown` so replay skips it.
 */
import { defaultOffsetCommitValue } from '../records/schemas/OffsetCommitValue.js';
import type { OffsetCommitValue } from '../records/schemas/OffsetCommitValue.js';
import type { GroupMetadataValue } from '../records/schemas/GroupMetadataValue.js';
import {
  ConsumerOffsetsRecordType,
  type ConsumerOffsetsRecordsByFamily,
  type ConsumerGroupCurrentMemberAssignmentRecord,
  type ConsumerGroupRegularExpressionRecord,
  type LegacyOffsetCommitRecord,
  type OffsetCommitRecord,
} from '../records/schemas/record-types.js';
import { decodeRegistryRecord, encodeRecordKey, encodeRecordValueInto } from '../records/coordinator-record.js';
import { Writer } from '../protocol/primitives.js';
import { offsetCommitKey } from './offsets/offset-commit-keys.js';

export type {
  OffsetCommitRecord,
  GroupMetadataRecord,
  ConsumerGroupRecord,
  ConsumerGroupMetadataRecord,
  ConsumerGroupPartitionMetadataRecord,
  ConsumerGroupMemberMetadataRecord,
  ConsumerGroupTargetAssignmentMetadataRecord,
  ConsumerGroupTargetAssignmentMemberRecord,
  ShareGroupRecord,
  StreamsGroupRecord,
} from '../records/schemas/record-types.js';
/** Type 8 (the registry's `ConsumerGroupCurrentMemberAssignmentRecord`). */
export type ConsumerGroupCurrentAssignmentRecord = ConsumerGroupCurrentMemberAssignmentRecord;
/** Type 16 (the registry's `ConsumerGroupRegularExpressionRecord`). */
export type ConsumerGroupRegexRecord = ConsumerGroupRegularExpressionRecord;
export type OffsetCommitValueData = OffsetCommitValue;
export type GroupMetadataValueData = GroupMetadataValue;

/**
 * The record families whose records are replayed; records of any other type decode as `unknown`,
 * and replay skips them as Kafka skips what it does not know.
 */
const REPLAYED_FAMILIES = ['offsets', 'classic-group', 'consumer-group', 'share-group', 'streams-group'] as const;
const replayed: ReadonlySet<string> = new Set(REPLAYED_FAMILIES);

/** A record of a replayed family (type 0 records are read as type 1 ones). */
export type CoordinatorRecord = Exclude<ConsumerOffsetsRecordsByFamily[(typeof REPLAYED_FAMILIES)[number]], LegacyOffsetCommitRecord>;

/** Record types (the key's int16 prefix) from Kafka's `CoordinatorRecordType`. */
export const RecordType = ConsumerOffsetsRecordType;

const GROUP_METADATA_VALUE_VERSION = 3;
const OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY = 1;

/** The value version Kafka 4.3 writes a record at (`GroupCoordinatorRecordHelpers`); else the newest. */
function writtenValueVersion(record: CoordinatorRecord): number | undefined {
  if (record.kind === 'offset-commit' && record.value !== null && record.value.expireTimestamp !== -1n) return OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY;
  if (record.kind === 'group-metadata') return GROUP_METADATA_VALUE_VERSION;
  return undefined;
}

/** A record's key bytes; an OffsetCommit's come from the key cache (offsets/offset-commit-keys.ts): shared, never to be written to. */
export function encodeKey(record: CoordinatorRecord): Buffer {
  return record.kind === 'offset-commit' ? offsetCommitKey(record) : encodeRecordKey(record);
}

/** Bytes of the value arena; one is replaced by a new one once less than `VALUE_ROOM_BYTES` is left. */
const VALUE_ARENA_BYTES = 64 * 1024;
const VALUE_ROOM_BYTES = 4 * 1024;
/**
 * Values are encoded one after another into one buffer, a new one once it is nearly full (as
 * Node's buffer pool does), never rewound: each value a view of it, not a writer, a pool slice and
 * a view per record (issue #16: on the path of every commit). Never rewound, so a value stays as
 * written until its batch copies it at the end of the turn (group-log.ts).
 */
const valueArena = new Writer(VALUE_ARENA_BYTES);

/** A record's value bytes (null for a tombstone): a view of shared memory, never to be written to. */
export function encodeValue(record: CoordinatorRecord): Buffer | null {
  if (valueArena.buf.length - valueArena.offset < VALUE_ROOM_BYTES) {
    valueArena.buf = Buffer.allocUnsafe(VALUE_ARENA_BYTES);
    valueArena.offset = 0;
  }
  return encodeRecordValueInto(valueArena, record, writtenValueVersion(record));
}

/** Kafka's `GroupCoordinatorShard.convertLegacyOffsetCommitValue`: type 0 is replayed as type 1. */
function fromLegacyOffsetCommit(record: LegacyOffsetCommitRecord): OffsetCommitRecord {
  const { groupId, topic, partition, value } = record;
  return { kind: 'offset-commit', groupId, topic, partition, value: value === null ? null : { ...defaultOffsetCommitValue(), ...value } };
}

/** Decodes a stored key/value pair; returns `{ kind: 'unknown', type }` for record types we do not serve. */
export function decodeRecord(key: Buffer, value: Buffer | null): CoordinatorRecord | { kind: 'unknown'; type: number } {
  const decoded = decodeRegistryRecord('__consumer_offsets', key, value);
  if (decoded.entry === undefined) return { kind: 'unknown', type: decoded.type };
  if (!replayed.has(decoded.entry.family)) return { kind: 'unknown', type: decoded.entry.type };
  const record = decoded.record as CoordinatorRecord | LegacyOffsetCommitRecord;
  return record.kind === 'legacy-offset-commit' ? fromLegacyOffsetCommit(record) : record;
}
