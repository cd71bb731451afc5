/**
 * Where an fdatasync under 'always' runs (inline-sync-gate.ts): on the event-loop thread unless the
 * weighted mean of the inline ones passed the gate's limit in the last second, else on libuv's thread pool. The log's syncs are seen
 * through file-io.ts, mocked here: pool syncs can be held at a gate (the real fdatasync runs when
 * the test completes one), inline ones counted, made to fail, or made "slow" by moving the fake
 * clock that times them. Nothing depends on how fast the disk or the machine is.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { INLINE_MS_PER_TURN, InlineSyncGate, MEAN_WEIGHT, RETRY_INLINE_MS } from '../../src/storage/inline-sync-gate.js';
import { ManualTime, batchOf, captureLog, removeTempDirs, tempDir } from './helpers.js';
import { nextTurn } from '../support/thread-pool.js';
import { noteAnswered, noteHeard, setServingClient, whileClientsReturn } from '../../src/util/returning-clients.js';

const io = vi.hoisted(() => ({
  /** The fake clock timing syncs (ms). */
  now: 0,
  holding: false,
  held: [] as Array<{ complete(): Promise<void> }>,
  pool: 0,
  inline: 0,
  /** Added to the clock by each inline sync: a "slow" disk. */
  inlineTakesMs: 0,
  /** Thrown by the next inline sync. */
  inlineFailure: null as Error | null,
}));

vi.mock('../../src/storage/file-io.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/storage/file-io.js')>();
  const fdatasync = (fd: number): Promise<void> => {
    io.pool++;
    if (!io.holding) return real.fdatasync(fd);
    return new Promise<void>((resolve, reject) => {
      io.held.push({ complete: () => real.fdatasync(fd).then(resolve, reject) });
    });
  };
  const fdatasyncSync = (fd: number): void => {
    io.inline++;
    io.now += io.inlineTakesMs;
    const failure = io.inlineFailure;
    io.inlineFailure = null;
    if (failure) throw failure;
    real.fdatasyncSync(fd);
  };
  return { ...real, fdatasync, fdatasyncSync };
});

const opened: PartitionLog[] = [];

function openLog(dir: string, inlineSyncMaxMs: number, log = captureLog().log, segmentBytes = 1 << 20, syncGate = new InlineSyncGate(inlineSyncMaxMs, () => io.now)): PartitionLog {
  const partitionLog = PartitionLog.open({
    dir,
    segmentBytes,
    rollMs: 1e12,
    flushPolicy: 'always',
    flushIntervalMs: 1000,
    syncGate,
    log,
    time: new ManualTime(),
  });
  opened.push(partitionLog);
  return partitionLog;
}

/** Appends one record in a turn of the event loop of its own (as a request's) and waits until it is durable; returns where its sync ran. */
async function appendDurably(log: PartitionLog): Promise<'inline' | 'pool'> {
  await new Promise((resolve) => setImmediate(resolve));
  const before = { inline: io.inline, pool: io.pool };
  await log.append([batchOf(1)]).durable;
  if (io.inline === before.inline + 1 && io.pool === before.pool) return 'inline';
  if (io.pool === before.pool + 1 && io.inline === before.inline) return 'pool';
  throw new Error(`unexpected syncs: inline ${io.inline - before.inline}, pool ${io.pool - before.pool}`);
}

afterEach(async () => {
  io.holding = false;
  for (const h of io.held.splice(0)) await h.complete().catch(() => {});
  Object.assign(io, { now: 0, pool: 0, inline: 0, inlineTakesMs: 0, inlineFailure: null });
  for (const log of opened.splice(0)) await log.close();
  removeTempDirs();
});

