/**
 * PartitionLog on a real, full tmpfs: a failed write rolls back what was never acknowledged (in
 * memory and in the file), appends fail while the disk is full, and work again, without
 * reopening, once space is freed; a reopen finds exactly the acknowledged batches.
 */
import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { PartitionLog, type FlushPolicy } from '../../src/storage/partition-log.js';
import { readBatchHeader } from '../../src/records/record-batch.js';
import { ManualTime, batchOf, captureLog } from './helpers.js';
import { canMountTmpfs, mountTmpfs, TMPFS_SKIP_REASON, type Tmpfs } from '../support/tmpfs.js';

const mounts: Tmpfs[] = [];
const logs: PartitionLog[] = [];

afterEach(async () => {
  for (const log of logs.splice(0)) await log.close();
  for (const m of mounts.splice(0)) m.unmount();
});

function open(dir: string, flushPolicy: FlushPolicy, segmentBytes = 1 << 20) {
  const captured = captureLog();
  const log = PartitionLog.open({ dir, segmentBytes, rollMs: 1e12, flushPolicy, flushIntervalMs: 1000, log: captured.log, time: new ManualTime() });
  logs.push(log);
  return { log, captured };
}

/** The base offsets of the batches the log holds, in order. */
const baseOffsets = (log: PartitionLog): bigint[] => [...log.batches()].map((b) => readBatchHeader(b).baseOffset);

describe.skipIf(!canMountTmpfs)(`PartitionLog on a full disk (${TMPFS_SKIP_REASON})`, () => {
  it.each(['always', 'never'] as const)('mock.flush.policy=%s: rolls back the unacknowledged writes, refuses while full, serves again once space is freed', async (policy) => {
    const fs = mountTmpfs(1 << 20)!;
    mounts.push(fs);
    const { log, captured } = open(`${fs.dir}/p-0`, policy);
    const batch = (): Buffer => batchOf(4, 1000n, 2000); // about 8 KiB

    // Room for a few batches, then the disk is full.
    fs.fill(40 * 1024);
    const acked: bigint[] = [];
    let failed: Error | null = null;
    for (let i = 0; i < 64 && failed === null; i++) {
      const { baseOffset, durable } = log.append([batch()]);
      try {
        await durable;
        acked.push(baseOffset);
      } catch (err) {
        failed = err as Error;
      }
    }
    expect(failed).toMatchObject({ code: 'ENOSPC' });
    expect(acked.length).toBeGreaterThan(0);
    await log.whenIdle();
    // Only what was acknowledged is left, and the next append gets the offset after it.
    expect(baseOffsets(log)).toEqual(acked);
    expect(log.logEndOffset).toBe(acked.at(-1)! + 4n);
    expect(captured.lines.map((l) => l.msg)).toContain('log writes resumed after a failed write');

    // Still full: each append fails on its own (the log does not stay broken), state unchanged.
    for (let i = 0; i < 3; i++) {
      await expect(log.append([batch()]).durable).rejects.toMatchObject({ code: 'ENOSPC' });
      await log.whenIdle();
    }
    expect(baseOffsets(log)).toEqual(acked);

    // Space is back: appends work without reopening, at the next offset.
    fs.free();
    const next = log.append([batch()]);
    expect(next.baseOffset).toBe(acked.at(-1)! + 4n);
    await next.durable;
    acked.push(next.baseOffset);
    await log.close();

    // A restart sees exactly the acknowledged batches: the rolled-back bytes were cut off the file.
    const reopened = open(`${fs.dir}/p-0`, policy);
    expect(baseOffsets(reopened.log)).toEqual(acked);
    expect(reopened.captured.warnings()).toEqual([]);
  });

  it('rolls back across segments rolled by the failed appends, removing their files', async () => {
    const fs = mountTmpfs(1 << 20)!;
    mounts.push(fs);
    const dir = `${fs.dir}/p-0`;
    // Segments of about two batches: appends in one turn roll new segments as they go.
    const { log } = open(dir, 'always', 20_000);
    const acked = log.append([batchOf(4, 1000n, 2000)]);
    await acked.durable;
    const segmentsBefore = log.segmentCount;
    fs.fill(4096);
    const turn = Array.from({ length: 8 }, () => log.append([batchOf(4, 1000n, 2000)]));
    expect(log.segmentCount).toBeGreaterThan(segmentsBefore);
    const outcomes = await Promise.allSettled(turn.map((r) => r.durable));
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    await log.whenIdle();
    expect(log.segmentCount).toBe(segmentsBefore);
    expect(baseOffsets(log)).toEqual([acked.baseOffset]);
    expect(log.logEndOffset).toBe(4n);
    expect(readdirSync(dir).filter((f) => f.endsWith('.log'))).toEqual(['00000000000000000000.log']);
    fs.free();
    const next = log.append([batchOf(4, 1000n, 2000)]);
    await next.durable;
    expect(next.baseOffset).toBe(4n);
    await log.close();
    expect(baseOffsets(open(dir, 'always', 20_000).log)).toEqual([0n, 4n]);
  });
});
