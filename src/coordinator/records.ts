/**
 * `__consumer_offsets` records as Kafka 4.3 writes them (`GroupCoordinatorRecordSerde`,
 * `GroupCoordinatorRecordHelpers`): key = int16 record type + key struct (version 0),
 * value = int16 version + value struct; a null value is a tombstone.
 * Written: OffsetCommitValue v4 (flexible, tagged TopicId when known) or v1 when the commit
 * carries an explicit expire timestamp; GroupMetadataValue v3.
 * Read: record types 0/1 (offset commits) and 2 (group metadata); other types (KIP-848,
 * share and streams groups) are returned as `unknown` so replay can skip them.
 */
import { Reader, Writer } from '../protocol/primitives.js';
import * as OffsetCommitKey from '../records/schemas/OffsetCommitKey.js';
import * as OffsetCommitValue from '../records/schemas/OffsetCommitValue.js';
import * as GroupMetadataKey from '../records/schemas/GroupMetadataKey.js';
import * as GroupMetadataValue from '../records/schemas/GroupMetadataValue.js';

export type OffsetCommitValueData = OffsetCommitValue.OffsetCommitValue;
export type GroupMetadataValueData = GroupMetadataValue.GroupMetadataValue;

export interface OffsetCommitRecord {
  kind: 'offset-commit';
  groupId: string;
  topic: string;
  partition: number;
  /** null = tombstone (offset deleted or expired). */
  value: OffsetCommitValueData | null;
}

export interface GroupMetadataRecord {
  kind: 'group-metadata';
  groupId: string;
  /** null = tombstone (group deleted). */
  value: GroupMetadataValueData | null;
}

export type CoordinatorRecord = OffsetCommitRecord | GroupMetadataRecord;

/** Record types (the key's int16 prefix) from Kafka's `CoordinatorRecordType`. */
export const RecordType = {
  LEGACY_OFFSET_COMMIT: 0,
  OFFSET_COMMIT: 1,
  GROUP_METADATA: 2,
} as const;

const GROUP_METADATA_VALUE_VERSION = 3;
const OFFSET_COMMIT_VALUE_VERSION = 4;
const OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY = 1;

export function encodeKey(record: CoordinatorRecord): Buffer {
  const w = new Writer(64);
  if (record.kind === 'offset-commit') {
    w.int16(RecordType.OFFSET_COMMIT);
    OffsetCommitKey.encode(w, 0, { group: record.groupId, topic: record.topic, partition: record.partition });
  } else {
    w.int16(RecordType.GROUP_METADATA);
    GroupMetadataKey.encode(w, 0, { group: record.groupId });
  }
  return Buffer.from(w.finish());
}

export function encodeValue(record: CoordinatorRecord): Buffer | null {
  if (record.value === null) return null;
  const w = new Writer(128);
  if (record.kind === 'offset-commit') {
    const version = record.value.expireTimestamp !== -1n ? OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY : OFFSET_COMMIT_VALUE_VERSION;
    w.int16(version);
    OffsetCommitValue.encode(w, version, record.value);
  } else {
    w.int16(GROUP_METADATA_VALUE_VERSION);
    GroupMetadataValue.encode(w, GROUP_METADATA_VALUE_VERSION, record.value);
  }
  return Buffer.from(w.finish());
}

/** Decodes a stored key/value pair; returns `{ kind: 'unknown', type }` for record types we do not serve. */
export function decodeRecord(key: Buffer, value: Buffer | null): CoordinatorRecord | { kind: 'unknown'; type: number } {
  const kr = new Reader(key);
  const type = kr.int16();
  if (type === RecordType.OFFSET_COMMIT || type === RecordType.LEGACY_OFFSET_COMMIT) {
    const k = OffsetCommitKey.decode(kr, 0);
    return { kind: 'offset-commit', groupId: k.group, topic: k.topic, partition: k.partition, value: value === null ? null : decodeVersioned(value, OffsetCommitValue) };
  }
  if (type === RecordType.GROUP_METADATA) {
    const k = GroupMetadataKey.decode(kr, 0);
    return { kind: 'group-metadata', groupId: k.group, value: value === null ? null : decodeVersioned(value, GroupMetadataValue) };
  }
  return { kind: 'unknown', type };
}

interface VersionedCodec<T> {
  MAX_VERSION: number;
  decode(r: Reader, version: number): T;
}

/** Reads an int16-versioned value; a version newer than we know is read as the newest we know (as Kafka's serde). */
function decodeVersioned<T>(bytes: Buffer, codec: VersionedCodec<T>): T {
  const r = new Reader(bytes);
  const version = r.int16();
  return codec.decode(r, Math.min(version, codec.MAX_VERSION));
}
