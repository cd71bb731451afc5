import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PartitionLog, type PartitionLogOptions } from '../../src/storage/partition-log.js';
import { CorruptLogError } from '../../src/storage/recovery.js';
import { MAX_SYNCS_IN_FLIGHT } from '../../src/storage/sync-pipeline.js';
import { encodeRecordBatch, readBatchHeader, validateBatch } from '../../src/records/record-batch.js';
import { ManualTime, batchOf, captureLog, removeTempDirs, tempDir } from './helpers.js';
import { blockThreadPool, nextTurn } from '../support/thread-pool.js';

const opened: PartitionLog[] = [];

function openLog(overrides: Partial<PartitionLogOptions> = {}): PartitionLog {
  const log = PartitionLog.open({
    dir: tempDir(),
    segmentBytes: 1 << 20,
    rollMs: 7 * 24 * 3600 * 1000,
    flushPolicy: 'always',
    flushIntervalMs: 1000,
    log: captureLog().log,
    time: new ManualTime(),
    ...overrides,
  });
  opened.push(log);
  return log;
}

function segmentFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.log')).sort();
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((l) => l.close()));
  removeTempDirs();
});

describe('PartitionLog append and read', () => {
  it('assigns consecutive offsets, restamps base offsets and reads whole batches back', async () => {
    const log = openLog();
    expect(log.logStartOffset).toBe(0n);
    expect(log.logEndOffset).toBe(0n);
    const a = batchOf(3);
    const b = batchOf(2);
    const r1 = log.append([a]);
    const r2 = log.append([b]);
    expect(r1.baseOffset).toBe(0n);
    expect(r2.baseOffset).toBe(3n);
    expect(readBatchHeader(b).baseOffset).toBe(3n); // restamped in place
    expect(log.logEndOffset).toBe(5n);
    // readable before the write reaches the file
    expect(log.read(4n, 1 << 20).map((x) => readBatchHeader(x).baseOffset)).toEqual([3n]);
    await r2.durable;
    const all = log.read(0n, 1 << 20);
    expect(all.map((x) => readBatchHeader(x).baseOffset)).toEqual([0n, 3n]);
    expect(all.every((x) => validateBatch(x).ok)).toBe(true);
    // the batch holding offset 1 starts before it
    expect(log.read(1n, 1 << 20).map((x) => readBatchHeader(x).baseOffset)).toEqual([0n, 3n]);
    expect(log.read(5n, 1 << 20)).toEqual([]);
    expect(fs.readFileSync(path.join(log.dir!, '00000000000000000000.log')).equals(Buffer.concat([a, b]))).toBe(true);
  });

  it('stops at maxBytes but always returns the first batch', async () => {
    const log = openLog();
    const sizes = [batchOf(1), batchOf(1), batchOf(1)].map((b) => {
      log.append([b]);
      return b.length;
    });
    expect(log.read(0n, sizes[0]! * 2).length).toBe(2);
    expect(log.read(0n, 1).length).toBe(1);
    expect(log.read(0n, 1, false).length).toBe(0);
  });

  it('keeps everything in memory when dir is null', async () => {
    const log = openLog({ dir: null });
    const r = log.append([batchOf(2), batchOf(1)]);
    await r.durable;
    expect(r.baseOffset).toBe(0n);
    expect(log.logEndOffset).toBe(3n);
    expect([...log.batches()].map((b) => readBatchHeader(b).baseOffset)).toEqual([0n, 2n]);
  });
});

