import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BrokerConfig } from '../../src/config.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeRecordBatch, readBatchHeader } from '../../src/records/record-batch.js';
import { TopicStore } from '../../src/topics/topic-store.js';
import { TopicError } from '../../src/topics/topic-error.js';
import { newTopicId, readPartitionMetadata } from '../../src/topics/topic-id.js';
import { validateTopicName } from '../../src/topics/topic-name.js';
import { SLICE_BUDGET_MS } from '../../src/util/slices.js';
import { ManualTime, captureLog, removeTempDirs, tempDir } from '../storage/helpers.js';

const stores: TopicStore[] = [];

function openStore(dataDir: string | null, overrides: Record<string, string> = {}, time = new ManualTime()): TopicStore {
  const store = TopicStore.open({ dataDir, config: new BrokerConfig(overrides), log: captureLog().log, time });
  stores.push(store);
  return store;
}

function errorOf(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof TopicError) return err.errorCode;
    throw err;
  }
  return undefined;
}

afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  removeTempDirs();
});

describe('topic names', () => {
  it('accepts Kafka-legal names and refuses the rest with INVALID_TOPIC_EXCEPTION', () => {
    expect(() => validateTopicName('orders.v1_EU-2')).not.toThrow();
    expect(() => validateTopicName('a'.repeat(249))).not.toThrow();
    for (const bad of ['', '.', '..', 'a'.repeat(250), 'has space', 'slash/x', 'ümlaut']) {
      expect(errorOf(() => validateTopicName(bad))).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    }
  });

  it('makes 22-character base64url topic ids of 16 bytes', () => {
    const id = newTopicId();
    expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    expect(Buffer.from(id, 'base64url').length).toBe(16);
    expect(newTopicId()).not.toBe(id);
  });
});

