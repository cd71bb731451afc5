/**
 * Round-trip tests for every generated codec (src/protocol/messages, src/records/schemas), driven
 * straight from the JSON schemas in schemas/: for every schema and every valid version, seeded values
 * are encoded, decoded, and compared; plus hand-computed byte vectors, truncation, and a staleness
 * check of the committed generated files.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { MalformedFrameError, Reader, Writer } from '../../src/protocol/primitives.js';
import * as ApiVersionsRequest from '../../src/protocol/messages/ApiVersionsRequest.js';
import * as ApiVersionsResponse from '../../src/protocol/messages/ApiVersionsResponse.js';
import * as ConsumerGroupHeartbeatResponse from '../../src/protocol/messages/ConsumerGroupHeartbeatResponse.js';
import * as FetchRequest from '../../src/protocol/messages/FetchRequest.js';
import * as FetchResponse from '../../src/protocol/messages/FetchResponse.js';
import * as MetadataRequest from '../../src/protocol/messages/MetadataRequest.js';
import * as ProduceResponse from '../../src/protocol/messages/ProduceResponse.js';
import * as RequestHeader from '../../src/protocol/messages/RequestHeader.js';
import * as ResponseHeader from '../../src/protocol/messages/ResponseHeader.js';
import * as SaslHandshakeRequest from '../../src/protocol/messages/SaslHandshakeRequest.js';
import {
  INT64_MAX,
  INT64_MIN,
  ROOT,
  SCHEMA_DIR,
  SchemaValues,
  elementType,
  loadAllSchemas,
  parseRange,
  type Mode,
} from './schema-values.js';

interface Codec {
  API_KEY?: number;
  MIN_VERSION: number;
  MAX_VERSION: number;
  FIRST_FLEXIBLE_VERSION: number;
  decode(r: Reader, version: number): unknown;
  encode(w: Writer, version: number, value: unknown): void;
  [name: string]: unknown;
}

const schemas = loadAllSchemas();
const codecs = new Map<string, Codec>();
for (const s of schemas) {
  codecs.set(s.spec.name, (await import(join(ROOT, s.modulePath))) as Codec);
}
function codecFor(name: string): Codec {
  const c = codecs.get(name);
  if (!c) throw new Error(`no codec module for ${name}`);
  return c;
}

/** One mode per seed: every (schema, version) is exercised with all of them. */
const SEEDS: ReadonlyArray<readonly [number, Mode]> = [
  [1, 'minimal'],
  [2, 'max'],
  [3, 'min'],
  [4, 'random'],
  [5, 'random'],
  [6, 'random'],
  [7, 'random'],
  [8, 'random'],
  [9, 'random'],
  [10, 'random'],
];

/**
 * Encodes into a deliberately small Writer, so every larger message also exercises buffer growth.
 */
const WRITER_SIZE = 16;
function encode(codec: Codec, version: number, value: unknown): Buffer {
  const w = new Writer(WRITER_SIZE);
  codec.encode(w, version, value);
  return Buffer.from(w.finish());
}

