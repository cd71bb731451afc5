/**
 * Coordinator records read and written through the generated registry
 * (src/records/schemas/record-types.ts), as Kafka's `CoordinatorRecordSerde`: the key is the
 * int16 record type then the key struct (version 0), the value the int16 value version then the
 * value struct; a null value is a tombstone. A record is `{ kind, ...key fields, value }` (the
 * registry's record interfaces); kinds are unique across the coordinator logs.
 */
import { Reader, Writer } from '../protocol/primitives.js';
import type { RecordTypeEntry } from './schema-types.js';
import { COORDINATOR_RECORD_TYPES, type CoordinatorLog } from './schemas/record-types.js';

/** The fields every registry record has; its key fields are further properties. */
export interface RegistryRecord {
  readonly kind: string;
  readonly value: unknown;
}

interface Layout {
  readonly entry: RecordTypeEntry;
  /** [key struct field, record property] pairs. */
  readonly keyFields: ReadonlyArray<readonly [string, string]>;
  /**
   * The key struct `encodeRecordKey` fills and encodes, reused: encoding is synchronous and keeps
   * nothing, and every field is set each time (one object of one shape, not one per record written).
   */
  readonly keyScratch: Record<string, unknown>;
}

const layoutsByType = new Map<string, Map<number, Layout>>();
const layoutsByKind = new Map<string, Layout>();
for (const [log, entries] of Object.entries(COORDINATOR_RECORD_TYPES)) {
  const byType = new Map<number, Layout>();
  for (const entry of entries) {
    const layout: Layout = { entry, keyFields: Object.entries(entry.keyFields), keyScratch: {} };
    byType.set(entry.type, layout);
    layoutsByKind.set(entry.kind, layout);
  }
  layoutsByType.set(log, byType);
}

/** The entry of record type `type` of `log`, or undefined for a type Kafka 4.3 does not have. */
export function recordTypeEntry(log: CoordinatorLog, type: number): RecordTypeEntry | undefined {
  return layoutsByType.get(log)?.get(type)?.entry;
}

function layoutOfKind(kind: string): Layout {
  const layout = layoutsByKind.get(kind);
  if (!layout) throw new Error(`no coordinator record type has the kind '${kind}'`);
  return layout;
}

/** The entry whose records have this `kind`; throws for a kind no record type has. */
export function recordTypeOfKind(kind: string): RecordTypeEntry {
  return layoutOfKind(kind).entry;
}

/** The key bytes of a record: its type, then its key fields as the key struct. */
export function encodeRecordKey(record: RegistryRecord): Buffer {
  const { entry, keyFields, keyScratch: key } = layoutOfKind(record.kind);
  const fields = record as unknown as Record<string, unknown>;
  for (let i = 0; i < keyFields.length; i++) key[keyFields[i]![0]] = fields[keyFields[i]![1]];
  const w = new Writer(64);
  w.int16(entry.type);
  entry.key.encode(w, 0, key);
  // The writer's buffer is this record's alone: no copy.
  return w.finish();
}

/**
 * The value bytes of a record at `version` (default: the newest the schema has), or null for a
 * tombstone. Throws RangeError for a version outside the value's versions.
 */
export function encodeRecordValue(record: RegistryRecord, version?: number): Buffer | null {
  return encodeRecordValueInto(new Writer(128), record, version);
}

/**
 * `encodeRecordValue` written into `w` from its offset on: a view of the bytes written (they
 * stay as long as nothing writes over them: `w` is used as an arena, never rewound under a view).
 */
export function encodeRecordValueInto(w: Writer, record: RegistryRecord, version?: number): Buffer | null {
  if (record.value === null) return null;
  const { entry } = layoutOfKind(record.kind);
  const v = version ?? entry.valueVersions[1];
  const start = w.offset;
  w.int16(v);
  entry.value.encode(w, v, record.value);
  return w.buf.subarray(start, w.offset);
}

/** A stored record decoded: its entry, the record, and the version its value was written at. */
export interface DecodedRegistryRecord {
  readonly entry: RecordTypeEntry;
  readonly record: RegistryRecord;
  /** null for a tombstone. */
  readonly valueVersion: number | null;
}

/**
 * Decodes a stored key/value pair of `log`; `{ entry: undefined, type }` for a record type the
 * registry does not have. A value version newer than the schema's newest is read with the
 * newest layout (its unknown tagged fields are skipped); malformed bytes throw.
 */
export function decodeRegistryRecord(log: CoordinatorLog, key: Buffer, value: Buffer | null): DecodedRegistryRecord | { entry: undefined; type: number } {
  const kr = new Reader(key);
  const type = kr.int16();
  const layout = layoutsByType.get(log)?.get(type);
  if (!layout) return { entry: undefined, type };
  const { entry, keyFields } = layout;
  const keyStruct = entry.key.decode(kr, 0) as Record<string, unknown>;
  const record: Record<string, unknown> = { kind: entry.kind };
  for (const [field, property] of keyFields) record[property] = keyStruct[field];
  if (value === null) {
    record['value'] = null;
    return { entry, record: record as unknown as RegistryRecord, valueVersion: null };
  }
  const vr = new Reader(value);
  const valueVersion = vr.int16();
  record['value'] = entry.value.decode(vr, Math.min(valueVersion, entry.value.MAX_VERSION));
  return { entry, record: record as unknown as RegistryRecord, valueVersion };
}
