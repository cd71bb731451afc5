/**
 * The log cleaner keeps each active producer's last batch, emptied if need be (Kafka's
 * `Cleaner.cleanInto` / `BatchRetention.RETAIN_EMPTY`, `DefaultRecordBatch.writeEmptyHeader`): the
 * batch whose last offset is the producer's last data offset, or, for a producer whose last entry
 * is a marker of a newer epoch, that marker (emptied once its delete horizon passes). Other
 * producers' batches, and producers not active, are cleaned as usual. `ProducerScan` reads the
 * same producers from the log as the partition's producer state holds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { LogCleaner } from '../../src/storage/log-cleaner.js';
import { ProducerScan, type ActiveProducers } from '../../src/storage/cleaner-producers.js';
import { batchTxnInfo } from '../../src/storage/cleaner-transactions.js';
import { ProducerStateTable } from '../../src/topics/producer-state.js';
import { encodeRecordBatch, readBatchHeader, validateBatch, RECORD_BATCH_OVERHEAD, TRANSACTIONAL_FLAG_MASK, CONTROL_FLAG_MASK } from '../../src/records/record-batch.js';
import { encodeEndTxnMarkerBatch, readEndTxnMarker } from '../../src/records/control-batch.js';
import { ManualTime, captureLog, removeTempDirs, tempDir } from './helpers.js';

const opened: PartitionLog[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((l) => l.close()));
  removeTempDirs();
});

const T0 = 1_700_000_000_000n;
const P = { producerId: 7n, producerEpoch: 3 };
const Q = { producerId: 8n, producerEpoch: 0 };
const R = { producerId: 9n, producerEpoch: 0 };

function batch(keys: string[], p?: { producerId: bigint; producerEpoch: number }, baseSequence = -1, attributes = 0, partitionLeaderEpoch = 0): Buffer {
  return encodeRecordBatch({
    baseOffset: 0n,
    timestamp: T0,
    records: keys.map((k, i) => ({ key: Buffer.from(k), value: Buffer.from(`${k}!`), timestamp: T0 + BigInt(i) })),
    ...(p ? { producerId: p.producerId, producerEpoch: p.producerEpoch, baseSequence } : {}),
    attributes,
    partitionLeaderEpoch,
  });
}

/** Every batch gets its own segment (`segmentBytes` 1); the cleaner merges the closed ones into one group. */
function openLog(time: ManualTime): PartitionLog {
  const log = PartitionLog.open({ dir: tempDir('kmc-cleaner-producers-'), segmentBytes: 1, rollMs: 7 * 24 * 3600 * 1000, flushPolicy: 'always', flushIntervalMs: 1000, log: captureLog().log, time });
  opened.push(log);
  return log;
}

interface Shape {
  offsets: [number, number];
  producerId: number;
  records: number;
  control: string | null;
}

function shape(log: PartitionLog): Shape[] {
  return [...log.batches()].map((b) => {
    const h = readBatchHeader(b);
    const control = (h.attributes & CONTROL_FLAG_MASK) === 0 ? null : (readEndTxnMarker(b)?.commit === false ? 'ABORT' : 'empty');
    return { offsets: [Number(h.baseOffset), Number(h.baseOffset) + h.lastOffsetDelta], producerId: Number(h.producerId), records: h.recordCount, control };
  });
}

