import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { validateProducedRecords } from '../../src/topics/produce-validation.js';

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
  });
});
