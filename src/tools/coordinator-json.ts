/**
 * `__consumer_offsets` records as JSON, the way Kafka 4.3's log dumper prints them
 * (`org.apache.kafka.tools.DumpLogSegments.OffsetsMessageParser`): records are read with
 * `GroupCoordinatorRecordSerde` and turned into JSON by the generated `*JsonConverter`
 * classes (`generator/.../JsonConverterGenerator.java`), then printed with Jackson's
 * `ObjectNode.toString()`:
 *   key:     {"type":"<record type>","data":{...key fields...}}
 *   payload: {"version":"<value version>","data":{...value fields...}}   or <DELETE> for a tombstone
 * GroupMetadataValue members of a `consumer` protocol group get their `subscription` and
 * `assignment` bytes replaced by the decoded ConsumerProtocolSubscription/Assignment (the bytes
 * stay base64 when they do not parse).
 *
 * The JSON converter rules followed (JsonConverterGenerator):
 * - fields absent from the version are left out; fields in field (schema) order;
 * - a tagged field is written only when it differs from its default (for a nullable struct whose
 *   default is null the generated check is "null or not equal to an empty struct", so a null
 *   struct prints `null` and an empty one is left out);
 * - null strings/bytes/arrays/structs print `null`; int64 prints as a JSON number (exact);
 *   bytes print base64 with padding (Jackson's BinaryNode); uuids print Kafka's base64url text.
 * - strings are escaped as Jackson does: `"` `\` and control characters (\b \t \n \f \r short
 *   forms, others \u00XX in upper-case hex); everything else is written as is.
 */
import { Reader, ZERO_UUID } from '../protocol/primitives.js';
import * as OffsetCommitKey from '../records/schemas/OffsetCommitKey.js';
import * as OffsetCommitValue from '../records/schemas/OffsetCommitValue.js';
import * as GroupMetadataKey from '../records/schemas/GroupMetadataKey.js';
import * as GroupMetadataValue from '../records/schemas/GroupMetadataValue.js';
import * as ConsumerGroupMetadataKey from '../records/schemas/ConsumerGroupMetadataKey.js';
import * as ConsumerGroupMetadataValue from '../records/schemas/ConsumerGroupMetadataValue.js';
import * as ConsumerGroupPartitionMetadataKey from '../records/schemas/ConsumerGroupPartitionMetadataKey.js';
import * as ConsumerGroupPartitionMetadataValue from '../records/schemas/ConsumerGroupPartitionMetadataValue.js';
import * as ConsumerGroupMemberMetadataKey from '../records/schemas/ConsumerGroupMemberMetadataKey.js';
import * as ConsumerGroupMemberMetadataValue from '../records/schemas/ConsumerGroupMemberMetadataValue.js';
import * as ConsumerGroupTargetAssignmentMetadataKey from '../records/schemas/ConsumerGroupTargetAssignmentMetadataKey.js';
import * as ConsumerGroupTargetAssignmentMetadataValue from '../records/schemas/ConsumerGroupTargetAssignmentMetadataValue.js';
import * as ConsumerGroupTargetAssignmentMemberKey from '../records/schemas/ConsumerGroupTargetAssignmentMemberKey.js';
import * as ConsumerGroupTargetAssignmentMemberValue from '../records/schemas/ConsumerGroupTargetAssignmentMemberValue.js';
import * as ConsumerGroupCurrentMemberAssignmentKey from '../records/schemas/ConsumerGroupCurrentMemberAssignmentKey.js';
import * as ConsumerGroupCurrentMemberAssignmentValue from '../records/schemas/ConsumerGroupCurrentMemberAssignmentValue.js';
import * as ConsumerGroupRegularExpressionKey from '../records/schemas/ConsumerGroupRegularExpressionKey.js';
import * as ConsumerGroupRegularExpressionValue from '../records/schemas/ConsumerGroupRegularExpressionValue.js';
import * as ConsumerProtocolSubscription from '../records/schemas/ConsumerProtocolSubscription.js';
import * as ConsumerProtocolAssignment from '../records/schemas/ConsumerProtocolAssignment.js';

