/**
 * `__consumer_offsets` records as Kafka 4.3 writes them (`GroupCoordinatorRecordSerde`,
 * `GroupCoordinatorRecordHelpers`): key = int16 record type + key struct (version 0),
 * value = int16 version + value struct; a null value is a tombstone.
 * Written: OffsetCommitValue v4 (flexible, tagged TopicId when known) or v1 when the commit
 * carries an explicit expire timestamp; GroupMetadataValue v3.
 * KIP-848 consumer groups: types 3, 5, 6, 7, 8 and 16 at value version 0; type 4 is read (so
 * replay can note it and the group tombstones it) but never written with a value, as Kafka 4.1+.
 * Read: record types 0/1 (offset commits), 2 (group metadata) and the consumer-group types; others
 * (share and streams groups) are returned as `unknown` so replay can skip them.
 */
import { Reader, Writer } from '../protocol/primitives.js';
import * as OffsetCommitKey from '../records/schemas/OffsetCommitKey.js';
import * as OffsetCommitValue from '../records/schemas/OffsetCommitValue.js';
import * as GroupMetadataKey from '../records/schemas/GroupMetadataKey.js';
import * as GroupMetadataValue from '../records/schemas/GroupMetadataValue.js';
import * as CgMetadataKey from '../records/schemas/ConsumerGroupMetadataKey.js';
import * as CgMetadataValue from '../records/schemas/ConsumerGroupMetadataValue.js';
import * as CgPartitionMetadataKey from '../records/schemas/ConsumerGroupPartitionMetadataKey.js';
import * as CgMemberMetadataKey from '../records/schemas/ConsumerGroupMemberMetadataKey.js';
import * as CgMemberMetadataValue from '../records/schemas/ConsumerGroupMemberMetadataValue.js';
import * as CgTargetMetadataKey from '../records/schemas/ConsumerGroupTargetAssignmentMetadataKey.js';
import * as CgTargetMetadataValue from '../records/schemas/ConsumerGroupTargetAssignmentMetadataValue.js';
import * as CgTargetMemberKey from '../records/schemas/ConsumerGroupTargetAssignmentMemberKey.js';
import * as CgTargetMemberValue from '../records/schemas/ConsumerGroupTargetAssignmentMemberValue.js';
import * as CgCurrentAssignmentKey from '../records/schemas/ConsumerGroupCurrentMemberAssignmentKey.js';
import * as CgCurrentAssignmentValue from '../records/schemas/ConsumerGroupCurrentMemberAssignmentValue.js';
import * as CgRegexKey from '../records/schemas/ConsumerGroupRegularExpressionKey.js';
import * as CgRegexValue from '../records/schemas/ConsumerGroupRegularExpressionValue.js';

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

/** Type 3: the consumer group epoch and subscription metadata hash (KIP-1101). */
export interface ConsumerGroupMetadataRecord {
  kind: 'cg-metadata';
  groupId: string;
  value: CgMetadataValue.ConsumerGroupMetadataValue | null;
}

/** Type 4: pre-4.1 subscription metadata. Read (so it can be tombstoned) but never written with a value. */
export interface ConsumerGroupPartitionMetadataRecord {
  kind: 'cg-partition-metadata';
  groupId: string;
  /** Only tombstones are written; a stored value is not decoded. */
  value: null | { present: true };
}

/** Type 5: a member's subscription and identity. */
export interface ConsumerGroupMemberMetadataRecord {
  kind: 'cg-member-metadata';
  groupId: string;
  memberId: string;
  value: CgMemberMetadataValue.ConsumerGroupMemberMetadataValue | null;
}

/** Type 6: the epoch (and time) of the target assignment. */
export interface ConsumerGroupTargetAssignmentMetadataRecord {
  kind: 'cg-target-metadata';
  groupId: string;
  value: CgTargetMetadataValue.ConsumerGroupTargetAssignmentMetadataValue | null;
}

