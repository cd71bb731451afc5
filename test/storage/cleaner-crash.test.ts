import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTime } from '../support/fake-time.js';
import { removeTempDirs, tempDir } from './helpers.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { LogCleaner, type CleanerStep } from '../../src/storage/log-cleaner.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { closedBatches, recordsOf, silentLog, type StoredRecord } from './cleaner-support.js';

afterEach(() => removeTempDirs());

class SimulatedCrash extends Error {}

function openLog(dir: string, time: FakeTime): PartitionLog {
  return PartitionLog.open({ dir, segmentBytes: 1024, rollMs: 1 << 30, flushPolicy: 'always', flushIntervalMs: 0, log: silentLog, time });
}

/** 120 single-record batches over 6 keys (offset i: key i % 6) plus a tombstone for key 5 at offset 120, in ~1 KiB segments. */
async function buildLog(dir: string, time: FakeTime): Promise<PartitionLog> {
  const log = openLog(dir, time);
  let last: Promise<void> = Promise.resolve();
  for (let i = 0; i < 120; i++) {
    const batch = encodeRecordBatch({ baseOffset: 0n, timestamp: 1000n, records: [{ key: Buffer.from(`k${i % 6}`), value: Buffer.from(`value-${i}`) }] });
    last = log.append([batch]).durable;
  }
  last = log.append([encodeRecordBatch({ baseOffset: 0n, timestamp: 1000n, records: [{ key: Buffer.from('k5'), value: null }] })]).durable;
  for (let i = 121; i < 140; i++) {
    last = log.append([encodeRecordBatch({ baseOffset: 0n, timestamp: 1000n, records: [{ key: Buffer.from('z'), value: Buffer.from(`z-${i}`) }] })]).durable;
  }
  await last;
  return log;
}

function replay(records: StoredRecord[]): Map<string, string> {
  const state = new Map<string, string>();
  for (const r of records) {
    if (r.value === null) state.delete(r.key);
    else state.set(r.key, r.value);
  }
  return state;
}

const steps: Array<{ step: CleanerStep; leftover: RegExp; outcome: 'original' | 'cleaned' }> = [
  { step: 'cleaned-partial', leftover: /^0{20}\.log\.cleaned$/, outcome: 'original' },
  { step: 'cleaned-written', leftover: /^0{20}\.log\.cleaned$/, outcome: 'original' },
  { step: 'swap-renamed', leftover: /^0{20}\.log\.swap$/, outcome: 'cleaned' },
  { step: 'old-renamed', leftover: /^0{20}\.log\.deleted$/, outcome: 'cleaned' },
  { step: 'swap-installed', leftover: /\.log\.deleted$/, outcome: 'cleaned' },
];

describe('crash safety of the cleaner swap', () => {
  // The expected outcome of a completed clean, computed once on a log cleaned without a crash.
  async function cleanedReference(): Promise<{ all: StoredRecord[]; closed: StoredRecord[] }> {
    const time = new FakeTime();
    const log = await buildLog(tempDir('kmc-cleaner-ref-'), time);
    const cleaner = new LogCleaner({ time, log: silentLog, deleteRetentionMs: 1000, minCleanableRatio: 0.5, maxSegmentBytes: 1 << 20 });
    await cleaner.clean(log);
    const out = { all: recordsOf(log.batches()), closed: recordsOf(closedBatches(log)) };
    await log.close();
    return out;
  }

  for (const { step, leftover, outcome } of steps) {
    it(`a start after a crash at "${step}" finds the ${outcome} segments, nothing lost or duplicated`, async () => {
      const reference = await cleanedReference();
      // 6 keys -> 6 records + the k5 tombstone in the cleaned range, the active segment untouched
      expect(reference.closed.filter((r) => r.key === Buffer.from('k5').toString('hex'))).toEqual([expect.objectContaining({ value: null, offset: 120n })]);

      const time = new FakeTime();
      const dir = tempDir('kmc-cleaner-crash-');
      const log = await buildLog(dir, time);
      const original = recordsOf(log.batches());
      const originalFiles = fs.readdirSync(dir).sort();
      expect(originalFiles.length).toBeGreaterThan(3); // several closed segments, cleaned as one group
      const cleaner = new LogCleaner({
        time,
        log: silentLog,
        deleteRetentionMs: 1000,
        minCleanableRatio: 0.5,
        maxSegmentBytes: 1 << 20,
        onStep: (s) => {
          if (s === step) throw new SimulatedCrash(s);
        },
      });
      await expect(cleaner.clean(log)).rejects.toBeInstanceOf(SimulatedCrash);
      // the files are left as the crash left them
      const left = fs.readdirSync(dir);
      expect(left.some((f) => leftover.test(f))).toBe(true);
      // the live log still serves the original records
      expect(recordsOf(log.batches())).toEqual(original);
      expect(cleaner.isUncleanable(log)).toBe(true);
      await log.close();

      const reopened = openLog(dir, time);
      const after = recordsOf(reopened.batches());
      const files = fs.readdirSync(dir).sort();
      expect(files.every((f) => /^\d{20}\.log$/.test(f))).toBe(true);
      if (outcome === 'original') {
        expect(files).toEqual(originalFiles);
        expect(after).toEqual(original);
      } else {
        expect(after).toEqual(reference.all);
        expect(files).toHaveLength(2); // one cleaned segment + the active one
      }
      expect(replay(after)).toEqual(replay(original));
      expect(reopened.logEndOffset).toBe(140n);
      const offsets = after.map((r) => r.offset);
      expect(new Set(offsets).size).toBe(offsets.length);
      // and the reopened log can be cleaned to the same result
      const again = new LogCleaner({ time, log: silentLog, deleteRetentionMs: 1000, minCleanableRatio: 0.5, maxSegmentBytes: 1 << 20 });
      await again.clean(reopened);
      expect(recordsOf(reopened.batches())).toEqual(reference.all);
      await reopened.close();
    });
  }

  it('deletes a stray .deleted file and a .cleaned file of an unrelated offset on open', async () => {
    const time = new FakeTime();
    const dir = tempDir('kmc-cleaner-crash-');
    const log = await buildLog(dir, time);
    const original = recordsOf(log.batches());
    await log.close();
    fs.writeFileSync(path.join(dir, '00000000000000000050.log.cleaned'), 'partial');
    fs.writeFileSync(path.join(dir, '00000000000000000007.log.deleted'), 'old');
    const reopened = openLog(dir, time);
    expect(fs.readdirSync(dir).some((f) => f.includes('.cleaned') || f.includes('.deleted'))).toBe(false);
    expect(recordsOf(reopened.batches())).toEqual(original);
    await reopened.close();
  });
});
