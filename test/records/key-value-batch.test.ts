import { describe, expect, it } from 'vitest';
import { KeyValueBatchBuilder } from '../../src/records/key-value-batch.js';
import { TRANSACTIONAL_FLAG_MASK, decodeRecords, encodeRecordBatch, validateBatch } from '../../src/records/record-batch.js';

type Rec = { key: Buffer; value: Buffer | null };

function built(builder: KeyValueBatchBuilder, records: Rec[], timestamp: bigint, producer?: { producerId: bigint; producerEpoch: number; attributes: number }): Buffer {
  for (const r of records) builder.add(r.key, r.value);
  return builder.finish(timestamp, producer);
}

const bytes = (n: number, fill: number): Buffer => Buffer.alloc(n, fill);

// Base sequence 0, as every batch of Kafka 4.3's CoordinatorRuntime (src/records/key-value-batch.ts).
describe('KeyValueBatchBuilder', () => {
  const cases: Array<[string, Rec[]]> = [
    ['one record', [{ key: Buffer.from('key-1'), value: Buffer.from('value-1') }]],
    ['a tombstone', [{ key: Buffer.from('gone'), value: null }]],
    ['key and value of 2-byte lengths (64+ bytes)', [{ key: bytes(64, 1), value: bytes(300, 2) }]],
    ['a 3-byte value length', [{ key: bytes(10, 3), value: bytes(20_000, 4) }]],
    ['an empty value', [{ key: bytes(3, 5), value: Buffer.alloc(0) }]],
    ['130 records (offset deltas of 2 bytes)', Array.from({ length: 130 }, (_, i) => ({ key: Buffer.from(`k${i}`), value: i % 7 === 0 ? null : bytes(i, i) }))],
  ];

  it.each(cases)('writes the bytes encodeRecordBatch writes: %s', (_name, records) => {
    const builder = new KeyValueBatchBuilder();
    for (const timestamp of [1_764_000_000_123n, 1_764_000_000_123n, 5n]) {
      const ours = built(builder, records, timestamp);
      expect(ours.equals(encodeRecordBatch({ baseOffset: 0n, timestamp, records, baseSequence: 0 }))).toBe(true);
      expect(validateBatch(ours)).toEqual({ ok: true, size: ours.length });
      expect(decodeRecords(ours).map((r) => [r.key, r.value])).toEqual(records.map((r) => [r.key, r.value]));
    }
  });

  it('writes a transactional batch as encodeRecordBatch does, and a plain one after it', () => {
    const builder = new KeyValueBatchBuilder();
    const records = [{ key: Buffer.from('a'), value: Buffer.from('b') }];
    const txn = built(builder, records, 99n, { producerId: 4_000_000_000n, producerEpoch: 7, attributes: TRANSACTIONAL_FLAG_MASK });
    expect(txn.equals(encodeRecordBatch({ baseOffset: 0n, timestamp: 99n, records, producerId: 4_000_000_000n, producerEpoch: 7, attributes: TRANSACTIONAL_FLAG_MASK, baseSequence: 0 }))).toBe(true);
    expect(built(builder, records, 99n).equals(encodeRecordBatch({ baseOffset: 0n, timestamp: 99n, records, baseSequence: 0 }))).toBe(true);
  });

  it('says the size before building, and forgets the records on reset', () => {
    const builder = new KeyValueBatchBuilder();
    builder.add(Buffer.from('k'), Buffer.from('v'));
    const size = builder.size;
    builder.reset();
    expect(() => builder.finish(1n)).toThrow(RangeError);
    builder.add(Buffer.from('k'), Buffer.from('v'));
    expect(builder.finish(1n).length).toBe(size);
  });
});
