/**
 * `kafka-mock-coordinator dump-log <segment.log>...`: prints a `__consumer_offsets` segment the
 * way Kafka 4.3's `kafka-dump-log.sh --offsets-decoder --print-data-log --files <segment>` does
 * (`org.apache.kafka.tools.DumpLogSegments`: `dumpLog`, `printBatchLevel`, `printRecordMetadata`,
 * `OffsetsMessageParser`; batches iterated as `FileLogInputStream` does), a
 * `__transaction_state` / `__share_group_state` segment as `--transaction-log-decoder` /
 * `--share-group-state-decoder` do, or any topic's segment as `--print-data-log` alone does (its
 * `DecoderMessageParser` with `StringDecoder`s: key and value as UTF-8 text, each left out when null):
 *
 *   Dumping <file>
 *   Log starting offset: <base offset from the file name>
 *   baseOffset: 0 lastOffset: 1 count: 2 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1700000000000 size: 190 magic: 2 compresscodec: none crc: 123 isvalid: true
 *   | offset: 0 CreateTime: 1700000000000 keySize: 30 valueSize: 40 sequence: -1 headerKeys: [] key: {...} payload: {...}
 *   ...
 *   Found N invalid bytes at the end of <file name>      (only when a partial batch follows)
 *
 * Unlike Kafka's tool, a tail of zeros (written ahead of a coordinator log's batches under
 * `mock.flush.policy=always`: storage/prepared-space.ts) ends the dump with a note on stderr.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  RECORD_BATCH_OVERHEAD,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
  CONTROL_FLAG_MASK,
  DELETE_HORIZON_FLAG_MASK,
  CompressionCodec,
  compressionCodec,
  readBatchHeader,
  validateBatch,
  type RecordBatchHeader,
} from '../records/record-batch.js';
import { CorruptRecordError, forEachRecord, type DecodedRecord } from '../records/record-codec.js';
import { TooLargeToRead, decompress, decompresses } from '../records/decompress.js';
import { formatCoordinatorRecord } from './coordinator-json.js';
import { CONTROL_TYPE_NAMES, controlRecordType, decodeEndTxnMarker } from '../records/control-batch.js';
import type { CoordinatorLog } from '../records/schemas/record-types.js';
import { allZero } from '../storage/prepared-space.js';

/** How record keys and values are printed: as one coordinator log's records, or as UTF-8 text (`strings`). */
export type RecordFormat = CoordinatorLog | 'strings';

/** Kafka's `DefaultRecordBatch` header bytes up to and including magic (`HEADER_SIZE_UP_TO_MAGIC`). */
const HEADER_SIZE_UP_TO_MAGIC = MAGIC_OFFSET + 1;
/** Kafka's `LegacyRecord.RECORD_OVERHEAD_V0`: smaller batch sizes are corrupt. */
const RECORD_OVERHEAD_V0 = 14;
const INT32_MAX = 0x7fffffff;

const CODEC_NAMES: Record<number, string> = { 0: 'none', 1: 'gzip', 2: 'snappy', 3: 'lz4', 4: 'zstd' };

export interface DumpLogResult {
  /** Batches whose CRC did not match (printed with `isvalid: false`). */
  invalidBatches: number;
  /** Bytes after the last whole batch. */
  trailingBytes: number;
}

/** Kafka's `DefaultRecordBatch.incrementSequence`: wraps at Integer.MAX_VALUE. */
function incrementSequence(sequence: number, increment: number): number {
  if (sequence > INT32_MAX - increment) return increment - (INT32_MAX - sequence) - 1;
  return sequence + increment;
}

function timestampTypeName(attributes: number): string {
  return (attributes & TIMESTAMP_TYPE_MASK) !== 0 ? 'LogAppendTime' : 'CreateTime';
}

/** The batch line (`printBatchLevel`). */
export function formatBatchLine(h: RecordBatchHeader, position: number, size: number, valid: boolean): string {
  const lastSequence = h.baseSequence === -1 ? -1 : incrementSequence(h.baseSequence, h.lastOffsetDelta);
  const deleteHorizon = (h.attributes & DELETE_HORIZON_FLAG_MASK) !== 0 ? `OptionalLong[${h.baseTimestamp}]` : 'OptionalLong.empty';
  return (
    `baseOffset: ${h.baseOffset} lastOffset: ${h.baseOffset + BigInt(h.lastOffsetDelta)} count: ${h.recordCount}` +
    ` baseSequence: ${h.baseSequence} lastSequence: ${lastSequence}` +
    ` producerId: ${h.producerId} producerEpoch: ${h.producerEpoch}` +
    ` partitionLeaderEpoch: ${h.partitionLeaderEpoch}` +
    ` isTransactional: ${(h.attributes & TRANSACTIONAL_FLAG_MASK) !== 0}` +
    ` isControl: ${(h.attributes & CONTROL_FLAG_MASK) !== 0}` +
    ` deleteHorizonMs: ${deleteHorizon}` +
    ` position: ${position} ${timestampTypeName(h.attributes)}: ${h.maxTimestamp}` +
    ` size: ${size} magic: ${h.magic} compresscodec: ${CODEC_NAMES[compressionCodec(h.attributes)] ?? 'unknown'}` +
    ` crc: ${h.crc} isvalid: ${valid}`
  );
}