/** Runs a generator to its end, counting nothing (the codecs in slices give the same as at once). */
function runToEnd<T>(work: Generator<void, T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

function hex(s: string): Buffer {
  return Buffer.from(s.replace(/\s+/g, ''), 'hex');
}

const utf8 = (s: string): string => Buffer.from(s, 'utf8').toString('hex');

const totalPairs = schemas.reduce((n, s) => n + s.versions.length, 0);

describe('schema coverage', () => {
  it('loads every schema file and has a generated module for each', () => {
    const files = readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.json'));
    expect(files.length).toBe(180);
    expect(schemas.length).toBe(files.length);
    expect(codecs.size).toBe(files.length);
    // (schema, version) pairs exercised by the round-trip suite below.
    expect(totalPairs).toBe(571);
  });
});

for (const { spec, versions, file } of schemas) {
  describe(`${spec.name} (${file})`, () => {
    const codec = codecFor(spec.name);
    const sv = new SchemaValues(spec);

    it('exports version constants matching the schema', () => {
      const valid = parseRange(spec.validVersions)!;
      const flexible = parseRange(spec.flexibleVersions);
      expect(codec.MIN_VERSION).toBe(valid[0]);
      expect(codec.MAX_VERSION).toBe(valid[1]);
      expect(codec.FIRST_FLEXIBLE_VERSION).toBe(flexible ? flexible[0] : -1);
      if (spec.apiKey !== undefined) expect(codec.API_KEY).toBe(spec.apiKey);
      expect(() => codec.decode(new Reader(Buffer.alloc(64)), valid[1] + 1)).toThrow(RangeError);
      expect(() => codec.encode(new Writer(), valid[0] - 1, {})).toThrow(RangeError);
    });

    it('default<Struct>() functions return the schema defaults', () => {
      for (const name of sv.structs.keys()) {
        const fn = codec[`default${name}`];
        expect(typeof fn, `default${name}`).toBe('function');
        expect((fn as () => unknown)(), `default${name}`).toStrictEqual(sv.defaultStruct(name));
      }
    });

    for (const version of versions) {
      it(`v${version}: seeded values round-trip and consume every byte`, () => {
        const seen = new Set<string>();
        for (const [seed, mode] of SEEDS) {
          const { input, expected } = sv.generate(version, seed, mode);
          const bytes = encode(codec, version, input);
          seen.add(bytes.toString('hex'));
          const r = new Reader(bytes);
          const decoded = codec.decode(r, version);
          expect(decoded, `seed ${seed} (${mode})`).toStrictEqual(expected);
          expect(r.offset, `seed ${seed} (${mode}) consumed`).toBe(bytes.length);
          expect(r.remaining).toBe(0);
          // Re-encoding what was decoded reproduces the same bytes.
          expect(encode(codec, version, decoded).equals(bytes), `seed ${seed} (${mode}) re-encode`).toBe(true);
          // Requests decode in slices, responses encode in slices, to the same values and bytes.
          if (spec.type === 'request') {
            const sliced = new Reader(bytes);
            expect(runToEnd((codec['decodeInSlices'] as (r: Reader, v: number) => Generator<void, unknown>)(sliced, version)), `seed ${seed} (${mode}) in slices`).toStrictEqual(expected);
            expect(sliced.offset).toBe(bytes.length);
          }
          if (spec.type === 'response') {
            const w = new Writer(WRITER_SIZE);
            runToEnd((codec['encodeInSlices'] as (w: Writer, v: number, value: unknown) => Generator<void, void>)(w, version, input));
            expect(Buffer.from(w.finish()).equals(bytes), `seed ${seed} (${mode}) encoded in slices`).toBe(true);
          }
        }
        // The seeds produce different encodings, except for messages with nothing on the wire.
        const hasFields = sv.structFields(spec.name).some((f) => sv.present(f, version));
        if (hasFields) expect(seen.size).toBeGreaterThan(1);
        else expect([...seen]).toEqual(sv.isFlexible(version) ? ['00'] : ['']);
      });

      it(`v${version}: the default value round-trips to the schema defaults`, () => {
        const value = (codec[`default${spec.name}`] as () => unknown)();
        const bytes = encode(codec, version, value);
        const r = new Reader(bytes);
        expect(codec.decode(r, version)).toStrictEqual(sv.defaultStruct(spec.name));
        expect(r.remaining).toBe(0);
      });

      it(`v${version}: every truncation of an encoding throws MalformedFrameError`, () => {
        const { input } = sv.generate(version, 2, 'max');
        const bytes = encode(codec, version, input);
        const notThrown: number[] = [];
        const wrongError: string[] = [];
        for (let k = 0; k < bytes.length; k++) {
          try {
            codec.decode(new Reader(Buffer.from(bytes.subarray(0, k))), version);
            notThrown.push(k);
          } catch (e) {
            if (!(e instanceof MalformedFrameError)) wrongError.push(`${k}: ${String(e)}`);
          }
        }
        expect(notThrown).toEqual([]);
        expect(wrongError).toEqual([]);
      });
    }
  });
}

describe('value generator sanity', () => {
  it('covers nulls, empty and non-empty arrays, extremes, tagged fields and unicode', () => {
    const stats = { nulls: 0, emptyArrays: 0, nonEmptyArrays: 0, int64Min: 0, int64Max: 0, taggedNonDefault: 0, nonAscii: 0, uuids: 0 };
    for (const { spec, versions } of schemas) {
      const sv = new SchemaValues(spec);
      for (const version of versions) {
        for (const [seed, mode] of SEEDS) {
          const walk = (name: string, v: Record<string, unknown>): void => {
            for (const f of sv.structFields(name)) {
              if (!sv.present(f, version)) continue;
              const x = v[f.name.charAt(0).toLowerCase() + f.name.slice(1)];
              if (x === null) stats.nulls++;
              else if (Array.isArray(x)) {
                if (x.length === 0) stats.emptyArrays++;
                else stats.nonEmptyArrays++;
                const elem = elementType(f.type);
                if (sv.structs.has(elem)) for (const e of x) walk(elem, e as Record<string, unknown>);
              } else if (x === INT64_MIN) stats.int64Min++;
              else if (x === INT64_MAX) stats.int64Max++;
              else if (typeof x === 'string' && /[^\x00-\x7f]/.test(x)) stats.nonAscii++;
              else if (f.type === 'uuid' && x !== 'AAAAAAAAAAAAAAAAAAAAAA') stats.uuids++;
              if (sv.isTagged(f) && !isDeepStrictEqualish(x, sv.defaultFor(f))) stats.taggedNonDefault++;
              if (x !== null && typeof x === 'object' && !Array.isArray(x) && !Buffer.isBuffer(x)) walk(elementType(f.type), x as Record<string, unknown>);
            }
          };
          walk(spec.name, sv.generate(version, seed, mode).input);
        }
      }
    }
    for (const [k, n] of Object.entries(stats)) expect(n, k).toBeGreaterThan(20);
  });

  it('is deterministic for a seed', () => {
    const sv = new SchemaValues(schemas.find((s) => s.spec.name === 'FetchResponse')!.spec);
    const a = encode(codecFor('FetchResponse'), 16, sv.generate(16, 5, 'random').input);
    const b = encode(codecFor('FetchResponse'), 16, sv.generate(16, 5, 'random').input);
    expect(a.equals(b)).toBe(true);
    expect(a.length).toBeGreaterThan(50);
  });
});

function isDeepStrictEqualish(a: unknown, b: unknown): boolean {
  try {
    expect(a).toStrictEqual(b);
    return true;
  } catch {
    return false;
  }
}

describe('hand-computed byte vectors', () => {
  it('ApiVersionsRequest v3 with client software name/version', () => {
    const bytes = encode(ApiVersionsRequest as unknown as Codec, 3, { clientSoftwareName: 'kafkajs', clientSoftwareVersion: '2.2.4' });
    // compact string = uvarint(len + 1) + utf8; then an empty tagged-field block.
    expect(bytes.toString('hex')).toBe(`08${utf8('kafkajs')}06${utf8('2.2.4')}00`);
    expect(bytes.toString('hex')).toBe('086b61666b616a7306322e322e3400');
    const r = new Reader(bytes);
    expect(ApiVersionsRequest.decode(r, 3)).toStrictEqual({ clientSoftwareName: 'kafkajs', clientSoftwareVersion: '2.2.4' });
    expect(r.remaining).toBe(0);
  });

  it('ApiVersionsRequest v0-v2 has an empty body', () => {
    for (const v of [0, 1, 2]) {
      expect(encode(ApiVersionsRequest as unknown as Codec, v, { clientSoftwareName: 'x', clientSoftwareVersion: 'y' }).length).toBe(0);
      expect(ApiVersionsRequest.decode(new Reader(Buffer.alloc(0)), v)).toStrictEqual({ clientSoftwareName: '', clientSoftwareVersion: '' });
    }
  });

  it('compact string lengths are uvarints: UTF-8 byte length, and 127 bytes needs two length bytes', () => {
    const cafe = encode(ApiVersionsRequest as unknown as Codec, 3, { clientSoftwareName: 'café', clientSoftwareVersion: '' });
    expect(cafe.toString('hex')).toBe('06' + '636166c3a9' + '01' + '00');
    const long = encode(ApiVersionsRequest as unknown as Codec, 3, { clientSoftwareName: 'x'.repeat(127), clientSoftwareVersion: '🦄' });
    expect(long.subarray(0, 3).toString('hex')).toBe('800178');
    expect(long.subarray(2 + 127).toString('hex')).toBe('05' + 'f09fa684' + '00');
    expect(ApiVersionsRequest.decode(new Reader(long), 3)).toStrictEqual({ clientSoftwareName: 'x'.repeat(127), clientSoftwareVersion: '🦄' });
  });

  it('RequestHeader v2 keeps a non-compact int16-length clientId followed by an empty tagged block', () => {
    const header = { requestApiKey: 18, requestApiVersion: 3, correlationId: 0x01020304, clientId: 'rdkafka' };
    const v2 = encode(RequestHeader as unknown as Codec, 2, header);
    expect(v2.toString('hex')).toBe(`0012 0003 01020304 0007${utf8('rdkafka')} 00`.replace(/\s/g, ''));
    const v1 = encode(RequestHeader as unknown as Codec, 1, header);
    expect(v1.toString('hex')).toBe(`0012000301020304 0007${utf8('rdkafka')}`.replace(/\s/g, ''));
    const r = new Reader(v2);
    expect(RequestHeader.decode(r, 2)).toStrictEqual(header);
    expect(r.remaining).toBe(0);

    const nullId = encode(RequestHeader as unknown as Codec, 2, { ...header, correlationId: -1, clientId: null });
    expect(nullId.toString('hex')).toBe('00120003ffffffffffff00');
    expect(RequestHeader.decode(new Reader(nullId), 2)).toStrictEqual({ ...header, correlationId: -1, clientId: null });
  });

  it('ResponseHeader v0 is the correlation id; v1 adds an empty tagged block', () => {
    expect(encode(ResponseHeader as unknown as Codec, 0, { correlationId: 7 }).toString('hex')).toBe('00000007');
    expect(encode(ResponseHeader as unknown as Codec, 1, { correlationId: -2 }).toString('hex')).toBe('fffffffe00');
  });

  it('ApiVersionsResponse v0 (classic arrays) and v3 (compact arrays, tagged fields in tag order)', () => {
    const value = {
      ...ApiVersionsResponse.defaultApiVersionsResponse(),
      errorCode: 35,
      apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }],
      throttleTimeMs: 100,
      finalizedFeaturesEpoch: 5n,
      zkMigrationReady: true,
    };
    expect(encode(ApiVersionsResponse as unknown as Codec, 0, value).toString('hex')).toBe('0023' + '00000001' + '001200000004');
    expect(encode(ApiVersionsResponse as unknown as Codec, 1, value).toString('hex')).toBe('0023' + '00000001' + '001200000004' + '00000064');
    const v3 = encode(ApiVersionsResponse as unknown as Codec, 3, value);
    expect(v3.toString('hex')).toBe(
      '0023' + '02' + '001200000004' + '00' + '00000064' +
      '02' + '01' + '08' + '0000000000000005' + '03' + '01' + '01',
    );
    const r = new Reader(v3);
    expect(ApiVersionsResponse.decode(r, 3)).toStrictEqual(value);
    expect(r.remaining).toBe(0);
    // Tagged fields at their defaults are left out entirely.
    expect(encode(ApiVersionsResponse as unknown as Codec, 3, ApiVersionsResponse.defaultApiVersionsResponse()).toString('hex')).toBe('0000' + '01' + '00000000' + '00');
  });

  it('a flexible message with unknown tagged fields is decoded, skipping the unknown tags', () => {
    const req = hex(`08${utf8('kafkajs')} 06${utf8('2.2.4')} 02 05 03 aabbcc 0a 00`);
    const r = new Reader(req);
    expect(ApiVersionsRequest.decode(r, 3)).toStrictEqual({ clientSoftwareName: 'kafkajs', clientSoftwareVersion: '2.2.4' });
    expect(r.remaining).toBe(0);

    // Unknown tags after known ones, at the top level and inside an array element's tagged block.
    const resp = hex(
      '0000' + '02' + '001200000004' + '01' + '7f' + '02' + 'beef' + '00000000' +
      '04' + '01' + '08' + 'ffffffffffffffff' + '02' + '01' + '01' + '03' + '01' + '01' + '09' + '02' + 'abcd',
    );
    // Tag 2 is FinalizedFeatures (known): an empty compact array (01).
    const r2 = new Reader(resp);
    expect(ApiVersionsResponse.decode(r2, 3)).toStrictEqual({
      ...ApiVersionsResponse.defaultApiVersionsResponse(),
      apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }],
      finalizedFeaturesEpoch: -1n,
      finalizedFeatures: [],
      zkMigrationReady: true,
    });
    expect(r2.remaining).toBe(0);

    const withUnknown = hex('0000' + '01' + '00000000' + '02' + '04' + '02' + '0102' + '1e' + '00');
    const r3 = new Reader(withUnknown);
    expect(ApiVersionsResponse.decode(r3, 3)).toStrictEqual(ApiVersionsResponse.defaultApiVersionsResponse());
    expect(r3.remaining).toBe(0);
  });

  it('a known tagged field whose size disagrees with its value is malformed', () => {
    // Tag 1 (FinalizedFeaturesEpoch, an int64) declared as 9 bytes.
    const bad = hex('0000' + '01' + '00000000' + '01' + '01' + '09' + '000000000000000500');
    expect(() => ApiVersionsResponse.decode(new Reader(bad), 3)).toThrow(MalformedFrameError);
  });

  it('a nullable struct is an int8 presence marker (-1 for null) followed by the struct', () => {
    const topicId = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex').toString('base64url');
    const value = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      memberId: 'm1',
      memberEpoch: 5,
      heartbeatIntervalMs: 3000,
      assignment: { topicPartitions: [{ topicId, partitions: [0, 2] }] },
    };
    const bytes = encode(ConsumerGroupHeartbeatResponse as unknown as Codec, 0, value);
    expect(bytes.toString('hex')).toBe(
      '00000000' + '0000' + '00' + '036d31' + '00000005' + '00000bb8' +
      '01' + '02' + '000102030405060708090a0b0c0d0e0f' + '03' + '00000000' + '00000002' + '00' + '00' + '00',
    );
    expect(ConsumerGroupHeartbeatResponse.decode(new Reader(bytes), 0)).toStrictEqual(value);
    const nullAssignment = encode(ConsumerGroupHeartbeatResponse as unknown as Codec, 0, { ...value, assignment: null });
    expect(nullAssignment.toString('hex')).toBe('00000000' + '0000' + '00' + '036d31' + '00000005' + '00000bb8' + 'ff' + '00');
    expect(ConsumerGroupHeartbeatResponse.decode(new Reader(nullAssignment), 0)).toStrictEqual({ ...value, assignment: null });
  });

  it('MetadataRequest topics: non-nullable int32 array in v0, null (-1) from v1, compact null (0) from v9', () => {
    const all = { ...MetadataRequest.defaultMetadataRequest(), topics: null };
    expect(encode(MetadataRequest as unknown as Codec, 1, all).toString('hex')).toBe('ffffffff');
    expect(encode(MetadataRequest as unknown as Codec, 4, all).toString('hex')).toBe('ffffffff' + '01');
    expect(encode(MetadataRequest as unknown as Codec, 9, all).toString('hex')).toBe('00' + '01' + '00' + '00' + '00');
    expect(() => encode(MetadataRequest as unknown as Codec, 0, all)).toThrow(TypeError);
    expect(MetadataRequest.decode(new Reader(hex('ffffffff01')), 4).topics).toBeNull();
    expect(() => MetadataRequest.decode(new Reader(hex('ffffffff')), 0)).toThrow(MalformedFrameError);
  });

  it('FetchRequest v12 omits the ClusterId tag when null and writes it as tag 0 when set', () => {
    const base = { ...FetchRequest.defaultFetchRequest(), replicaId: -1, maxWaitMs: 500, minBytes: 1, maxBytes: 1024, isolationLevel: 1, sessionId: 0, sessionEpoch: -1 };
    const withoutId = encode(FetchRequest as unknown as Codec, 12, base);
    const body = 'ffffffff' + '000001f4' + '00000001' + '00000400' + '01' + '00000000' + 'ffffffff' + '01' + '01' + '01';
    expect(withoutId.toString('hex')).toBe(body + '00');
    const withId = encode(FetchRequest as unknown as Codec, 12, { ...base, clusterId: 'c1' });
    expect(withId.toString('hex')).toBe(body + '01' + '00' + '03' + '036331');
    expect(FetchRequest.decode(new Reader(withId), 12)).toStrictEqual({ ...base, clusterId: 'c1' });
  });
});

