import * as fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTime } from '../support/fake-time.js';
import { removeTempDirs, tempDir } from './helpers.js';
import { GroupLog } from '../../src/coordinator/group-log.js';
import { encodeKey, encodeValue } from '../../src/coordinator/records.js';
import { DELETE_HORIZON_FLAG_MASK, readBatchHeader, validateBatch } from '../../src/records/record-batch.js';
import {
  activeBatches,
  closedBatches,
  commit,
  headers,
  openGroupLog,
  recordsOf,
  replayState,
  sorted,
  waitFor,
} from './cleaner-support.js';

const DAY_MS = 86_400_000;
const opened: GroupLog[] = [];

function track(g: GroupLog): GroupLog {
  opened.push(g);
  return g;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((g) => g.close()));
  removeTempDirs();
});

/** Appends `count` single-record commits (commit i: partition i % keys, offset i), many per event-loop turn. */
async function commitMany(groupLog: GroupLog, from: number, count: number, keys: number): Promise<void> {
  let pending: Promise<void>[] = [];
  for (let i = from; i < from + count; i++) {
    pending.push(groupLog.append([commit('g', i % keys, BigInt(i))]));
    if (pending.length === 500) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
}

describe('GroupLog.compact: 10,000 commits over 100 keys', () => {
  it('keeps the latest record per key in the closed segments, leaves the active one alone, and replays the same', async () => {
    const time = new FakeTime();
    const dataDir = tempDir('kmc-cleaner-');
    let groupLog = track(openGroupLog(dataDir, time));
    await commitMany(groupLog, 0, 10_000, 100);
    const log = groupLog.partitionLogs()[groupLog.partitionFor('g')]!;
    const closedBefore = log.closedSegments().length;
    expect(closedBefore).toBeGreaterThan(5); // ~0.6 MB in 64 KiB segments (a turn's 500 commits share a batch)
    const activeBase = log.activeSegmentBaseOffset;
    const activeBefore = activeBatches(log).map((b) => Buffer.from(b));
    const stateBefore = sorted(replayState(groupLog));
    expect(stateBefore).toHaveLength(100);

    const summary = await groupLog.compact();
    expect(summary).toEqual({ partitionsCleaned: 1, recordsBefore: Number(activeBase), recordsAfter: 100 });

    // The cleaned part: exactly one record per key, the latest below the active segment.
    const cleaned = recordsOf(closedBatches(log));
    expect(cleaned).toHaveLength(100);
    const expectedOffsets = Array.from({ length: 100 }, (_, k) => {
      let o = Number(activeBase) - 1;
      while (o % 100 !== k) o--;
      return BigInt(o);
    }).sort((a, b) => (a < b ? -1 : 1));
    expect(cleaned.map((r) => r.offset)).toEqual(expectedOffsets);
    for (const r of cleaned) {
      const k = Number(r.offset % 100n);
      expect(r.key).toBe(encodeKey(commit('g', k, null)).toString('hex'));
      expect(r.value).toBe(encodeValue(commit('g', k, r.offset))!.toString('hex'));
    }
    // Segments are grouped by their size before cleaning (Kafka's groupSegmentsBySize), so the
    // first clean keeps one (now small) segment per original; the next clean merges them.
    expect(log.closedSegments()).toHaveLength(closedBefore);
    expect(await groupLog.compact()).toEqual({ partitionsCleaned: 1, recordsBefore: 100, recordsAfter: 100 });
    expect(log.closedSegments()).toHaveLength(1);
    expect(recordsOf(closedBatches(log))).toEqual(cleaned);
    expect(closedBatches(log).every((b) => validateBatch(b).ok)).toBe(true);
    // Batches keep their offsets: the last batch of the group is kept (empty) so the range ends at the active base.
    const lastClosed = headers(closedBatches(log)).at(-1)!;
    expect(lastClosed.baseOffset + BigInt(lastClosed.lastOffsetDelta) + 1n).toBe(activeBase);
    // The active segment is byte for byte what it was.
    expect(activeBatches(log).map((b) => Buffer.from(b))).toEqual(activeBefore);
    expect(log.logEndOffset).toBe(10_000n);
    expect(sorted(replayState(groupLog))).toEqual(stateBefore);

    // On disk: one cleaned segment + the active one, no temporary files; a reopen replays the same.
    const files = fs.readdirSync(log.dir!).sort();
    expect(files).toEqual(['00000000000000000000.log', activeBase.toString().padStart(20, '0') + '.log']);
    await groupLog.close();
    opened.splice(0);
    groupLog = track(openGroupLog(dataDir, time));
    expect(sorted(replayState(groupLog))).toEqual(stateBefore);
    const reopened = groupLog.partitionLogs()[groupLog.partitionFor('g')]!;
    expect(recordsOf(closedBatches(reopened)).map((r) => r.offset)).toEqual(expectedOffsets);
    expect(reopened.logEndOffset).toBe(10_000n);
  });
});

describe('tombstones and the delete horizon', () => {
  it('stamps the horizon on the first clean, keeps tombstones until it passes, then drops them', async () => {
    const time = new FakeTime(1_700_000_000_000);
    const groupLog = track(openGroupLog(tempDir('kmc-cleaner-'), time, { 'offsets.topic.segment.bytes': 1024 }));
    for (let k = 0; k < 10; k++) await groupLog.append([commit('g', k, BigInt(100 + k), 5n)]);
    time.advance(1000);
    const tombstoneTime = time.now();
    for (let k = 0; k < 5; k++) await groupLog.append([commit('g', k, null)]);
    time.advance(1000);
    for (let i = 0; i < 20; i++) await groupLog.append([commit('g', 50, BigInt(i))]); // rolls the tombstones into closed segments
    const log = groupLog.partitionLogs()[groupLog.partitionFor('g')]!;
    const stateBefore = sorted(replayState(groupLog));
    expect(stateBefore.map(([k]) => k)).toEqual(['oc|g|t|5', 'oc|g|t|50', 'oc|g|t|6', 'oc|g|t|7', 'oc|g|t|8', 'oc|g|t|9']);

    const firstClean = time.now();
    await groupLog.compact();
    const tombstoneKeys = Array.from({ length: 5 }, (_, k) => encodeKey(commit('g', k, null)).toString('hex'));
    const tombstones = () => recordsOf(closedBatches(log)).filter((r) => r.value === null);
    expect(tombstones().map((r) => r.key)).toEqual(tombstoneKeys);
    // Their batches carry the horizon: bit 6 set, baseTimestamp = clean time + delete.retention.ms,
    // and the records' own timestamps survive (deltas rewritten against the horizon).
    const horizonBatches = closedBatches(log).filter((b) => (readBatchHeader(b).attributes & DELETE_HORIZON_FLAG_MASK) !== 0);
    expect(horizonBatches).toHaveLength(5);
    for (const b of horizonBatches) {
      expect(readBatchHeader(b).baseTimestamp).toBe(BigInt(firstClean + DAY_MS));
      expect(validateBatch(b).ok).toBe(true);
    }
    expect(tombstones().map((r) => r.timestamp)).toEqual(Array(5).fill(BigInt(tombstoneTime)));
    // Older values of the deleted keys are gone; the other keys keep one record each.
    expect(recordsOf(closedBatches(log)).filter((r) => r.value !== null && tombstoneKeys.includes(r.key))).toEqual([]);
    expect(sorted(replayState(groupLog))).toEqual(stateBefore);

    // A clean 1 ms before the horizon keeps them, and does not move the horizon.
    time.advance(DAY_MS - 1);
    await groupLog.compact();
    expect(tombstones()).toHaveLength(5);
    expect(readBatchHeader(closedBatches(log).find((b) => (readBatchHeader(b).attributes & DELETE_HORIZON_FLAG_MASK) !== 0)!).baseTimestamp).toBe(
      BigInt(firstClean + DAY_MS),
    );
    // At the horizon they go.
    time.advance(1);
    const summary = await groupLog.compact();
    expect(tombstones()).toEqual([]);
    expect(summary.recordsBefore - summary.recordsAfter).toBe(5);
    expect(sorted(replayState(groupLog))).toEqual(stateBefore);
  });

  it('the background cleaner runs on the dirty ratio every log.cleaner.backoff.ms; a passed horizon alone starts no clean (Kafka 4.3.1)', async () => {
    const time = new FakeTime(1_700_000_000_000);
    const groupLog = track(
      openGroupLog(tempDir('kmc-cleaner-'), time, {
        'log.cleaner.enable': true,
        'log.cleaner.backoff.ms': 15_000,
        'offsets.topic.segment.bytes': 2048,
        'log.cleaner.delete.retention.ms': 60_000,
      }),
    );
    const log = groupLog.partitionLogs()[groupLog.partitionFor('g')]!;
    for (let i = 0; i < 200; i++) await groupLog.append([commit('g', i % 10, BigInt(i))]);
    await groupLog.append([commit('g', 3, null)]);
    for (let i = 0; i < 40; i++) await groupLog.append([commit('g', 20, BigInt(i))]);
    const stateBefore = sorted(replayState(groupLog));
    expect(groupLog.cleaner.dirtyRatio(log)).toBe(1);
    expect(groupLog.cleaner.needsCleaning(log)).toBe(true);

    time.advance(14_999);
    await new Promise((r) => setTimeout(r, 20));
    expect(groupLog.cleaner.firstDirtyOffset(log)).toBe(0n); // not yet
    time.advance(1);
    await waitFor(() => groupLog.cleaner.firstDirtyOffset(log) === log.activeSegmentBaseOffset);
    const key3 = encodeKey(commit('g', 3, null)).toString('hex');
    expect(recordsOf(closedBatches(log)).filter((r) => r.key === key3)).toEqual([expect.objectContaining({ value: null })]);
    expect(groupLog.cleaner.dirtyRatio(log)).toBe(0);
    expect(groupLog.cleaner.needsCleaning(log)).toBe(false);

    // The tombstone's horizon (60 s) passes with nothing dirty: no clean starts, the tombstone
    // stays (LogCleanerManager picks a log by its dirty ratio only).
    time.advance(60_000);
    expect(groupLog.cleaner.needsCleaning(log)).toBe(false);
    await new Promise((r) => setTimeout(r, 20)); // the pass fired at +30 s (nothing due) reschedules itself
    expect(time.pendingTimers()).toBe(1);
    time.advance(15_000);
    await new Promise((r) => setTimeout(r, 20));
    expect(recordsOf(closedBatches(log)).filter((r) => r.key === key3)).toHaveLength(1);
    // Writes that make the log dirty enough start a clean, which drops it.
    for (let i = 0; i < 400; i++) await groupLog.append([commit('g', 30 + (i % 10), BigInt(i))]);
    expect(groupLog.cleaner.needsCleaning(log)).toBe(true);
    time.advance(15_000);
    await waitFor(() => recordsOf(closedBatches(log)).every((r) => r.key !== key3));
    // What replays is what was committed: the first state, and the later commits' last offsets.
    const after = replayState(groupLog);
    for (const [key, value] of stateBefore) expect(after.get(key)).toBe(value);
    const added = sorted(after).filter(([key]) => !stateBefore.some(([k]) => k === key));
    expect(added.map(([key, value]) => [key, JSON.parse(value).offset])).toEqual(Array.from({ length: 10 }, (_, p) => [`oc|g|t|${30 + p}`, String(390 + p)]));
    await waitFor(() => !groupLog.cleaner.needsCleaning(log));
  });
});

describe('appends during a compaction', () => {
  it('are kept, in order, with consecutive offsets, across segment rolls', async () => {
    const time = new FakeTime();
    const dataDir = tempDir('kmc-cleaner-');
    let groupLog = track(openGroupLog(dataDir, time, { 'offsets.topic.segment.bytes': 16 * 1024 }));
    await commitMany(groupLog, 0, 5000, 50);
    const log = groupLog.partitionLogs()[groupLog.partitionFor('g')]!;
    const activeBaseAtStart = log.activeSegmentBaseOffset;

    let done = false;
    const compaction = groupLog.compact().then((s) => {
      done = true;
      return s;
    });
    let appended = 0;
    while (!done) {
      // one commit per turn on keys 50..59, values continuing the offset sequence
      const i = 5000 + appended;
      await groupLog.append([commit('g', 50 + (appended % 10), BigInt(i))]);
      appended++;
    }
    const summary = await compaction;
    expect(appended).toBeGreaterThan(5);
    expect(summary.partitionsCleaned).toBe(1);
    expect(summary.recordsAfter).toBe(50);
    expect(log.logEndOffset).toBe(BigInt(5000 + appended));
    // Everything from the start of the clean on is there, in order, offsets consecutive.
    const tail = recordsOf(log.batches()).filter((r) => r.offset >= activeBaseAtStart);
    expect(tail.map((r) => r.offset)).toEqual(Array.from({ length: 5000 + appended - Number(activeBaseAtStart) }, (_, j) => activeBaseAtStart + BigInt(j)));
    const expectState = () => {
      const state = replayState(groupLog);
      expect(state.size).toBe(appended >= 10 ? 60 : 50 + appended);
      for (let j = 0; j < Math.min(10, appended); j++) {
        const last = 5000 + appended - 1 - ((appended - 1 - j) % 10);
        expect(JSON.parse(state.get(`oc|g|t|${50 + j}`)!).offset).toBe(String(last));
      }
      for (let k = 0; k < 50; k++) expect(JSON.parse(state.get(`oc|g|t|${k}`)!).offset).toBe(String(4950 + k));
    };
    expectState();
    await groupLog.close();
    opened.splice(0);
    groupLog = track(openGroupLog(dataDir, time, { 'offsets.topic.segment.bytes': 16 * 1024 }));
    expectState();
  });
});