describe("PartitionLog 'always': inline fdatasync", () => {
  it('syncs on the event-loop thread while syncs are fast; after a roll, on the pool (the new file’s directory entry is synced there first)', async () => {
    const log = openLog(tempDir(), 2, captureLog().log, 2 * batchOf(1).length); // two batches a segment
    const where = [];
    for (let i = 0; i < 5; i++) where.push(await appendDurably(log));
    expect([where, log.recoveryPoint, log.stats.syncs]).toEqual([['inline', 'inline', 'pool', 'inline', 'pool'], 5n, 5]);
  });

  it('acknowledges an inline-synced append without going through the pool: it is durable even while a pool sync would be held', async () => {
    const log = openLog(tempDir(), 2);
    await appendDurably(log);
    io.holding = true;
    const appended = log.append([batchOf(3)]);
    await appended.durable;
    expect([io.held.length, io.inline, io.pool, log.recoveryPoint]).toEqual([0, 2, 0, 4n]);
  });

  it(`once the weighted mean of inline sync times passes the limit, the syncs of the next ${RETRY_INLINE_MS} ms go to the pool, however fast they are there; then one inline sync tries again`, async () => {
    const log = openLog(tempDir(), 2);
    await appendDurably(log); // mean 0 ms
    io.inlineTakesMs = 15; // one outlier: the mean moves to 15 / MEAN_WEIGHT = 1.875 ms, under the 2 ms limit
    expect(await appendDurably(log)).toBe('inline');
    io.inlineTakesMs = 1.5; // 1.875 + (1.5 - 1.875) / 8: still under
    expect(await appendDurably(log)).toBe('inline');
    io.inlineTakesMs = 4; // 1.83 + (4 - 1.83) / 8 = 2.1: over
    expect(await appendDurably(log)).toBe('inline');
    io.inlineTakesMs = 0;
    expect([await appendDurably(log), await appendDurably(log)]).toEqual(['pool', 'pool']); // fast there (the clock did not move)
    io.now += RETRY_INLINE_MS - 1;
    expect(await appendDurably(log)).toBe('pool');
    io.now += 1;
    io.inlineTakesMs = 2.5; // the retry's own time is the new mean: over the limit again at once
    expect([await appendDurably(log), await appendDurably(log)]).toEqual(['inline', 'pool']);
    io.inlineTakesMs = 0;
    io.now += RETRY_INLINE_MS;
    expect([await appendDurably(log), await appendDurably(log)]).toEqual(['inline', 'inline']);
    expect(log.recoveryPoint).toBe(11n);
  });

  it(`a single inline sync of ${MEAN_WEIGHT} times the limit or more sends the next syncs to the pool at once`, async () => {
    const log = openLog(tempDir(), 2);
    await appendDurably(log);
    io.inlineTakesMs = 2 * MEAN_WEIGHT + 0.5;
    expect(await appendDurably(log)).toBe('inline');
    io.inlineTakesMs = 0;
    expect(await appendDurably(log)).toBe('pool');
  });

  it('logs sharing a gate (one per server) share its state: a slow inline sync of one sends the other’s next sync to the pool', async () => {
    const gate = new InlineSyncGate(2, () => io.now);
    const a = openLog(tempDir(), 2, captureLog().log, 1 << 20, gate);
    const b = openLog(tempDir(), 2, captureLog().log, 1 << 20, gate);
    expect([await appendDurably(a), await appendDurably(b)]).toEqual(['inline', 'inline']);
    io.inlineTakesMs = 2 * MEAN_WEIGHT + 0.5;
    expect(await appendDurably(a)).toBe('inline');
    io.inlineTakesMs = 0;
    expect([await appendDurably(b), await appendDurably(a)]).toEqual(['pool', 'pool']);
    io.now += RETRY_INLINE_MS;
    expect([await appendDurably(b), await appendDurably(a)]).toEqual(['inline', 'inline']);
  });

  it(`inline syncs take at most ${INLINE_MS_PER_TURN} ms of one turn of the event loop in all: the turn's later syncs go to the pool, the next turn's are inline again`, async () => {
    const gate = new InlineSyncGate(2, () => io.now);
    const logs = Array.from({ length: 4 }, () => openLog(tempDir(), 2, captureLog().log, 1 << 20, gate));
    for (const log of logs) expect(await appendDurably(log)).toBe('inline');
    // Four appends in one turn (a Produce to four partitions), syncs of 2 ms each: 2, 4, 6 ms, then the pool.
    io.inlineTakesMs = 2;
    const before = { inline: io.inline, pool: io.pool };
    await Promise.all(logs.map((log) => log.append([batchOf(1)]).durable));
    expect([io.inline - before.inline, io.pool - before.pool]).toEqual([3, 1]);
    io.inlineTakesMs = 0;
    expect(await appendDurably(logs[3]!)).toBe('inline');
  });

  it('mock.flush.inline.sync.max.ms 0: every sync on the pool', async () => {
    const log = openLog(tempDir(), 0);
    expect([await appendDurably(log), await appendDurably(log), await appendDurably(log)]).toEqual(['pool', 'pool', 'pool']);
  });

  it('a failed inline sync fails its append, rolls the log back to its recovery point, and the log takes appends again', async () => {
    const dir = tempDir();
    const captured = captureLog();
    const log = openLog(dir, 2, captured.log);
    await appendDurably(log);
    const file = path.join(dir, '00000000000000000000.log');
    const syncedBytes = fs.statSync(file).size;
    io.inlineFailure = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO', errno: -5, syscall: 'fdatasync' });
    const failed = log.append([batchOf(3)]);
    expect(failed.baseOffset).toBe(1n);
    await expect(failed.durable).rejects.toMatchObject({ code: 'EIO' });
    await log.whenIdle();
    expect([log.logEndOffset, log.recoveryPoint, fs.statSync(file).size]).toEqual([1n, 1n, syncedBytes]);
    expect(captured.lines.map((l) => l['msg'])).toContain('log write failed; unacknowledged appends are rolled back and appends fail until the file is cut back');
    const after = log.append([batchOf(2)]);
    expect(after.baseOffset).toBe(1n);
    await after.durable;
    await log.close();
    expect(openLog(dir, 2).logEndOffset).toBe(3n);
  });

  it('mock.flush.inline.sync.wait.ms: a step waits for the client the last sync acknowledged; one with an append made outside any request (a marker) does not', async () => {
    const log = openLog(tempDir(), 1000, undefined, undefined, new InlineSyncGate(1000, () => io.now, 60_000));
    await whileClientsReturn(new Set(), 0, 0); // counting starts
    const [committer, other] = [{}, {}];
    const appendAs = (client: object | null) => {
      setServingClient(client);
      try {
        return log.append([batchOf(1)]).durable;
      } finally {
        setServingClient(null);
      }
    };
    await appendAs(committer);
    noteAnswered(committer); // its answer left; nothing more of it read yet
    // Another client's append waits (a minute at most) for the committer's next one.
    let otherDurable = false;
    const waiting = appendAs(other).then(() => (otherDurable = true));
    for (let i = 0; i < 20; i++) await nextTurn();
    expect([otherDurable, io.inline]).toEqual([false, 1]);
    noteHeard(committer);
    await appendAs(committer);
    await waiting;
    expect(io.inline).toBe(2); // one sync for both
    // Both answered, neither heard from: an append made outside any request syncs at once.
    noteAnswered(committer);
    noteAnswered(other);
    await appendAs(null);
    expect(io.inline).toBe(3);
  });
});
