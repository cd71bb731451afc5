/**
 * Hand-built record bytes for tests that send what no client library would: records whose lengths,
 * counts, varints or headers lie, inside a batch whose CRC-32C is right. Layouts as in
 * src/records/record-codec.ts (Kafka's `DefaultRecord`) and record-batch.ts.
 */
import { gzipSync } from 'node:zlib';
import { crc32c } from '../../src/records/crc32c.js';

/** A zig-zag varint (Kafka's `ByteUtils.writeVarint`). */
export function varint(v: number): Buffer {
  let u = ((v << 1) ^ (v >> 31)) >>> 0;
  const out: number[] = [];
  while (u > 0x7f) {
    out.push((u & 0x7f) | 0x80);
    u >>>= 7;
  }
  out.push(u);
  return Buffer.from(out);
}

export interface RecordBodySpec {
  offsetDelta?: number;
  key?: Buffer | null;
  value?: Buffer | null;
  /** The header count written (it may lie about the headers' bytes that follow). */
  headerCount?: number;
  /** Raw bytes after the header count. */
  headerBytes?: Buffer;
}

/** A record's body (everything after its length varint), attributes 0 and timestamp delta 0. */
export function recordBody(spec: RecordBodySpec = {}): Buffer {
  const { offsetDelta = 0, key = null, value = Buffer.from('v'), headerCount = 0, headerBytes = Buffer.alloc(0) } = spec;
  const field = (b: Buffer | null) => (b === null ? varint(-1) : Buffer.concat([varint(b.length), b]));
  return Buffer.concat([Buffer.from([0]), varint(0), varint(offsetDelta), field(key), field(value), varint(headerCount), headerBytes]);
}

/** A record: `body` behind a length varint that declares `lengthDelta` bytes more than it has. */
export function record(body: Buffer, lengthDelta = 0): Buffer {
  return Buffer.concat([varint(body.length + lengthDelta), body]);
}

export interface RawBatchOptions {
  codec?: number;
  timestamp?: bigint;
  payload?: Buffer;
  /** Attribute bits or'ed with the codec (0x20: control batch). */
  flags?: number;
  /** The last offset delta written (default `count - 1`). */
  lastOffsetDelta?: number;
  producerId?: bigint;
  producerEpoch?: number;
  baseSequence?: number;
  /** The magic byte written (default 2). */
  magic?: number;
  /** Writes a CRC-32C one off the right one. */
  badCrc?: true;
}

/**
 * A v2 batch (base offset 0, no producer unless given) declaring `count` records around `records` (gzipped for
 * codec 1, else as given under `codec`'s attribute bits), CRC-32C computed.
 */
export function rawBatch(records: Buffer, count: number, options: RawBatchOptions = {}): Buffer {
  const codec = options.codec ?? 0;
  const payload = options.payload ?? (codec === 1 ? gzipSync(records) : records);
  const timestamp = options.timestamp ?? -1n;
  const b = Buffer.alloc(61 + payload.length);
  b.writeInt32BE(b.length - 12, 8);
  b.writeInt32BE(-1, 12);
  b.writeInt8(options.magic ?? 2, 16);
  b.writeInt16BE(codec | (options.flags ?? 0), 21);
  b.writeInt32BE(options.lastOffsetDelta ?? count - 1, 23);
  b.writeBigInt64BE(timestamp, 27);
  b.writeBigInt64BE(timestamp, 35);
  b.writeBigInt64BE(options.producerId ?? -1n, 43);
  b.writeInt16BE(options.producerEpoch ?? -1, 51);
  b.writeInt32BE(options.baseSequence ?? -1, 53);
  b.writeInt32BE(count, 57);
  payload.copy(b, 61);
  b.writeUInt32BE((crc32c(b.subarray(21)) + (options.badCrc ? 1 : 0)) >>> 0, 17);
  return b;
}