describe('tagged struct fields are written only when they differ from their default (as Kafka does)', () => {
  it('FetchResponse v12 partition: default DivergingEpoch/CurrentLeader/SnapshotId are omitted', () => {
    const partitionBody =
      '00000000' + '0000' + '0000000000000000' + 'ffffffffffffffff' + 'ffffffffffffffff' + // index, error, HW, LSO, log start
      '01' + 'ffffffff' + '01'; // abortedTransactions [], preferredReadReplica -1, records (empty)
    const w = new Writer(WRITER_SIZE);
    FetchResponse.writePartitionData(w, 12, FetchResponse.defaultPartitionData());
    expect(w.finish().toString('hex')).toBe(partitionBody + '00');

    const diverging = { ...FetchResponse.defaultPartitionData(), divergingEpoch: { epoch: 3, endOffset: 100n } };
    const w2 = new Writer(WRITER_SIZE);
    FetchResponse.writePartitionData(w2, 12, diverging);
    expect(w2.finish().toString('hex')).toBe(partitionBody + '01' + '00' + '0d' + '00000003' + '0000000000000064' + '00');
    const r = new Reader(Buffer.from(w2.finish()));
    expect(FetchResponse.readPartitionData(r, 12)).toStrictEqual(diverging);
    expect(r.remaining).toBe(0);

    // One field off its default is enough for the struct to be written.
    expect(FetchResponse.isLeaderIdAndEpochDefault({ leaderId: -1, leaderEpoch: -1 })).toBe(true);
    expect(FetchResponse.isLeaderIdAndEpochDefault({ leaderId: -1, leaderEpoch: 0 })).toBe(false);
  });

  it('FetchRequest v15: a default ReplicaState is omitted, a set one is tag 1', () => {
    const body = '00000000' + '00000000' + '7fffffff' + '00' + '00000000' + 'ffffffff' + '01' + '01' + '01';
    expect(encode(FetchRequest as unknown as Codec, 15, FetchRequest.defaultFetchRequest()).toString('hex')).toBe(body + '00');
    const value = { ...FetchRequest.defaultFetchRequest(), replicaState: { replicaId: 1, replicaEpoch: 2n } };
    const bytes = encode(FetchRequest as unknown as Codec, 15, value);
    expect(bytes.toString('hex')).toBe(body + '01' + '01' + '0d' + '00000001' + '0000000000000002' + '00');
    expect(FetchRequest.decode(new Reader(bytes), 15)).toStrictEqual(value);
  });

  it('ProduceResponse v10: a default CurrentLeader is omitted', () => {
    const w = new Writer(WRITER_SIZE);
    ProduceResponse.writePartitionProduceResponse(w, 10, ProduceResponse.defaultPartitionProduceResponse());
    expect(w.finish().subarray(-1).toString('hex')).toBe('00');
    const w2 = new Writer(WRITER_SIZE);
    ProduceResponse.writePartitionProduceResponse(w2, 10, { ...ProduceResponse.defaultPartitionProduceResponse(), currentLeader: { leaderId: 4, leaderEpoch: 9 } });
    expect(w2.finish().subarray(w.offset - 1).toString('hex')).toBe('01' + '00' + '09' + '00000004' + '00000009' + '00');
  });
});