describe('PartitionLog high watermark (what consumers may read)', () => {
  // A killed process keeps what was written to the page cache, not what was only appended in
  // memory: a consumer that read past the written end saw records a restart took back, and their
  // offsets given to other records (adversarial trial 18). Kafka's leader writes before it moves
  // the high watermark (and flushes first with flush.messages=1, our 'always').
  for (const flushPolicy of ['never', 'interval', 'always'] as const) {
    it(`${flushPolicy}: an append is readable below the high watermark only once written${flushPolicy === 'always' ? ' and synced' : ''}; the listener is told then`, async () => {
      const log = openLog({ flushPolicy, flushIntervalMs: 60_000 });
      const first = log.append([batchOf(2)]);
      await first.durable;
      let told = 0;
      log.onHighWatermark(() => told++);
      expect(log.highWatermark).toBe(2n);
      const second = log.append([batchOf(3)]);
      expect([log.logEndOffset, log.highWatermark, told]).toEqual([5n, 2n, 0]);
      expect(log.read(0n, 1 << 20, true, log.highWatermark).map((b) => readBatchHeader(b).baseOffset)).toEqual([0n]);
      expect(log.read(2n, 1 << 20, true, log.highWatermark)).toEqual([]);
      await second.durable;
      expect([log.highWatermark, told > 0]).toEqual([5n, true]);
      expect(log.read(2n, 1 << 20, true, log.highWatermark).map((b) => readBatchHeader(b).baseOffset)).toEqual([2n]);
    });
  }

  it('in memory: the high watermark is the log end offset, the listener told at the append', () => {
    const log = PartitionLog.open({ dir: null, segmentBytes: 1 << 20, rollMs: 1e9, flushPolicy: 'never', flushIntervalMs: 0, log: captureLog().log, time: new ManualTime() });
    let told = 0;
    log.onHighWatermark(() => told++);
    log.append([batchOf(2)]);
    expect([log.logEndOffset, log.highWatermark, told]).toEqual([2n, 2n, 1]);
  });
});

describe('PartitionLog segments', () => {
  it('rolls to a new segment at segmentBytes and reads across segments', async () => {
    const one = batchOf(1).length;
    const log = openLog({ segmentBytes: one * 2 });
    for (let i = 0; i < 5; i++) log.append([batchOf(1)]);
    await log.close();
    expect(segmentFiles(log.dir!)).toEqual([
      '00000000000000000000.log',
      '00000000000000000002.log',
      '00000000000000000004.log',
    ]);
    const reopened = openLog({ dir: log.dir, segmentBytes: one * 2 });
    expect(reopened.logEndOffset).toBe(5n);
    expect(reopened.segmentCount).toBe(3);
    expect(reopened.read(1n, 1 << 20).map((b) => readBatchHeader(b).baseOffset)).toEqual([1n, 2n, 3n, 4n]);
    expect([...reopened.batches()].length).toBe(5);
  });

  it.each(['never', 'interval'] as const)("under flush %s a roll syncs the segments below the new one after their writes, as Kafka's UnifiedLog.roll, not the active one", async (flushPolicy) => {
    const one = batchOf(1).length;
    const log = openLog({ segmentBytes: one * 2, flushPolicy, flushIntervalMs: 3_600_000 });
    await log.append([batchOf(1)]).durable;
    await log.whenIdle();
    expect([log.stats, log.recoveryPoint]).toEqual([{ writes: 1, syncs: 0 }, 0n]);
    log.append([batchOf(1)]);
    await log.append([batchOf(1)]).durable; // rolls: offset 2 starts the second segment
    await log.whenIdle();
    expect([log.segmentCount, log.stats, log.recoveryPoint]).toEqual([2, { writes: 3, syncs: 1 }, 2n]);
    await log.append([batchOf(1)]).durable; // no roll: nothing synced
    await log.whenIdle();
    expect([log.stats, log.recoveryPoint]).toEqual([{ writes: 4, syncs: 1 }, 2n]);
  });

  it('rolls when the active segment is older than rollMs', async () => {
    const time = new ManualTime();
    const log = openLog({ time, rollMs: 1000 });
    log.append([batchOf(1)]);
    time.advance(999);
    log.append([batchOf(1)]);
    time.advance(1);
    log.append([batchOf(1)]);
    await log.close();
    expect(segmentFiles(log.dir!)).toEqual(['00000000000000000000.log', '00000000000000000002.log']);
  });
});