describe('TopicStore', () => {
  it('creates topics, finds them by name and id, and refuses duplicates and bad counts', () => {
    const store = openStore(null);
    const t = store.create('orders', 3);
    expect(t.partitions.map((p) => p.index)).toEqual([0, 1, 2]);
    expect(store.get('orders')).toBe(t);
    expect(store.getById(t.id)).toBe(t);
    expect(store.list().map((x) => x.name)).toEqual(['orders']);
    expect(errorOf(() => store.create('orders', 1))).toBe(ErrorCode.TOPIC_ALREADY_EXISTS);
    expect(errorOf(() => store.create('x', 0))).toBe(ErrorCode.INVALID_PARTITIONS);
    expect(errorOf(() => store.create('bad name', 1))).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    store.create('a.b', 1);
    expect(errorOf(() => store.create('a_b', 1))).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    expect(errorOf(() => store.create('__consumer_offsets', 1))).toBe(ErrorCode.TOPIC_ALREADY_EXISTS);
  });

  it('auto-creates with num.partitions only when auto.create.topics.enable is true', () => {
    const store = openStore(null, { 'num.partitions': '4' });
    expect(store.getOrAutoCreate('auto', false)).toBeUndefined();
    expect(store.getOrAutoCreate('auto')!.partitions.length).toBe(4);
    const off = openStore(null, { 'auto.create.topics.enable': 'false' });
    expect(off.getOrAutoCreate('auto')).toBeUndefined();
    expect(errorOf(() => store.getOrAutoCreate('no way'))).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
  });

  it("writes Kafka's partition.metadata and keeps topic ids and data across a restart", async () => {
    const dir = tempDir('kmc-topics-');
    const first = openStore(dir);
    const t = first.create('events', 2);
    const appended = t.partitions[1]!.appendProduced(encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, records: [{ key: null, value: Buffer.from('x') }] }));
    expect(appended.errorCode).toBe(0);
    await first.close();
    expect(fs.readFileSync(path.join(dir, 'events-1', 'partition.metadata'), 'utf8')).toBe(`version: 0\ntopic_id: ${t.id}\n`);
    expect(fs.existsSync(path.join(dir, 'events-0', '00000000000000000000.log'))).toBe(true);
    fs.mkdirSync(path.join(dir, '__consumer_offsets-0'));
    const second = openStore(dir);
    expect(second.list().map((x) => x.name)).toEqual(['events']);
    const again = second.get('events')!;
    expect(again.id).toBe(t.id);
    expect(again.partitions[1]!.logEndOffset).toBe(1n);
    expect(readPartitionMetadata(path.join(dir, 'events-0'))).toBe(t.id);
  });

  it('deletes a topic, its files, and tells listeners', () => {
    const dir = tempDir('kmc-topics-');
    const store = openStore(dir);
    const t = store.create('gone', 1);
    const deleted: string[] = [];
    store.onTopicDeleted((x) => deleted.push(x.name));
    store.delete('gone');
    expect(store.get('gone')).toBeUndefined();
    expect(store.getById(t.id)).toBeUndefined();
    expect(fs.existsSync(path.join(dir, 'gone-0'))).toBe(false);
    expect(deleted).toEqual(['gone']);
    expect(errorOf(() => store.delete('gone'))).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const locked = openStore(null, { 'delete.topic.enable': 'false' });
    locked.create('kept', 1);
    expect(errorOf(() => locked.delete('kept'))).toBe(ErrorCode.TOPIC_DELETION_DISABLED);
  });

  it('removes a deleted topic\'s files in slices of SLICE_BUDGET_MS of work at the most (DeleteTopics on a slow disk)', async () => {
    const store = openStore(null);
    const t = store.create('slow', 3);
    // Each partition's files take a whole slice's budget to remove, on a clock the test moves.
    let clock = 0;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => clock);
    try {
      const removed: number[] = [];
      for (const p of t.partitions) {
        vi.spyOn(p.log, 'deleteFiles').mockImplementation(() => {
          removed.push(p.index);
          clock += SLICE_BUDGET_MS;
        });
      }
      const done = store.deleteInSlices('slow');
      expect(removed).toEqual([0]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(removed).toEqual([0, 1]);
      expect(await done).toBe(t);
      expect(removed).toEqual([0, 1, 2]);
    } finally {
      now.mockRestore();
    }
  });

  it('a topic of the same name created during a deletion in slices removes what is left in slices too', async () => {
    const store = openStore(null);
    const t = store.create('again', 4);
    let clock = 0;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => clock);
    try {
      const removed: number[] = [];
      for (const p of t.partitions) {
        vi.spyOn(p.log, 'deleteFiles').mockImplementation(() => {
          removed.push(p.index);
          clock += SLICE_BUDGET_MS;
        });
      }
      const deleted = store.deleteInSlices('again');
      const created = store.createInSlices('again', 1);
      // One partition by the deletion, one by the creation: not the three left at once.
      expect(removed).toEqual([0, 1]);
      expect(store.isBeingDeleted('again')).toBe(true);
      expect(await deleted).toBe(t);
      const fresh = await created;
      expect(removed.sort()).toEqual([0, 1, 2, 3]);
      expect([fresh.partitionCount, fresh.id === t.id, store.isBeingDeleted('again')]).toEqual([1, false, false]);
    } finally {
      now.mockRestore();
    }
  });

  it('wakes a waiting fetch on append, and times out on the injected clock', async () => {
    const time = new ManualTime();
    const store = openStore(null, {}, time);
    const [p0, p1] = store.create('poll', 2).partitions;
    const woken = store.waitForAppend([p0!, p1!], 500);
    p1!.appendProduced(encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, records: [{ key: null, value: null }] }));
    expect(await woken).toBe(true);
    const timedOut = store.waitForAppend([p0!], 500);
    time.advance(499);
    let done = false;
    void timedOut.then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    time.advance(1);
    expect(await timedOut).toBe(false);
  });

  it('acknowledges a retry answered as a duplicate only once the original batch is durable', async () => {
    const store = openStore(tempDir('kmc-topics-'));
    const p0 = store.create('idem-wait', 1).partitions[0]!;
    const batch = () => encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, producerId: 7n, producerEpoch: 0, baseSequence: 0, records: [{ key: null, value: null }] });
    const original = p0.appendProduced(batch());
    const retry = p0.appendProduced(batch());
    if (!('durable' in original) || !('durable' in retry)) throw new Error('both appends should be accepted');
    expect([original.duplicateTimestamp, retry.duplicateTimestamp, retry.baseOffset]).toEqual([null, 1n, 0n]);
    const order: string[] = [];
    await Promise.all([original.durable.then(() => order.push('original')), retry.durable.then(() => order.push('retry'))]);
    expect(order).toEqual(['original', 'retry']);
    expect(p0.logEndOffset).toBe(1n);
  });

  it("refuses a transactional batch whose transaction an end marker closed after the Produce's checks (KIP-890 verification guard)", () => {
    const store = openStore(tempDir('kmc-topics-'));
    const p0 = store.create('txn-guard', 1).partitions[0]!;
    const txnBatch = (seq: number) => encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, producerId: 9n, producerEpoch: 0, baseSequence: seq, attributes: 0x10, records: [{ key: null, value: null }] });
    const abort = { producerId: 9n, producerEpoch: 0, coordinatorEpoch: 0, commit: false, transactionVersion: 0 };
    const code = (r: ReturnType<typeof p0.appendProduced>) => r.errorCode;

    // Verified (no transaction open yet): the guard lets the first batch open the transaction, and is spent.
    const guard = p0.producers.startVerification(9n, 0, false, 0);
    expect(code(p0.appendProduced(txnBatch(0), guard))).toBe(ErrorCode.NONE);
    // The transaction is open when the next Produce is checked (no verification), then aborted before its append.
    expect(p0.producers.hasOngoingTransaction(9n, 0)).toBe(true);
    expect(p0.appendEndTxnMarker(abort, 2n).errorCode).toBe(ErrorCode.NONE);
    expect(code(p0.appendProduced(txnBatch(1), null))).toBe(ErrorCode.INVALID_TXN_STATE);
    // A verification made before the abort is void after it, too; a spent guard does not come back.
    const early = p0.producers.startVerification(9n, 0, false, 1);
    expect(p0.appendEndTxnMarker(abort, 3n).errorCode).toBe(ErrorCode.NONE);
    expect(code(p0.appendProduced(txnBatch(1), early))).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(code(p0.appendProduced(txnBatch(1), guard))).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(p0.logEndOffset).toBe(3n);
    // A fresh verification after the abort opens the next transaction.
    expect(code(p0.appendProduced(txnBatch(1), p0.producers.startVerification(9n, 0, false, 1)))).toBe(ErrorCode.NONE);
    expect(p0.producers.hasOngoingTransaction(9n, 0)).toBe(true);
  });

  it('starts producer ids above those found in the logs after a restart', async () => {
    const dir = tempDir('kmc-topics-');
    const first = openStore(dir);
    const t = first.create('idem', 1);
    t.partitions[0]!.appendProduced(
      encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, producerId: 41n, producerEpoch: 0, baseSequence: 0, records: [{ key: null, value: null }] }),
    );
    await first.close();
    const second = openStore(dir);
    expect(second.producerIds.initProducerId(null).producerId).toBe(42n);
    // the recovered sequence state still recognises a retry of the stored batch
    const retry = encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, producerId: 41n, producerEpoch: 0, baseSequence: 0, records: [{ key: null, value: null }] });
    const result = second.get('idem')!.partitions[0]!.appendProduced(retry);
    expect(result).toMatchObject({ errorCode: 0, baseOffset: 0n, duplicateTimestamp: 1n });
    expect(readBatchHeader(retry).baseOffset).toBe(0n);
  });
});