describe('malformed input', () => {
  it('a truncated buffer throws MalformedFrameError', () => {
    const bytes = encode(ApiVersionsRequest as unknown as Codec, 3, { clientSoftwareName: 'kafkajs', clientSoftwareVersion: '2.2.4' });
    for (const k of [0, 1, 5, 8, 9, bytes.length - 1]) {
      expect(() => ApiVersionsRequest.decode(new Reader(bytes.subarray(0, k)), 3), `prefix ${k}`).toThrow(MalformedFrameError);
    }
    const header = encode(RequestHeader as unknown as Codec, 1, { requestApiKey: 3, requestApiVersion: 12, correlationId: 1, clientId: 'abc' });
    expect(() => RequestHeader.decode(new Reader(header.subarray(0, header.length - 1)), 1)).toThrow(MalformedFrameError);
    expect(() => RequestHeader.decode(new Reader(header.subarray(0, 7)), 1)).toThrow(/runs past end 7/);
  });

  it('a tagged field running past the frame, a null non-nullable string and an oversized array count are malformed', () => {
    expect(() => ApiVersionsRequest.decode(new Reader(hex('0101' + '01' + '05' + '10' + 'aabb')), 3)).toThrow(MalformedFrameError);
    expect(() => SaslHandshakeRequest.decode(new Reader(hex('ffff')), 0)).toThrow(MalformedFrameError);
    expect(() => ApiVersionsResponse.decode(new Reader(hex('0000' + '7fffffff' + '0012')), 0)).toThrow(/exceeds the frame/);
  });
});

