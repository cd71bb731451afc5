/**
 * The records of a compressed batch checked as their bytes come out of the decompressor, chunk by
 * chunk, holding nothing but a few numbers between chunks (so a batch inflating to gigabytes is
 * checked in bounded memory). Follows what Kafka 4.3's `LogValidator` reads of a compressed batch
 * appended in place (`DefaultRecordBatch.skipKeyValueIterator`, `DefaultRecord.readPartiallyFrom`):
 *   length varint (its value is not checked against the fields) | attributes int8 |
 *   timestampDelta varlong | offsetDelta varint | keyLength varint, key skipped |
 *   valueLength varint, value skipped | headerCount varint (< 0: invalid) |
 *   per header: keyLength varint (< 0: invalid), key skipped, valueLength varint, value skipped
 * and after `count` records no byte may follow (`RecordIterator.ensureNoneRemaining`). A record cut
 * by the end of the stream, a varint past 5 bytes (a varlong past 10), a negative header count or
 * header key length, and bytes after the last record throw CorruptRecordError, which Kafka answers
 * INVALID_RECORD (87). Varints are Java's `ByteUtils` ones (see record-codec.ts).
 */
import { CorruptRecordError } from './record-codec.js';

/** Visits a record: its index, timestamp delta (0n unless asked for), offset delta and whether its key is null. */
export type RecordHeadVisitor = (i: number, timestampDelta: bigint, offsetDelta: number, keyNull: boolean) => void;

// The field the next byte belongs to. SKIP consumes `skipLeft` bytes, then goes to `afterSkip`;
// HEADER_NEXT consumes nothing: it starts the next header or ends the record.
const LENGTH = 0;
const ATTRIBUTES = 1;
const TIMESTAMP = 2;
const OFFSET_DELTA = 3;
const KEY_LENGTH = 4;
const VALUE_LENGTH = 5;
const HEADER_COUNT = 6;
const HEADER_KEY_LENGTH = 7;
const HEADER_VALUE_LENGTH = 8;
const HEADER_NEXT = 9;
const SKIP = 10;

/** 2^(7k) for the varlong bytes a double holds exactly (7 bytes: 49 bits). */
const VARLONG_EXACT_BYTES = 7;

export class RecordHeadStream {
  private state = LENGTH;
  private records = 0;
  private skipLeft = 0;
  private afterSkip = LENGTH;
  private headersLeft = 0;
  // The varint or varlong being read: bytes so far and the value gathered.
  private bytes = 0;
  private acc = 0;
  private accBig = 0n;
  // The record being read.
  private timestampDelta = 0n;
  private offsetDelta = 0;
  private keyNull = false;

  /** `count` records expected (the batch header's); `withTimestamps` decodes each timestamp delta (a BigInt). */
  constructor(
    private readonly count: number,
    private readonly withTimestamps: boolean,
    private readonly visit: RecordHeadVisitor,
  ) {}

  /** Reads the next bytes of the records; throws CorruptRecordError at the first malformation. */
  push(chunk: Uint8Array): void {
    const end = chunk.length;
    let pos = 0;
    while (pos < end) {
      if (this.state === SKIP) {
        const take = Math.min(this.skipLeft, end - pos);
        pos += take;
        this.skipLeft -= take;
        if (this.skipLeft === 0) this.state = this.afterSkip;
        continue;
      }
      if (this.state === HEADER_NEXT) {
        this.nextHeader();
        continue;
      }
      if (this.records === this.count) throw new CorruptRecordError(`bytes follow the last of ${this.count} records`);
      const b = chunk[pos++]!;
      switch (this.state) {
        case LENGTH:
          if (this.varint(b)) this.state = ATTRIBUTES;
          break;
        case ATTRIBUTES:
          this.state = TIMESTAMP;
          break;
        case TIMESTAMP:
          if (this.varlong(b)) this.state = OFFSET_DELTA;
          break;
        case OFFSET_DELTA:
          if (this.varint(b)) {
            this.offsetDelta = this.acc;
            this.state = KEY_LENGTH;
          }
          break;
        case KEY_LENGTH:
          if (this.varint(b)) {
            this.keyNull = this.acc < 0;
            this.skip(this.acc, VALUE_LENGTH);
          }
          break;
        case VALUE_LENGTH:
          if (this.varint(b)) this.skip(this.acc, HEADER_COUNT);
          break;
        case HEADER_COUNT:
          if (this.varint(b)) {
            if (this.acc < 0) throw new CorruptRecordError(`record ${this.records} has ${this.acc} headers`);
            this.headersLeft = this.acc;
            this.state = HEADER_NEXT;
          }
          break;
        case HEADER_KEY_LENGTH:
          if (this.varint(b)) {
            if (this.acc < 0) throw new CorruptRecordError(`record ${this.records} has a header key of ${this.acc} bytes`);
            this.skip(this.acc, HEADER_VALUE_LENGTH);
          }
          break;
        case HEADER_VALUE_LENGTH:
          if (this.varint(b)) {
            this.headersLeft--;
            this.skip(this.acc, HEADER_NEXT);
          }
          break;
      }
    }
    if (this.state === HEADER_NEXT) this.nextHeader();
  }