describe('PartitionLog log start offset (DeleteRecords)', () => {
  it('moves up only, hides what is below from reads and timestamp lookups, and deletes the segments wholly below', async () => {
    const one = batchOf(2).length;
    const log = openLog({ segmentBytes: one * 2 });
    for (let i = 0; i < 5; i++) log.append([batchOf(2, 1000n + BigInt(i))]); // offsets 0-9, segments at 0, 4, 8
    await log.whenIdle();
    expect(segmentFiles(log.dir!)).toEqual(['00000000000000000000.log', '00000000000000000004.log', '00000000000000000008.log']);
    expect(log.advanceLogStartOffset(5n)).toBe(true);
    expect(log.logStartOffset).toBe(5n);
    expect(log.checkpointLogStartOffset).toBe(5n);
    expect(log.advanceLogStartOffset(3n)).toBe(false);
    expect(log.logStartOffset).toBe(5n);
    // The batch holding offset 5 starts at 4; below 5 nothing is read.
    expect(log.read(4n, 1 << 20)).toEqual([]);
    expect(log.read(5n, 1 << 20).map((b) => readBatchHeader(b).baseOffset)).toEqual([4n, 6n, 8n]);
    // Offset 4 has timestamp 1002, below the log start offset: the lookup answers offset 5.
    expect(log.offsetForTimestamp(1000n)).toEqual({ offset: 5n, timestamp: 1002n });
    await log.whenIdle();
    expect(segmentFiles(log.dir!)).toEqual(['00000000000000000004.log', '00000000000000000008.log']);
    expect(log.segmentCount).toBe(2);
    // Up to the LEO: the active segment stays, empty of readable records.
    expect(log.advanceLogStartOffset(10n)).toBe(true);
    await log.whenIdle();
    expect(segmentFiles(log.dir!)).toEqual(['00000000000000000008.log']);
    expect([log.logStartOffset, log.logEndOffset]).toEqual([10n, 10n]);
    await log.close();

    // Reopened with the checkpointed offset (as TopicStore does); one past the LEO is cut to it.
    const reopened = openLog({ dir: log.dir, segmentBytes: one * 2, logStartOffset: 12n });
    expect([reopened.logStartOffset, reopened.logEndOffset]).toEqual([10n, 10n]);
    const again = openLog({ dir: tempDir(), logStartOffset: 0n });
    expect([again.logStartOffset, again.checkpointLogStartOffset]).toEqual([0n, null]);
  });
});