/** A field type of a schema, as in Kafka's message JSON. */
type FieldType =
  | 'int8' | 'int16' | 'int32' | 'int64' | 'bool' | 'string' | 'bytes' | 'uuid'
  | { array: FieldType }
  | { struct: Field[] };

interface Field {
  /** Kafka's camelCase name (the JSON key, and the property of our decoded objects). */
  name: string;
  type: FieldType;
  /** Versions in which the field exists; default all. */
  min?: number;
  max?: number;
  /** Tagged in every version where it exists (all tagged fields of these schemas are). */
  tagged?: boolean;
  /** Default of a tagged field (numbers, bigint, string, null); absent = the type's zero. */
  default?: number | bigint | string | null;
  /** Tag number of a tagged field. */
  tag?: number;
}

const int32Array: FieldType = { array: 'int32' };
const stringArray: FieldType = { array: 'string' };

const GROUP_ID: Field = { name: 'groupId', type: 'string' };
const MEMBER_ID: Field = { name: 'memberId', type: 'string' };
const OFFSET_COMMIT_KEY: Field[] = [
  { name: 'group', type: 'string' },
  { name: 'topic', type: 'string' },
  { name: 'partition', type: 'int32' },
];

/** Keys by record type (key version). */
const KEY_SCHEMAS: Record<number, Field[]> = {
  0: OFFSET_COMMIT_KEY,
  1: OFFSET_COMMIT_KEY,
  2: [{ name: 'group', type: 'string' }],
  3: [GROUP_ID],
  4: [GROUP_ID],
  5: [GROUP_ID, MEMBER_ID],
  6: [GROUP_ID],
  7: [GROUP_ID, MEMBER_ID],
  8: [GROUP_ID, MEMBER_ID],
  16: [GROUP_ID, { name: 'regularExpression', type: 'string' }],
};

const OFFSET_COMMIT_VALUE: Field[] = [
  { name: 'offset', type: 'int64' },
  { name: 'leaderEpoch', type: 'int32', min: 3 },
  { name: 'metadata', type: 'string' },
  { name: 'commitTimestamp', type: 'int64' },
  { name: 'expireTimestamp', type: 'int64', min: 1, max: 1 },
  { name: 'topicId', type: 'uuid', min: 4, tagged: true, default: ZERO_UUID },
];

const GROUP_METADATA_VALUE: Field[] = [
  { name: 'protocolType', type: 'string' },
  { name: 'generation', type: 'int32' },
  { name: 'protocol', type: 'string' },
  { name: 'leader', type: 'string' },
  { name: 'currentStateTimestamp', type: 'int64', min: 2 },
  {
    name: 'members',
    type: {
      array: {
        struct: [
          { name: 'memberId', type: 'string' },
          { name: 'groupInstanceId', type: 'string', min: 3 },
          { name: 'clientId', type: 'string' },
          { name: 'clientHost', type: 'string' },
          { name: 'rebalanceTimeout', type: 'int32', min: 1 },
          { name: 'sessionTimeout', type: 'int32' },
          { name: 'subscription', type: 'bytes' },
          { name: 'assignment', type: 'bytes' },
        ],
      },
    },
  },
];

const TOPIC_PARTITIONS_WITH_EPOCHS: FieldType = {
  array: {
    struct: [
      { name: 'topicId', type: 'uuid' },
      { name: 'partitions', type: int32Array },
      { name: 'assignmentEpochs', type: int32Array, tagged: true, default: null },
    ],
  },
};

