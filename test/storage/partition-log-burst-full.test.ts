/**
 * Group commit under mock.flush.policy=always on a real tmpfs that fills up in the middle of a
 * burst: appends made while a write or sync runs join the next one, segments roll as they go, the
 * disk runs out part way, space comes back (the log takes writes again) and runs out once more.
 * Whatever order the writes fail and succeed in, the log holds exactly the acknowledged batches
 * (in memory, and after a reopen), at consecutive offsets. Phases end on events (a failure seen,
 * an acknowledgement seen), never after a number of turns.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { readBatchHeader } from '../../src/records/record-batch.js';
import { ManualTime, batchOf, captureLog } from './helpers.js';
import { canMountTmpfs, mountTmpfs, TMPFS_SKIP_REASON, type Tmpfs } from '../support/tmpfs.js';

const mounts: Tmpfs[] = [];
const logs: PartitionLog[] = [];

afterEach(async () => {
  for (const log of logs.splice(0)) await log.close();
  for (const m of mounts.splice(0)) m.unmount();
});

function open(dir: string, segmentBytes: number): PartitionLog {
  const log = PartitionLog.open({ dir, segmentBytes, rollMs: 1e12, flushPolicy: 'always', flushIntervalMs: 1000, log: captureLog().log, time: new ManualTime() });
  logs.push(log);
  return log;
}

const baseOffsets = (log: PartitionLog): bigint[] => [...log.batches()].map((b) => readBatchHeader(b).baseOffset);
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe.skipIf(!canMountTmpfs)(`group commit on a disk that fills mid-burst (${TMPFS_SKIP_REASON})`, () => {
  it.each([
    ['segments of about 3 batches', 25_000],
    ['one segment', 1 << 20],
  ])('%s: exactly the acknowledged batches are kept, at consecutive offsets, and after a reopen', async (_what, segmentBytes) => {
    const fs = mountTmpfs(1 << 20)!;
    mounts.push(fs);
    const dir = `${fs.dir}/p-0`;
    const log = open(dir, segmentBytes);
    const acked: bigint[] = [];
    const outcomes: Promise<unknown>[] = [];
    let inFlight = 0;
    let failed = 0;
    /** Up to 6 appends of ~8 KiB in this turn, at most 12 waiting (a group commit of 96 KiB at most). */
    const burst = (): void => {
      for (let i = 0; i < 6 && inFlight < 12; i++) {
        let appended;
        try {
          appended = log.append([batchOf(4, 1000n, 2000)]);
        } catch {
          // Refused at once while a failed write is being rolled back (the caller answers an error).
          failed++;
          continue;
        }
        inFlight++;
        const { baseOffset, durable } = appended;
        outcomes.push(durable.then(() => acked.push(baseOffset), () => failed++).finally(() => inFlight--));
      }
    };
    const burstUntil = async (done: () => boolean): Promise<void> => {
      while (!done()) {
        burst();
        await nextTurn();
      }
    };
    // Room for about 20 batches, then full.
    fs.fill(160 * 1024);
    await burstUntil(() => failed > 0);
    const ackedFull = acked.length;
    expect(ackedFull).toBeGreaterThan(0);
    // Space back: the log takes writes again, without reopening.
    fs.free();
    await burstUntil(() => acked.length > ackedFull);
    // Full once more.
    const failedBefore = failed;
    fs.fill(64 * 1024);
    await burstUntil(() => failed > failedBefore);
    await Promise.all(outcomes);
    await log.whenIdle();
    acked.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    // Consecutive: a failed write takes every later unacknowledged append with it, so the offsets of
    // what is kept leave no gap.
    expect(acked).toEqual(acked.map((_, i) => BigInt(i) * 4n));
    expect(baseOffsets(log)).toEqual(acked);
    expect(log.logEndOffset).toBe(BigInt(acked.length) * 4n);
    await log.close();
    fs.free();
    const reopened = open(dir, segmentBytes);
    expect(baseOffsets(reopened)).toEqual(acked);
    const next = reopened.append([batchOf(4, 1000n, 2000)]);
    await next.durable;
    expect(next.baseOffset).toBe(BigInt(acked.length) * 4n);
  });
});
