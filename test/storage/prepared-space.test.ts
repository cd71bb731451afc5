/**
 * Zeros written ahead of a segment's batches under 'always' (prepared-space.ts, the coordinators'
 * logs: `prepareSpace`): how far ahead, that only 'always' and only those logs write them, that a roll and a close cut them, and that recovery cuts them
 * without a warning, also in a segment below the last (a process that died between a roll and
 * the cut). Real files; what is checked is the files' bytes, not timings.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PartitionLog, type FlushPolicy } from '../../src/storage/partition-log.js';
import { PREPARED_ALIGN_BYTES, PREPARED_MAX_BYTES, allZero, zerosAfter } from '../../src/storage/prepared-space.js';
import { segmentFileName } from '../../src/storage/segment.js';
import { CorruptLogError } from '../../src/storage/recovery.js';
import { readBatchHeader } from '../../src/records/record-batch.js';
import { ManualTime, batchOf, captureLog, removeTempDirs, tempDir, type CapturedLog } from './helpers.js';

const io = vi.hoisted(() => ({ /** Set: the next write of zeros writes this many of them, then fails with ENOSPC. */ zerosThenFull: null as number | null }));

vi.mock('../../src/storage/file-io.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/storage/file-io.js')>();
  const writeFullySync = (fd: number, buffers: Buffer[], position: number): void => {
    const n = io.zerosThenFull;
    if (n !== null && buffers.length === 1 && allZeroBytes(buffers[0]!)) {
      io.zerosThenFull = null;
      real.writeFullySync(fd, [buffers[0]!.subarray(0, n)], position);
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
    }
    real.writeFullySync(fd, buffers, position);
  };
  return { ...real, writeFullySync };
});

function allZeroBytes(b: Buffer): boolean {
  return b.length > 0 && b.every((x) => x === 0);
}

const opened: PartitionLog[] = [];

afterEach(async () => {
  io.zerosThenFull = null;
  for (const log of opened.splice(0)) await log.close();
  removeTempDirs();
});

function openLog(dir: string, flushPolicy: FlushPolicy, segmentBytes = 1 << 20, captured: CapturedLog = captureLog(), prepareSpace = true): PartitionLog {
  const log = PartitionLog.open({ dir, segmentBytes, rollMs: 1e12, flushPolicy, flushIntervalMs: 3_600_000, prepareSpace, log: captured.log, time: new ManualTime() });
  opened.push(log);
  return log;
}

const segmentFile = (dir: string, base: bigint): string => path.join(dir, segmentFileName(base));
const baseOffsets = (log: PartitionLog): bigint[] => [...log.batches()].map((b) => readBatchHeader(b).baseOffset);