/** Values by record type. */
const VALUE_SCHEMAS: Record<number, Field[]> = {
  0: OFFSET_COMMIT_VALUE,
  1: OFFSET_COMMIT_VALUE,
  2: GROUP_METADATA_VALUE,
  3: [
    { name: 'epoch', type: 'int32' },
    { name: 'metadataHash', type: 'int64', tagged: true, default: 0n },
  ],
  4: [
    {
      name: 'topics',
      type: {
        array: {
          struct: [
            { name: 'topicId', type: 'uuid' },
            { name: 'topicName', type: 'string' },
            { name: 'numPartitions', type: 'int32' },
            {
              name: 'partitionMetadata',
              type: { array: { struct: [{ name: 'partition', type: 'int32' }, { name: 'racks', type: stringArray }] } },
            },
          ],
        },
      },
    },
  ],
  5: [
    { name: 'instanceId', type: 'string' },
    { name: 'rackId', type: 'string' },
    { name: 'clientId', type: 'string' },
    { name: 'clientHost', type: 'string' },
    { name: 'subscribedTopicNames', type: stringArray },
    { name: 'subscribedTopicRegex', type: 'string' },
    { name: 'rebalanceTimeoutMs', type: 'int32' },
    { name: 'serverAssignor', type: 'string' },
    {
      // Kafka's generated class starts this field as an empty struct (not null) and its JSON
      // converter leaves an empty struct out: a record without tag 0 prints no
      // classicMemberMetadata, one whose tag 0 holds null prints `"classicMemberMetadata":null`
      // (what Kafka writes for members of the consumer protocol).
      name: 'classicMemberMetadata',
      tagged: true,
      tag: 0,
      default: null,
      type: {
        struct: [
          { name: 'sessionTimeoutMs', type: 'int32' },
          {
            name: 'supportedProtocols',
            type: { array: { struct: [{ name: 'name', type: 'string' }, { name: 'metadata', type: 'bytes' }] } },
          },
        ],
      },
    },
  ],
  6: [
    { name: 'assignmentEpoch', type: 'int32' },
    { name: 'assignmentTimestamp', type: 'int64', tagged: true, default: 0n },
  ],
  7: [
    {
      name: 'topicPartitions',
      type: { array: { struct: [{ name: 'topicId', type: 'uuid' }, { name: 'partitions', type: int32Array }] } },
    },
  ],
  8: [
    { name: 'memberEpoch', type: 'int32' },
    { name: 'previousMemberEpoch', type: 'int32' },
    { name: 'state', type: 'int8' },
    { name: 'assignedPartitions', type: TOPIC_PARTITIONS_WITH_EPOCHS },
    { name: 'partitionsPendingRevocation', type: TOPIC_PARTITIONS_WITH_EPOCHS },
  ],
  16: [
    { name: 'topics', type: stringArray },
    { name: 'version', type: 'int64' },
    { name: 'timestamp', type: 'int64' },
  ],
};

const CONSUMER_PROTOCOL_SUBSCRIPTION: Field[] = [
  { name: 'topics', type: stringArray },
  { name: 'userData', type: 'bytes' },
  {
    name: 'ownedPartitions',
    min: 1,
    type: { array: { struct: [{ name: 'topic', type: 'string' }, { name: 'partitions', type: int32Array }] } },
  },
  { name: 'generationId', type: 'int32', min: 2 },
  { name: 'rackId', type: 'string', min: 3 },
];

const CONSUMER_PROTOCOL_ASSIGNMENT: Field[] = [
  {
    name: 'assignedPartitions',
    type: { array: { struct: [{ name: 'topic', type: 'string' }, { name: 'partitions', type: int32Array }] } },
  },
  { name: 'userData', type: 'bytes' },
];

// ---------------------------------------------------------------------------------------------
// JSON text as Jackson writes it

/** A JSON string literal escaped as Jackson's default escaping does. */
export function jacksonString(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(start, i);
    start = i + 1;
    switch (c) {
      case 0x22: out += '\\"'; break;
      case 0x5c: out += '\\\\'; break;
      case 0x08: out += '\\b'; break;
      case 0x09: out += '\\t'; break;
      case 0x0a: out += '\\n'; break;
      case 0x0c: out += '\\f'; break;
      case 0x0d: out += '\\r'; break;
      default: out += '\\u00' + c.toString(16).toUpperCase().padStart(2, '0');
    }
  }
  return out + s.slice(start) + '"';
}