describe('PartitionLog durability', () => {
  it('group-commits all appends of one turn with one write and one fdatasync', async () => {
    const log = openLog({ flushPolicy: 'always' });
    const results = Array.from({ length: 50 }, () => log.append([batchOf(1)]));
    const settled: number[] = [];
    results.forEach((r, i) => void r.durable.then(() => settled.push(i)));
    expect(log.stats).toEqual({ writes: 0, syncs: 0 });
    await Promise.all(results.map((r) => r.durable));
    expect(settled.length).toBe(50);
    expect(log.stats).toEqual({ writes: 1, syncs: 1 });
    expect(new Set(results.map((r) => r.durable)).size).toBe(1);
    log.append([batchOf(1)]);
    await log.append([batchOf(1)]).durable;
    expect(log.stats).toEqual({ writes: 2, syncs: 2 });
  });

  it("under 'always', appends of the turns while MAX_SYNCS_IN_FLIGHT syncs run share ONE next write and fdatasync, and each resolves, in order, only once a sync covers it", async () => {
    const log = openLog({ flushPolicy: 'always' });
    const release = blockThreadPool(); // every fdatasync waits until release()
    const answered: bigint[] = [];
    const order: number[] = [];
    const results = [];
    try {
      results.push(log.append([batchOf(1)]));
      await nextTurn(); // the first turn's bytes are written; its sync is queued
      expect([log.stats, log.recoveryPoint]).toEqual([{ writes: 1, syncs: 0 }, 0n]);
      for (let i = 1; i < 10; i++) {
        // One commit per turn, each followed by a turn without one, as 9 connections answered one by
        // one on an otherwise idle loop (a step gathers while appends keep arriving: sync-pipeline.test).
        results.push(log.append([batchOf(1)]));
        await nextTurn();
        await nextTurn();
      }
      // Each answer notes what the completed syncs cover at that moment.
      results.forEach((r, i) => void r.durable.then(() => ((answered[i] = log.recoveryPoint), order.push(i))));
      // The next turns each wrote and started a sync until MAX_SYNCS_IN_FLIGHT ran; the rest wait together.
      expect([log.stats, log.logEndOffset, answered.length]).toEqual([{ writes: MAX_SYNCS_IN_FLIGHT, syncs: 0 }, 10n, 0]);
    } finally {
      release();
    }
    await Promise.all(results.map((r) => r.durable));
    // The last sync covers every append, and may finish before an earlier one (they run at once in
    // the thread pool): everything is acknowledged then, with that earlier sync still running.
    await log.whenIdle();
    expect(log.stats).toEqual({ writes: MAX_SYNCS_IN_FLIGHT + 1, syncs: MAX_SYNCS_IN_FLIGHT + 1 }); // not 10 and 10
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    answered.forEach((covered, i) => expect(covered).toBeGreaterThan(BigInt(i)));
    expect(answered.slice(MAX_SYNCS_IN_FLIGHT)).toEqual(new Array(10 - MAX_SYNCS_IN_FLIGHT).fill(10n));
    expect(results.map((r) => r.baseOffset)).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n]);
    expect(fs.statSync(path.join(log.dir!, '00000000000000000000.log')).size).toBe(10 * batchOf(1).length);
  });

  it("resolves 'never' once the bytes are written, without a sync", async () => {
    const log = openLog({ flushPolicy: 'never' });
    let done = false;
    const r = log.append([batchOf(1)]);
    void r.durable.then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false); // the write happens in the next turn
    await r.durable;
    expect(log.stats).toEqual({ writes: 1, syncs: 0 });
    expect(fs.statSync(path.join(log.dir!, '00000000000000000000.log')).size).toBe(batchOf(1).length);
  });

  it("resolves 'interval' once written and syncs on the interval timer", async () => {
    const time = new ManualTime();
    const log = openLog({ flushPolicy: 'interval', flushIntervalMs: 500, time });
    const r = log.append([batchOf(1)]);
    await r.durable;
    expect(log.stats).toEqual({ writes: 1, syncs: 0 });
    time.advance(500);
    await log.whenIdle();
    expect(log.stats).toEqual({ writes: 1, syncs: 1 });
  });
});

describe('PartitionLog log.flush.interval.messages', () => {
  it("syncs under 'interval' once that many messages wait, before the timer", async () => {
    const time = new ManualTime();
    const log = openLog({ flushPolicy: 'interval', flushIntervalMs: 60_000, flushIntervalMessages: 5n, time });
    await log.append([batchOf(3)]).durable;
    time.advance(0);
    await log.whenIdle();
    expect(log.stats).toEqual({ writes: 1, syncs: 0 });
    await log.append([batchOf(2)]).durable; // 5 messages now
    time.advance(0);
    await log.whenIdle();
    expect(log.stats).toEqual({ writes: 2, syncs: 1 });
  });
});

