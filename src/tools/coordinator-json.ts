/**
 * Coordinator records as JSON, the way Kafka 4.3's log dumper prints them
 * (`org.apache.kafka.tools.DumpLogSegments.CoordinatorRecordMessageParser` and its
 * `OffsetsMessageParser`, `TransactionLogMessageParser`, `ShareGroupStateMessageParser`): records
 * are read with the log's `CoordinatorRecordSerde` and turned into JSON by the generated
 * `*JsonConverter` classes (`generator/.../JsonConverterGenerator.java`), then printed with
 * Jackson's `ObjectNode.toString()`. Every record type of the generated registry
 * (src/records/schemas/record-types.ts) is printed by walking its schema's field list:
 *   key:     {"type":"<record type>","data":{...key fields...}}
 *   payload: {"version":"<value version>","data":{...value fields...}}   or <DELETE> for a tombstone
 * In `__consumer_offsets`, GroupMetadataValue members of a `consumer` protocol group get their
 * `subscription` and `assignment` bytes replaced by the decoded ConsumerProtocolSubscription/Assignment (the bytes
 * stay base64 when they do not parse).
 *
 * The JSON converter rules followed (JsonConverterGenerator):
 * - fields absent from the version are left out; fields in field (schema) order;
 * - a tagged field is written only when it differs from its default (`FieldSpec.
 *   generateNonDefaultValueCheck`; for a nullable struct whose default is null the check is "null
 *   or not equal to an empty struct", so a null struct prints `null` and an empty one is left out);
 * - null strings/bytes/arrays/structs print `null`; int64 prints as a JSON number (exact);
 *   bytes print base64 with padding (Jackson's BinaryNode); uuids print Kafka's base64url text.
 * - strings are escaped as Jackson does: `"` `\` and control characters (\b \t \n \f \r short
 *   forms, others \u00XX in upper-case hex); everything else is written as is.
 */
import { Reader, ZERO_UUID } from '../protocol/primitives.js';
import type { SchemaCodec, SchemaField, SchemaFieldType, VersionRange } from '../records/schema-types.js';
import { recordTypeEntry } from '../records/coordinator-record.js';
import { ConsumerOffsetsRecordType, type CoordinatorLog } from '../records/schemas/record-types.js';
import * as ConsumerProtocolSubscription from '../records/schemas/ConsumerProtocolSubscription.js';
import * as ConsumerProtocolAssignment from '../records/schemas/ConsumerProtocolAssignment.js';

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

const inRange = (range: VersionRange | undefined, version: number): boolean => range !== undefined && version >= range[0] && version <= range[1];

function zeroOf(type: SchemaFieldType): unknown {
  if (type === 'int64') return 0n;
  if (type === 'string') return '';
  if (type === 'uuid') return ZERO_UUID;
  if (type === 'bool') return false;
  if (type === 'bytes' || type === 'records') return Buffer.alloc(0);
  if (typeof type === 'object' && 'array' in type) return [];
  if (typeof type === 'object' && 'struct' in type) return null;
  return 0;
}

const defaultOf = (field: SchemaField): unknown => (field.default !== undefined ? field.default : zeroOf(field.type));

/** Whether a struct equals a new one (Kafka's `x.equals(new X())`): every field at its default. */
function isDefaultStruct(fields: readonly SchemaField[], value: Record<string, unknown>): boolean {
  return fields.every((f) => sameAsDefault(f.type, value[f.name], defaultOf(f)));
}

function sameAsDefault(type: SchemaFieldType, v: unknown, d: unknown): boolean {
  if (typeof type === 'object' && 'array' in type) return d === null ? v === null : Array.isArray(v) && v.length === 0;
  if (typeof type === 'object' && 'struct' in type) return v !== null && typeof v === 'object' && isDefaultStruct(type.struct, v as Record<string, unknown>);
  if (type === 'bytes' || type === 'records') return d === null ? v === null : Buffer.isBuffer(v) && v.length === 0;
  if (type === 'int64') return typeof v === 'bigint' && v === BigInt(d as bigint);
  return v === d;
}

