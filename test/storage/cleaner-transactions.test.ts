import { afterEach, describe, expect, it } from 'vitest';
import { FakeTime } from '../support/fake-time.js';
import { removeTempDirs, tempDir } from './helpers.js';
import { GroupLog } from '../../src/coordinator/group-log.js';
import type { CoordinatorRecord } from '../../src/coordinator/records.js';
import { DELETE_HORIZON_FLAG_MASK, readBatchHeader } from '../../src/records/record-batch.js';
import { readEndTxnMarker } from '../../src/records/control-batch.js';
import type { PartitionLog } from '../../src/storage/partition-log.js';
import { closedBatches, commit, openGroupLog, recordsOf, sorted } from './cleaner-support.js';

const DAY_MS = 86_400_000;
/** The log the test has open (closed after it, with its directory). */
let current: GroupLog | null = null;

afterEach(async () => {
  await current?.close();
  current = null;
  removeTempDirs();
});

function recordKey(r: CoordinatorRecord): string {
  return r.kind === 'offset-commit' ? `oc|${r.groupId}|${r.topic}|${r.partition}` : `gm|${r.groupId}`;
}

function offsetOf(r: CoordinatorRecord): string | null {
  return r.kind === 'offset-commit' && r.value !== null ? r.value.offset.toString() : null;
}

/**
 * What the coordinator's replay builds (`CoordinatorLoaderImpl`): plain records at once,
 * transactional ones pending until their producer's COMMIT (applied) or ABORT (dropped);
 * key -> committed offset, plus the pending ones by producer.
 */
function txnReplay(groupLog: GroupLog): { committed: Array<[string, string]>; pending: string[] } {
  const state = new Map<string, string>();
  const pending = new Map<bigint, CoordinatorRecord[]>();
  const apply = (r: CoordinatorRecord): void => {
    const offset = offsetOf(r);
    if (offset === null) state.delete(recordKey(r));
    else state.set(recordKey(r), offset);
  };
  groupLog.replay(apply, {
    transactional: (r, producerId) => {
      const list = pending.get(producerId) ?? [];
      list.push(r);
      pending.set(producerId, list);
    },
    endTransaction: (_p, producerId, commitIt) => {
      if (commitIt) pending.get(producerId)?.forEach(apply);
      pending.delete(producerId);
    },
  });
  return { committed: sorted(state), pending: [...pending].flatMap(([pid, rs]) => rs.map((r) => `${pid}:${recordKey(r)}=${offsetOf(r)}`)).sort() };
}

interface StoredBatch {
  baseOffset: bigint;
  producerId: bigint;
  control: string | null;
  transactional: boolean;
  horizon: boolean;
  records: number;
}

function describeBatches(log: PartitionLog): StoredBatch[] {
  return [...log.batches()].map((b) => {
    const h = readBatchHeader(b);
    const isControl = (h.attributes & 0x20) !== 0;
    const marker = isControl ? readEndTxnMarker(b) : null;
    return {
      baseOffset: h.baseOffset,
      producerId: h.producerId,
      control: isControl ? (marker === null ? 'empty' : marker.commit ? 'COMMIT' : 'ABORT') : null,
      transactional: (h.attributes & 0x10) !== 0,
      horizon: (h.attributes & DELETE_HORIZON_FLAG_MASK) !== 0,
      records: h.recordCount,
    };
  });
}

/** Records of the closed segments' data (not control) batches. */
const dataRecords = (log: PartitionLog) => recordsOf(closedBatches(log).filter((b) => (readBatchHeader(b).attributes & 0x20) === 0));
const markers = (log: PartitionLog) => describeBatches(log).filter((b) => b.control !== null);
const txnData = (log: PartitionLog) => describeBatches(log).filter((b) => b.control === null && b.transactional && b.records > 0);

/** Plain commits of key 50 (one record each) until `log` has rolled `segments` more segments. */
async function roll(groupLog: GroupLog, log: PartitionLog, segments: number): Promise<void> {
  const target = log.closedSegments().length + segments;
  for (let i = 0; log.closedSegments().length < target; i++) await groupLog.append([commit('g', 50, BigInt(i))]);
}

