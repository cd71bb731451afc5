import { afterEach, describe, expect, it } from 'vitest';
import { FakeTime } from '../support/fake-time.js';
import { removeTempDirs, tempDir } from './helpers.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { LogCleaner } from '../../src/storage/log-cleaner.js';
import { encodeRecordBatch, validateBatch } from '../../src/records/record-batch.js';
import { closedBatches, recordsOf, rng, silentLog } from './cleaner-support.js';

const RETENTION_MS = 10_000;

afterEach(() => removeTempDirs());

/** Replay of raw records: key -> value (hex), tombstones removing the key. */
function replay(log: PartitionLog): Map<string, string> {
  const state = new Map<string, string>();
  for (const r of recordsOf(log.batches())) {
    if (r.value === null) state.delete(r.key);
    else state.set(r.key, r.value);
  }
  return state;
}

/**
 * One random case: batches of 1-4 records over a few keys (values or tombstones), with
 * cleans and clock moves (sometimes past delete.retention.ms) mixed in. After every step
 * the log replays to the state of the operations applied so far.
 */
async function runCase(seed: number, onDisk: boolean): Promise<{ cleans: number; dropped: number }> {
  const random = rng(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const time = new FakeTime(1_700_000_000_000);
  const keys = 2 + pick(10);
  const segmentBytes = 200 + pick(1500);
  const log = PartitionLog.open({
    dir: onDisk ? tempDir('kmc-cleaner-prop-') : null,
    segmentBytes,
    rollMs: 1 << 30,
    flushPolicy: 'never',
    flushIntervalMs: 0,
    log: silentLog,
    time,
  });
  const cleaner = new LogCleaner({ time, log: silentLog, deleteRetentionMs: RETENTION_MS, minCleanableRatio: 0.5, maxSegmentBytes: segmentBytes });
  const expected = new Map<string, string>();
  let cleans = 0;
  let dropped = 0;
  const steps = 20 + pick(120);
  for (let step = 0; step < steps; step++) {
    const action = random();
    if (action < 0.8) {
      const records = Array.from({ length: 1 + pick(4) }, () => {
        const key = Buffer.from(`key-${pick(keys)}`);
        const value = random() < 0.25 ? null : Buffer.from(`v${seed}-${step}-${pick(1000)}`);
        return { key, value };
      });
      log.append([encodeRecordBatch({ baseOffset: 0n, timestamp: BigInt(time.now()), records })]);
      for (const r of records) {
        if (r.value === null) expected.delete(r.key.toString('hex'));
        else expected.set(r.key.toString('hex'), r.value.toString('hex'));
      }
    } else if (action < 0.92) {
      const leo = log.logEndOffset;
      const result = await cleaner.clean(log);
      if (result !== null) {
        cleans++;
        dropped += result.recordsBefore - result.recordsAfter;
        // each key at most once in the closed segments right after a clean
        const closedKeys = recordsOf(closedBatches(log)).map((r) => r.key);
        expect(new Set(closedKeys).size).toBe(closedKeys.length);
        expect(closedBatches(log).every((b) => validateBatch(b).ok)).toBe(true);
      }
      expect(log.logEndOffset).toBe(leo);
    } else {
      time.advance(random() < 0.5 ? RETENTION_MS + pick(RETENTION_MS) : pick(1000));
    }
    expect(replay(log)).toEqual(expected);
  }
  // offsets strictly increasing, whatever was cleaned
  const offsets = recordsOf(log.batches()).map((r) => r.offset);
  for (let i = 1; i < offsets.length; i++) expect(offsets[i]! > offsets[i - 1]!).toBe(true);
  if (onDisk) {
    await log.close();
    const reopened = PartitionLog.open({ dir: log.dir, segmentBytes, rollMs: 1 << 30, flushPolicy: 'never', flushIntervalMs: 0, log: silentLog, time });
    expect(replay(reopened)).toEqual(expected);
    await reopened.close();
  }
  return { cleans, dropped };
}

describe('property: replay(compacted) == replay(original)', () => {
  it('holds over 300 seeded random sequences of commits, tombstones, cleans and clock moves (in memory)', async () => {
    let cleans = 0;
    let dropped = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = await runCase(seed, false);
      cleans += r.cleans;
      dropped += r.dropped;
    }
    // the cases really exercise the cleaner
    expect(cleans).toBeGreaterThan(300);
    expect(dropped).toBeGreaterThan(1000);
  });

  it('holds over 40 seeded sequences on disk, and after a reopen', async () => {
    let cleans = 0;
    for (let seed = 1001; seed <= 1040; seed++) cleans += (await runCase(seed, true)).cleans;
    expect(cleans).toBeGreaterThan(40);
  });
});