/** Raw JSON text kept as is inside a larger document (a replaced sub-document). */
class RawJson {
  constructor(readonly text: string) {}
}

function present(field: Field, version: number): boolean {
  return version >= (field.min ?? 0) && version <= (field.max ?? Number.MAX_SAFE_INTEGER);
}

function zeroOf(type: FieldType): unknown {
  if (type === 'int64') return 0n;
  if (type === 'string') return '';
  if (type === 'uuid') return ZERO_UUID;
  if (type === 'bool') return false;
  if (type === 'bytes') return Buffer.alloc(0);
  if (typeof type === 'object' && 'array' in type) return [];
  if (typeof type === 'object' && 'struct' in type) return null;
  return 0;
}

function isDefaultStruct(fields: Field[], value: Record<string, unknown>): boolean {
  for (const f of fields) {
    const v = value[f.name];
    const d = f.default !== undefined ? f.default : zeroOf(f.type);
    if (!sameAsDefault(f.type, v, d, fields)) return false;
  }
  return true;
}

function sameAsDefault(type: FieldType, v: unknown, d: unknown, _parent: Field[]): boolean {
  if (typeof type === 'object' && 'array' in type) return d === null ? v === null : Array.isArray(v) && v.length === 0;
  if (typeof type === 'object' && 'struct' in type) return v !== null && typeof v === 'object' && isDefaultStruct(type.struct, v as Record<string, unknown>);
  if (type === 'bytes') return d === null ? v === null : Buffer.isBuffer(v) && v.length === 0;
  return v === d;
}

/** Whether a tagged field is written: the generated "non-default value" check. */
function taggedIsWritten(field: Field, v: unknown): boolean {
  const d = field.default !== undefined ? field.default : zeroOf(field.type);
  const type = field.type;
  if (typeof type === 'object' && 'struct' in type) {
    // `if (x == null || !x.equals(new Struct()))`; undefined = the tag was absent (an empty struct).
    if (v === undefined) return false;
    return v === null || !isDefaultStruct(type.struct, v as Record<string, unknown>);
  }
  if (typeof type === 'object' && 'array' in type) return d === null ? v !== null && v !== undefined : Array.isArray(v) && v.length > 0;
  if (type === 'bytes') return d === null ? v !== null && v !== undefined : Buffer.isBuffer(v) && v.length > 0;
  if (type === 'int64') return BigInt(v as bigint) !== BigInt(d as bigint);
  return v !== d;
}

function fieldJson(type: FieldType, v: unknown, version: number): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof RawJson) return v.text;
  if (typeof type === 'object') {
    if ('array' in type) return '[' + (v as unknown[]).map((e) => fieldJson(type.array, e, version)).join(',') + ']';
    return structJson(type.struct, v as Record<string, unknown>, version);
  }
  switch (type) {
    case 'int8':
    case 'int16':
    case 'int32':
      return String(v);
    case 'int64':
      return BigInt(v as bigint).toString();
    case 'bool':
      return v ? 'true' : 'false';
    case 'string':
    case 'uuid':
      return jacksonString(v as string);
    case 'bytes':
      return jacksonString((v as Buffer).toString('base64'));
  }
}

function structJson(fields: Field[], value: Record<string, unknown>, version: number): string {
  const parts: string[] = [];
  for (const f of fields) {
    if (!present(f, version)) continue;
    const v = value[f.name];
    if (f.tagged && !taggedIsWritten(f, v)) continue;
    parts.push(jacksonString(f.name) + ':' + fieldJson(f.type, v, version));
  }
  return '{' + parts.join(',') + '}';
}

// ---------------------------------------------------------------------------------------------
// Decoding with our generated codecs

/**
 * A Reader that notes which tags the outermost struct carried (its tagged-field block is the
 * last one read outside any tag, so each such block starts the set afresh) and reads the
 * outermost struct's nullable tagged structs the way Kafka does: an unsigned varint presence
 * marker (0 = null, >0 = present) rather than the int8 of untagged nullable structs.
 */