/** A record line (`printRecordMetadata` + `printRecordContents` with the decoder of `log`'s records). */
export function formatRecordLine(h: RecordBatchHeader, r: DecodedRecord, log: RecordFormat = '__consumer_offsets'): string {
  const offsetDelta = Number(r.offset - h.baseOffset);
  const sequence = h.baseSequence === -1 ? -1 : incrementSequence(h.baseSequence, offsetDelta);
  let line =
    `| offset: ${r.offset} ${timestampTypeName(h.attributes)}: ${r.timestamp}` +
    ` keySize: ${r.key === null ? -1 : r.key.length} valueSize: ${r.value === null ? -1 : r.value.length}` +
    ` sequence: ${sequence} headerKeys: [${r.headers.map((x) => x.key).join(',')}]`;
  if ((h.attributes & CONTROL_FLAG_MASK) !== 0) {
    // Transaction markers as Kafka prints them; other control types (KRaft's) by name and id, with
    // the extra line break of Kafka's `println` there.
    const marker = decodeEndTxnMarker(r.key, r.value);
    if (marker) return line + ` endTxnMarker: ${marker.commit ? 'COMMIT' : 'ABORT'} coordinatorEpoch: ${marker.coordinatorEpoch}`;
    const controlType = controlRecordType(r.key) ?? -1;
    return line + ` controlType: ${CONTROL_TYPE_NAMES[controlType] ?? 'UNKNOWN'}(${controlType})\n`;
  }
  // Java's `new String(bytes, UTF_8)` (StringDecoder) replaces malformed bytes with U+FFFD, as Buffer#toString does.
  if (log === 'strings') return line + (r.key === null ? '' : ` key: ${r.key.toString('utf8')}`) + (r.value === null ? '' : ` payload: ${r.value.toString('utf8')}`);
  const f = formatCoordinatorRecord(log, r.key, r.value, r.offset);
  if (f.key !== undefined) line += ` key: ${f.key}`;
  if (f.payload !== undefined) line += ` payload: ${f.payload}`;
  return line;
}

/** Prefixes a record decoding error with the exception Kafka's tool stops with. */
function asKafkaException(err: unknown): Error {
  return new Error(err instanceof CorruptRecordError ? `InvalidRecordException: ${err.message}` : (err as Error).message);
}

/**
 * Calls `onRecord` per record of the batch as it is read, as Kafka's tool iterates a batch; throws
 * (with the exception Kafka's tool stops with) at the first record that cannot be read, after the
 * ones before it, or for a compressed body that does not decompress. A codec this tool does not
 * decode, or a snappy, lz4 or zstd body decompressing to more than DECOMPRESS_LIMIT, is a note on
 * `err`, and the batch's records are left unprinted.
 */
function eachBatchRecord(batch: Buffer, h: RecordBatchHeader, onRecord: (r: DecodedRecord) => void, err: (line: string) => void, position: number): void {
  const end = h.batchLength + LOG_OVERHEAD;
  const logAppendTime = (h.attributes & TIMESTAMP_TYPE_MASK) !== 0 ? h.maxTimestamp : null;
  const codec = compressionCodec(h.attributes);
  let body = batch;
  let start = RECORD_BATCH_OVERHEAD;
  let bodyEnd = end;
  if (codec === CompressionCodec.GZIP) {
    const compressed = batch.subarray(RECORD_BATCH_OVERHEAD, end);
    // Java's GZIPInputStream checks the magic bytes first: Kafka's tool stops with its message.
    if (compressed[0] !== 0x1f || compressed[1] !== 0x8b) throw new Error('KafkaException: java.util.zip.ZipException: Not in GZIP format');
    try {
      body = gunzipSync(compressed);
    } catch (e) {
      throw new Error(`KafkaException: ${(e as Error).message}`);
    }
    start = 0;
    bodyEnd = body.length;
  } else if (codec !== CompressionCodec.NONE) {
    if (!decompresses(codec)) {
      err(`Could not read the records of the batch at position ${position}: records compressed with ${CODEC_NAMES[codec] ?? codec} are not decoded by this tool`);
      return;
    }
    try {
      body = decompress(codec, batch.subarray(RECORD_BATCH_OVERHEAD, end));
    } catch (e) {
      if (e instanceof TooLargeToRead) {
        err(`Could not read the records of the batch at position ${position}: ${(e as Error).message}`);
        return;
      }
      throw new Error(`KafkaException: ${(e as Error).message}`);
    }
    start = 0;
    bodyEnd = body.length;
  }
  try {
    forEachRecord({ buf: body, start, end: bodyEnd, count: h.recordCount, baseOffset: h.baseOffset, baseTimestamp: h.baseTimestamp, logAppendTime }, onRecord);
  } catch (e) {
    throw asKafkaException(e);
  }
}

