/**
 * Test helpers that read Kafka's message JSON schemas (schemas/*.json) directly — independently of
 * scripts/generate-codecs.mjs — and build seeded pseudo-random values for any (schema, version),
 * together with the value a decoder must return for them (fields absent at that version replaced by
 * their schema defaults).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SCHEMA_DIR = join(ROOT, 'schemas');
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

export interface FieldSpec {
  name: string;
  type: string;
  versions?: string;
  nullableVersions?: string;
  taggedVersions?: string;
  flexibleVersions?: string;
  tag?: number;
  default?: string | number | boolean | null;
  fields?: FieldSpec[];
}

export interface MessageSpec {
  name: string;
  type: string;
  apiKey?: number;
  validVersions: string;
  flexibleVersions?: string;
  fields: FieldSpec[];
  commonStructs?: Array<{ name: string; fields: FieldSpec[] }>;
}

export type Range = readonly [number, number];

/** Parses "3+", "1-4", "2", "none" into [min, max] (max Infinity), or null for none/absent. */
export function parseRange(text: string | undefined): Range | null {
  if (text === undefined || text === '' || text === 'none') return null;
  if (text.endsWith('+')) return [Number(text.slice(0, -1)), Infinity];
  const dash = text.indexOf('-');
  if (dash > 0) return [Number(text.slice(0, dash)), Number(text.slice(dash + 1))];
  return [Number(text), Number(text)];
}

export function inRange(range: Range | null, version: number): boolean {
  return range !== null && version >= range[0] && version <= range[1];
}

/** Kafka's FieldSpec: a field that names no versions exists in its tagged versions. */
function withVersions(fields: FieldSpec[] | undefined): void {
  for (const f of fields ?? []) {
    if (f.versions === undefined && f.taggedVersions !== undefined) f.versions = f.taggedVersions;
    withVersions(f.fields);
  }
}

/** Reads one schema file: Kafka's schemas carry `//` comment lines, which are stripped before JSON.parse. */
export function loadSchema(file: string): MessageSpec {
  const text = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => !line.trim().startsWith('//'))
    .join('\n');
  const spec = JSON.parse(text) as MessageSpec;
  withVersions(spec.fields);
  for (const s of spec.commonStructs ?? []) withVersions(s.fields);
  return spec;
}

export interface LoadedSchema {
  file: string;
  spec: MessageSpec;
  versions: number[];
  /** Path of the generated module, relative to the repository root. */
  modulePath: string;
}

export function loadAllSchemas(): LoadedSchema[] {
  return readdirSync(SCHEMA_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const spec = loadSchema(join(SCHEMA_DIR, file));
      const valid = parseRange(spec.validVersions);
      if (!valid || !Number.isFinite(valid[1])) throw new Error(`${file}: bad validVersions ${spec.validVersions}`);
      const versions: number[] = [];
      for (let v = valid[0]; v <= valid[1]; v++) versions.push(v);
      const isApi = spec.type === 'request' || spec.type === 'response' || spec.type === 'header';
      const modulePath = isApi ? `src/protocol/messages/${spec.name}.ts` : `src/records/schemas/${spec.name}.ts`;
      return { file, spec, versions, modulePath };
    });
}

export const camel = (name: string): string => name.charAt(0).toLowerCase() + name.slice(1);

// ---------------------------------------------------------------------------------------------
// Seeded PRNG (mulberry32)

export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** Uniform 32-bit unsigned integer. */
  u32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** Uniform float in [0, 1). */
  next(): number {
    return this.u32() / 0x1_0000_0000;
  }
  /** Integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.u32() & 0xff;
    return b;
  }
  int64(): bigint {
    return BigInt.asIntN(64, (BigInt(this.u32()) << 32n) | BigInt(this.u32()));
  }
}

// ---------------------------------------------------------------------------------------------
// Value generation

/**
 * How values are chosen:
 *  - minimal: null wherever nullable, empty arrays/strings/bytes, zeros; tagged fields left at default.
 *  - max / min: the largest / smallest value of every integer type, non-empty arrays, non-null values.
 *  - random: a seeded mix of everything above; tagged fields always non-default.
 */
export type Mode = 'minimal' | 'max' | 'min' | 'random';

export const UNICODE_SAMPLES = [
  'héllo wörld',
  '日本語のトピック',
  'emoji 🦄🚀👩‍💻',
  'Ω≈ç√∫˜µ≤≥÷',
  'Ελληνικά и кириллица',
  'e\u0301 combining',
  'nul\u0000inside',
  'ascii-topic_1.2',
];

/** Strings used inside tagged fields (longer tagged values are covered in roundtrip.test.ts). */
export const SMALL_SAMPLES = ['é', '日本', '🦄', 'k1', 'Ωx', 'a tagged string of more than sixty-four bytes, to make the tag writer grow'];

const INT_LIMITS: Record<string, [number, number]> = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-2147483648, 2147483647],
};

export type Value = unknown;

export interface Generated {
  /** The value handed to `encode`. Fields absent at the version hold random junk that must be ignored. */
  input: Record<string, Value>;
  /** What `decode` must return: `input` for fields present at the version, defaults for the rest. */
  expected: Record<string, Value>;
}