describe("log cleaner: each active producer's last batch", () => {
  it('is kept as a header-only batch with its offsets and producer fields; earlier and inactive producers\' batches go; a last marker stays emptied', async () => {
    const time = new ManualTime(Number(T0));
    const log = openLog(time);
    log.append([batch(['x'], P, 0)]); // 0: P's first batch
    log.append([batch(['x', 'y'], P, 1, 0, 5)]); // 1-2: P's last batch (seq 1-2, leader epoch 5)
    log.append([batch(['q'], Q, 0)]); // 3: Q's only batch (Q not active below)
    log.append([batch(['r'], R, 0, TRANSACTIONAL_FLAG_MASK)]); // 4: R's transaction...
    log.append([encodeEndTxnMarkerBatch({ producerId: R.producerId, producerEpoch: 1, marker: { commit: false, coordinatorEpoch: 0 }, timestamp: T0 })]); // 5: ...aborted at epoch 1
    log.append([batch(['x', 'y', 'q'])]); // 6-8: plain records shadowing P's and Q's
    log.append([batch(['z'])]); // 9: the active segment
    await log.whenIdle();
    const originalLast = [...log.batches()][1]!;

    // The producer state such a log gives (live or replayed), and the same read from the log.
    const table = new ProducerStateTable();
    for (const b of log.batches()) {
      const h = readBatchHeader(b);
      if (h.producerId < 0n) continue;
      if ((h.attributes & CONTROL_FLAG_MASK) !== 0) table.completeTxn({ producerId: h.producerId, producerEpoch: h.producerEpoch, coordinatorEpoch: 0, commit: false, transactionVersion: -1 }, h.baseOffset, T0);
      else table.update(h, h.baseOffset);
    }
    const scan = new ProducerScan();
    for (const b of log.batches()) scan.add(b, batchTxnInfo(b));
    const expected = new Map([
      [P.producerId, { lastDataOffset: 2n, epoch: 3 }],
      [Q.producerId, { lastDataOffset: 3n, epoch: 0 }],
      [R.producerId, { lastDataOffset: null, epoch: 1 }],
    ]);
    expect(table.lastRecordsOfActiveProducers()).toEqual(expected);
    expect(scan.result()).toEqual(expected);

    // Q is left out, as a producer Kafka expired would be.
    const active: ActiveProducers = new Map([...expected].filter(([id]) => id !== Q.producerId));
    const cleaner = new LogCleaner({ time, log: captureLog().log, deleteRetentionMs: 1000, minCleanableRatio: 0.5, maxSegmentBytes: 1 << 20 });
    await cleaner.clean(log, () => active);
    expect(shape(log)).toEqual([
      { offsets: [1, 2], producerId: 7, records: 0, control: null },
      { offsets: [5, 5], producerId: 9, records: 1, control: 'ABORT' },
      { offsets: [6, 8], producerId: -1, records: 3, control: null },
      { offsets: [9, 9], producerId: -1, records: 1, control: null },
    ]);

    // The emptied batch: Kafka's header-only batch (writeEmptyHeader) with a valid CRC.
    const emptied = [...log.batches()][0]!;
    expect(emptied.length).toBe(RECORD_BATCH_OVERHEAD);
    expect(validateBatch(emptied).ok).toBe(true);
    const before = readBatchHeader(originalLast);
    expect(readBatchHeader(emptied)).toMatchObject({
      baseOffset: 1n,
      lastOffsetDelta: 1,
      partitionLeaderEpoch: 5,
      producerId: P.producerId,
      producerEpoch: P.producerEpoch,
      baseSequence: 1,
      recordCount: 0,
      attributes: 0,
      maxTimestamp: before.maxTimestamp,
      baseTimestamp: before.maxTimestamp,
    });
    expect(before.maxTimestamp).toBe(T0 + 1n);

    // R's marker: no batch of its transaction left, so it gets a delete horizon; once that passes
    // its record goes but the batch stays, emptied (it carries R's last epoch).
    await cleaner.clean(log, () => active);
    expect(shape(log)[1]).toEqual({ offsets: [5, 5], producerId: 9, records: 1, control: 'ABORT' });
    time.ms += 1000;
    await cleaner.clean(log, () => active);
    expect(shape(log)).toEqual([
      { offsets: [1, 2], producerId: 7, records: 0, control: null },
      { offsets: [5, 5], producerId: 9, records: 0, control: 'empty' },
      { offsets: [6, 8], producerId: -1, records: 3, control: null },
      { offsets: [9, 9], producerId: -1, records: 1, control: null },
    ]);
    const marker = readBatchHeader([...log.batches()][1]!);
    expect(marker).toMatchObject({ producerId: R.producerId, producerEpoch: 1, recordCount: 0, attributes: TRANSACTIONAL_FLAG_MASK | CONTROL_FLAG_MASK });

    // Once P is no longer active its emptied batch goes at the next clean.
    await cleaner.clean(log, () => new Map([[R.producerId, { lastDataOffset: null, epoch: 1 }]]));
    expect(shape(log).map((s) => s.offsets[0])).toEqual([5, 6, 9]);
  });
});