describe('PartitionLog recovery', () => {
  /** A closed log of two batches (offsets 0-4) whose segment then got the first 30 bytes of a third: `good` bytes before them. */
  async function logWithTornTail(): Promise<{ dir: string; file: string; good: number }> {
    const first = openLog();
    first.append([batchOf(2)]);
    first.append([batchOf(3)]);
    await first.close();
    const file = path.join(first.dir!, '00000000000000000000.log');
    const good = fs.statSync(file).size;
    fs.appendFileSync(file, batchOf(4).subarray(0, 30));
    return { dir: first.dir!, file, good };
  }

  it('truncates a torn tail of the last segment with one warning', async () => {
    const first = await logWithTornTail();
    const { file, good } = first;
    const captured = captureLog();
    const log = openLog({ dir: first.dir, log: captured.log });
    expect(log.logEndOffset).toBe(5n);
    expect(fs.statSync(file).size).toBe(good);
    const warnings = captured.warnings();
    expect(warnings.length).toBe(1);
    expect(warnings[0]).toMatchObject({ file, position: good, offset: '5', bytesDropped: 30 });
    expect(log.append([batchOf(1)]).baseOffset).toBe(5n);
  });

  it('truncates a torn tail of a segment followed only by an empty, just-rolled segment', async () => {
    const first = openLog();
    first.append([batchOf(2)]);
    first.append([batchOf(3)]);
    await first.close();
    const file = path.join(first.dir!, '00000000000000000000.log');
    const good = fs.statSync(file).size;
    fs.appendFileSync(file, batchOf(4).subarray(0, 30)); // the torn write...
    fs.writeFileSync(path.join(first.dir!, '00000000000000000009.log'), ''); // ...after the roll created the next file
    const captured = captureLog();
    const log = openLog({ dir: first.dir, log: captured.log });
    expect(log.logEndOffset).toBe(5n);
    expect(fs.statSync(file).size).toBe(good);
    expect(segmentFiles(first.dir!)).toEqual(['00000000000000000000.log']);
    expect(captured.warnings().length).toBe(1);
    expect(log.append([batchOf(1)]).baseOffset).toBe(5n);
  });

  it('truncates a last batch whose CRC does not match', async () => {
    const first = openLog();
    first.append([batchOf(1)]);
    first.append([batchOf(1)]);
    await first.close();
    const file = path.join(first.dir!, '00000000000000000000.log');
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0x55;
    fs.writeFileSync(file, bytes);
    const captured = captureLog();
    const log = openLog({ dir: first.dir, log: captured.log });
    expect(log.logEndOffset).toBe(1n);
    expect(captured.warnings()[0]).toMatchObject({ bytesDropped: bytes.length / 2, offset: '1' });
  });

  it('refuses to open, truncating nothing, when a valid batch follows a bad one in the last segment: damage, not a torn write', async () => {
    const first = openLog();
    for (let i = 0; i < 3; i++) first.append([batchOf(2)]);
    await first.close();
    const file = path.join(first.dir!, '00000000000000000000.log');
    const bytes = fs.readFileSync(file);
    const one = bytes.length / 3;
    bytes[one + 40] = bytes[one + 40]! ^ 0x01; // a bit flipped inside the second batch (offsets 2-3)
    fs.writeFileSync(file, bytes);
    const captured = captureLog();
    expect(() => openLog({ dir: first.dir, log: captured.log })).toThrow(
      `corrupt log segment ${file} at byte ${one}: `,
    );
    expect(() => openLog({ dir: first.dir })).toThrow(
      `a valid batch follows it at byte ${2 * one} (offsets 4..5), so this is damage, not a write torn by a crash, and nothing was truncated: restore the file, or truncate it to ${one} bytes to drop offset 2 onwards`,
    );
    expect(fs.readFileSync(file)).toEqual(bytes);
    expect(captured.warnings()).toEqual([]);
    // Truncated as the message says, the log opens with the first batch.
    fs.truncateSync(file, one);
    expect(openLog({ dir: first.dir }).logEndOffset).toBe(2n);
  });

  it('after a clean shutdown a bad last batch is damage: refuses to open, truncating nothing', async () => {
    const first = await logWithTornTail();
    const { file, good } = first;
    expect(() => openLog({ dir: first.dir, stoppedCleanly: true })).toThrow(
      `corrupt log segment ${file} at byte ${good}: batch of 129 bytes runs past the end of the file (30 bytes left); the server stopped cleanly last time (.kafka_cleanshutdown), so this is damage`,
    );
    expect(fs.statSync(file).size).toBe(good + 30);
    // Without the marker (a crash) the same bytes are a torn write, cut.
    expect(openLog({ dir: first.dir }).logEndOffset).toBe(5n);
    expect(fs.statSync(file).size).toBe(good);
  });

  it("a topic's log (no zeros written ahead) whose tail lost its bytes to zeros: cut with a warning after a crash, damage after a clean stop", async () => {
    const first = openLog();
    for (let i = 0; i < 3; i++) first.append([batchOf(2)]);
    await first.close();
    const file = path.join(first.dir!, '00000000000000000000.log');
    const bytes = fs.readFileSync(file);
    const one = bytes.length / 3;
    fs.writeFileSync(file, Buffer.concat([bytes.subarray(0, 2 * one), Buffer.alloc(one)])); // the last batch's page never reached the disk
    expect(() => openLog({ dir: first.dir, stoppedCleanly: true })).toThrow(`corrupt log segment ${file} at byte ${2 * one}`);
    expect(fs.statSync(file).size).toBe(3 * one);
    const captured = captureLog();
    const log = openLog({ dir: first.dir, log: captured.log });
    expect(log.logEndOffset).toBe(4n);
    expect(captured.warnings()).toEqual([expect.objectContaining({ file, position: 2 * one, offset: '4', bytesDropped: one })]);
  });

  it('refuses to open when an earlier segment is corrupt, naming the file', async () => {
    const one = batchOf(1).length;
    const first = openLog({ segmentBytes: one });
    for (let i = 0; i < 3; i++) first.append([batchOf(1)]);
    await first.close();
    const middle = path.join(first.dir!, '00000000000000000001.log');
    const bytes = fs.readFileSync(middle);
    bytes[40] = bytes[40]! ^ 0xff;
    fs.writeFileSync(middle, bytes);
    expect(() => openLog({ dir: first.dir })).toThrow(CorruptLogError);
    expect(() => openLog({ dir: first.dir })).toThrow(middle);
  });

  it('reports each recovered batch to onRecoveredBatch', async () => {
    const first = openLog();
    first.append([batchOf(2), batchOf(1)]);
    await first.close();
    const seen: bigint[] = [];
    openLog({ dir: first.dir, onRecoveredBatch: (b) => seen.push(readBatchHeader(b).baseOffset) });
    expect(seen).toEqual([0n, 2n]);
  });
});

