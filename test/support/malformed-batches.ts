/**
 * Produce batches whose records are malformed (or odd) inside a right CRC-32C, and batches whose
 * header Kafka refuses (one CRC wrong), each with the answer a real Kafka 4.3.1 broker gave it
 * (checked side by side on 2026-12-03; the conformance suite compares them again):
 * test/e2e/malformed-records.test.ts and test/conformance/topics.conformance.test.ts send them.
 */
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { ErrorCode } from '../../src/protocol/errors.js';
import { rawBatch, record, recordBody, varint } from './raw-records.js';

const GZIP = 1;
const [SNAPPY, LZ4, ZSTD] = [2, 3, 4];
const require = createRequire(import.meta.url);
const snappy = require('snappy') as typeof import('snappy');
const lz4 = require('lz4-napi') as typeof import('lz4-napi');
const one = record(recordBody({ key: Buffer.from('k') }));
const second = record(recordBody({ offsetDelta: 1 }));
/** A record body with a key length of 100 and one key byte. */
const keyPastEnd = Buffer.concat([Buffer.from([0]), varint(0), varint(0), varint(100), Buffer.from('x'), varint(-1), varint(0)]);
/** A record whose length varint has six bytes. */
const longLength = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0, 0, 0, 0]);
/** A record body whose timestamp delta varlong has eleven bytes. */
const longTimestamp = Buffer.concat([Buffer.from([0]), Buffer.alloc(10, 0xff), Buffer.from([0x01]), varint(0), varint(-1), varint(-1), varint(0)]);
const negativeHeaderKey = recordBody({ headerCount: 1, headerBytes: Buffer.concat([varint(-1), varint(1), Buffer.from('v')]) });
const gzipped = gzipSync(one);

/** A zstd frame of one raw block holding `bytes` (at most 255): single segment, a 1-byte content size. */
function zstdRaw(bytes: Buffer): Buffer {
  const blockHeader = Buffer.alloc(3);
  blockHeader.writeUIntLE((bytes.length << 3) | 1, 0, 3); // last block, type Raw
  return Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x20, bytes.length]), blockHeader, bytes]);
}
const { INVALID_RECORD, UNKNOWN_SERVER_ERROR, CORRUPT_MESSAGE, NONE } = ErrorCode;

/**
 * Each batch (one record declared unless said) and Kafka 4.3.1's answer to it (NONE: appended), with
 * no error message and the log start offset, or -1 (`refusedBeforeLog`) where KafkaApis or the log's
 * size and CRC checks refuse it (`LogAppendInfo.UNKNOWN_LOG_APPEND_INFO`).
 */
