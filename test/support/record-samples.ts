/**
 * Sample records of every record type of the generated registry
 * (src/records/schemas/record-types.ts), at every value version, built from Kafka's schemas by
 * test/protocol/schema-values.ts (independently of scripts/generate-codecs.mjs): one record per
 * value-generation mode (nulls and empties, extremes, seeded mixes), plus a tombstone per type.
 */
import { join } from 'node:path';
import type { RecordTypeEntry } from '../../src/records/schema-types.js';
import { COORDINATOR_RECORD_TYPES, type CoordinatorLog } from '../../src/records/schemas/record-types.js';
import { SCHEMA_DIR, SchemaValues, loadSchema, type Mode } from '../protocol/schema-values.js';

/** A registry record: `kind`, the key's fields under their record property names, `value`. */
export interface SampleRecord {
  kind: string;
  value: unknown;
  [keyProperty: string]: unknown;
}

export interface RecordSample {
  entry: RecordTypeEntry;
  /** The value version the record is written at; null for a tombstone. */
  valueVersion: number | null;
  mode: Mode | 'tombstone';
  /** What is encoded (fields absent at the version hold values that must not reach the bytes). */
  input: SampleRecord;
  /** What decoding the bytes must give. */
  expected: SampleRecord;
}

const MODES: ReadonlyArray<readonly [number, Mode]> = [
  [1, 'minimal'],
  [2, 'max'],
  [3, 'min'],
  [4, 'random'],
  [5, 'random'],
];

function schemaValues(name: string): SchemaValues {
  return new SchemaValues(loadSchema(join(SCHEMA_DIR, `${name}.json`)));
}

function withKey(entry: RecordTypeEntry, key: Record<string, unknown>, value: unknown): SampleRecord {
  const record: SampleRecord = { kind: entry.kind, value: null };
  for (const [field, property] of Object.entries(entry.keyFields)) record[property] = key[field];
  record.value = value;
  return record;
}

/** Samples of one record type: every value version in every mode, then a tombstone. */
export function recordTypeSamples(entry: RecordTypeEntry): RecordSample[] {
  const keys = schemaValues(`${entry.name}Key`);
  const values = schemaValues(`${entry.name}Value`);
  const out: RecordSample[] = [];
  for (let version = entry.valueVersions[0]; version <= entry.valueVersions[1]; version++) {
    for (const [seed, mode] of MODES) {
      const key = keys.generate(0, seed, mode);
      const value = values.generate(version, seed, mode);
      out.push({ entry, valueVersion: version, mode, input: withKey(entry, key.input, value.input), expected: withKey(entry, key.expected, value.expected) });
    }
  }
  const key = keys.generate(0, 9, 'random');
  out.push({ entry, valueVersion: null, mode: 'tombstone', input: withKey(entry, key.input, null), expected: withKey(entry, key.expected, null) });
  return out;
}

/** Samples of every record type of `log`, in type order. */
export function recordSamples(log: CoordinatorLog): RecordSample[] {
  return COORDINATOR_RECORD_TYPES[log].flatMap(recordTypeSamples);
}