class KafkaTagReader extends Reader {
  private depth = 0;
  readonly topLevelTags = new Set<number>();
  readonly structTagValues = new Map<number, unknown>();

  constructor(buf: Buffer, private readonly structTags: ReadonlyMap<number, (r: Reader, version: number) => unknown>, private readonly version: number) {
    super(buf);
  }

  override taggedFields(onTag: (tag: number) => boolean): void {
    const depth = this.depth;
    if (depth === 0) {
      this.topLevelTags.clear();
      this.structTagValues.clear();
    }
    super.taggedFields((tag) => {
      if (depth === 0) this.topLevelTags.add(tag);
      const readStruct = depth === 0 ? this.structTags.get(tag) : undefined;
      this.depth++;
      try {
        if (readStruct) {
          this.structTagValues.set(tag, this.uvarint() > 0 ? readStruct(this, this.version) : null);
          return true;
        }
        return onTag(tag);
      } finally {
        this.depth--;
      }
    });
  }
}

/** Readers of the nullable tagged structs of each value type, by tag. */
const VALUE_STRUCT_TAGS: Record<number, ReadonlyMap<number, (r: Reader, version: number) => unknown>> = {
  5: new Map([[0, (r: Reader, v: number) => ConsumerGroupMemberMetadataValue.readClassicMemberMetadata(r, v)]]),
};
const NO_STRUCT_TAGS: ReadonlyMap<number, (r: Reader, version: number) => unknown> = new Map();

interface Codec {
  MIN_VERSION: number;
  MAX_VERSION: number;
  decode(r: Reader, version: number): unknown;
}

const KEY_CODECS: Record<number, Codec> = {
  0: OffsetCommitKey,
  1: OffsetCommitKey,
  2: GroupMetadataKey,
  3: ConsumerGroupMetadataKey,
  4: ConsumerGroupPartitionMetadataKey,
  5: ConsumerGroupMemberMetadataKey,
  6: ConsumerGroupTargetAssignmentMetadataKey,
  7: ConsumerGroupTargetAssignmentMemberKey,
  8: ConsumerGroupCurrentMemberAssignmentKey,
  16: ConsumerGroupRegularExpressionKey,
};

const VALUE_CODECS: Record<number, Codec> = {
  0: OffsetCommitValue,
  1: OffsetCommitValue,
  2: GroupMetadataValue,
  3: ConsumerGroupMetadataValue,
  4: ConsumerGroupPartitionMetadataValue,
  5: ConsumerGroupMemberMetadataValue,
  6: ConsumerGroupTargetAssignmentMetadataValue,
  7: ConsumerGroupTargetAssignmentMemberValue,
  8: ConsumerGroupCurrentMemberAssignmentValue,
  16: ConsumerGroupRegularExpressionValue,
};

/** The record types this dumper decodes (Kafka 4.3 also knows share (9-15) and streams (17+) records). */
export const KNOWN_RECORD_TYPES: readonly number[] = Object.keys(KEY_CODECS).map(Number);

/** Thrown for a record type we have no schema for (Kafka's `UnknownRecordTypeException`). */
export class UnknownRecordTypeError extends Error {
  constructor(readonly unknownType: number) {
    super(`Unknown record type ${unknownType}`);
  }
}

/** Replaces a consumer-protocol member's bytes field by its decoded JSON; keeps the bytes when they do not parse. */
function consumerProtocolJson(bytes: Buffer, codec: Codec, fields: Field[]): RawJson | Buffer {
  try {
    const r = new Reader(bytes);
    const version = r.int16();
    // Kafka reads newer versions with the newest layout it knows (generated read does not refuse them).
    const readVersion = Math.min(Math.max(version, codec.MIN_VERSION), codec.MAX_VERSION);
    if (version < codec.MIN_VERSION) return bytes;
    const data = codec.decode(r, readVersion) as Record<string, unknown>;
    return new RawJson(structJson(fields, data, version));
  } catch {
    return bytes;
  }
}

