/**
 * Records inside an uncompressed RecordBatch v2, as Kafka's `DefaultRecord`:
 *   length varint | attributes int8 | timestampDelta varlong | offsetDelta varint
 *   keyLength varint (-1 = null) | key | valueLength varint (-1 = null, a tombstone) | value
 *   headerCount varint | per header: keyLength varint, key (UTF-8), valueLength varint, value
 * All varints here are zig-zag (Kafka's `ByteUtils.writeVarint`), unlike the protocol's
 * unsigned ones. Encoding works on numbers for speed; timestamps deltas fall back to bigint
 * only when they do not fit in a safe integer.
 */

/** Thrown for record bytes that cannot be what they claim (bad varints, lengths, counts). */
export class CorruptRecordError extends Error {}

/**
 * A record whose length varint runs past 5 bytes. Kafka's `DefaultRecord.readFrom(ByteBuffer)` reads
 * that varint outside the try that turns a malformation into an `InvalidRecordException`, so its
 * `IllegalArgumentException` reaches the Produce answer as UNKNOWN_SERVER_ERROR, unlike every other
 * malformation of an uncompressed batch (INVALID_RECORD).
 */
export class IllegalRecordLengthError extends CorruptRecordError {}

/** A zig-zag varint whose fifth byte still has its continuation bit (Java's `ByteUtils.illegalVarintException`). */
class VarintTooLongError extends CorruptRecordError {}

export interface RecordHeader {
  key: string;
  value: Buffer | null;
}

/** A record to encode. `timestamp` (ms) defaults to the batch timestamp. */
export interface RecordInput {
  key: Buffer | null;
  value: Buffer | null;
  headers?: readonly RecordHeader[];
  timestamp?: bigint;
}

/** A decoded record: absolute offset and timestamp (ms); buffers are views into the batch. */
export interface DecodedRecord {
  offset: bigint;
  timestamp: bigint;
  attributes: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** A varlong strictly between these is written through the number path (zig-zag stays a safe integer); constants, not computed per call. */
const SMALL_VARLONG_MIN = -MAX_SAFE / 2n;
const SMALL_VARLONG_MAX = MAX_SAFE / 2n;
/** The headers of a record without any (shared, never written to). */
const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

/** Bytes of the unsigned varint `u` (u >= 0, a safe integer). */
function uvarintSize(u: number): number {
  let n = 1;
  while (u >= 0x80) {
    u = Math.floor(u / 128);
    n++;
  }
  return n;
}

/** Zig-zag of a safe integer, as a non-negative safe integer (for |v| < 2^52). */
function zigzag(v: number): number {
  return v >= 0 ? v * 2 : -v * 2 - 1;
}

/** Bytes of the zig-zag varint `v` (a safe integer). */
export function varintSize(v: number): number {
  return uvarintSize(zigzag(v));
}

function writeUvarint(buf: Buffer, at: number, u: number): number {
  while (u >= 0x80) {
    buf[at++] = (u % 128) | 0x80;
    u = Math.floor(u / 128);
  }
  buf[at++] = u;
  return at;
}

/** Writes the zig-zag varint `v` at `at`; returns the position after it. */
export function writeVarint(buf: Buffer, at: number, v: number): number {
  return writeUvarint(buf, at, zigzag(v));
}

function bigZigzag(v: bigint): bigint {
  return BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
}

function varlongSize(v: bigint): number {
  if (v > SMALL_VARLONG_MIN && v < SMALL_VARLONG_MAX) return varintSize(Number(v));
  let u = bigZigzag(v);
  let n = 1;
  while (u >= 0x80n) {
    u >>= 7n;
    n++;
  }
  return n;
}

function writeVarlong(buf: Buffer, at: number, v: bigint): number {
  if (v > SMALL_VARLONG_MIN && v < SMALL_VARLONG_MAX) return writeVarint(buf, at, Number(v));
  let u = bigZigzag(v);
  while (u >= 0x80n) {
    buf[at++] = Number(u & 0x7fn) | 0x80;
    u >>= 7n;
  }
  buf[at++] = Number(u);
  return at;
}

function bytesFieldSize(b: Buffer | null): number {
  return b === null ? 1 : varintSize(b.length) + b.length;
}

/** Size of one record's body (everything after its length varint). */
function recordBodySize(r: RecordInput, offsetDelta: number, timestampDelta: bigint): number {
  let size = 1 + varlongSize(timestampDelta) + varintSize(offsetDelta) + bytesFieldSize(r.key) + bytesFieldSize(r.value);
  const headers = r.headers ?? NO_HEADERS;
  size += varintSize(headers.length);
  for (const h of headers) {
    const keyLen = Buffer.byteLength(h.key, 'utf8');
    size += varintSize(keyLen) + keyLen + bytesFieldSize(h.value);
  }
  return size;
}

/** A record's timestamp against the batch's: 0n for one without its own (the usual case: no BigInt arithmetic). */
function timestampDelta(r: RecordInput, baseTimestamp: bigint): bigint {
  return r.timestamp === undefined ? 0n : r.timestamp - baseTimestamp;
}

/** Bytes `records` take when encoded against `baseTimestamp`. */
export function encodedRecordsSize(records: readonly RecordInput[], baseTimestamp: bigint): number {
  let total = 0;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const body = recordBodySize(r, i, timestampDelta(r, baseTimestamp));
    total += varintSize(body) + body;
  }
  return total;
}