describe('zeros written ahead of the batches (prepared-space.ts)', () => {
  it('grow with the segment, from a page ahead to PREPARED_MAX_BYTES ahead, ending on a page boundary', () => {
    expect(PREPARED_ALIGN_BYTES).toBe(4096);
    expect(150 + zerosAfter(150).length).toBe(8192); // 150 bytes + 4096 ahead, rounded up to a page
    expect(9000 + zerosAfter(9000).length).toBe(20480); // 9000 + 9000 ahead, rounded up
    const big = 5 * PREPARED_MAX_BYTES + 10;
    expect(big + zerosAfter(big).length).toBe(Math.ceil((big + PREPARED_MAX_BYTES) / 4096) * 4096);
    expect(allZero(zerosAfter(150))).toBe(true);
  });

  it("under 'always' the active segment's file ends in zeros past its batches; a close cuts them", async () => {
    const dir = tempDir();
    const log = openLog(dir, 'always');
    const a = batchOf(3);
    await log.append([a]).durable;
    const file = fs.readFileSync(segmentFile(dir, 0n));
    expect([file.length, file.subarray(0, a.length).equals(a), allZero(file.subarray(a.length))]).toEqual([8192, true, true]);
    // Appends within the zeros leave the length alone; one past them moves it further ahead.
    let bytes = a.length;
    while (bytes <= 8192) {
      const b = batchOf(50);
      await log.append([b]).durable;
      bytes += b.length;
    }
    const grown = fs.statSync(segmentFile(dir, 0n)).size;
    expect(grown).toBe(Math.ceil((2 * bytes) / 4096) * 4096);
    await log.close();
    expect(fs.statSync(segmentFile(dir, 0n)).size).toBe(bytes);
  });

  it('a close after another server took the directory over leaves the file as it is: no cut, which would truncate the new owner\'s batches', async () => {
    const dir = tempDir();
    let takenOver = false;
    const log = PartitionLog.open({ dir, segmentBytes: 1 << 20, rollMs: 1e12, flushPolicy: 'always', flushIntervalMs: 3_600_000, prepareSpace: true, log: captureLog().log, time: new ManualTime(), directoryTakenOver: () => takenOver });
    const a = batchOf(3);
    await log.append([a]).durable;
    expect(fs.statSync(segmentFile(dir, 0n)).size).toBe(8192);
    // The new owner appended past this server's end (within the zeros, as its own batches).
    const theirs = batchOf(5);
    const fd = fs.openSync(segmentFile(dir, 0n), 'r+');
    fs.writeSync(fd, theirs, 0, theirs.length, a.length);
    fs.closeSync(fd);
    takenOver = true;
    await log.close();
    const file = fs.readFileSync(segmentFile(dir, 0n));
    expect([file.length, file.subarray(a.length, a.length + theirs.length).equals(theirs)]).toEqual([8192, true]);
  });

  it.each(['never', 'interval'] as const)('under %s nothing is written ahead', async (policy) => {
    const dir = tempDir();
    const log = openLog(dir, policy);
    const a = batchOf(3);
    await log.append([a]).durable;
    expect(fs.statSync(segmentFile(dir, 0n)).size).toBe(a.length);
  });

  it("nothing is written ahead in a log opened without prepareSpace (a topic's), under 'always' too", async () => {
    const dir = tempDir();
    const log = openLog(dir, 'always', 1 << 20, captureLog(), false);
    const a = batchOf(3);
    await log.append([a]).durable;
    expect(fs.statSync(segmentFile(dir, 0n)).size).toBe(a.length);
  });

  it('a write of zeros cut short by a full disk leaves the append durable, and the close still cuts what it wrote', async () => {
    const dir = tempDir();
    const log = openLog(dir, 'always');
    const a = batchOf(3);
    io.zerosThenFull = 1000;
    await log.append([a]).durable;
    expect(fs.statSync(segmentFile(dir, 0n)).size).toBe(a.length + 1000);
    await log.close();
    expect(fs.readFileSync(segmentFile(dir, 0n)).equals(a)).toBe(true);
  });

  it('a roll cuts the sealed segment back to its batches; the new active one gets its own zeros', async () => {
    const dir = tempDir();
    const one = batchOf(1).length;
    const log = openLog(dir, 'always', 2 * one);
    for (let i = 0; i < 3; i++) await log.append([batchOf(1)]).durable;
    expect([fs.statSync(segmentFile(dir, 0n)).size, fs.statSync(segmentFile(dir, 2n)).size]).toEqual([2 * one, 8192]);
  });

  it('a restart after the process died (the log never closed) cuts the zeros without a warning and keeps every batch', async () => {
    const dir = tempDir();
    const log = openLog(dir, 'always');
    for (let i = 0; i < 4; i++) await log.append([batchOf(2)]).durable;
    const bytes = 4 * batchOf(2).length;
    expect(fs.statSync(segmentFile(dir, 0n)).size).toBeGreaterThan(bytes);
    opened.splice(opened.indexOf(log), 1); // as if killed: no close, no cut

    const captured = captureLog();
    const reopened = openLog(dir, 'always', 1 << 20, captured);
    expect([baseOffsets(reopened), reopened.logEndOffset, fs.statSync(segmentFile(dir, 0n)).size]).toEqual([[0n, 2n, 4n, 6n], 8n, bytes]);
    expect(captured.lines.filter((l) => Number(l['level']) >= 40)).toEqual([]);
  });

  it('a segment below the last that still ends in zeros (the process died between a roll and the cut) is cut, and the later segments stay', async () => {
    const dir = tempDir();
    fs.writeFileSync(segmentFile(dir, 0n), Buffer.concat([batchOf(2), Buffer.alloc(8192)])); // offsets 0-1, then zeros
    const next = batchOf(3);
    next.writeBigInt64BE(2n, 0); // offsets 2-4: the base offset is outside the CRC
    fs.writeFileSync(segmentFile(dir, 2n), next);

    const captured = captureLog();
    const log = openLog(dir, 'always', 1 << 20, captured);
    expect([baseOffsets(log), log.logEndOffset]).toEqual([[0n, 2n], 5n]);
    expect([fs.statSync(segmentFile(dir, 0n)).size, fs.existsSync(segmentFile(dir, 2n))]).toEqual([batchOf(2).length, true]);
    expect(captured.lines.filter((l) => Number(l['level']) >= 40)).toEqual([]);
  });
  it('zeros from the first byte of a segment below the last are damage: the open fails naming the file, as before', async () => {
    const dir = tempDir();
    fs.writeFileSync(segmentFile(dir, 0n), Buffer.alloc(4096));
    const next = batchOf(3);
    next.writeBigInt64BE(2n, 0);
    fs.writeFileSync(segmentFile(dir, 2n), next);
    expect(() => openLog(dir, 'always')).toThrow(CorruptLogError);
  });

  it('a last segment of zeros only is dropped with the torn-tail warning; a torn segment before one is the tail', async () => {
    const dir = tempDir();
    const first = batchOf(2);
    const torn = batchOf(3);
    torn.writeBigInt64BE(2n, 0);
    fs.writeFileSync(segmentFile(dir, 0n), Buffer.concat([first, torn.subarray(0, 20)])); // offsets 0-1, then a torn batch
    fs.writeFileSync(segmentFile(dir, 2n), Buffer.alloc(4096)); // the next segment: its first write never reached the disk
    const captured = captureLog();
    const log = openLog(dir, 'always', 1 << 20, captured);
    expect([baseOffsets(log), log.logEndOffset, fs.statSync(segmentFile(dir, 0n)).size, fs.existsSync(segmentFile(dir, 2n))]).toEqual([[0n], 2n, first.length, false]);
    expect(captured.lines.filter((l) => Number(l['level']) === 40).map((l) => String(l['msg']))).toEqual([expect.stringMatching(/^truncated torn tail of log segment .*00000000000000000000\.log: dropped 20 bytes from byte /)]);
  });
});
