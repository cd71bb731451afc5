/**
 * Kafka protocol primitive types: fixed-width big-endian integers, unsigned varints,
 * classic (int16/int32 length) and compact (uvarint length + 1) strings, bytes and arrays,
 * and tagged-field blocks. Layouts follow Kafka's `protocol/types/Type.java` and KIP-482.
 */
import { SHORT_STRING_MAX_BYTES, shortString } from './short-strings.js';

/** The all-zero UUID (Kafka's `Uuid.ZERO_UUID`) in Kafka's base64url text form. */
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
export const EMPTY_BYTES: Buffer = Buffer.alloc(0);

/** Thrown when a frame cannot be decoded; the connection that sent it is closed. */
export class MalformedFrameError extends Error {}

/**
 * A length or count that claims more than the bytes left: an array count, or a bytes field's
 * length. Kafka's readers fail these with a plain RuntimeException ("Tried to allocate a
 * collection of size ...") or IllegalArgumentException (`ByteBuffer.limit`), not the
 * SchemaException of a buffer underflow, and some callers answer the two differently
 * (`ConsumerGroup.fromClassicGroup`: UNKNOWN_SERVER_ERROR vs GROUP_ID_NOT_FOUND).
 */
export class LengthPastEndError extends MalformedFrameError {}

/**
 * Array elements a request's `decodeInSlices` reads (or a response's `encodeInSlices` writes) between two yields: about 4 ms of decoding
 * (an OffsetCommit partition takes ~1 µs), so a huge request leaves the event loop to the other
 * connections that often (issue #16).
 */
export const ELEMENTS_PER_SLICE = 4096;

/**
 * Bytes read (or written) in slices after which the next array element ends the slice, whatever the
 * count: 400 transactional ids of 32,000 characters (12.8 MB) were read, and answered, in one
 * turn (about 1 ms per MiB).
 */
export const BYTES_PER_SLICE = 1 << 20;

const TWO_32 = 4294967296;
/** int64 values whose high word is within ±2^21 (|v| < 2^53) convert to and from a Number exactly. */
const MAX_EXACT = 2n ** 53n - 1n;
const MIN_EXACT = -MAX_EXACT;

/**
 * Writes a big-endian int64 at `at`. Values within ±(2^53 - 1) (every offset and timestamp in
 * practice) go through two 32-bit writes, which allocate nothing; Node's `writeBigInt64BE` makes
 * several intermediate BigInts. Throws RangeError outside the int64 range, as Node's does.
 */
export function writeInt64BE(buf: Buffer, v: bigint, at: number): void {
  if (v <= MAX_EXACT && v >= MIN_EXACT) {
    const n = Number(v);
    const hi = Math.floor(n / TWO_32);
    buf.writeInt32BE(hi, at);
    buf.writeUInt32BE(n - hi * TWO_32, at + 4);
  } else {
    buf.writeBigInt64BE(v, at);
  }
}

/** Reads a big-endian int64 at `at`: one BigInt made from a Number when the value fits in ±2^53. */
export function readInt64BE(buf: Buffer, at: number): bigint {
  const hi = buf.readInt32BE(at);
  if (hi >= -2097152 && hi < 2097152) return BigInt(hi * TWO_32 + buf.readUInt32BE(at + 4));
  return buf.readBigInt64BE(at);
}

/** Bytes of `v` as an unsigned varint. */
function uvarintSize(v: number): number {
  let x = v >>> 0;
  let n = 1;
  while (x >= 0x80) {
    x >>>= 7;
    n++;
  }
  return n;
}

export function nonNull<T>(value: T | null, field: string): T {
  if (value === null) throw new TypeError(`${field} must not be null at this version`);
  return value;
}

/**
 * The longest string Kafka's generated message readers take, compact or not (`length > 0x7fff`:
 * "string field ... had invalid length"): a request holding a longer one fails to parse, and Kafka
 * closes the connection. Kafka 4.3.1 did so for a ConsumerGroupHeartbeat with a 50,002-byte
 * regular expression, which we took, wrote the member of, and then could never expire (its regex's
 * tombstone key, an int16-length string, could not be written; adversarial trial 28).
 */
