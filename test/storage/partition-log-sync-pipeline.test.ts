/**
 * Pipelined group commit under 'always' (sync-pipeline.ts): several fdatasyncs of one log in flight,
 * acknowledgements in offset order, and a failed sync failing every step it did not cover. No disk
 * here fails an fdatasync on demand, and the thread-pool trick (test/support/thread-pool.ts) releases
 * held syncs only all together, so this file holds each of the log's fdatasyncs at a gate: the real
 * fdatasync runs when the test completes it, or the test fails it with EIO. Nothing depends on timing.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { MAX_GATHER_TURNS, MAX_SYNCS_IN_FLIGHT } from '../../src/storage/sync-pipeline.js';
import { readBatchHeader } from '../../src/records/record-batch.js';
import { ManualTime, batchOf, captureLog, removeTempDirs, tempDir } from './helpers.js';
import { nextTurn } from '../support/thread-pool.js';

interface HeldSync {
  /** Runs the real fdatasync, which settles the log's call. */
  complete(): Promise<void>;
  fail(error: Error): void;
}

const gate = vi.hoisted(() => ({ holding: false, held: [] as HeldSync[] }));

vi.mock('../../src/storage/file-io.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/storage/file-io.js')>();
  const fdatasync = (fd: number): Promise<void> => {
    if (!gate.holding) return real.fdatasync(fd);
    return new Promise<void>((resolve, reject) => {
      gate.held.push({
        complete: () => real.fdatasync(fd).then(resolve, reject),
        fail: reject,
      });
    });
  };
  return { ...real, fdatasync };
});

const opened: PartitionLog[] = [];

function openLog(dir: string): PartitionLog {
  const log = PartitionLog.open({ dir, segmentBytes: 1 << 20, rollMs: 1e12, flushPolicy: 'always', flushIntervalMs: 1000, log: captureLog().log, time: new ManualTime() });
  opened.push(log);
  return log;
}

const baseOffsets = (log: PartitionLog): bigint[] => [...log.batches()].map((b) => readBatchHeader(b).baseOffset);

/** Waits (turn by turn, no timer) until `n` of the log's fdatasyncs wait at the gate. */
async function held(n: number): Promise<void> {
  while (gate.held.length < n) await nextTurn();
}

/** An EIO as fs reports it. */
function eio(): Error {
  return Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO', errno: -5, syscall: 'fdatasync' });
}

afterEach(async () => {
  gate.holding = false;
  for (const h of gate.held.splice(0)) void h.complete().catch(() => {});
  for (const log of opened.splice(0)) await log.close();
  removeTempDirs();
});