function writeBytesField(buf: Buffer, at: number, b: Buffer | null): number {
  if (b === null) return writeVarint(buf, at, -1);
  at = writeVarint(buf, at, b.length);
  b.copy(buf, at);
  return at + b.length;
}

/** Writes `records` at `at`; returns the position after the last record. */
export function writeRecords(buf: Buffer, at: number, records: readonly RecordInput[], baseTimestamp: bigint): number {
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const delta = timestampDelta(r, baseTimestamp);
    at = writeVarint(buf, at, recordBodySize(r, i, delta));
    buf[at++] = 0; // record attributes: unused
    at = writeVarlong(buf, at, delta);
    at = writeVarint(buf, at, i);
    at = writeBytesField(buf, at, r.key);
    at = writeBytesField(buf, at, r.value);
    const headers = r.headers ?? NO_HEADERS;
    at = writeVarint(buf, at, headers.length);
    for (const h of headers) {
      at = writeVarint(buf, at, Buffer.byteLength(h.key, 'utf8'));
      at += buf.write(h.key, at, 'utf8');
      at = writeBytesField(buf, at, h.value);
    }
  }
  return at;
}

/** Sequential reader of zig-zag varints over [pos, end). */
class RecordCursor {
  begin: number;
  constructor(readonly buf: Buffer, public pos: number, public end: number) {
    this.begin = pos;
  }

  /**
   * A cursor over record `i`, whose length varint is next; this cursor moves past the record.
   * `into` (a cursor over the same bytes) is moved onto the record and returned instead of a new
   * cursor: a walk over a million stored records then makes one cursor, not a million.
   */
  nextRecord(i: number, into?: RecordCursor): RecordCursor {
    let length: number;
    try {
      length = this.varint();
    } catch (err) {
      if (err instanceof VarintTooLongError) throw new IllegalRecordLengthError(`record ${i}'s length varint is longer than 5 bytes`);
      throw err;
    }
    const recordEnd = this.pos + length;
    if (length < 0 || recordEnd > this.end) throw new CorruptRecordError(`record ${i} declares ${length} bytes past the batch end`);
    let rc: RecordCursor;
    if (into === undefined) rc = new RecordCursor(this.buf, this.pos, recordEnd);
    else {
      rc = into;
      rc.begin = rc.pos = this.pos;
      rc.end = recordEnd;
    }
    this.pos = recordEnd;
    return rc;
  }