export const MAX_REQUEST_STRING_BYTES = 0x7fff;

export class Reader {
  offset: number;
  /**
   * Longest string this reader takes (bytes): MAX_REQUEST_STRING_BYTES for requests, as Kafka's
   * readers; unbounded for records, so that a log an earlier build wrote still replays.
   */
  maxStringBytes = Number.POSITIVE_INFINITY;
  constructor(readonly buf: Buffer, offset = 0, readonly end = buf.length) {
    this.offset = offset;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  private take(n: number): number {
    const at = this.offset;
    if (n < 0 || at + n > this.end) throw new MalformedFrameError(`read of ${n} bytes at ${at} runs past end ${this.end}`);
    this.offset = at + n;
    return at;
  }

  int8(): number { return this.buf.readInt8(this.take(1)); }
  bool(): boolean { return this.buf[this.take(1)] !== 0; }
  int16(): number { return this.buf.readInt16BE(this.take(2)); }
  uint16(): number { return this.buf.readUInt16BE(this.take(2)); }
  int32(): number { return this.buf.readInt32BE(this.take(4)); }
  uint32(): number { return this.buf.readUInt32BE(this.take(4)); }
  int64(): bigint { return readInt64BE(this.buf, this.take(8)); }
  float64(): number { return this.buf.readDoubleBE(this.take(8)); }

  uuid(): string {
    const at = this.take(16);
    // A topic id read again (every request and record of a topic carries it) is the string read last time.
    const last = lastReadUuid;
    if (last !== null && sameBytes16(this.buf, at, last.bytes)) return last.text;
    const text = this.buf.toString('base64url', at, at + 16);
    lastReadUuid = { bytes: Buffer.from(this.buf.subarray(at, at + 16)), text };
    return text;
  }

  uvarint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.buf[this.take(1)]!;
      if (shift === 28 && b > 0x0f) throw new MalformedFrameError('varint is longer than 32 bits');
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result >>> 0;
      shift += 7;
    }
  }

  /** Zig-zag varint (RecordBatch records and headers), as Kafka's `ByteUtils.readVarint`. */
  varint(): number {
    const raw = this.uvarint();
    return (raw >>> 1) ^ -(raw & 1);
  }

  /** Zig-zag varlong, as Kafka's `ByteUtils.readVarlong`. */
  varlong(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.buf[this.take(1)]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
      if (shift > 63n) throw new MalformedFrameError('varlong is longer than 64 bits');
    }
    return (result >> 1n) ^ -(result & 1n);
  }

  /**
   * A compact length as Kafka's generated readers take it: the unsigned varint read into a Java
   * int, minus one, in int arithmetic. So 0 and every varint of 0x80000001 and up (a negative int)
   * are null (an error where the field is not nullable), and 0x80000000 wraps to 2^31 - 1, far past
   * the frame (adversarial trial, session 33: Kafka answered where we closed).
   */
  private length(compact: boolean): number {
    return compact ? ((this.uvarint() | 0) - 1) | 0 : -1;
  }

  nullableString(compact: boolean): string | null {
    const n = compact ? this.length(true) : this.int16();
    if (n < 0) return null;
    if (n === 0) return '';
    if (n > this.maxStringBytes) throw new MalformedFrameError(`string of ${n} bytes is longer than the ${this.maxStringBytes} a request may hold`);
    const at = this.take(n);
    // Ids and names repeat request after request: decoded once (short-strings.ts).
    return n <= SHORT_STRING_MAX_BYTES ? shortString(this.buf, at, n) : this.buf.toString('utf8', at, at + n);
  }

  string(compact: boolean): string {
    const s = this.nullableString(compact);
    if (s === null) throw new MalformedFrameError('non-nullable string is null');
    return s;
  }

  nullableBytes(compact: boolean): Buffer | null {
    const n = compact ? this.length(true) : this.int32();
    if (n < 0) return null;
    if (n > this.remaining) throw new LengthPastEndError(`bytes of length ${n} run past the end (${this.remaining} left)`);
    const at = this.take(n);
    return this.buf.subarray(at, at + n);
  }

  bytes(compact: boolean): Buffer {
    const b = this.nullableBytes(compact);
    if (b === null) throw new MalformedFrameError('non-nullable bytes are null');
    return b;
  }

  nullableArray<T>(compact: boolean, readOne: () => T): T[] | null {
    const n = compact ? this.length(true) : this.int32();
    if (n < 0) return null;
    // Each element takes at least one byte: a count beyond the remaining bytes is malformed.
    if (n > this.remaining) throw new LengthPastEndError(`array of ${n} elements exceeds the frame`);
    const out: T[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = readOne();
    return out;
  }

  array<T>(compact: boolean, readOne: () => T): T[] {
    const a = this.nullableArray(compact, readOne);
    if (a === null) throw new MalformedFrameError('non-nullable array is null');
    return a;
  }

  // ---- decoding in slices (the generated `decodeInSlices` of requests) ----------------------
  /** Array elements (structs or plain values) read since the decoder last yielded (see `ELEMENTS_PER_SLICE`). */
  private elementsSinceYield = 0;
  /** Where the decoder was when it last yielded (see `BYTES_PER_SLICE`). */
  private sliceStart = 0;

  /** Whether the decoder should yield now: one more element read, `ELEMENTS_PER_SLICE` or `BYTES_PER_SLICE` since the last yield. */
  private sliceDue(): boolean {
    if (++this.elementsSinceYield < ELEMENTS_PER_SLICE && this.offset - this.sliceStart < BYTES_PER_SLICE) return false;
    this.elementsSinceYield = 0;
    this.sliceStart = this.offset;
    return true;
  }

  /** As `nullableArray` of elements (structs read at once, or plain values) read by `readOne`, yielding every `ELEMENTS_PER_SLICE` elements. */
  *nullableArrayInSlices<T>(compact: boolean, readOne: () => T): Generator<void, T[] | null> {
    const n = compact ? this.length(true) : this.int32();
    if (n < 0) return null;
    if (n > this.remaining) throw new LengthPastEndError(`array of ${n} elements exceeds the frame`);
    const out: T[] = new Array(n);
    for (let i = 0; i < n; i++) {
      out[i] = readOne();
      if (this.sliceDue()) yield;
    }
    return out;
  }

  /** As `nullableArray` of struct elements that are themselves read in slices (`readOne` a generator). */
  *nullableArrayOfSlices<T>(compact: boolean, readOne: () => Generator<void, T>): Generator<void, T[] | null> {
    const n = compact ? this.length(true) : this.int32();
    if (n < 0) return null;
    if (n > this.remaining) throw new LengthPastEndError(`array of ${n} elements exceeds the frame`);
    const out: T[] = new Array(n);
    for (let i = 0; i < n; i++) {
      out[i] = yield* readOne();
      if (this.sliceDue()) yield;
    }
    return out;
  }

  *arrayInSlices<T>(compact: boolean, readOne: () => T): Generator<void, T[]> {
    const a = yield* this.nullableArrayInSlices(compact, readOne);
    if (a === null) throw new MalformedFrameError('non-nullable array is null');
    return a;
  }

  *arrayOfSlices<T>(compact: boolean, readOne: () => Generator<void, T>): Generator<void, T[]> {
    const a = yield* this.nullableArrayOfSlices(compact, readOne);
    if (a === null) throw new MalformedFrameError('non-nullable array is null');
    return a;
  }

  /** Reads a tagged-field block; `onTag` returns false for tags it does not know, which are skipped. */
  taggedFields(onTag: (tag: number) => boolean): void {
    readTaggedFields(this, onTag, 0, callOnTag);
  }

  /**
   * The tagged fields, each given to `onTag(reader, tag, value, version)` (a module-level function of
   * the generated codecs, so reading a struct makes no closure); a tag it answers false for is skipped.
   */
  taggedFieldsInto<T>(value: T, version: number, onTag: (r: Reader, tag: number, value: T, version: number) => boolean): void {
    readTaggedFields(this, value, version, onTag);
  }
}