/** A Writer grows by replacing its buffer; every write must land in the new one. */
describe('Writer buffer growth', () => {
  it('a Writer that has to grow still produces the exact bytes', () => {
    const w = new Writer(8);
    ApiVersionsRequest.encode(w, 3, { clientSoftwareName: 'kafkajs', clientSoftwareVersion: '2.2.4' });
    expect(w.finish().toString('hex')).toBe('086b61666b616a7306322e322e3400');
  });

  it('a tagged field value of more than 64 bytes is encoded intact', () => {
    const value = {
      ...ApiVersionsResponse.defaultApiVersionsResponse(),
      supportedFeatures: [{ name: 'f'.repeat(70), minVersion: 1, maxVersion: 2 }],
    };
    const bytes = encode(ApiVersionsResponse as unknown as Codec, 3, value);
    // errorCode, apiKeys [], throttleTimeMs, then one tag: 0, size 77 = 1 (count) + 1 + 70 (name) + 2 + 2 + 1 (tags).
    expect(bytes.toString('hex')).toBe('0000' + '01' + '00000000' + '01' + '00' + '4d' + '02' + '47' + '66'.repeat(70) + '0001' + '0002' + '00');
    expect(ApiVersionsResponse.decode(new Reader(bytes), 3)).toStrictEqual(value);
  });
});

describe('generated files', () => {
  it('are up to date with scripts/generate-codecs.mjs (--check exits 0)', () => {
    const res = spawnSync(process.execPath, ['scripts/generate-codecs.mjs', '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    // One module per schema, plus src/protocol/messages/index.ts and src/records/schemas/record-types.ts.
    expect(res.stdout.trim()).toBe(`checked ${schemas.length + 2} files`);
  });
});