  /** The records' bytes have ended: throws CorruptRecordError unless all `count` records were read whole. */
  finish(): void {
    if (this.state === HEADER_NEXT) this.nextHeader();
    if (this.records < this.count || this.state !== LENGTH) {
      throw new CorruptRecordError(`the records end inside record ${this.records} of ${this.count}`);
    }
  }

  /** Starts the next header, or ends the record when none is left. */
  private nextHeader(): void {
    if (this.headersLeft > 0) {
      this.state = HEADER_KEY_LENGTH;
      return;
    }
    this.visit(this.records, this.timestampDelta, this.offsetDelta, this.keyNull);
    this.records++;
    this.state = LENGTH;
  }

  /** Skips a field of `n` bytes (none when `n` <= 0: null or empty), then reads `next`. */
  private skip(n: number, next: number): void {
    if (n > 0) {
      this.skipLeft = n;
      this.afterSkip = next;
      this.state = SKIP;
    } else {
      this.state = next;
    }
  }

  /** One byte of a zig-zag varint (Java's `ByteUtils.readVarint`); true when complete, the value in `acc`. */
  private varint(b: number): boolean {
    const n = this.bytes;
    if (n < 4) {
      this.acc = n === 0 ? b & 0x7f : this.acc | ((b & 0x7f) << (7 * n));
      if ((b & 0x80) !== 0) {
        this.bytes = n + 1;
        return false;
      }
    } else {
      if ((b & 0x80) !== 0) throw new CorruptRecordError('varint is longer than 5 bytes');
      this.acc |= b << 28;
    }
    const u = this.acc;
    this.acc = (u >>> 1) ^ -(u & 1);
    this.bytes = 0;
    return true;
  }

  /** One byte of a zig-zag varlong (Java's `ByteUtils.readVarlong`); true when complete, the value in `timestampDelta`. */
  private varlong(b: number): boolean {
    const n = this.bytes;
    if (this.withTimestamps) {
      if (n < VARLONG_EXACT_BYTES) this.acc = n === 0 ? b & 0x7f : this.acc + (b & 0x7f) * 2 ** (7 * n);
      else {
        if (n === VARLONG_EXACT_BYTES) this.accBig = BigInt(this.acc);
        this.accBig |= BigInt((b & 0x80) !== 0 ? b & 0x7f : b) << BigInt(7 * n);
      }
    }
    if ((b & 0x80) !== 0) {
      if (n === 9) throw new CorruptRecordError('varlong is longer than 10 bytes');
      this.bytes = n + 1;
      return false;
    }
    this.bytes = 0;
    if (!this.withTimestamps) this.timestampDelta = 0n;
    else if (n < VARLONG_EXACT_BYTES) {
      const u = this.acc;
      this.timestampDelta = BigInt(u % 2 === 0 ? u / 2 : -(u + 1) / 2);
    } else {
      const u = BigInt.asUintN(64, this.accBig);
      this.timestampDelta = BigInt.asIntN(64, (u >> 1n) ^ -(u & 1n));
    }
    return true;
  }
}