/** Strings up to this many UTF-16 units are tried as ASCII in a JS loop (`Writer.asciiString`); longer ones go to the native UTF-8 encoder, faster for them. */
const ASCII_LOOP_MAX_CHARS = 64;

/** Byte fields of at least this many bytes go by reference when a Writer keeps `references`. */
export const BY_REFERENCE_MIN_BYTES = 16 * 1024;

/** The tagged fields at `r`'s position (both `Reader` methods; not a method, so a subclass overriding them can call it). */
function readTaggedFields<T>(r: Reader, value: T, version: number, onTag: (r: Reader, tag: number, value: T, version: number) => boolean): void {
  const count = r.uvarint();
  for (let i = 0; i < count; i++) {
    const tag = r.uvarint();
    const size = r.uvarint();
    const end = r.offset + size;
    if (end > r.end) throw new MalformedFrameError(`tagged field ${tag} runs past the frame`);
    if (!onTag(r, tag, value, version)) r.offset = end;
    else if (r.offset !== end) throw new MalformedFrameError(`tagged field ${tag} has size ${size} but its value used ${r.offset - end + size}`);
  }
}

/** `Reader.taggedFields`' callback through `readTaggedFields`. */
function callOnTag(_r: Reader, tag: number, onTag: (tag: number) => boolean): boolean {
  return onTag(tag);
}