  /** Throws unless record `i`'s fields used exactly its declared length. */
  endRecord(i: number): void {
    if (this.pos !== this.end) throw new CorruptRecordError(`record ${i} declares ${this.end - this.begin} bytes but its fields use ${this.pos - this.begin}`);
  }

  /** Throws unless the last of `count` records ends where the records do. */
  endRecords(count: number): void {
    if (this.pos !== this.end) throw new CorruptRecordError(`${this.end - this.pos} bytes follow the last of ${count} records`);
  }

  byte(): number {
    if (this.pos >= this.end) throw new CorruptRecordError(`record runs past the batch end at ${this.end}`);
    return this.buf[this.pos++]!;
  }

  /**
   * A zig-zag varint as Java's `ByteUtils.readVarint` reads it: at most 5 bytes, the fifth one's
   * bits above 32 dropped (Kafka accepts them), an error only when the fifth byte continues.
   */
  varint(): number {
    let b = this.byte();
    // One byte (|value| < 64) is the common case (record lengths aside).
    if ((b & 0x80) === 0) return (b >>> 1) ^ -(b & 1);
    let u = b & 0x7f;
    b = this.byte();
    u |= (b & 0x7f) << 7;
    if ((b & 0x80) !== 0) {
      b = this.byte();
      u |= (b & 0x7f) << 14;
      if ((b & 0x80) !== 0) {
        b = this.byte();
        u |= (b & 0x7f) << 21;
        if ((b & 0x80) !== 0) {
          b = this.byte();
          u |= b << 28;
          if ((b & 0x80) !== 0) throw new VarintTooLongError('varint is longer than 5 bytes');
        }
      }
    }
    return (u >>> 1) ^ -(u & 1);
  }

  /** A zig-zag varlong as Java's `ByteUtils.readVarlong` reads it: at most 10 bytes, wrapped to 64 bits. */
  varlong(): bigint {
    // Up to 7 bytes (49 bits) in a double, exactly: one BigInt per record (none for a delta of 0, the common case).
    let u = 0;
    let mul = 1;
    for (let i = 0; i < 7; i++) {
      const b = this.byte();
      u += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return u === 0 ? 0n : BigInt(u % 2 === 0 ? u / 2 : -(u + 1) / 2);
      mul *= 128;
    }
    let big = BigInt(u);
    for (let shift = 49n; ; shift += 7n) {
      const b = this.byte();
      big |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      if (shift === 63n) throw new CorruptRecordError('varlong is longer than 10 bytes');
    }
    big = BigInt.asUintN(64, big);
    return BigInt.asIntN(64, (big >> 1n) ^ -(big & 1n));
  }

  /** Skips a zig-zag varlong (at most 10 bytes) without decoding it. */
  skipVarlong(): void {
    for (let i = 0; ; i++) {
      if ((this.byte() & 0x80) === 0) return;
      if (i === 9) throw new CorruptRecordError('varlong is longer than 10 bytes');
    }
  }