/**
 * Dumps one segment file of `log`, calling `out` per stdout line and `err` per stderr line.
 * Throws (like Kafka's tool) when a batch declares a size below the minimum record overhead, when
 * a batch's records cannot be read (after printing those before; Kafka's `InvalidRecordException`
 * messages), when a batch is not magic 2, when
 * the file name is not a base offset, and when the file does not exist (after the `Dumping` and
 * `Log starting offset` lines, which Kafka's tool prints before opening it).
 */
export function dumpLogFile(file: string, out: (line: string) => void, err: (line: string) => void = out, log: RecordFormat = '__consumer_offsets'): DumpLogResult {
  out(`Dumping ${file}`);
  const name = basename(file);
  const dot = name.lastIndexOf('.');
  const suffix = dot >= 0 ? name.slice(dot) : '';
  if (suffix !== '.log') {
    err(`Ignoring unknown file ${file}`);
    return { invalidBatches: 0, trailingBytes: 0 };
  }
  const baseName = name.split('.')[0] ?? '';
  if (!/^-?\d+$/.test(baseName)) {
    // Kafka's tool stops at the name (NumberFormatException) without opening the file; say whether it is there at all.
    throw new Error(`For input string: "${baseName}" (the segment file name must be its base offset; ${existsSync(file) ? 'the file exists' : 'no such file either'})`);
  }
  out(`Log starting offset: ${BigInt(baseName)}`);

  // Kafka's tool prints the two lines above before it opens the file, then fails with NoSuchFileException.
  if (!existsSync(file)) throw new Error(`NoSuchFileException: ${file} (no such file)`);
  const buf = readFileSync(file);
  let position = 0;
  let invalidBatches = 0;
  for (;;) {
    if (position + HEADER_SIZE_UP_TO_MAGIC >= buf.length) break;
    const batchLength = buf.readInt32BE(position + 8);
    if (batchLength === 0 && allZero(buf.subarray(position))) {
      // Ours, not Kafka's tool (which fails here as on any record of size 0): the zeros a coordinator
      // log writes ahead of its active segment's batches under mock.flush.policy=always (prepared-space.ts).
      err(`${buf.length - position} bytes of zeros follow the batches in ${name}: space written ahead of them (mock.flush.policy=always), cut when the segment rolls or the server stops`);
      return { invalidBatches, trailingBytes: 0 };
    }
    if (batchLength < RECORD_OVERHEAD_V0) {
      throw new Error(`Found record size ${batchLength} smaller than minimum record overhead (${RECORD_OVERHEAD_V0}) in file ${file}.`);
    }
    const size = batchLength + LOG_OVERHEAD;
    if (position + size > buf.length) break;
    const magic = buf.readInt8(position + MAGIC_OFFSET);
    if (magic !== 2 || size < RECORD_BATCH_OVERHEAD) {
      out(`offset: ${buf.readBigInt64BE(position)} position: ${position} size: ${size} magic: ${magic} isvalid: false`);
      // Kafka's tool stops at such a batch when it is damaged (it decodes real magic 0/1 ones, which we never write).
      throw new Error(`batch at position ${position} has magic ${magic}; only magic 2 batches are decoded`);
    }
    const batch = buf.subarray(position, position + size);
    const h = readBatchHeader(batch);
    const valid = validateBatch(batch).ok;
    if (!valid) invalidBatches++;
    out(formatBatchLine(h, position, size, valid));
    eachBatchRecord(batch, h, (r) => out(formatRecordLine(h, r, log)), err, position);
    position += size;
  }
  const trailingBytes = buf.length - position;
  if (trailingBytes > 0) out(`Found ${trailingBytes} invalid bytes at the end of ${name}`);
  return { invalidBatches, trailingBytes };
}

/**
 * The format of a segment from its directory's name (`<topic>-<partition>`), for a command line
 * that names no decoder: the internal topics' records decoded as theirs, another topic's as text;
 * `__consumer_offsets` when the directory is not a partition's.
 */
export function recordFormatOf(file: string): RecordFormat {
  const topic = /^(.+)-\d+$/.exec(basename(dirname(resolve(file))))?.[1];
  if (topic === undefined) return '__consumer_offsets';
  return topic === '__consumer_offsets' || topic === '__transaction_state' || topic === '__share_group_state' ? topic : 'strings';
}

/**
 * Dumps every file of `log` in order (`log` may pick per file); returns the process exit code: 0, or 1 at the first file that
 * cannot be read or holds a batch whose records cannot be read (its message on `err`), where Kafka's
 * tool stops with the exception (the files after it are not dumped).
 */
export function dumpLogFiles(files: readonly string[], out: (line: string) => void, err: (line: string) => void, log: RecordFormat | ((file: string) => RecordFormat) = '__consumer_offsets'): number {
  for (const file of files) {
    try {
      dumpLogFile(file, out, err, typeof log === 'function' ? log(file) : log);
    } catch (e) {
      err((e as Error).message);
      return 1;
    }
  }
  return 0;
}
