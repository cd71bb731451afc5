/**
 * Record batches of key/value records stamped with the batch's own timestamp and without headers
 * (what a coordinator writes: `__consumer_offsets`, `__share_group_state`), built in one pass:
 * sizes summed as the records are added, one buffer of the batch's size, the header copied from a
 * template and patched, the records copied in, one CRC-32C over it. The bytes are those of
 * `encodeRecordBatch` for the same records and base sequence 0 (test/records/key-value-batch.test.ts
 * compares them);
 * this skips its per-record input objects, its second size pass and most of its int64 writes
 * (issue #16: the batch build was the largest part of a commit's own work).
 */
import { JS_MAX_BYTES, crc32c as crc32cOf, crc32cInJs as crc32cInJsOf } from './crc32c.js';
import { varintSize as varintSizeOf, writeVarint as writeVarintOf } from './record-codec.js';
import { writeInt64BE } from '../protocol/primitives.js';
import {
  ATTRIBUTES_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  BATCH_LENGTH_OFFSET,
  CRC_OFFSET,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAGIC_V2,
  MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  BASE_SEQUENCE_OFFSET,
  RECORD_BATCH_OVERHEAD,
  RECORD_COUNT_OFFSET,
} from './record-batch.js';

/*
 * Taken once: the bundle (scripts/bundle.mjs) may put this file and those it calls in different
 * chunks, where each call would go through the other chunk's export getter (~1% of a commit's CPU
 * in a profile for these).
 */
const varintSize = varintSizeOf;
const writeVarint = writeVarintOf;
const crc32c = crc32cOf;
const crc32cInJs = crc32cInJsOf;

/** The producer fields of a batch written for a producer (a transactional batch). */
export interface BatchProducer {
  producerId: bigint;
  producerEpoch: number;
  /** Batch attributes (e.g. the transactional flag); no compression bits. */
  attributes: number;
}

/**
 * A batch header with no producer (-1s), base sequence 0, leader epoch -1, magic 2: copied, then
 * its per-batch fields patched. Base sequence 0, not -1: Kafka 4.3's `CoordinatorRuntime` builds
 * its batches with `MemoryRecords.builder(..., baseSequence 0, ...)`, transactional or not (its
 * DumpLogSegments prints `baseSequence: 0 lastSequence: <count - 1>`; adversarial trial 25).
 */
const HEADER_TEMPLATE = (() => {
  const b = Buffer.alloc(RECORD_BATCH_OVERHEAD);
  b.writeInt32BE(-1, PARTITION_LEADER_EPOCH_OFFSET);
  b.writeInt8(MAGIC_V2, MAGIC_OFFSET);
  writeInt64BE(b, -1n, PRODUCER_ID_OFFSET);
  b.writeInt16BE(-1, PRODUCER_EPOCH_OFFSET);
  b.writeInt32BE(0, BASE_SEQUENCE_OFFSET);
  return b;
})();

const EMPTY = Buffer.alloc(0);

/** Bytes of a record's key or value field (length varint and bytes; null is the varint -1). */
function bytesFieldSize(b: Buffer | null): number {
  return b === null ? 1 : varintSize(b.length) + b.length;
}

/**
 * Size of a record's body: attributes (1), timestamp delta 0 (1), its offset delta, key, value,
 * header count 0 (1).
 */
function bodySize(offsetDelta: number, key: Buffer, value: Buffer | null): number {
  return 3 + varintSize(offsetDelta) + bytesFieldSize(key) + bytesFieldSize(value);
}

/**
 * Builds one batch at a time: `add` each record, then `finish`. It holds the records (not copies)
 * until `finish`: their bytes must stay unchanged until then.
 */
export class KeyValueBatchBuilder {
  private readonly keys: Buffer[] = [];
  private readonly values: Array<Buffer | null> = [];
  private count = 0;
  private recordBytes = 0;
  /** The last timestamp written and its 8 bytes (a turn's batches share the clock's ms). */
  private lastTimestamp = -1n;
  private readonly timestampBytes = Buffer.alloc(8);

