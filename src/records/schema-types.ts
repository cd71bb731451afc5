/**
 * The shapes scripts/generate-codecs.mjs gives the modules it writes under src/records/schemas:
 * each record schema's field list (what Kafka's generated `*JsonConverter` classes walk,
 * `generator/.../JsonConverterGenerator.java`) and each coordinator record type's registry entry
 * (what Kafka's generated `CoordinatorRecordType` enums hold).
 */
import type { Reader, Writer } from '../protocol/primitives.js';

/** A version range of a schema; `[lo, Infinity]` for an open one ("3+"). */
export type VersionRange = readonly [number, number];

/** A field's type as in Kafka's message JSON: a primitive, an array, or a struct. */
export type SchemaFieldType =
  | 'bool' | 'int8' | 'int16' | 'uint16' | 'int32' | 'int64' | 'float64'
  | 'string' | 'bytes' | 'records' | 'uuid'
  | { readonly array: SchemaFieldType }
  | {
      readonly struct: readonly SchemaField[];
      /** The generated reader of this struct (Kafka's generated `read`). */
      readonly read: (r: Reader, version: number) => unknown;
    };

/** One field of a schema (Kafka's `FieldSpec`), in schema order. */
export interface SchemaField {
  /** camelCase name: the JSON key and the property of the decoded object. */
  readonly name: string;
  readonly type: SchemaFieldType;
  /** Versions in which the field exists (its tagged versions when the schema names none, as `FieldSpec`). */
  readonly versions: VersionRange;
  readonly nullableVersions?: VersionRange;
  /** Versions in which the field is a tagged field, with its tag. */
  readonly taggedVersions?: VersionRange;
  readonly tag?: number;
  /** The schema's `default`, parsed for the type (int64 as bigint); absent = the type's zero. */
  readonly default?: number | bigint | boolean | string | null;
}

/** A generated schema module: its version range, field list and codec. */
export interface SchemaCodec<T = unknown> {
  readonly MIN_VERSION: number;
  readonly MAX_VERSION: number;
  readonly FIELDS: readonly SchemaField[];
  decode(r: Reader, version: number): T;
  encode(w: Writer, version: number, value: T): void;
}

/**
 * One record type of a coordinator log (Kafka's generated `CoordinatorRecordType` entry): the
 * key is `int16 type` + the key struct at version 0, the value `int16 version` + the value struct.
 */
export interface RecordTypeEntry {
  /** The log the records are written to: `__consumer_offsets`, `__share_group_state`, `__transaction_state`. */
  readonly log: string;
  /** The record type: the key's int16 prefix (the schemas' `apiKey`). */
  readonly type: number;
  /** Kafka's name, e.g. `ConsumerGroupMetadata` (the schemas are `<name>Key` and `<name>Value`). */
  readonly name: string;
  /** Kafka's `CoordinatorRecordType` constant, e.g. `CONSUMER_GROUP_METADATA`. */
  readonly constant: string;
  /** The group of record types one coordinator replays together, e.g. `consumer-group`, `offsets`. */
  readonly family: string;
  /** The `kind` of the TypeScript record (src/records/schemas/record-types.ts's record interfaces). */
  readonly kind: string;
  /** The key's fields (schema name, camelCase) and the record property each is kept in. */
  readonly keyFields: Readonly<Record<string, string>>;
  readonly key: SchemaCodec;
  readonly value: SchemaCodec;
  /** The value versions Kafka reads (`lowestSupportedVersion`..`highestSupportedVersion`). */
  readonly valueVersions: VersionRange;
}
