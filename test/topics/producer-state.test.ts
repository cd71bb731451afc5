import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ProducerStateTable, incrementSequence } from '../../src/topics/producer-state.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProducerIdManager } from '../../src/topics/producer-ids.js';

const batch = (producerEpoch: number, baseSequence: number, records = 1) => ({ producerId: 7n, producerEpoch, baseSequence, lastOffsetDelta: records - 1 });

describe('ProducerStateTable', () => {
  it('accepts in-order batches and answers a retry of one of the last 5 with its offset', () => {
    const t = new ProducerStateTable();
    let offset = 0n;
    for (let seq = 0; seq < 12; seq += 2) {
      expect(t.check(batch(0, seq, 2), 'p')).toEqual({ kind: 'append' });
      t.update(batch(0, seq, 2), offset);
      offset += 2n;
    }
    // batches kept: seq 2-3 .. 10-11 (the last 5)
    expect(t.check(batch(0, 10, 2), 'p')).toEqual({ kind: 'duplicate', batch: { firstSeq: 10, lastSeq: 11, baseOffset: 10n, lastOffset: 11n, timestamp: -1n } });
    expect(t.check(batch(0, 2, 2), 'p')).toMatchObject({ kind: 'duplicate', batch: { baseOffset: 2n } });
    expect(t.check(batch(0, 0, 2), 'p')).toMatchObject({ kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
  });

  it('a transaction stays unstable until its marker is below the high watermark (Kafka\'s unreplicatedTxns), the oldest open one first', () => {
    const t = new ProducerStateTable();
    t.update({ ...batch(0, 0, 7), attributes: 0x10 }, 24n);
    t.update({ producerId: 8n, producerEpoch: 0, baseSequence: 0, lastOffsetDelta: 0, attributes: 0x10 }, 31n);
    expect(t.firstUnstableOffset(32n)).toBe(24n);
    // Producer 7's COMMIT marker at 32: appended, not yet written (the high watermark still 32).
    expect(t.completeTxn({ producerId: 7n, producerEpoch: 0, commit: true, coordinatorEpoch: 0, transactionVersion: 2 }, 32n, 0n)).toMatchObject({ firstOffset: 24n, lastOffset: 32n });
    expect(t.firstUnstableOffset(32n)).toBe(24n);
    // Written: producer 8's open transaction is the first unstable offset.
    expect(t.firstUnstableOffset(33n)).toBe(31n);
    t.completeTxn({ producerId: 8n, producerEpoch: 0, commit: false, coordinatorEpoch: 0, transactionVersion: 2 }, 33n, 0n);
    expect([t.firstUnstableOffset(33n), t.firstUnstableOffset(34n)]).toEqual([31n, null]);
  });

  it("keeps each table's producers, transactions and verifications its own (tables share empty maps until written)", () => {
    const [written, untouched] = [new ProducerStateTable(), new ProducerStateTable()];
    written.update({ ...batch(0, 0, 3), attributes: 0x10 }, 5n);
    written.startVerification(8n, 2, true, 0);
    written.completeTxn({ producerId: 9n, producerEpoch: 1, commit: true, coordinatorEpoch: 0, transactionVersion: 2 }, 8n, 0n);
    expect([...written.entries()].map(([id]) => id)).toEqual([7n, 9n]);
    expect([written.ongoingTransactions(), written.firstUnstableOffset(9n)]).toEqual([[{ producerId: 7n, firstOffset: 5n }], 5n]);
    expect(written.mayAppendTransactional(8n, 2, written.startVerification(8n, 2, true, 0))).toBe(true);
    expect([[...untouched.entries()], untouched.ongoingTransactions(), untouched.firstUnstableOffset(9n), untouched.epochOf(7n)]).toEqual([[], [], null, undefined]);
    expect(untouched.check(batch(0, 4), 'p')).toEqual({ kind: 'append' });
    untouched.clear();
    expect(untouched.removeExpiredProducers(1_000n, 1n)).toBe(0);
    expect([...written.entries()].length).toBe(2);
  });

  it('while a transaction is verified (KIP-890): a TV2 producer with no batches starts at 0, no batch starts above the lowest sequence verified (ProducerAppendInfo.checkSequence)', () => {
    const t = new ProducerStateTable();
    const txn = (epoch: number, seq: number) => ({ ...batch(epoch, seq), attributes: 0x10 });
    t.startVerification(7n, 0, true, 5);
    expect(t.check(txn(0, 5), 'p', 0n)).toEqual({
      kind: 'error',
      errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
      message: 'Invalid sequence number for producer 7 at offset 0 in partition p: 5 (incoming seq. number). Expected sequence 0 for transactions v2 idempotent producer with no existing state.',
    });
    // Transaction version 1: no state, any sequence, but not above the lowest verified (0 after a batch at 0).
    const v1 = new ProducerStateTable();
    v1.startVerification(8n, 0, false, 3);
    expect(v1.check({ ...txn(0, 3), producerId: 8n }, 'p')).toEqual({ kind: 'append' });
    v1.startVerification(8n, 0, false, 0);
    expect(v1.check({ ...txn(0, 1), producerId: 8n }, 'p', 4n)).toMatchObject({
      kind: 'error',
      errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
      message: 'Out of order sequence number for producer 8 at offset 4 in partition p: 1 (incoming seq. number), 0 (earliest seen sequence)',
    });
    expect(v1.check({ ...txn(0, 0), producerId: 8n }, 'p')).toEqual({ kind: 'append' });
    // A newer epoch starts the lowest sequence again.
    v1.startVerification(8n, 1, false, 2);
    expect(v1.check({ ...txn(1, 2), producerId: 8n }, 'p')).toEqual({ kind: 'append' });
  });

  it('refuses a gap with OUT_OF_ORDER_SEQUENCE_NUMBER and an old epoch with INVALID_PRODUCER_EPOCH', () => {
    const t = new ProducerStateTable();
    t.update(batch(1, 0, 3), 0n);
    expect(t.check(batch(1, 4), 'p')).toMatchObject({ kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(t.check(batch(0, 3), 'p')).toMatchObject({ kind: 'error', errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
    expect(t.check(batch(1, 3), 'p')).toEqual({ kind: 'append' });
  });

  it('requires sequence 0 for a new epoch and accepts any sequence from an unknown producer', () => {
    const t = new ProducerStateTable();
    expect(t.check(batch(0, 17), 'p')).toEqual({ kind: 'append' });
    t.update(batch(0, 17), 0n);
    expect(t.check(batch(1, 5), 'p')).toMatchObject({ kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(t.check(batch(1, 0), 'p')).toEqual({ kind: 'append' });
    t.update(batch(1, 0), 1n);
    expect(t.epochOf(7n)).toBe(1);
  });

  it('ignores batches without a producer id', () => {
    const t = new ProducerStateTable();
    const plain = { producerId: -1n, producerEpoch: -1, baseSequence: -1, lastOffsetDelta: 0 };
    t.update(plain, 0n);
    expect(t.check(plain, 'p')).toEqual({ kind: 'append' });
    expect(t.maxProducerId()).toBe(-1n);
  });

  it('wraps sequences at INT32_MAX as Kafka does', () => {
    expect(incrementSequence(2147483646, 1)).toBe(2147483647);
    expect(incrementSequence(2147483647, 1)).toBe(0);
    expect(incrementSequence(2147483640, 10)).toBe(2);
    const t = new ProducerStateTable();
    t.update(batch(0, 2147483647), 0n);
    expect(t.check(batch(0, 0), 'p')).toEqual({ kind: 'append' });
  });

  it("expires producers by their last batch's timestamp (at exactly the expiration too), never one with a transaction open", () => {
    const t = new ProducerStateTable();
    const at = (producerId: bigint, maxTimestamp: bigint, attributes = 0) => ({ producerId, producerEpoch: 0, baseSequence: 0, lastOffsetDelta: 0, attributes, maxTimestamp });
    t.update(at(1n, 1000n), 0n);
    t.update(at(2n, 1001n), 1n);
    t.update(at(3n, 0n, 0x10), 2n); // transactional: its transaction is open
    t.update(at(4n, -1n), 3n); // no timestamp: expired at the first check, as in Kafka
    expect(t.removeExpiredProducers(1999n, 1000n)).toBe(1);
    expect([...t.entries()].map(([id]) => id)).toEqual([1n, 2n, 3n]);
    expect(t.removeExpiredProducers(2000n, 1000n)).toBe(1);
    expect([...t.entries()].map(([id]) => id)).toEqual([2n, 3n]);
    expect(t.removeExpiredProducers(10_000n, 1000n)).toBe(1);
    expect([...t.entries()].map(([id]) => id)).toEqual([3n]);
    expect(t.lastRecordsOfActiveProducers()).toEqual(new Map([[3n, { lastDataOffset: 2n, epoch: 0 }]]));
    // Unknown again: any sequence is taken.
    expect(t.check({ ...at(1n, 10_000n), baseSequence: 9 }, 'p')).toEqual({ kind: 'append' });
  });
});

describe('ProducerIdManager', () => {
  it('gives idempotent producers a new id with epoch 0 on every init', () => {
    const m = new ProducerIdManager();
    expect(m.initProducerId(null)).toEqual({ errorCode: 0, producerId: 0n, producerEpoch: 0 });
    expect(m.initProducerId(null, 0n, 0)).toEqual({ errorCode: 0, producerId: 1n, producerEpoch: 0 });
  });

  it('keeps a transactional id on one producer id and bumps its epoch', () => {
    const m = new ProducerIdManager();
    m.observe(99n);
    expect(m.initProducerId('tx')).toEqual({ errorCode: 0, producerId: 100n, producerEpoch: 0 });
    expect(m.initProducerId('tx')).toEqual({ errorCode: 0, producerId: 100n, producerEpoch: 1 });
    expect(m.initProducerId('tx', 100n, 0).errorCode).toBe(ErrorCode.PRODUCER_FENCED);
    expect(m.initProducerId('tx', 100n, 1)).toEqual({ errorCode: 0, producerId: 100n, producerEpoch: 2 });
    expect(m.initProducerId('').errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  it('hands out ids in blocks of 1000 whose end is stored first: a new manager on the file starts at the next block', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmc-producer-ids-'));
    try {
      const file = join(dir, 'kmc-producer-ids.json');
      const first = new ProducerIdManager(file);
      expect([first.generate(), first.generate()]).toEqual([0n, 1n]);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ nextBlockStart: '1000' });
      // A restart: ids 2-999 of the first block are never handed out (as a Kafka broker's block after a restart).
      const second = new ProducerIdManager(file);
      expect(second.initProducerId(null)).toEqual({ errorCode: 0, producerId: 1000n, producerEpoch: 0 });
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ nextBlockStart: '2000' });
      // Ids found in the logs above the stored block win, and the next block starts there.
      const third = new ProducerIdManager(file);
      third.observe(5000n);
      expect(third.generate()).toBe(5001n);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ nextBlockStart: '6001' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers COORDINATOR_LOAD_IN_PROGRESS when the next block cannot be stored, and hands out nothing', () => {
    const m = new ProducerIdManager(join(tmpdir(), 'kmc-no-such-dir', 'sub', 'kmc-producer-ids.json'));
    expect(m.initProducerId(null)).toEqual({ errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, producerId: -1n, producerEpoch: -1 });
  });
});