  constructor() {
    writeInt64BE(this.timestampBytes, -1n, 0);
  }

  /** Adds a record (offset delta = records added before it). */
  add(key: Buffer, value: Buffer | null): void {
    const body = bodySize(this.count, key, value);
    this.recordBytes += varintSize(body) + body;
    this.keys[this.count] = key;
    this.values[this.count] = value;
    this.count++;
  }

  /** Bytes the batch will take (header included). */
  get size(): number {
    return RECORD_BATCH_OVERHEAD + this.recordBytes;
  }

  /** Records added since the last `finish` or `reset`. */
  get records(): number {
    return this.count;
  }

  /** Drops the records added (after a refusal), keeping nothing of them. */
  reset(): void {
    this.truncate(0);
  }

  /** Drops the records added after the first `count` (a refused write's, added after others'). */
  truncate(count: number): void {
    // The slots stay (no regrowth per batch); the records they held are let go.
    for (let i = count; i < this.count; i++) {
      const body = bodySize(i, this.keys[i]!, this.values[i]!);
      this.recordBytes -= varintSize(body) + body;
      this.keys[i] = EMPTY;
      this.values[i] = null;
    }
    this.count = Math.min(this.count, count);
  }

  /**
   * The batch of the records added (base offset 0, every record at `timestamp`, ms), with
   * `producer`'s fields when given; the builder is empty again. Throws RangeError with no record.
   */
  finish(timestamp: bigint, producer?: BatchProducer): Buffer {
    const count = this.count;
    if (count === 0) throw new RangeError('a record batch needs at least one record');
    const size = this.size;
    const buf = Buffer.allocUnsafe(size);
    buf.set(HEADER_TEMPLATE, 0);
    buf.writeInt32BE(size - LOG_OVERHEAD, BATCH_LENGTH_OFFSET);
    buf.writeInt32BE(count - 1, LAST_OFFSET_DELTA_OFFSET);
    if (timestamp !== this.lastTimestamp) {
      writeInt64BE(this.timestampBytes, timestamp, 0);
      this.lastTimestamp = timestamp;
    }
    buf.set(this.timestampBytes, BASE_TIMESTAMP_OFFSET);
    buf.set(this.timestampBytes, MAX_TIMESTAMP_OFFSET);
    if (producer !== undefined) {
      buf.writeInt16BE(producer.attributes, ATTRIBUTES_OFFSET);
      writeInt64BE(buf, producer.producerId, PRODUCER_ID_OFFSET);
      buf.writeInt16BE(producer.producerEpoch, PRODUCER_EPOCH_OFFSET);
    }
    buf.writeInt32BE(count, RECORD_COUNT_OFFSET);
    let at = RECORD_BATCH_OVERHEAD;
    const { keys, values } = this;
    for (let i = 0; i < count; i++) {
      const key = keys[i]!;
      const value = values[i]!;
      at = writeVarint(buf, at, bodySize(i, key, value));
      buf[at++] = 0; // record attributes: unused
      buf[at++] = 0; // timestamp delta: the batch's timestamp
      at = writeVarint(buf, at, i);
      at = writeVarint(buf, at, key.length);
      buf.set(key, at);
      at += key.length;
      if (value === null) at = writeVarint(buf, at, -1);
      else {
        at = writeVarint(buf, at, value.length);
        buf.set(value, at);
        at += value.length;
      }
      buf[at++] = 0; // no headers
    }
    this.reset();
    if (at !== size) throw new Error(`record batch builder wrote ${at} bytes, expected ${size}`);
    // A small batch (a commit's) is checksummed in place, a larger one through a view.
    const crc = size - ATTRIBUTES_OFFSET <= JS_MAX_BYTES ? crc32cInJs(buf, 0, ATTRIBUTES_OFFSET, size) : crc32c(buf.subarray(ATTRIBUTES_OFFSET));
    buf.writeUInt32BE(crc, CRC_OFFSET);
    return buf;
  }
}