/** Whether a tagged field is written: the generated "non-default value" check. */
function taggedIsWritten(field: SchemaField, v: unknown): boolean {
  const d = defaultOf(field);
  const type = field.type;
  if (typeof type === 'object' && 'struct' in type) {
    // `if (x == null || !x.equals(new Struct()))`; undefined = the tag was absent (an empty struct).
    if (v === undefined) return false;
    return v === null || !isDefaultStruct(type.struct, v as Record<string, unknown>);
  }
  const empty = (typeof type === 'object' && 'array' in type) || type === 'bytes' || type === 'records';
  if (empty) {
    if (d === null) return v !== null && v !== undefined;
    return v === null ? field.nullableVersions !== undefined : (v as { length: number }).length > 0;
  }
  if (type === 'int64') return BigInt(v as bigint) !== BigInt(d as bigint);
  return v !== d;
}

/** A float64 as Jackson's DoubleNode prints it (Java's `Double.toString`) for the usual values. */
function doubleJson(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e7) return v.toFixed(1);
  return String(v);
}

function fieldJson(type: SchemaFieldType, v: unknown, version: number): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof RawJson) return v.text;
  if (typeof type === 'object') {
    if ('array' in type) return '[' + (v as unknown[]).map((e) => fieldJson(type.array, e, version)).join(',') + ']';
    return structJson(type.struct, v as Record<string, unknown>, version);
  }
  switch (type) {
    case 'int8':
    case 'int16':
    case 'uint16':
    case 'int32':
      return String(v);
    case 'int64':
      return BigInt(v as bigint).toString();
    case 'float64':
      return doubleJson(v as number);
    case 'bool':
      return v ? 'true' : 'false';
    case 'string':
    case 'uuid':
      return jacksonString(v as string);
    case 'bytes':
    case 'records':
      return jacksonString((v as Buffer).toString('base64'));
  }
}

function structJson(fields: readonly SchemaField[], value: Record<string, unknown>, version: number): string {
  const parts: string[] = [];
  for (const f of fields) {
    if (!inRange(f.versions, version)) continue;
    const v = value[f.name];
    if (inRange(f.taggedVersions, version) && !taggedIsWritten(f, v)) continue;
    parts.push(jacksonString(f.name) + ':' + fieldJson(f.type, v, version));
  }
  return '{' + parts.join(',') + '}';
}

// ---------------------------------------------------------------------------------------------
// Decoding with our generated codecs

type StructReader = (r: Reader, version: number) => unknown;

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

  constructor(buf: Buffer, private readonly structTags: ReadonlyMap<number, StructReader>, private readonly version: number) {
    super(buf);
  }

  // The generated codecs read tags through `taggedFieldsInto`: here it goes through `taggedFields`, which watches them.
  override taggedFieldsInto<T>(value: T, version: number, onTag: (r: Reader, tag: number, value: T, version: number) => boolean): void {
    this.taggedFields((tag) => onTag(this, tag, value, version));
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

/** The struct fields tagged at `version` among `fields`, by tag. */
function taggedStructs(fields: readonly SchemaField[], version: number): SchemaField[] {
  return fields.filter((f) => f.tag !== undefined && inRange(f.taggedVersions, version) && typeof f.type === 'object' && 'struct' in f.type);
}

/** Thrown for a record type we have no schema for (Kafka's `UnknownRecordTypeException`). */
export class UnknownRecordTypeError extends Error {
  constructor(readonly unknownType: number) {
    super(`Found an unknown record type ${unknownType}`);
  }
}

/** Replaces a consumer-protocol member's bytes field by its decoded JSON; keeps the bytes when they do not parse. */
function consumerProtocolJson(bytes: Buffer, codec: SchemaCodec): RawJson | Buffer {
  try {
    const r = new Reader(bytes);
    const version = r.int16();
    // Kafka reads newer versions with the newest layout it knows (generated read does not refuse them).
    const readVersion = Math.min(Math.max(version, codec.MIN_VERSION), codec.MAX_VERSION);
    if (version < codec.MIN_VERSION) return bytes;
    const data = codec.decode(r, readVersion) as Record<string, unknown>;
    return new RawJson(structJson(codec.FIELDS, data, version));
  } catch {
    return bytes;
  }
}

/** `OffsetsMessageParser.prepareGroupMetadataValue`: a consumer group's member bytes, decoded. */
function withConsumerProtocolMembers(data: Record<string, unknown>): void {
  if (data['protocolType'] !== 'consumer' || !Array.isArray(data['members'])) return;
  data['members'] = (data['members'] as Array<Record<string, unknown>>).map((m) => ({
    ...m,
    subscription: consumerProtocolJson(m['subscription'] as Buffer, ConsumerProtocolSubscription),
    assignment: consumerProtocolJson(m['assignment'] as Buffer, ConsumerProtocolAssignment),
  }));
}

export interface FormattedRecord {
  /** The text after `key: ` (absent for a record without a key). */
  key?: string;
  /** The text after `payload: ` (absent when Kafka prints none, e.g. an unknown record type). */
  payload?: string;
}

/** The record type (key version) of a coordinator record key. */
export function recordType(key: Buffer): number {
  return key.readInt16BE(0);
}

/** `CoordinatorRecordSerde.readMessage`: a read failure names the version and the buffer. */
function readMessage<T>(version: number, buffer: 'key' | 'value', read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw new Error(`Could not read record with version ${version} from ${buffer}'s buffer due to: ${(err as Error).message}.`);
  }
}