describe('PartitionLog timestamps', () => {
  function batchAt(timestamps: bigint[]): Buffer {
    return encodeRecordBatch({
      baseOffset: 0n,
      timestamp: timestamps[0]!,
      records: timestamps.map((timestamp) => ({ key: null, value: Buffer.from('x'), timestamp })),
    });
  }

  it('finds the first offset whose timestamp is at or after the target', async () => {
    const log = openLog();
    log.append([batchAt([100n, 200n, 300n])]); // offsets 0-2
    log.append([batchAt([400n, 350n])]); // offsets 3-4
    await log.append([batchAt([500n])]).durable; // offset 5
    expect(log.offsetForTimestamp(0n)).toEqual({ offset: 0n, timestamp: 100n });
    expect(log.offsetForTimestamp(150n)).toEqual({ offset: 1n, timestamp: 200n });
    expect(log.offsetForTimestamp(300n)).toEqual({ offset: 2n, timestamp: 300n });
    expect(log.offsetForTimestamp(320n)).toEqual({ offset: 3n, timestamp: 400n });
    expect(log.offsetForTimestamp(450n)).toEqual({ offset: 5n, timestamp: 500n });
    expect(log.offsetForTimestamp(501n)).toBeNull();
    expect(log.maxTimestamp()).toEqual({ offset: 5n, timestamp: 500n, leaderEpoch: -1 });
  });

  it('answers the first record holding the max timestamp', () => {
    const log = openLog({ dir: null });
    log.append([batchAt([10n, 90n, 90n])]);
    log.append([batchAt([90n])]);
    expect(log.maxTimestamp()).toEqual({ offset: 1n, timestamp: 90n, leaderEpoch: -1 });
    expect(openLog({ dir: null }).maxTimestamp()).toBeNull();
  });
});

describe('PartitionLog deleteFiles', () => {
  it('removes the directory', async () => {
    const log = PartitionLog.open({
      dir: tempDir(),
      segmentBytes: 1 << 20,
      rollMs: 1e9,
      flushPolicy: 'always',
      flushIntervalMs: 0,
      log: captureLog().log,
      time: new ManualTime(),
    });
    const r = log.append([batchOf(1)]);
    log.deleteFiles();
    await r.durable;
    expect(fs.existsSync(log.dir!)).toBe(false);
    expect(() => log.append([batchOf(1)])).toThrow(/closed/);
  });
});