/** Type 7: a member's target assignment. */
export interface ConsumerGroupTargetAssignmentMemberRecord {
  kind: 'cg-target-member';
  groupId: string;
  memberId: string;
  value: CgTargetMemberValue.ConsumerGroupTargetAssignmentMemberValue | null;
}

/** Type 8: a member's current assignment, epochs and reconciliation state. */
export interface ConsumerGroupCurrentAssignmentRecord {
  kind: 'cg-current-assignment';
  groupId: string;
  memberId: string;
  value: CgCurrentAssignmentValue.ConsumerGroupCurrentMemberAssignmentValue | null;
}

/** Type 16: the topics a subscribed regular expression resolved to. */
export interface ConsumerGroupRegexRecord {
  kind: 'cg-regex';
  groupId: string;
  regex: string;
  value: CgRegexValue.ConsumerGroupRegularExpressionValue | null;
}

export type ConsumerGroupRecord =
  | ConsumerGroupMetadataRecord
  | ConsumerGroupPartitionMetadataRecord
  | ConsumerGroupMemberMetadataRecord
  | ConsumerGroupTargetAssignmentMetadataRecord
  | ConsumerGroupTargetAssignmentMemberRecord
  | ConsumerGroupCurrentAssignmentRecord
  | ConsumerGroupRegexRecord;

export type CoordinatorRecord = OffsetCommitRecord | GroupMetadataRecord | ConsumerGroupRecord;

/** Record types (the key's int16 prefix) from Kafka's `CoordinatorRecordType`. */
export const RecordType = {
  LEGACY_OFFSET_COMMIT: 0,
  OFFSET_COMMIT: 1,
  GROUP_METADATA: 2,
  CONSUMER_GROUP_METADATA: 3,
  CONSUMER_GROUP_PARTITION_METADATA: 4,
  CONSUMER_GROUP_MEMBER_METADATA: 5,
  CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA: 6,
  CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER: 7,
  CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT: 8,
  CONSUMER_GROUP_REGULAR_EXPRESSION: 16,
} as const;

const GROUP_METADATA_VALUE_VERSION = 3;
const OFFSET_COMMIT_VALUE_VERSION = 4;
const OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY = 1;

export function encodeKey(record: CoordinatorRecord): Buffer {
  const w = new Writer(64);
  if (record.kind === 'offset-commit') {
    w.int16(RecordType.OFFSET_COMMIT);
    OffsetCommitKey.encode(w, 0, { group: record.groupId, topic: record.topic, partition: record.partition });
  } else if (record.kind === 'group-metadata') {
    w.int16(RecordType.GROUP_METADATA);
    GroupMetadataKey.encode(w, 0, { group: record.groupId });
  } else {
    encodeConsumerGroupKey(w, record);
  }
  return Buffer.from(w.finish());
}

// KIP-848 keys: int16 type, then the key struct at version 0 (all value versions are 0).
function encodeConsumerGroupKey(w: Writer, record: ConsumerGroupRecord): void {
  const groupId = record.groupId;
  switch (record.kind) {
    case 'cg-metadata':
      w.int16(RecordType.CONSUMER_GROUP_METADATA);
      return CgMetadataKey.encode(w, 0, { groupId });
    case 'cg-partition-metadata':
      w.int16(RecordType.CONSUMER_GROUP_PARTITION_METADATA);
      return CgPartitionMetadataKey.encode(w, 0, { groupId });
    case 'cg-member-metadata':
      w.int16(RecordType.CONSUMER_GROUP_MEMBER_METADATA);
      return CgMemberMetadataKey.encode(w, 0, { groupId, memberId: record.memberId });
    case 'cg-target-metadata':
      w.int16(RecordType.CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA);
      return CgTargetMetadataKey.encode(w, 0, { groupId });
    case 'cg-target-member':
      w.int16(RecordType.CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER);
      return CgTargetMemberKey.encode(w, 0, { groupId, memberId: record.memberId });
    case 'cg-current-assignment':
      w.int16(RecordType.CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT);
      return CgCurrentAssignmentKey.encode(w, 0, { groupId, memberId: record.memberId });
    case 'cg-regex':
      w.int16(RecordType.CONSUMER_GROUP_REGULAR_EXPRESSION);
      return CgRegexKey.encode(w, 0, { groupId, regularExpression: record.regex });
  }
}