describe("PartitionLog 'always': pipelined syncs", () => {
  it('starts the next step’s write and sync while the first sync runs, and acknowledges both in order when the later sync completes first', async () => {
    const log = openLog(tempDir());
    gate.holding = true;
    const settled: string[] = [];
    const a = log.append([batchOf(1)]);
    void a.durable.then(() => settled.push(`a@${log.recoveryPoint}`));
    await held(1);
    const b = log.append([batchOf(1)]);
    void b.durable.then(() => settled.push(`b@${log.recoveryPoint}`));
    await held(2);
    // Both written, both syncs in flight, nothing acknowledged.
    expect([log.stats, log.recoveryPoint, settled]).toEqual([{ writes: 2, syncs: 0 }, 0n, []]);

    // The second sync started after both writes: it covers both, and `a` is answered before `b`.
    await gate.held[1]!.complete();
    await b.durable;
    expect([settled, log.recoveryPoint, log.stats.syncs]).toEqual([['a@2', 'b@2'], 2n, 1]);

    // The first sync's completion changes nothing more.
    await gate.held[0]!.complete();
    await log.whenIdle();
    expect([settled, log.recoveryPoint, log.stats]).toEqual([['a@2', 'b@2'], 2n, { writes: 2, syncs: 2 }]);
  });

  it(`holds at most ${MAX_SYNCS_IN_FLIGHT} syncs in flight: appends made meanwhile share the next step`, async () => {
    const log = openLog(tempDir());
    gate.holding = true;
    const results = [];
    for (let i = 0; i < MAX_SYNCS_IN_FLIGHT; i++) {
      results.push(log.append([batchOf(1)]));
      await held(i + 1);
    }
    for (let i = 0; i < 5; i++) {
      results.push(log.append([batchOf(1)]));
      await nextTurn();
    }
    // The limit reached: the 5 later appends wait, unwritten, for a free slot.
    expect([log.stats, gate.held.length, log.logEndOffset]).toEqual([{ writes: MAX_SYNCS_IN_FLIGHT, syncs: 0 }, MAX_SYNCS_IN_FLIGHT, BigInt(MAX_SYNCS_IN_FLIGHT + 5)]);
    await gate.held[0]!.complete();
    await held(MAX_SYNCS_IN_FLIGHT + 1);
    expect(log.stats).toEqual({ writes: MAX_SYNCS_IN_FLIGHT + 1, syncs: 1 });
    gate.holding = false;
    for (const h of gate.held.slice(1)) await h.complete();
    await Promise.all(results.map((r) => r.durable));
    expect([log.stats, log.recoveryPoint]).toEqual([{ writes: MAX_SYNCS_IN_FLIGHT + 1, syncs: MAX_SYNCS_IN_FLIGHT + 1 }, BigInt(MAX_SYNCS_IN_FLIGHT + 5)]);
  });

  it('while a sync runs, appends arriving turn after turn share one step: it writes and starts its sync at the first turn without a new append', async () => {
    const log = openLog(tempDir());
    gate.holding = true;
    const first = log.append([batchOf(1)]);
    await held(1);
    const later = [];
    for (let i = 0; i < 5; i++) {
      later.push(log.append([batchOf(1)])); // one connection's commit per turn, the loop never idle
      await nextTurn();
    }
    // Still gathering: nothing more written, no second sync.
    expect([log.stats, gate.held.length, log.logEndOffset]).toEqual([{ writes: 1, syncs: 0 }, 1, 6n]);
    await held(2); // turns without an append: the step writes all five at once and starts its sync
    expect([log.stats.writes, log.logEndOffset]).toEqual([2, 6n]);
    gate.holding = false;
    await gate.held[1]!.complete();
    await Promise.all(later.map((r) => r.durable));
    expect([log.recoveryPoint, log.stats.syncs]).toEqual([6n, 1]);
    await gate.held[0]!.complete();
    await first.durable;
    await log.whenIdle();
    expect(log.stats).toEqual({ writes: 2, syncs: 2 });
  });

  it(`gathers at most ${MAX_GATHER_TURNS} turns, and no longer once no sync runs`, async () => {
    const log = openLog(tempDir());
    gate.holding = true;
    log.append([batchOf(1)]);
    await held(1);
    // An append in every turn: the step still starts after MAX_GATHER_TURNS turns.
    let turns = 0;
    while (gate.held.length < 2) {
      log.append([batchOf(1)]);
      await nextTurn();
      turns++;
    }
    expect(turns).toBeGreaterThanOrEqual(MAX_GATHER_TURNS);
    expect(turns).toBeLessThanOrEqual(MAX_GATHER_TURNS + 2);
    expect(log.stats.writes).toBe(2);

    // Both held syncs complete while appends still arrive every turn: the gathering step has no
    // sync to wait for and starts its own within a turn or two, not after MAX_GATHER_TURNS.
    log.append([batchOf(1)]);
    await nextTurn();
    await gate.held[0]!.complete();
    await gate.held[1]!.complete();
    turns = 0;
    while (gate.held.length < 3) {
      log.append([batchOf(1)]);
      await nextTurn();
      turns++;
    }
    expect(turns).toBeLessThan(MAX_GATHER_TURNS);
    expect(log.stats.writes).toBe(3);
  });

  it('a failed sync of step N fails N and N+1 (in order), rolls the log back to its recovery point and cuts both off the file', async () => {
    const dir = tempDir();
    const log = openLog(dir);
    const acked = log.append([batchOf(2)]);
    await acked.durable; // offsets 0-1, synced
    const ackedBytes = fs.statSync(path.join(dir, '00000000000000000000.log')).size;

    gate.holding = true;
    const outcomes: string[] = [];
    const n = log.append([batchOf(3)]);
    void n.durable.catch((err: Error) => outcomes.push(`n:${(err as NodeJS.ErrnoException).code}`));
    await held(1);
    const next = log.append([batchOf(4)]);
    void next.durable.catch((err: Error) => outcomes.push(`n+1:${(err as NodeJS.ErrnoException).code}`));
    await held(2);
    expect([n.baseOffset, next.baseOffset, log.logEndOffset, log.stats.writes]).toEqual([2n, 5n, 9n, 3]);
    expect(fs.statSync(path.join(dir, '00000000000000000000.log')).size).toBeGreaterThan(ackedBytes);

    gate.holding = false;
    gate.held[0]!.fail(eio());
    await expect(next.durable).rejects.toMatchObject({ code: 'EIO' });
    expect(outcomes).toEqual(['n:EIO', 'n+1:EIO']);
    // Both gone from memory at once: the log ends at its recovery point.
    expect([log.logEndOffset, log.recoveryPoint, baseOffsets(log)]).toEqual([2n, 2n, [0n]]);
    // Step N+1's sync, started before the failure, then succeeds: it acknowledges nothing.
    await gate.held[1]!.complete();
    await log.whenIdle();
    expect([log.logEndOffset, log.recoveryPoint]).toEqual([2n, 2n]);
    expect(fs.statSync(path.join(dir, '00000000000000000000.log')).size).toBe(ackedBytes);

    // Appends go on at the offset after the acknowledged ones; a restart finds exactly those.
    const after = log.append([batchOf(1)]);
    expect(after.baseOffset).toBe(2n);
    await after.durable;
    await log.close();
    expect(baseOffsets(openLog(dir))).toEqual([0n, 2n]);
  });

  it('a crash after step N+1 was written but before its sync keeps every acknowledged append (recovery at the next open)', async () => {
    const dir = tempDir();
    const log = openLog(dir);
    const first = log.append([batchOf(2)]);
    await first.durable;
    gate.holding = true;
    const n = log.append([batchOf(3)]);
    await held(1);
    await gate.held[0]!.complete();
    await n.durable; // step N acknowledged
    const next = log.append([batchOf(4)]);
    await held(2); // step N+1 written, its sync held: the process dies here
    expect([log.recoveryPoint, log.logEndOffset]).toEqual([5n, 9n]);

    // The restart: the log is opened again from the files, the old one never closed. A process
    // crash keeps what was written (the page cache): N+1 may be there too, unacknowledged, as in Kafka.
    const reopened = openLog(dir);
    expect(baseOffsets(reopened).slice(0, 2)).toEqual([0n, 2n]);
    expect(reopened.recoveryPoint).toBe(reopened.logEndOffset);
    expect(reopened.logEndOffset).toBeGreaterThanOrEqual(5n);
    gate.holding = false;
    await gate.held[1]!.complete();
    await next.durable;
  });
});