export class SchemaValues {
  readonly structs = new Map<string, FieldSpec[]>();
  readonly valid: Range;
  readonly flexible: Range | null;

  constructor(readonly spec: MessageSpec) {
    this.valid = parseRange(spec.validVersions)!;
    this.flexible = parseRange(spec.flexibleVersions);
    for (const s of spec.commonStructs ?? []) this.collect(s.name, s.fields);
    this.collect(spec.name, spec.fields ?? []);
  }

  private collect(name: string, fields: FieldSpec[]): void {
    if (!this.structs.has(name)) this.structs.set(name, fields);
    for (const f of fields) {
      if (f.fields) this.collect(elementType(f.type), f.fields);
    }
  }

  isFlexible(version: number): boolean {
    return inRange(this.flexible, version);
  }

  structFields(name: string): FieldSpec[] {
    const fields = this.structs.get(name);
    if (!fields) throw new Error(`${this.spec.name}: unknown struct ${name}`);
    return fields;
  }

  /** Whether `field` is on the wire at `version` (inline, or in the tagged block). */
  present(field: FieldSpec, version: number): boolean {
    if (!inRange(parseRange(field.versions), version)) return false;
    const tagged = parseRange(field.taggedVersions);
    if (tagged) return inRange(tagged, version) && this.isFlexible(version);
    return true;
  }

  isTagged(field: FieldSpec): boolean {
    return parseRange(field.taggedVersions) !== null;
  }

  nullableAt(field: FieldSpec, version: number): boolean {
    return inRange(parseRange(field.nullableVersions), version);
  }

  /** Kafka's default for a field: its "default" attribute, else zero/empty/default struct. */
  defaultFor(field: FieldSpec): Value {
    const d = field.default;
    const isNull = d === null || d === 'null';
    const t = field.type;
    if (t.startsWith('[]')) return isNull ? null : [];
    if (t === 'bytes' || t === 'records') return isNull ? null : Buffer.alloc(0);
    if (t === 'string') return isNull ? null : String(d ?? '');
    if (t === 'bool') return d === true || d === 'true';
    if (t === 'int64') return d === undefined ? 0n : BigInt(d as string | number);
    if (t in INT_LIMITS || t === 'float64') return d === undefined ? 0 : Number(d);
    if (t === 'uuid') return ZERO_UUID;
    return isNull ? null : this.defaultStruct(t);
  }

  defaultStruct(name: string): Record<string, Value> {
    const out: Record<string, Value> = {};
    for (const f of this.structFields(name)) out[camel(f.name)] = this.defaultFor(f);
    return out;
  }

  /** Generates a value of the top-level message at `version`. */
  generate(version: number, seed: number, mode: Mode): Generated {
    const rng = new Rng(seed * 7919 + version * 104729 + 17);
    return new ValueBuilder(this, rng, mode, version).struct(this.spec.name, 0);
  }
}

export function elementType(type: string): string {
  return type.startsWith('[]') ? type.slice(2) : type;
}

const SCALARS = new Set(['bool', 'int8', 'int16', 'uint16', 'int32', 'int64', 'float64', 'uuid', 'string', 'bytes', 'records']);

class ValueBuilder {
  /** > 0 while generating the value of a tagged field. */
  private small = 0;

  constructor(
    private readonly sv: SchemaValues,
    private readonly rng: Rng,
    private readonly mode: Mode,
    private readonly version: number,
  ) {}

  struct(name: string, depth: number): Generated {
    const input: Record<string, Value> = {};
    const expected: Record<string, Value> = {};
    for (const f of this.sv.structFields(name)) {
      const key = camel(f.name);
      if (this.sv.present(f, this.version)) {
        const g = this.field(f, depth);
        input[key] = g.input;
        expected[key] = g.expected;
      } else {
        // Absent at this version: put a non-default value in, which must not reach the wire.
        const junk = this.absentJunk(f, depth);
        input[key] = junk;
        expected[key] = this.sv.defaultFor(f);
      }
    }
    return { input, expected };
  }

  private absentJunk(f: FieldSpec, depth: number): Value {
    const t = f.type;
    if (t.startsWith('[]')) {
      const elem = t.slice(2);
      if (SCALARS.has(elem)) return [this.scalar(elem, f, false)];
      return [this.struct(elem, depth + 1).input];
    }
    if (SCALARS.has(t)) return this.nonDefaultScalar(t, f);
    return this.struct(t, depth + 1).input;
  }

  private field(f: FieldSpec, depth: number): { input: Value; expected: Value } {
    if (!this.sv.isTagged(f)) return this.fieldValue(f, depth, false);
    // Tagged values are kept small (under 64 encoded bytes): see SMALL_SAMPLES.
    this.small++;
    try {
      return this.fieldValue(f, depth, true);
    } finally {
      this.small--;
    }
  }