function encodeConsumerGroupValue(w: Writer, record: ConsumerGroupRecord): void {
  w.int16(0);
  switch (record.kind) {
    case 'cg-metadata':
      return CgMetadataValue.encode(w, 0, record.value!);
    case 'cg-partition-metadata':
      throw new Error('ConsumerGroupPartitionMetadata values are not written (Kafka 4.1+ writes only its tombstone)');
    case 'cg-member-metadata':
      return CgMemberMetadataValue.encode(w, 0, record.value!);
    case 'cg-target-metadata':
      return CgTargetMetadataValue.encode(w, 0, record.value!);
    case 'cg-target-member':
      return CgTargetMemberValue.encode(w, 0, record.value!);
    case 'cg-current-assignment':
      return CgCurrentAssignmentValue.encode(w, 0, record.value!);
    case 'cg-regex':
      return CgRegexValue.encode(w, 0, record.value!);
  }
}

export function encodeValue(record: CoordinatorRecord): Buffer | null {
  if (record.value === null) return null;
  const w = new Writer(128);
  if (record.kind === 'offset-commit') {
    const version = record.value.expireTimestamp !== -1n ? OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY : OFFSET_COMMIT_VALUE_VERSION;
    w.int16(version);
    OffsetCommitValue.encode(w, version, record.value);
  } else if (record.kind === 'group-metadata') {
    w.int16(GROUP_METADATA_VALUE_VERSION);
    GroupMetadataValue.encode(w, GROUP_METADATA_VALUE_VERSION, record.value);
  } else {
    encodeConsumerGroupValue(w, record);
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
  switch (type) {
    case RecordType.CONSUMER_GROUP_METADATA: {
      const k = CgMetadataKey.decode(kr, 0);
      return { kind: 'cg-metadata', groupId: k.groupId, value: value === null ? null : decodeVersioned(value, CgMetadataValue) };
    }
    case RecordType.CONSUMER_GROUP_PARTITION_METADATA: {
      const k = CgPartitionMetadataKey.decode(kr, 0);
      return { kind: 'cg-partition-metadata', groupId: k.groupId, value: value === null ? null : { present: true } };
    }
    case RecordType.CONSUMER_GROUP_MEMBER_METADATA: {
      const k = CgMemberMetadataKey.decode(kr, 0);
      return { kind: 'cg-member-metadata', groupId: k.groupId, memberId: k.memberId, value: value === null ? null : decodeVersioned(value, CgMemberMetadataValue) };
    }
    case RecordType.CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA: {
      const k = CgTargetMetadataKey.decode(kr, 0);
      return { kind: 'cg-target-metadata', groupId: k.groupId, value: value === null ? null : decodeVersioned(value, CgTargetMetadataValue) };
    }
    case RecordType.CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER: {
      const k = CgTargetMemberKey.decode(kr, 0);
      return { kind: 'cg-target-member', groupId: k.groupId, memberId: k.memberId, value: value === null ? null : decodeVersioned(value, CgTargetMemberValue) };
    }
    case RecordType.CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT: {
      const k = CgCurrentAssignmentKey.decode(kr, 0);
      return { kind: 'cg-current-assignment', groupId: k.groupId, memberId: k.memberId, value: value === null ? null : decodeVersioned(value, CgCurrentAssignmentValue) };
    }
    case RecordType.CONSUMER_GROUP_REGULAR_EXPRESSION: {
      const k = CgRegexKey.decode(kr, 0);
      return { kind: 'cg-regex', groupId: k.groupId, regex: k.regularExpression, value: value === null ? null : decodeVersioned(value, CgRegexValue) };
    }
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
