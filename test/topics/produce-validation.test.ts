import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { firstBatchesCorruption, validateProducedRecords } from '../../src/topics/produce-validation.js';

const good = (): Buffer => encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, records: [{ key: null, value: Buffer.from('abc') }, { key: null, value: null }] });

describe('validateProducedRecords', () => {
  it('accepts one valid batch', () => {
    const b = good();
    expect(validateProducedRecords(b, 9, 1_000_000)).toEqual({ ok: true, batch: b });
  });

  it('answers the error codes Kafka gives, the log start offset where its log append refuses', () => {
    const code = (records: Buffer | null, version = 9, max = 1_000_000): number | undefined => {
      const r = validateProducedRecords(records, version, max);
      return r.ok ? undefined : r.errorCode;
    };
    const inLog = (records: Buffer): boolean => {
      const r = validateProducedRecords(records, 9, 1_000_000);
      return !r.ok && r.withLogStartOffset === true;
    };
    expect(code(null)).toBe(ErrorCode.INVALID_RECORD);
    expect(code(Buffer.alloc(0))).toBe(ErrorCode.INVALID_RECORD);
    expect(code(Buffer.concat([good(), good()]))).toBe(ErrorCode.INVALID_RECORD);
    const crc = good();
    crc[crc.length - 1] = crc[crc.length - 1]! ^ 1;
    expect(code(crc)).toBe(ErrorCode.CORRUPT_MESSAGE);
    const magic = good();
    magic[16] = 1;
    expect(code(magic)).toBe(ErrorCode.INVALID_RECORD);
    expect(code(good(), 9, 10)).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    const zstd = encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, records: [{ key: null, value: null }] });
    zstd.writeInt16BE(4, 21);
    expect(code(zstd, 6)).toBe(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
    const control = encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, attributes: 0x20, records: [{ key: null, value: null }] });
    expect(code(control)).toBe(ErrorCode.INVALID_RECORD);
    expect([inLog(control), inLog(crc), inLog(magic)]).toEqual([true, false, false]);
    const sequenceless = encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, producerId: 7n, producerEpoch: 0, baseSequence: -1, records: [{ key: null, value: null }] });
    expect([code(sequenceless), inLog(sequenceless)]).toEqual([ErrorCode.INVALID_RECORD, true]);
    const short = good().subarray(0, 50);
    expect(code(short)).toBe(ErrorCode.INVALID_RECORD);
    // A magic ByteBufferLogInputStream does not know, a record size below 14: CORRUPT_MESSAGE (the
    // whole request fails first when it is a partition's first batch, see firstBatchesCorruption).
    const magic3 = good();
    magic3[16] = 3;
    expect(code(magic3)).toBe(ErrorCode.CORRUPT_MESSAGE);
    // UnifiedLog.analyzeAndValidateRecords: a client's batch starts at offset 0.
    const based = encodeRecordBatch({ baseOffset: 77n, timestamp: 1n, records: [{ key: null, value: null }] });
    expect([code(based), inLog(based)]).toEqual([ErrorCode.INVALID_RECORD, true]);
  });

  it('drops bytes after the batch too few to be another one, as UnifiedLog.trimInvalidBytes; refuses a second batch or a bad size after it', () => {
    const b = good();
    for (const junk of [Buffer.from([1, 2, 3]), Buffer.alloc(11, 7), Buffer.concat([Buffer.alloc(8), Buffer.from([0, 0, 0, 40]), Buffer.alloc(5)])]) {
      const r = validateProducedRecords(Buffer.concat([b, junk]), 9, 1_000_000);
      expect(r.ok && r.batch.equals(b)).toBe(true);
    }
    const sizeTooSmall = Buffer.concat([b, Buffer.alloc(8), Buffer.from([0, 0, 0, 13])]);
    expect(validateProducedRecords(sizeTooSmall, 9, 1_000_000)).toMatchObject({ ok: false, errorCode: ErrorCode.CORRUPT_MESSAGE });
    expect(validateProducedRecords(Buffer.concat([b, b]), 9, 1_000_000)).toMatchObject({ ok: false, errorCode: ErrorCode.INVALID_RECORD });
  });

  it("finds what Kafka's first look at a Produce refuses: a first batch's size or magic, until a transactional first batch", () => {
    const magic3 = good();
    magic3[16] = 3;
    const tiny = Buffer.concat([Buffer.alloc(8), Buffer.from([0, 0, 0, 5])]);
    expect(firstBatchesCorruption([good(), null, magic3])).toBe('Invalid magic found in record: 3');
    expect(firstBatchesCorruption([tiny])).toBe('Record size 5 is less than the minimum record overhead (14)');
    expect(firstBatchesCorruption([good(), Buffer.alloc(3)])).toBeNull();
    // RequestUtils.hasTransactionalRecords stops at the first transactional batch: what follows is not read there.
    const transactional = encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, producerId: 7n, producerEpoch: 0, baseSequence: 0, attributes: 0x10, records: [{ key: null, value: null }] });
    expect(firstBatchesCorruption([transactional, magic3])).toBeNull();
  });
});
