/**
 * The start-up replay's reader of OffsetCommit records (record type 1 of `__consumer_offsets`:
 * Kafka's `OffsetCommitKey` v0 and `OffsetCommitValue` v0-v4, as `GroupCoordinatorRecordSerde`
 * writes them), straight from a batch's bytes. A million stored commits replay in a start-up, and
 * the registry's decoder (coordinator-record.ts) makes per record a key and a value view, a key
 * struct, a Reader each and fresh strings; this reads the fields in place and reuses the strings
 * the previous record had (a commit's records share their group, usually their topic, topic id
 * and metadata), so the offsets held after replay share them too. It gives the same record the
 * registry's decoder gives; any other bytes go to that decoder (see `decode`).
 */
import { ZERO_UUID } from '../../protocol/primitives.js';
import type { OffsetCommitRecord } from '../records.js';

/** Kafka's `CoordinatorRecordType.OFFSET_COMMIT`. */
const OFFSET_COMMIT_TYPE = 1;
/** `OffsetCommitValue`'s newest version, its first flexible one (compact strings, tagged fields). */
const FLEXIBLE_VERSION = 4;
/** The tag of `OffsetCommitValue.TopicId` (v4+), a 16-byte UUID. */
const TOPIC_ID_TAG = 0;
const UUID_BYTES = 16;

/*
 * Big-endian reads of bytes the caller has checked are inside the record: Buffer's readIntNBE
 * validate their offset on every call, and a replayed commit makes about ten of them.
 */
const int16 = (b: Buffer, p: number): number => ((b[p]! << 24) | (b[p + 1]! << 16)) >> 16;
const int32 = (b: Buffer, p: number): number => (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
const TWO_32 = 2 ** 32;
/** int64 as primitives.ts's `readInt64BE` reads it: one BigInt from a safe integer when it is one. */
function int64(b: Buffer, p: number): bigint {
  const high = int32(b, p);
  if (high >= -2097152 && high < 2097152) return BigInt(high * TWO_32 + (int32(b, p + 4) >>> 0));
  return b.readBigInt64BE(p);
}

/** The string the bytes of the last call decoded to, returned again while the bytes repeat. */
class LastString {
  private bytes = Buffer.alloc(64);
  /** `bytes` read four at a time: the comparison runs once per record and field, a million times in a start-up. */
  private words = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length);
  private length = -1;
  private value = '';
  /** A view of the last `buf` (the batches replay hands over are each a Buffer of their own). */
  private source: Buffer | null = null;
  private sourceWords: DataView | null = null;

  constructor(private readonly encoding: 'utf8' | 'base64url') {}

  of(buf: Buffer, start: number, end: number): string {
    const n = end - start;
    if (n === this.length && this.repeats(buf, start, n)) return this.value;
    if (n > this.bytes.length) {
      this.bytes = Buffer.alloc(n);
      this.words = new DataView(this.bytes.buffer, this.bytes.byteOffset, n);
    }
    buf.copy(this.bytes, 0, start, end);
    this.length = n;
    this.value = buf.toString(this.encoding, start, end);
    return this.value;
  }

  /** Whether `buf[start, start + n)` equals the held bytes. */
  private repeats(buf: Buffer, start: number, n: number): boolean {
    if (this.source !== buf) {
      this.source = buf;
      this.sourceWords = new DataView(buf.buffer, buf.byteOffset, buf.length);
    }
    const source = this.sourceWords!;
    let i = 0;
    for (; i + 4 <= n; i += 4) if (source.getInt32(start + i) !== this.words.getInt32(i)) return false;
    for (; i < n; i++) if (buf[start + i] !== this.bytes[i]) return false;
    return true;
  }
}

export class OffsetCommitSpanDecoder {
  private readonly groups = new LastString('utf8');
  private readonly topics = new LastString('utf8');
  private readonly metadatas = new LastString('utf8');
  private readonly topicIds = new LastString('base64url');
  /** Where the last varint read ended. */
  private next = 0;
  /** The last commit timestamp read, by its two 32-bit halves (a commit's records share it). */
  private timestampHigh = 0;
  private timestampLow = 0;
  private timestamp = 0n;