  /** Skips `n` bytes of a field; returns where they start. */
  skip(n: number): number {
    if (this.pos + n > this.end) throw new CorruptRecordError(`field of ${n} bytes runs past the record end`);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  /** A nullable length-prefixed field, as a view. */
  bytes(): Buffer | null {
    const n = this.varint();
    if (n < 0) return null;
    if (this.pos + n > this.end) throw new CorruptRecordError(`field of ${n} bytes runs past the record end`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

/**
 * Reads `count` records from [start, end). `logAppendTime`, when not null, replaces every
 * record's timestamp (a LogAppendTime batch). Throws CorruptRecordError on bad bytes, a
 * record whose length disagrees with its fields, or a count that disagrees with the bytes.
 */
export function readRecords(
  buf: Buffer,
  start: number,
  end: number,
  count: number,
  baseOffset: bigint,
  baseTimestamp: bigint,
  logAppendTime: bigint | null,
): DecodedRecord[] {
  if (count < 0) throw new CorruptRecordError(`negative record count ${count}`);
  const out: DecodedRecord[] = new Array(count);
  const cur = new RecordCursor(buf, start, end);
  for (let i = 0; i < count; i++) out[i] = readRecord(cur, i, baseOffset, baseTimestamp, logAppendTime);
  cur.endRecords(count);
  return out;
}

/** Record `i`, next in `cur`. */
function readRecord(cur: RecordCursor, i: number, baseOffset: bigint, baseTimestamp: bigint, logAppendTime: bigint | null): DecodedRecord {
  const rc = cur.nextRecord(i);
  const attributes = rc.byte();
  const timestampDelta = rc.varlong();
  const offsetDelta = rc.varint();
  const key = rc.bytes();
  const value = rc.bytes();
  const headerCount = rc.varint();
  if (headerCount < 0) throw new CorruptRecordError(`record ${i} has ${headerCount} headers`);
  const headers: RecordHeader[] = [];
  for (let h = 0; h < headerCount; h++) {
    const hk = rc.bytes();
    if (hk === null) throw new CorruptRecordError(`record ${i} has a header with a null key`);
    headers.push({ key: hk.toString('utf8'), value: rc.bytes() });
  }
  rc.endRecord(i);
  return {
    offset: baseOffset + BigInt(offsetDelta),
    timestamp: logAppendTime ?? baseTimestamp + timestampDelta,
    attributes,
    key,
    value,
    headers,
  };
}

/** A batch's records: `count` of them in `buf` [start, end), with the batch's bases (readRecords' arguments). */
export interface RecordsSpan {
  buf: Buffer;
  start: number;
  end: number;
  count: number;
  baseOffset: bigint;
  baseTimestamp: bigint;
  /** Replaces every record's timestamp when not null (a LogAppendTime batch). */
  logAppendTime: bigint | null;
}

/**
 * The records of [start, end) one at a time, as Kafka's lazy batch iterator reads them
 * (`DefaultRecordBatch.RecordIterator`): `onRecord` sees each record before the next is read, so
 * the records before a corrupt one are seen. Throws CorruptRecordError with Kafka's
 * `InvalidRecordException` messages for a negative count, a count past the bytes and bytes past
 * the count (before the last record is seen); a malformed record throws as in readRecords.
 */
export function forEachRecord(span: RecordsSpan, onRecord: (record: DecodedRecord) => void): void {
  const { buf, start, end, count, baseOffset, baseTimestamp, logAppendTime } = span;
  if (count < 0) throw new CorruptRecordError(`Found invalid record count ${count} in magic v2 batch`);
  const cur = new RecordCursor(buf, start, end);
  for (let i = 0; i < count; i++) {
    if (cur.pos >= end) throw new CorruptRecordError('Incorrect declared batch size, premature EOF reached');
    const record = readRecord(cur, i, baseOffset, baseTimestamp, logAppendTime);
    // Kafka's `next()` checks the bytes after the last record before returning it (and a count of 0 reads nothing).
    if (i === count - 1 && cur.pos !== end) throw new CorruptRecordError('Incorrect declared batch size, records still remaining in file');
    onRecord(record);
  }
}

/**
 * Walks `count` records in [start, end), validating them as `readRecords` does (same
 * CorruptRecordError cases), and hands `visit` each one's index, timestamp delta (0n unless
 * `withTimestamps`: decoding it costs a BigInt), offset delta and key and value as byte ranges of
 * `buf` (start -1 for null), making no views or objects.
 */
function walkRecords(
  buf: Buffer,
  start: number,
  end: number,
  count: number,
  withTimestamps: boolean,
  visit: (i: number, timestampDelta: bigint, offsetDelta: number, keyStart: number, keyEnd: number, valueStart: number, valueEnd: number) => void,
): void {
  if (count < 0) throw new CorruptRecordError(`negative record count ${count}`);
  const cur = new RecordCursor(buf, start, end);
  const record = new RecordCursor(buf, start, end);
  for (let i = 0; i < count; i++) {
    const rc = cur.nextRecord(i, record);
    rc.byte(); // attributes
    let timestampDelta = 0n;
    if (withTimestamps) timestampDelta = rc.varlong();
    else rc.skipVarlong();
    const offsetDelta = rc.varint();
    const keyLength = rc.varint();
    const keyStart = keyLength < 0 ? -1 : rc.skip(keyLength);
    const valueLength = rc.varint();
    const valueStart = valueLength < 0 ? -1 : rc.skip(valueLength);
    const headerCount = rc.varint();
    if (headerCount < 0) throw new CorruptRecordError(`record ${i} has ${headerCount} headers`);
    for (let h = 0; h < headerCount; h++) {
      const headerKeyLength = rc.varint();
      if (headerKeyLength < 0) throw new CorruptRecordError(`record ${i} has a header with a null key`);
      rc.skip(headerKeyLength);
      const headerValueLength = rc.varint();
      if (headerValueLength >= 0) rc.skip(headerValueLength);
    }
    rc.endRecord(i);
    visit(i, timestampDelta, offsetDelta, keyStart, keyStart + keyLength, valueStart, valueStart + valueLength);
  }
  cur.endRecords(count);
}

/**
 * Visits the key and value of each of `count` records in [start, end) as byte ranges of `buf`
 * (`keyStart`/`valueStart` -1 for a null key/value), making no views, objects or BigInts: the
 * start-up replay of a coordinator log reads a million records this way. Validates the records
 * as `readRecords` does (same CorruptRecordError cases); timestamps and headers are skipped, the
 * offset delta is passed along (a message naming a record's offset).
 */
export function forEachRecordSpan(
  buf: Buffer,
  start: number,
  end: number,
  count: number,
  visit: (keyStart: number, keyEnd: number, valueStart: number, valueEnd: number, offsetDelta: number) => void,
): void {
  walkRecords(buf, start, end, count, false, (_i, _t, offsetDelta, keyStart, keyEnd, valueStart, valueEnd) => visit(keyStart, keyEnd, valueStart, valueEnd, offsetDelta));
}

/**
 * Visits each of `count` records in [start, end) with its index, timestamp delta (0n unless
 * `withTimestamps`), offset delta and whether its key is null, making no views or record objects:
 * what Produce's record checks read of every record (topics/record-rules.ts, as Kafka's
 * `LogValidator.validateRecord`). Validates the records as `readRecords` does (same
 * CorruptRecordError cases, IllegalRecordLengthError for a record length varint past 5 bytes).
 */
export function forEachRecordHead(
  buf: Buffer,
  start: number,
  end: number,
  count: number,
  withTimestamps: boolean,
  visit: (i: number, timestampDelta: bigint, offsetDelta: number, keyNull: boolean) => void,
): void {
  walkRecords(buf, start, end, count, withTimestamps, (i, timestampDelta, offsetDelta, keyStart) => visit(i, timestampDelta, offsetDelta, keyStart < 0));
}

/**
 * Offsets and timestamps (ms) of the records in [start, end), skipping keys, values and
 * headers; used for timestamp lookups without materialising records.
 */
export function* recordTimestamps(
  buf: Buffer,
  start: number,
  end: number,
  count: number,
  baseOffset: bigint,
  baseTimestamp: bigint,
): Generator<{ offset: bigint; timestamp: bigint }> {
  const cur = new RecordCursor(buf, start, end);
  for (let i = 0; i < count && cur.pos < end; i++) {
    const length = cur.varint();
    const next = cur.pos + length;
    cur.byte();
    const timestampDelta = cur.varlong();
    const offsetDelta = cur.varint();
    yield { offset: baseOffset + BigInt(offsetDelta), timestamp: baseTimestamp + timestampDelta };
    cur.pos = next;
  }
}