export const MALFORMED_BATCHES: Record<string, { batch: Buffer; kafka: number; refusedBeforeLog?: true }> = {
  'count above the records': { batch: rawBatch(one, 2), kafka: INVALID_RECORD },
  'count below the records': { batch: rawBatch(Buffer.concat([one, second]), 1), kafka: INVALID_RECORD },
  'bytes after the last record': { batch: rawBatch(Buffer.concat([one, Buffer.from([1, 2, 3])]), 1), kafka: INVALID_RECORD },
  'length past the batch end': { batch: rawBatch(record(recordBody(), 50), 1), kafka: INVALID_RECORD },
  'length short of the fields': { batch: rawBatch(record(recordBody({ value: Buffer.from('abcdef') }), -3), 1), kafka: INVALID_RECORD },
  'length past the fields, inside the batch': { batch: rawBatch(Buffer.concat([record(recordBody(), 2), Buffer.from([0, 0])]), 1), kafka: INVALID_RECORD },
  'negative length': { batch: rawBatch(Buffer.concat([varint(-5), recordBody()]), 1), kafka: INVALID_RECORD },
  'zero length': { batch: rawBatch(Buffer.concat([varint(0), recordBody()]), 1), kafka: INVALID_RECORD },
  'header count -1': { batch: rawBatch(record(recordBody({ headerCount: -1 })), 1), kafka: INVALID_RECORD },
  'more headers than bytes': { batch: rawBatch(record(recordBody({ headerCount: 5 })), 1), kafka: INVALID_RECORD },
  'key length past the record end': { batch: rawBatch(record(keyPastEnd), 1), kafka: INVALID_RECORD },
  'negative header key length': { batch: rawBatch(record(negativeHeaderKey), 1), kafka: INVALID_RECORD },
  'timestamp varlong of 11 bytes': { batch: rawBatch(record(longTimestamp), 1), kafka: INVALID_RECORD },
  'length varint of 6 bytes': { batch: rawBatch(longLength, 1), kafka: UNKNOWN_SERVER_ERROR },
  'key length -2 (a null key)': { batch: rawBatch(record(Buffer.concat([Buffer.from([0]), varint(0), varint(0), varint(-2), varint(-1), varint(0)])), 1), kafka: NONE },
  'codec 5': { batch: rawBatch(one, 1, { codec: 5 }), kafka: UNKNOWN_SERVER_ERROR },
  'gzip: count above the records': { batch: rawBatch(one, 2, { codec: GZIP }), kafka: INVALID_RECORD },
  'gzip: count below the records': { batch: rawBatch(Buffer.concat([one, second]), 1, { codec: GZIP }), kafka: INVALID_RECORD },
  'gzip: bytes after the last record': { batch: rawBatch(Buffer.concat([one, Buffer.from([9, 9])]), 1, { codec: GZIP }), kafka: INVALID_RECORD },
  'gzip: header count -1': { batch: rawBatch(record(recordBody({ headerCount: -1 })), 1, { codec: GZIP }), kafka: INVALID_RECORD },
  'gzip: key length past the end': { batch: rawBatch(record(keyPastEnd), 1, { codec: GZIP }), kafka: INVALID_RECORD },
  'gzip: length varint of 6 bytes': { batch: rawBatch(longLength, 1, { codec: GZIP }), kafka: INVALID_RECORD },
  'gzip: negative header key length': { batch: rawBatch(record(negativeHeaderKey), 1, { codec: GZIP }), kafka: INVALID_RECORD },
  // readPartiallyFrom reads no record length: these are appended.
  'gzip: length short of the fields': { batch: rawBatch(record(recordBody({ value: Buffer.from('abcdef') }), -3), 1, { codec: GZIP }), kafka: NONE },
  'gzip: zero length': { batch: rawBatch(Buffer.concat([varint(0), recordBody()]), 1, { codec: GZIP }), kafka: NONE },
  'gzip attribute, bytes not gzip': { batch: rawBatch(Buffer.alloc(0), 1, { codec: GZIP, payload: Buffer.from('garbage!') }), kafka: UNKNOWN_SERVER_ERROR },
  // The batch's own checks: KafkaApis (ProduceRequest.validateRecords), UnifiedLog.analyzeAndValidateRecords
  // (Batch.ensureValid), LogValidator.validateBatch.
  'two batches': { batch: Buffer.concat([rawBatch(one, 1), rawBatch(one, 1)]), kafka: INVALID_RECORD, refusedBeforeLog: true },
  'batch cut short': { batch: rawBatch(one, 1).subarray(0, 60), kafka: INVALID_RECORD, refusedBeforeLog: true },
  'magic 1': { batch: rawBatch(one, 1, { magic: 1 }), kafka: INVALID_RECORD, refusedBeforeLog: true },
  'idempotent batch, base sequence -1': { batch: rawBatch(one, 1, { producerId: 7n, producerEpoch: 0, baseSequence: -1 }), kafka: INVALID_RECORD },
  'last offset delta 0, count 2': { batch: rawBatch(Buffer.concat([one, second]), 2, { lastOffsetDelta: 0 }), kafka: INVALID_RECORD },
  'last offset delta -1': { batch: rawBatch(one, 1, { lastOffsetDelta: -1 }), kafka: INVALID_RECORD },
  'count 0, no records': { batch: rawBatch(Buffer.alloc(0), 0), kafka: INVALID_RECORD },
  'control batch from a client': { batch: rawBatch(one, 1, { flags: 0x20 }), kafka: INVALID_RECORD },
  'CRC-32C mismatch': { batch: rawBatch(one, 1, { badCrc: true }), kafka: CORRUPT_MESSAGE, refusedBeforeLog: true },
  'gzip cut short': { batch: rawBatch(Buffer.alloc(0), 1, { codec: GZIP, payload: gzipped.subarray(0, gzipped.length - 6) }), kafka: UNKNOWN_SERVER_ERROR },
  // snappy, lz4 and zstd records are read as gzip's (records/decompress.ts).
  'snappy: count above the records': { batch: rawBatch(Buffer.alloc(0), 2, { codec: SNAPPY, payload: snappy.compressSync(one) }), kafka: INVALID_RECORD },
  'snappy attribute, bytes not snappy': { batch: rawBatch(Buffer.alloc(0), 1, { codec: SNAPPY, payload: Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2]) }), kafka: UNKNOWN_SERVER_ERROR },
  'lz4: count above the records': { batch: rawBatch(Buffer.alloc(0), 2, { codec: LZ4, payload: lz4.compressFrameSync(one) }), kafka: INVALID_RECORD },
  'lz4 attribute, bytes not lz4': { batch: rawBatch(Buffer.alloc(0), 1, { codec: LZ4, payload: Buffer.from('garbage!') }), kafka: UNKNOWN_SERVER_ERROR },
  'zstd: count above the records': { batch: rawBatch(Buffer.alloc(0), 2, { codec: ZSTD, payload: zstdRaw(one) }), kafka: INVALID_RECORD },
  'zstd attribute, bytes not zstd': { batch: rawBatch(Buffer.alloc(0), 1, { codec: ZSTD, payload: Buffer.from('garbage!') }), kafka: UNKNOWN_SERVER_ERROR },
};