  /**
   * The OffsetCommit record whose key is `buf[keyStart, keyEnd)` and value `buf[valueStart,
   * valueEnd)` (`valueStart` -1: a tombstone), or undefined when the key is of another record
   * type or the bytes are anything but a well-formed OffsetCommitKey v0 / OffsetCommitValue v0-v4
   * with at most a 16-byte TopicId among its tagged fields: the caller then decodes them through
   * the registry, which reads them (a newer value version, other tags) or throws as for any record.
   */
  decode(buf: Buffer, keyStart: number, keyEnd: number, valueStart: number, valueEnd: number): OffsetCommitRecord | undefined {
    if (keyEnd - keyStart < 2 || int16(buf, keyStart) !== OFFSET_COMMIT_TYPE) return undefined;
    let p = keyStart + 2;
    // OffsetCommitKey v0: group (int16 length), topic (int16 length), partition (int32).
    if (p + 2 > keyEnd) return undefined;
    const groupLength = int16(buf, p);
    p += 2;
    if (groupLength < 0 || p + groupLength + 2 > keyEnd) return undefined;
    const groupId = this.groups.of(buf, p, p + groupLength);
    p += groupLength;
    const topicLength = int16(buf, p);
    p += 2;
    if (topicLength < 0 || p + topicLength + 4 > keyEnd) return undefined;
    const topic = this.topics.of(buf, p, p + topicLength);
    p += topicLength;
    const partition = int32(buf, p);
    if (valueStart < 0) return { kind: 'offset-commit', groupId, topic, partition, value: null };
    const value = this.value(buf, valueStart, valueEnd);
    return value === undefined ? undefined : { kind: 'offset-commit', groupId, topic, partition, value };
  }

  private value(buf: Buffer, start: number, end: number): OffsetCommitRecord['value'] | undefined {
    let p = start;
    if (p + 10 > end) return undefined;
    const version = int16(buf, p);
    if (version < 0 || version > FLEXIBLE_VERSION) return undefined;
    const offset = int64(buf, p + 2);
    p += 10;
    let leaderEpoch = -1;
    if (version >= 3) {
      if (p + 4 > end) return undefined;
      leaderEpoch = int32(buf, p);
      p += 4;
    }
    let metadataLength: number;
    if (version >= FLEXIBLE_VERSION) {
      const n = this.uvarint(buf, p, end);
      if (n < 0) return undefined;
      p = this.next;
      metadataLength = n - 1;
    } else {
      if (p + 2 > end) return undefined;
      metadataLength = int16(buf, p);
      p += 2;
    }
    if (metadataLength < 0 || p + metadataLength + 8 > end) return undefined;
    const metadata = metadataLength === 0 ? '' : this.metadatas.of(buf, p, p + metadataLength);
    p += metadataLength;
    const commitTimestamp = this.commitTimestamp(buf, p);
    p += 8;
    let expireTimestamp = -1n;
    if (version === 1) {
      if (p + 8 > end) return undefined;
      expireTimestamp = int64(buf, p);
      p += 8;
    }
    let topicId = ZERO_UUID;
    if (version >= FLEXIBLE_VERSION) {
      const count = this.uvarint(buf, p, end);
      if (count < 0) return undefined;
      p = this.next;
      for (let i = 0; i < count; i++) {
        const tag = this.uvarint(buf, p, end);
        if (tag < 0) return undefined;
        const size = this.uvarint(buf, this.next, end);
        if (size < 0 || this.next + size > end) return undefined;
        p = this.next;
        if (tag === TOPIC_ID_TAG) {
          if (size !== UUID_BYTES) return undefined;
          topicId = this.topicIds.of(buf, p, p + UUID_BYTES);
        }
        p += size;
      }
    }
    // The registry's OffsetCommitValue shape, field for field (defaultOffsetCommitValue's order).
    return { offset, leaderEpoch, metadata, commitTimestamp, expireTimestamp, topicId };
  }

  /** The int64 at `at` as the commit timestamp; the previous record's BigInt again when the bytes repeat. */
  private commitTimestamp(buf: Buffer, at: number): bigint {
    const high = int32(buf, at);
    const low = int32(buf, at + 4);
    if (high !== this.timestampHigh || low !== this.timestampLow) {
      this.timestampHigh = high;
      this.timestampLow = low;
      this.timestamp = int64(buf, at);
    }
    return this.timestamp;
  }

  /**
   * The unsigned varint at `at` (Kafka's `ByteUtils.readUnsignedVarint`, at most 32 bits), its
   * end in `next`; -1 when it runs past `end` or is longer (no object per varint: a v4 value has four).
   */
  private uvarint(buf: Buffer, at: number, end: number): number {
    let value = 0;
    let p = at;
    for (let shift = 0; shift <= 28; shift += 7) {
      if (p >= end) return -1;
      const b = buf[p++]!;
      if (shift === 28 && b > 0x0f) return -1;
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) {
        this.next = p;
        return value >>> 0;
      }
    }
    return -1;
  }
}