/** A UUID's 16 bytes and its base64url text (Kafka's `Uuid.toString`). */
interface UuidText {
  readonly bytes: Buffer;
  readonly text: string;
}

/** The UUID `Reader.uuid` decoded last and the one `Writer.uuid` encoded last: one each, as a request or a record batch names one topic again and again. */
let lastReadUuid: UuidText | null = null;
let lastWrittenUuid: UuidText | null = null;

/** Whether `buf` holds `bytes` (16) at `at` (a JS loop: cheaper than a native call for 16 bytes). */
function sameBytes16(buf: Buffer, at: number, bytes: Buffer): boolean {
  for (let i = 0; i < 16; i++) if (buf[at + i] !== bytes[i]) return false;
  return true;
}

export class Writer {
  buf: Buffer;
  offset = 0;
  /**
   * Byte fields kept by reference instead of copied (null, the default: every field is copied):
   * each `nullableBytes` value of at least BY_REFERENCE_MIN_BYTES written outside a tagged field
   * (whose size is measured in place), with the position in the written bytes where it belongs.
   * Fetch's records go out this way, as views of what the log read (server/request-codec.ts).
   */
  references: Array<{ at: number; bytes: Buffer }> | null = null;
  /** Tagged fields being written (nested): none may hold a reference. */
  private taggedDepth = 0;
  constructor(initialSize = 256) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  private room(n: number): number {
    const at = this.offset;
    if (at + n > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, at + n));
      this.buf.copy(next, 0, 0, at);
      this.buf = next;
    }
    this.offset = at + n;
    return at;
  }

  /** The bytes written so far (a view, not a copy). */
  finish(): Buffer {
    return this.buf.subarray(0, this.offset);
  }

  /**
   * Hands over the bytes written so far and goes on at offset 0 of a fresh buffer, for an encoder
   * in slices between two slices (no byte written later refers back to them): a response of tens of
   * megabytes then never grows by copying itself whole in one turn (an OffsetFetch of 450,000
   * partitions held the event loop ~70 ms in one such copy, issue #16). Null, with nothing handed
   * over, inside a tagged field (its size is patched in place) or with fields by reference (their
   * positions are offsets in these bytes).
   */
  detachWritten(): Buffer | null {
    if (this.taggedDepth !== 0 || this.references !== null) return null;
    const written = this.finish();
    this.buf = Buffer.allocUnsafe(this.buf.length);
    this.offset = 0;
    this.sliceStart = 0;
    return written;
  }

  int8(v: number): void { const at = this.room(1); this.buf.writeInt8(v, at); }
  bool(v: boolean): void { const at = this.room(1); this.buf[at] = v ? 1 : 0; }
  int16(v: number): void { const at = this.room(2); this.buf.writeInt16BE(v, at); }
  uint16(v: number): void { const at = this.room(2); this.buf.writeUInt16BE(v, at); }
  int32(v: number): void { const at = this.room(4); this.buf.writeInt32BE(v, at); }
  uint32(v: number): void { const at = this.room(4); this.buf.writeUInt32BE(v, at); }
  int64(v: bigint): void { const at = this.room(8); writeInt64BE(this.buf, v, at); }
  float64(v: number): void { const at = this.room(8); this.buf.writeDoubleBE(v, at); }

  uuid(v: string): void {
    const at = this.room(16);
    // A topic id written again (each commit's record carries its topic's id) is the bytes decoded last time.
    const last = lastWrittenUuid;
    if (last !== null && last.text === v) {
      for (let i = 0; i < 16; i++) this.buf[at + i] = last.bytes[i]!;
      return;
    }
    // The usual form (22 base64url characters) decodes in place; anything else takes the checked path.
    if (v.length === 22 && this.buf.write(v, at, 16, 'base64url') === 16) {
      lastWrittenUuid = { bytes: Buffer.from(this.buf.subarray(at, at + 16)), text: v };
      return;
    }
    const bytes = Buffer.from(v, 'base64url');
    if (bytes.length !== 16) throw new TypeError(`not a Kafka UUID: ${v}`);
    bytes.copy(this.buf, at);
  }

  uvarint(v: number): void {
    let x = v >>> 0;
    while (x >= 0x80) {
      const at = this.room(1);
      this.buf[at] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    const at = this.room(1);
    this.buf[at] = x;
  }

  varint(v: number): void {
    this.uvarint((v << 1) ^ (v >> 31));
  }

  varlong(v: bigint): void {
    let x = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
    while (x >= 0x80n) {
      const at = this.room(1);
      this.buf[at] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    const at = this.room(1);
    this.buf[at] = Number(x);
  }

  raw(b: Buffer): void {
    const at = this.room(b.length);
    b.copy(this.buf, at);
  }

  nullableString(v: string | null, compact: boolean): void {
    if (v === null) {
      if (compact) this.uvarint(0);
      else this.int16(-1);
      return;
    }
    if (v.length <= ASCII_LOOP_MAX_CHARS && this.asciiString(v, compact)) return;
    const n = Buffer.byteLength(v, 'utf8');
    // Kafka's generated serializers refuse a string over 32,767 bytes whatever its length's encoding
    // ("'errorMessage' field is too long to be serialized"), compact ones too.
    if (n > 0x7fff) throw new RangeError(`string of ${n} bytes is too long to be serialized (over 32,767)`);
    if (compact) this.uvarint(n + 1);
    else this.int16(n);
    const at = this.room(n);
    this.buf.write(v, at, n, 'utf8');
  }

  /**
   * A short string written byte by byte when it is ASCII (group ids, topic names, member ids: the
   * usual case), without the two native calls (`byteLength`, `write`) that cost more than the
   * copy; false, with nothing written, for one that is not.
   */
  private asciiString(v: string, compact: boolean): boolean {
    const start = this.offset;
    const n = v.length;
    if (compact) this.uvarint(n + 1);
    else this.int16(n);
    const at = this.room(n);
    const buf = this.buf;
    for (let i = 0; i < n; i++) {
      const c = v.charCodeAt(i);
      if (c >= 0x80) {
        this.offset = start;
        return false;
      }
      buf[at + i] = c;
    }
    return true;
  }

  string(v: string, compact: boolean): void {
    this.nullableString(v, compact);
  }

  nullableBytes(v: Buffer | null, compact: boolean): void {
    if (v === null) {
      if (compact) this.uvarint(0);
      else this.int32(-1);
      return;
    }
    if (compact) this.uvarint(v.length + 1);
    else this.int32(v.length);
    if (this.references !== null && this.taggedDepth === 0 && v.length >= BY_REFERENCE_MIN_BYTES) {
      this.references.push({ at: this.offset, bytes: v });
      return;
    }
    this.raw(v);
  }

  bytes(v: Buffer, compact: boolean): void {
    this.nullableBytes(v, compact);
  }

  nullableArray<T>(v: readonly T[] | null, compact: boolean, writeOne: (e: T) => void): void {
    if (v === null) {
      if (compact) this.uvarint(0);
      else this.int32(-1);
      return;
    }
    if (compact) this.uvarint(v.length + 1);
    else this.int32(v.length);
    for (const e of v) writeOne(e);
  }

  array<T>(v: readonly T[], compact: boolean, writeOne: (e: T) => void): void {
    this.nullableArray(v, compact, writeOne);
  }

  // ---- encoding in slices (the generated `encodeInSlices` of responses) ---------------------
  /** Struct elements written since the encoder last yielded (see `ELEMENTS_PER_SLICE`). */
  private elementsSinceYield = 0;
  /** Where the encoder was when it last yielded (see `BYTES_PER_SLICE`). */
  private sliceStart = 0;

  private sliceDue(): boolean {
    if (++this.elementsSinceYield < ELEMENTS_PER_SLICE && this.offset - this.sliceStart < BYTES_PER_SLICE) return false;
    this.elementsSinceYield = 0;
    this.sliceStart = this.offset;
    return true;
  }

  /** As `nullableArray` of struct elements written at once (`writeOne`), yielding every `ELEMENTS_PER_SLICE` elements. */
  *nullableArrayInSlices<T>(v: readonly T[] | null, compact: boolean, writeOne: (e: T) => void): Generator<void, void> {
    if (v === null) return this.nullableArray(v, compact, writeOne);
    if (compact) this.uvarint(v.length + 1);
    else this.int32(v.length);
    for (const e of v) {
      writeOne(e);
      if (this.sliceDue()) yield;
    }
  }

  /** As `nullableArray` of struct elements that are themselves written in slices (`writeOne` a generator). */
  *nullableArrayOfSlices<T>(v: readonly T[] | null, compact: boolean, writeOne: (e: T) => Generator<void, void>): Generator<void, void> {
    if (v === null) return this.nullableArray(v, compact, () => {});
    if (compact) this.uvarint(v.length + 1);
    else this.int32(v.length);
    for (const e of v) {
      yield* writeOne(e);
      if (this.sliceDue()) yield;
    }
  }

  arrayInSlices<T>(v: readonly T[], compact: boolean, writeOne: (e: T) => void): Generator<void, void> {
    return this.nullableArrayInSlices(v, compact, writeOne);
  }

  arrayOfSlices<T>(v: readonly T[], compact: boolean, writeOne: (e: T) => Generator<void, void>): Generator<void, void> {
    return this.nullableArrayOfSlices(v, compact, writeOne);
  }

  /**
   * Writes a tagged-field block; `tags` must be in ascending tag order. Each value is written in
   * place after room for the largest size prefix, which then shrinks to the size's own length.
   */
  taggedFields(tags: ReadonlyArray<readonly [number, (w: Writer) => void]>): void {
    this.uvarint(tags.length);
    for (const [tag, writeValue] of tags) {
      const sizeAt = this.beginTaggedField(tag);
      writeValue(this);
      this.endTaggedField(sizeAt);
    }
  }

  /** Starts tagged field `tag` (its tag, then room for its size); its value follows; returns where the size goes, for `endTaggedField`. */
  beginTaggedField(tag: number): number {
    this.uvarint(tag);
    // A tagged field's size is measured in place, so nothing in it may go by reference. (A
    // value that throws leaves the depth raised: later byte fields are then copied, still right.)
    this.taggedDepth++;
    return this.room(5);
  }

  /** Ends the tagged field whose size goes at `sizeAt`: the size is written there, the value moved up to it. */
  endTaggedField(sizeAt: number): void {
    this.taggedDepth--;
    const start = sizeAt + 5;
    const size = this.offset - start;
    const sizeBytes = uvarintSize(size);
    if (sizeBytes < 5) {
      this.buf.copyWithin(sizeAt + sizeBytes, start, this.offset);
      this.offset -= 5 - sizeBytes;
    }
    const end = this.offset;
    this.offset = sizeAt;
    this.uvarint(size);
    this.offset = end;
  }
}