  private fieldValue(f: FieldSpec, depth: number, tagged: boolean): { input: Value; expected: Value } {
    const nullable = this.sv.nullableAt(f, this.version);
    const t = f.type;
    if (nullable && this.wantNull(tagged)) return { input: null, expected: null };
    if (this.mode === 'minimal' && tagged) {
      // Tagged fields left at their default are omitted from the tagged block.
      const d = this.sv.defaultFor(f);
      if (d === null || SCALARS.has(elementType(t)) || t.startsWith('[]')) return { input: d, expected: this.sv.defaultFor(f) };
    }
    if (t.startsWith('[]')) {
      const elem = t.slice(2);
      const n = this.arrayLength(tagged, depth);
      const input: Value[] = [];
      const expected: Value[] = [];
      for (let i = 0; i < n; i++) {
        if (SCALARS.has(elem)) {
          const v = this.scalar(elem, f, false);
          input.push(v);
          expected.push(v);
        } else {
          const g = this.struct(elem, depth + 1);
          input.push(g.input);
          expected.push(g.expected);
        }
      }
      return { input, expected };
    }
    if (SCALARS.has(t)) {
      const v = tagged ? this.nonDefaultScalar(t, f) : this.scalar(t, f, false);
      return { input: v, expected: v };
    }
    return this.struct(t, depth + 1);
  }

  private wantNull(tagged: boolean): boolean {
    switch (this.mode) {
      case 'minimal': return true;
      case 'max':
      case 'min': return false;
      case 'random': return tagged ? false : this.rng.chance(0.3);
    }
  }

  private arrayLength(tagged: boolean, depth: number): number {
    const cap = depth >= 3 || this.small > 0 ? 1 : 3;
    switch (this.mode) {
      case 'minimal': return 0;
      case 'max': return cap === 1 ? 1 : 2;
      case 'min': return 1;
      case 'random': return tagged ? this.rng.int(1, cap) : this.rng.int(0, cap);
    }
  }

  private nonDefaultScalar(t: string, f: FieldSpec): Value {
    const d = this.sv.defaultFor(f);
    if (t === 'bool') return !d;
    for (let attempt = 0; attempt < 20; attempt++) {
      // In max/min mode the extreme may happen to be the default: fall back to random values.
      const v = this.scalar(t, f, true, attempt === 0 ? this.mode : 'random');
      if (!sameScalar(v, d)) return v;
    }
    throw new Error(`could not make a non-default ${t} for ${f.name}`);
  }

  scalar(t: string, f: FieldSpec, forceNonEmpty: boolean, mode: Mode = this.mode): Value {
    const rng = this.rng;
    const limits = INT_LIMITS[t];
    if (limits) {
      if (mode === 'max') return limits[1];
      if (mode === 'min') return limits[0];
      if (mode === 'minimal' && !forceNonEmpty) return 0;
      return rng.pick([limits[0], limits[1], 0, 1, -1 < limits[0] ? 2 : -1, rng.int(limits[0], limits[1])]);
    }
    switch (t) {
      case 'bool':
        if (mode === 'minimal' && !forceNonEmpty) return false;
        if (mode === 'max' || mode === 'min') return mode === 'max';
        return rng.chance(0.5);
      case 'int64':
        if (mode === 'max') return INT64_MAX;
        if (mode === 'min') return INT64_MIN;
        if (mode === 'minimal' && !forceNonEmpty) return 0n;
        return rng.pick([INT64_MIN, INT64_MAX, -1n, 0n, 2n ** 53n + 1n, rng.int64()]);
      case 'float64':
        if (mode === 'max') return Number.MAX_VALUE;
        if (mode === 'min') return -Number.MAX_VALUE;
        if (mode === 'minimal' && !forceNonEmpty) return 0;
        return rng.pick([Math.PI, -1.5e-300, Number.MIN_VALUE, rng.next() * 1e9]);
      case 'uuid':
        if (mode === 'minimal' && !forceNonEmpty) return ZERO_UUID;
        return rng.bytes(16).toString('base64url');
      case 'string':
        if (mode === 'minimal' && !forceNonEmpty) return '';
        return this.string();
      case 'bytes':
      case 'records':
        if (mode === 'minimal' && !forceNonEmpty) return Buffer.alloc(0);
        return rng.bytes(rng.int(forceNonEmpty || mode !== 'random' ? 1 : 0, this.small > 0 ? 4 : 24));
      default:
        throw new Error(`${f.name}: not a scalar type ${t}`);
    }
  }

  private string(): string {
    const rng = this.rng;
    if (this.small > 0) return rng.pick(SMALL_SAMPLES);
    if (rng.chance(0.5)) return rng.pick(UNICODE_SAMPLES);
    const ranges: Array<[number, number]> = [[0x20, 0x7e], [0xa0, 0x24f], [0x4e00, 0x9fff], [0x1f300, 0x1f64f], [0x10000, 0x1007f]];
    let s = '';
    const n = rng.int(1, 12);
    for (let i = 0; i < n; i++) {
      const [lo, hi] = rng.pick(ranges);
      s += String.fromCodePoint(rng.int(lo, hi));
    }
    return s;
  }
}

function sameScalar(a: Value, b: Value): boolean {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  return a === b;
}