/** `{"type":"N","data":{...}}` for a key of `log`. Throws UnknownRecordTypeError for types we do not know. */
export function keyJson(key: Buffer, log: CoordinatorLog = '__consumer_offsets'): string {
  if (key.length < 2) throw new Error("Could not read version from key's buffer.");
  const r = new Reader(key);
  const type = r.int16();
  const entry = recordTypeEntry(log, type);
  if (!entry) throw new UnknownRecordTypeError(type);
  const data = readMessage(type, 'key', () => entry.key.decode(r, 0)) as Record<string, unknown>;
  return `{"type":${jacksonString(String(type))},"data":${structJson(entry.key.FIELDS, data, 0)}}`;
}

/** `{"version":"N","data":{...}}` for the value of a record of `type` in `log`. */
export function valueJson(type: number, value: Buffer, log: CoordinatorLog = '__consumer_offsets'): string {
  const entry = recordTypeEntry(log, type);
  if (!entry) throw new UnknownRecordTypeError(type);
  if (value.length < 2) throw new Error("Could not read version from value's buffer.");
  const version = value.readInt16BE(0);
  const { value: codec } = entry;
  if (version < codec.MIN_VERSION || version > codec.MAX_VERSION) {
    throw new Error(`Found an unknown record version ${version} for ${type} type`);
  }
  const structTags = taggedStructs(codec.FIELDS, version);
  const r = new KafkaTagReader(value, new Map(structTags.map((f) => [f.tag!, (f.type as { read: StructReader }).read])), version);
  r.int16();
  const data = readMessage(version, 'value', () => codec.decode(r, version)) as Record<string, unknown>;
  for (const f of structTags) {
    // Absent tag: Kafka's default, an empty struct (left out of the JSON); present: null or the struct.
    data[f.name] = r.topLevelTags.has(f.tag!) ? r.structTagValues.get(f.tag!) : undefined;
  }
  if (log === '__consumer_offsets' && type === ConsumerOffsetsRecordType.GROUP_METADATA) withConsumerProtocolMembers(data);
  return `{"version":${jacksonString(String(version))},"data":${structJson(codec.FIELDS, data, version)}}`;
}

/**
 * What DumpLogSegments' CoordinatorRecordMessageParser prints for a record of `log`: the key
 * JSON and the payload JSON (`<DELETE>` for a tombstone); for an unknown record type the key
 * text is `Unknown record type N at offset O, skipping.` and there is no payload; any other
 * decoding problem gives `Error at offset O, skipping. <message>`.
 */
export function formatCoordinatorRecord(log: CoordinatorLog, key: Buffer | null, value: Buffer | null, offset: bigint): FormattedRecord {
  if (key === null) {
    // Kafka throws here and the tool stops; we print the same message and carry on.
    return { key: `Failed to decode message at offset ${offset} using the specified decoder (message had a missing key)` };
  }
  try {
    const k = keyJson(key, log);
    const payload = value === null ? '<DELETE>' : valueJson(recordType(key), value, log);
    return { key: k, payload };
  } catch (err) {
    if (err instanceof UnknownRecordTypeError) {
      return { key: `Unknown record type ${err.unknownType} at offset ${offset}, skipping.` };
    }
    return { key: `Error at offset ${offset}, skipping. ${(err as Error).message}` };
  }
}

/** `formatCoordinatorRecord` for `__consumer_offsets` (`kafka-dump-log.sh --offsets-decoder`). */
export function formatOffsetsRecord(key: Buffer | null, value: Buffer | null, offset: bigint): FormattedRecord {
  return formatCoordinatorRecord('__consumer_offsets', key, value, offset);
}