describe('log cleaner: transactional offset commits in __consumer_offsets', () => {
  it('drops aborted transactions, compacts committed ones, stops below an open one, and removes markers after delete.retention.ms', async () => {
    const time = new FakeTime();
    const dataDir = tempDir('kmc-cleaner-txn-');
    let groupLog = (current = openGroupLog(dataDir, time, { 'offsets.topic.segment.bytes': 1024 }));
    const p = groupLog.partitionFor('g');
    let log = groupLog.partitionLogs()[p]!;
    const A = { producerId: 1001n, producerEpoch: 0 };
    const B = { producerId: 1002n, producerEpoch: 0 };
    const C = { producerId: 1003n, producerEpoch: 0 };

    for (let k = 0; k < 5; k++) await groupLog.append([commit('g', k, BigInt(k))]);
    await groupLog.append([commit('g', 0, 1000n), commit('g', 1, 1001n)], A); // committed below
    await groupLog.append([commit('g', 2, 2000n)], B); // aborted below
    await groupLog.appendMarker(p, A, true, 0);
    await groupLog.appendMarker(p, B, false, 0);
    await roll(groupLog, log, 2);
    const before = txnReplay(groupLog);
    expect(before.committed.filter(([k]) => k !== 'oc|g|t|50')).toEqual([
      ['oc|g|t|0', '1000'],
      ['oc|g|t|1', '1001'],
      ['oc|g|t|2', '2'],
      ['oc|g|t|3', '3'],
      ['oc|g|t|4', '4'],
    ]);

    // Failed before: 'transactional and control batches are not cleaned by this server'.
    const first = await groupLog.compact();
    expect(first.partitionsCleaned).toBe(1);
    expect(groupLog.cleaner.isUncleanable(log)).toBe(false);
    // The aborted batch is gone, the committed one stays (its records are the latest of keys 0, 1).
    expect(txnData(log).map((b) => b.producerId)).toEqual([A.producerId]);
    expect(dataRecords(log)).toHaveLength(6); // keys 0-4 and 50
    // Both markers stay: each transaction had a batch in this pass.
    expect(markers(log).map((m) => [m.producerId, m.control, m.horizon])).toEqual([
      [A.producerId, 'COMMIT', false],
      [B.producerId, 'ABORT', false],
    ]);
    expect(txnReplay(groupLog)).toEqual(before);

    // Next pass: B's aborted batch, emptied, is B's last batch (Kafka keeps it for B's producer
    // state, RETAIN_EMPTY), so its transaction still has a batch and its ABORT marker stays too.
    await groupLog.compact();
    const batchesOf = (producerId: bigint) => describeBatches(log).filter((b) => b.producerId === producerId).map((b) => [b.control, b.records]);
    expect(batchesOf(B.producerId)).toEqual([[null, 0], ['ABORT', 1]]);
    expect(markers(log).map((m) => [m.producerId, m.control, m.horizon])).toEqual([
      [A.producerId, 'COMMIT', false],
      [B.producerId, 'ABORT', false],
    ]);
    time.advance(DAY_MS);
    await groupLog.compact();
    expect(batchesOf(B.producerId)).toEqual([[null, 0], ['ABORT', 1]]);

    // B writes again (a committed transaction): the aborted batch is not its last any more and
    // goes, then its ABORT marker once its delete horizon passes.
    await groupLog.append([commit('g', 5, 5000n)], B);
    await groupLog.appendMarker(p, B, true, 0);
    await roll(groupLog, log, 1);
    const withB = txnReplay(groupLog);
    await groupLog.compact(); // the emptied batch goes, met in this pass: its marker stays as is
    expect(batchesOf(B.producerId)).toEqual([['ABORT', 1], [null, 1], ['COMMIT', 1]]);
    expect(markers(log).map((m) => m.horizon)).toEqual([false, false, false]);
    await groupLog.compact();
    expect(markers(log).map((m) => [m.producerId, m.control, m.horizon])).toEqual([
      [A.producerId, 'COMMIT', false],
      [B.producerId, 'ABORT', true],
      [B.producerId, 'COMMIT', false],
    ]);
    time.advance(DAY_MS - 1);
    await groupLog.compact();
    expect(markers(log).map((m) => m.control)).toEqual(['COMMIT', 'ABORT', 'COMMIT']);
    time.advance(1);
    await groupLog.compact();
    expect(batchesOf(B.producerId)).toEqual([[null, 1], ['COMMIT', 1]]);
    expect(markers(log).map((m) => [m.producerId, m.control])).toEqual([[A.producerId, 'COMMIT'], [B.producerId, 'COMMIT']]);
    expect(txnReplay(groupLog)).toEqual(withB);

    // Plain commits overwrite A's offsets: its records go, but its batch stays empty (A's last
    // batch: producers never expire here) and with it its COMMIT marker.
    await groupLog.append([commit('g', 0, 7n), commit('g', 1, 8n)]);
    await roll(groupLog, log, 1);
    await groupLog.compact();
    expect(txnData(log).map((b) => b.producerId)).toEqual([B.producerId]);
    expect(batchesOf(A.producerId)).toEqual([[null, 0], ['COMMIT', 1]]);
    time.advance(DAY_MS);
    await groupLog.compact();
    await groupLog.compact();
    expect(markers(log).map((m) => [m.producerId, m.control, m.horizon])).toEqual([
      [A.producerId, 'COMMIT', false],
      [B.producerId, 'COMMIT', false],
    ]);
    const afterOverwrite = txnReplay(groupLog);
    expect(afterOverwrite.committed.filter(([k]) => k === 'oc|g|t|0' || k === 'oc|g|t|1')).toEqual([
      ['oc|g|t|0', '7'],
      ['oc|g|t|1', '8'],
    ]);

    // An open transaction: nothing at or after its first batch is cleaned.
    await groupLog.append([commit('g', 3, 3000n)], C);
    const openAt = log.logEndOffset - 1n;
    for (let i = 0; i < 5; i++) await groupLog.append([commit('g', 4, BigInt(40 + i))]);
    await roll(groupLog, log, 2);
    const tailBefore = describeBatches(log).filter((b) => b.baseOffset >= openAt);
    const withOpen = txnReplay(groupLog);
    expect(withOpen.pending).toEqual([`${C.producerId}:oc|g|t|3=3000`]);
    const blocked = await groupLog.compact();
    expect(blocked.partitionsCleaned).toBe(1);
    expect(groupLog.cleaner.firstDirtyOffset(log)).toBe(openAt);
    expect(describeBatches(log).filter((b) => b.baseOffset >= openAt)).toEqual(tailBefore);
    expect(txnReplay(groupLog)).toEqual(withOpen);

    // C commits: the rest is cleaned, C's record compacted like any other.
    await groupLog.appendMarker(p, C, true, 0);
    await roll(groupLog, log, 1);
    await groupLog.compact();
    expect(groupLog.cleaner.firstDirtyOffset(log)).toBe(log.activeSegmentBaseOffset);
    expect(txnData(log).map((b) => [b.producerId, b.records])).toEqual([[B.producerId, 1], [C.producerId, 1]]);
    expect(markers(log).map((m) => [m.producerId, m.control])).toEqual([[A.producerId, 'COMMIT'], [B.producerId, 'COMMIT'], [C.producerId, 'COMMIT']]);
    const final = txnReplay(groupLog);
    expect(final.pending).toEqual([]);
    expect(final.committed.filter(([k]) => k === 'oc|g|t|3' || k === 'oc|g|t|4')).toEqual([
      ['oc|g|t|3', '3000'],
      ['oc|g|t|4', '44'],
    ]);
    // One record per key below the active segment: keys 0-5 and 50.
    expect(dataRecords(log)).toHaveLength(7);

    // A restart replays the same offsets, and its first (full) clean changes nothing in them.
    await groupLog.close();
    groupLog = current = openGroupLog(dataDir, time, { 'offsets.topic.segment.bytes': 1024 });
    log = groupLog.partitionLogs()[p]!;
    expect(txnReplay(groupLog)).toEqual(final);
    await groupLog.compact();
    expect(groupLog.cleaner.isUncleanable(log)).toBe(false);
    expect(txnReplay(groupLog)).toEqual(final);
  });

  it("reads a producer's committed tombstone into the offset map when its earlier aborted transaction lies in the clean part (the older value never comes back)", async () => {
    const time = new FakeTime();
    const groupLog = (current = openGroupLog(tempDir('kmc-cleaner-txn-'), time, { 'offsets.topic.segment.bytes': 1024 }));
    const p = groupLog.partitionFor('g');
    const log = groupLog.partitionLogs()[p]!;
    const P = { producerId: 2001n, producerEpoch: 0 };
    await groupLog.append([commit('g', 0, 5n)]);
    await groupLog.append([commit('g', 9, 900n)], P);
    await groupLog.appendMarker(p, P, false, 0);
    await roll(groupLog, log, 1);
    await groupLog.compact(); // the ABORT marker is now in the clean part
    const tombstoneAt = log.logEndOffset;
    await groupLog.append([commit('g', 0, null)], P);
    await groupLog.appendMarker(p, P, true, 0);
    await roll(groupLog, log, 1);
    expect(txnReplay(groupLog).committed.some(([k]) => k === 'oc|g|t|0')).toBe(false);

    // Failed before: the pass took every aborted transaction of the log, met none of their
    // ABORT markers (in the clean part), and so counted P's committed tombstone as aborted: left
    // out of the map, the plain commit of key 0 stayed, and came back once the tombstone went.
    const ofKey0 = () => dataRecords(log).filter((r) => r.offset === 0n || r.offset === tombstoneAt).map((r) => [r.offset, r.value]);
    expect(ofKey0()).toEqual([[0n, expect.any(String)], [tombstoneAt, null]]);
    await groupLog.compact();
    expect(ofKey0()).toEqual([[tombstoneAt, null]]);
    time.advance(DAY_MS + 1);
    await groupLog.compact();
    await groupLog.compact();
    expect(ofKey0()).toEqual([]);
    expect(txnReplay(groupLog).committed.some(([k]) => k === 'oc|g|t|0')).toBe(false);
  });
});