export interface FormattedRecord {
  /** The text after `key: ` (absent for a record without a key). */
  key?: string;
  /** The text after `payload: ` (absent when Kafka prints none, e.g. an unknown record type). */
  payload?: string;
}

/** The record type (key version) of a `__consumer_offsets` key. */
export function recordType(key: Buffer): number {
  return key.readInt16BE(0);
}

/** `{"type":"N","data":{...}}` for a key. Throws UnknownRecordTypeError for types we do not know. */
export function keyJson(key: Buffer): string {
  const r = new Reader(key);
  const type = r.int16();
  const codec = KEY_CODECS[type];
  const schema = KEY_SCHEMAS[type];
  if (!codec || !schema) throw new UnknownRecordTypeError(type);
  const data = codec.decode(r, 0) as Record<string, unknown>;
  return `{"type":${jacksonString(String(type))},"data":${structJson(schema, data, 0)}}`;
}

/** `{"version":"N","data":{...}}` for the value of a record of `type`. */
export function valueJson(type: number, value: Buffer): string {
  const codec = VALUE_CODECS[type];
  const schema = VALUE_SCHEMAS[type];
  if (!codec || !schema) throw new UnknownRecordTypeError(type);
  const version = value.length >= 2 ? value.readInt16BE(0) : -1;
  const r = new KafkaTagReader(value, VALUE_STRUCT_TAGS[type] ?? NO_STRUCT_TAGS, version);
  r.int16();
  if (version < codec.MIN_VERSION || version > codec.MAX_VERSION) {
    throw new Error(`Unknown version ${version} of value for record type ${type}`);
  }
  const data = codec.decode(r, version) as Record<string, unknown>;
  for (const f of schema) {
    if (f.tag === undefined || !(typeof f.type === 'object' && 'struct' in f.type)) continue;
    // Absent tag: Kafka's default, an empty struct (left out of the JSON); present: null or the struct.
    data[f.name] = r.topLevelTags.has(f.tag) ? r.structTagValues.get(f.tag) : undefined;
  }
  if (type === 2 && data['protocolType'] === 'consumer' && Array.isArray(data['members'])) {
    data['members'] = (data['members'] as Array<Record<string, unknown>>).map((m) => ({
      ...m,
      subscription: consumerProtocolJson(m['subscription'] as Buffer, ConsumerProtocolSubscription, CONSUMER_PROTOCOL_SUBSCRIPTION),
      assignment: consumerProtocolJson(m['assignment'] as Buffer, ConsumerProtocolAssignment, CONSUMER_PROTOCOL_ASSIGNMENT),
    }));
  }
  return `{"version":${jacksonString(String(version))},"data":${structJson(schema, data, version)}}`;
}

/**
 * What DumpLogSegments' OffsetsMessageParser prints for a record: the key JSON and the payload
 * JSON (`<DELETE>` for a tombstone); for an unknown record type the key text is
 * `Unknown record type N at offset O, skipping.` and there is no payload; any other decoding
 * problem gives `Error at offset O, skipping. <message>`.
 */
export function formatOffsetsRecord(key: Buffer | null, value: Buffer | null, offset: bigint): FormattedRecord {
  if (key === null) {
    // Kafka throws here and the tool stops; we print the same message and carry on.
    return { key: `Failed to decode message at offset ${offset} using the specified decoder (message had a missing key)` };
  }
  try {
    if (key.length < 2) throw new Error(`key of ${key.length} bytes has no record type`);
    const type = recordType(key);
    const k = keyJson(key);
    const payload = value === null ? '<DELETE>' : valueJson(type, value);
    return { key: k, payload };
  } catch (err) {
    if (err instanceof UnknownRecordTypeError) {
      return { key: `Unknown record type ${err.unknownType} at offset ${offset}, skipping.` };
    }
    return { key: `Error at offset ${offset}, skipping. ${(err as Error).message}` };
  }
}
