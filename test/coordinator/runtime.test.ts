/**
 * The coordinator runtime on its own: a shard that records what the runtime tells it, over a log
 * whose appends the test settles one by one (as a slow disk would), so every interleaving of
 * durable and failed writes is driven by hand.
 */
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { CoordinatorRuntime, CoordinatorWriteError, toCoordinatorWriteError, type CoordinatorShard } from '../../src/coordinator/runtime.js';
import type { CoordinatorRecord, OffsetCommitRecord } from '../../src/coordinator/records.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { deferred, type Deferred } from '../../src/storage/deferred.js';

/** A log whose appends stay in flight until settled; group "p<N>-..." lives on partition N. */
class HeldLog {
  readonly held: Array<{ records: readonly CoordinatorRecord[]; write: Deferred }> = [];
  throwNext: Error | null = null;
  partitionFor(groupId: string): number {
    return Number(/^p(\d+)/.exec(groupId)?.[1] ?? 0);
  }
  append(records: readonly CoordinatorRecord[]): Promise<void> {
    if (this.throwNext) {
      const err = this.throwNext;
      this.throwNext = null;
      throw err;
    }
    const write = deferred();
    this.held.push({ records, write });
    return write.promise;
  }
}

/** A log that answers every append of one turn with one promise, as PartitionLog's group commit does. */
class TurnLog extends HeldLog {
  private turn: Deferred | null = null;
  override append(records: readonly CoordinatorRecord[]): Promise<void> {
    this.turn ??= deferred();
    this.held.push({ records, write: this.turn });
    return this.turn.promise;
  }
  /** Ends the turn: later appends get a new promise; returns this turn's. */
  endTurn(): Deferred {
    const turn = this.turn!;
    this.turn = null;
    return turn;
  }
}

/** A shard that notes the runtime's calls, by the offsets the records carry. */
class NotingShard implements CoordinatorShard<'offset-commit'> {
  readonly kinds = ['offset-commit'] as const;
  readonly calls: string[] = [];
  load(r: OffsetCommitRecord): void {
    this.calls.push(`load ${label(r)}`);
  }
  onDurable(records: readonly OffsetCommitRecord[]): void {
    this.calls.push(`durable ${records.map(label).join(',')}`);
  }
  revert(failed: readonly OffsetCommitRecord[], pending: readonly OffsetCommitRecord[]): void {
    this.calls.push(`revert ${failed.map(label).join(',')} pending ${pending.map(label).join(',') || '-'}`);
  }
}

const record = (groupId: string, offset: number): OffsetCommitRecord => ({
  kind: 'offset-commit',
  groupId,
  topic: 't',
  partition: 0,
  value: { offset: BigInt(offset), leaderEpoch: -1, metadata: '', commitTimestamp: 0n, expireTimestamp: -1n, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' },
});
const label = (r: OffsetCommitRecord): string => `${r.groupId}:${r.value?.offset ?? 'null'}`;
const outcome = (p: Promise<unknown>): Promise<string> => p.then(() => 'ok', (e: CoordinatorWriteError) => `error ${e.errorCode}`);
const enospc = (): Error => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });

function setup<L extends HeldLog = HeldLog>(log: L = new HeldLog() as L) {
  const runtime = new CoordinatorRuntime(log, pino({ level: 'silent' }));
  const shard = new NotingShard();
  runtime.register(shard);
  return { log, runtime, shard };
}

describe('CoordinatorRuntime', () => {
  it('commits each write to its shard once durable, in the order writes become durable', async () => {
    const { log, runtime, shard } = setup();
    const a = outcome(runtime.append([record('p0-g', 1)]));
    const b = outcome(runtime.append([record('p0-g', 2), record('p0-g', 3)]));
    expect(shard.calls).toEqual([]);
    log.held[0]!.write.resolve();
    expect(await a).toBe('ok');
    expect(shard.calls).toEqual(['durable p0-g:1']);
    log.held[1]!.write.resolve();
    expect(await b).toBe('ok');
    expect(shard.calls).toEqual(['durable p0-g:1', 'durable p0-g:2,p0-g:3']);
  });

  it("settles the writes of one turn (the log's one promise) together, each committed or reverted in append order", async () => {
    const { log, runtime, shard } = setup(new TurnLog());
    const a = runtime.append([record('p0-g', 1)]);
    const b = runtime.append([record('p0-h', 2)]);
    log.endTurn().resolve();
    expect(await Promise.all([outcome(a), outcome(b)])).toEqual(['ok', 'ok']);
    expect(shard.calls).toEqual(['durable p0-g:1', 'durable p0-h:2']);
    const c = runtime.append([record('p0-g', 3)]);
    const d = runtime.append([record('p0-h', 4)]);
    const failed = log.endTurn();
    const e = runtime.append([record('p0-g', 5)]);
    failed.reject(enospc());
    expect(await Promise.all([outcome(c), outcome(d)])).toEqual([`error ${ErrorCode.NOT_COORDINATOR}`, `error ${ErrorCode.NOT_COORDINATOR}`]);
    // Each write is reverted over the writes still in flight after it (the next turn's too).
    expect(shard.calls.slice(2)).toEqual(['revert p0-g:3 pending p0-h:4,p0-g:5', 'revert p0-h:4 pending p0-g:5']);
    log.endTurn().resolve();
    expect(await outcome(e)).toBe('ok');
    expect(shard.calls.at(-1)).toBe('durable p0-g:5');
    await runtime.flush();
  });

  it('reverts a failed write with the writes still in flight as pending, and answers NOT_COORDINATOR for a storage error', async () => {
    const { log, runtime, shard } = setup();
    const a = outcome(runtime.append([record('p0-g', 1)]));
    const b = outcome(runtime.append([record('p0-g', 2)]));
    log.held[0]!.write.reject(enospc());
    expect(await a).toBe(`error ${ErrorCode.NOT_COORDINATOR}`);
    expect(shard.calls).toEqual(['revert p0-g:1 pending p0-g:2']);
    log.held[1]!.write.resolve();
    expect(await b).toBe('ok');
    expect(shard.calls.at(-1)).toBe('durable p0-g:2');
  });

  it('splits a write by __consumer_offsets partition: each part commits or reverts on its own, the caller sees the failure', async () => {
    const { log, runtime, shard } = setup();
    const both = outcome(runtime.append([record('p0-a', 1), record('p1-b', 2)]));
    expect(log.held.map((h) => h.records.map((r) => r.groupId))).toEqual([['p0-a'], ['p1-b']]);
    log.held[1]!.write.reject(enospc());
    log.held[0]!.write.resolve();
    expect(await both).toBe(`error ${ErrorCode.NOT_COORDINATOR}`);
    // The part of p0 was still in flight when p1's failed: it is pending for the shard (which replays only the groups reverted).
    expect(shard.calls).toEqual(['revert p1-b:2 pending p0-a:1', 'durable p0-a:1']);
  });

  it('treats a write that cannot be encoded as failed: reverted, UNKNOWN_SERVER_ERROR', async () => {
    const { log, runtime, shard } = setup();
    log.throwNext = new RangeError('string longer than 32767 bytes');
    expect(await outcome(runtime.append([record('p0-g', 1)]))).toBe(`error ${ErrorCode.UNKNOWN_SERVER_ERROR}`);
    expect(shard.calls).toEqual(['revert p0-g:1 pending -']);
  });

  it('abandon reverts records an operation built but will not write; capture collects the writes made inside it', async () => {
    const { log, runtime, shard } = setup();
    runtime.abandon([record('p0-g', 7)]);
    expect(shard.calls).toEqual(['revert p0-g:7 pending -']);
    const { result, writes } = runtime.capture(() => {
      void runtime.append([record('p0-g', 8)]).catch(() => undefined);
      return 'done';
    });
    expect(result).toBe('done');
    expect(writes).toHaveLength(1);
    log.held[0]!.write.reject(enospc());
    expect(await CoordinatorRuntime.firstFailure(writes)).toMatchObject({ errorCode: ErrorCode.NOT_COORDINATOR });
  });

  it('flush waits until every write appended so far has been committed or reverted', async () => {
    const { log, runtime } = setup();
    void runtime.append([record('p0-g', 1)]).catch(() => undefined);
    let flushed = false;
    const flush = runtime.flush().then(() => (flushed = true));
    await Promise.resolve();
    expect(flushed).toBe(false);
    log.held[0]!.write.reject(enospc());
    await flush;
    expect(flushed).toBe(true);
  });

  it("maps append errors as Kafka's CoordinatorOperationExceptionHelper does", () => {
    const code = (err: unknown): number => toCoordinatorWriteError(err).errorCode;
    expect(code(enospc())).toBe(ErrorCode.NOT_COORDINATOR);
    expect(code({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR })).toBe(ErrorCode.NOT_COORDINATOR);
    expect(code({ errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER })).toBe(ErrorCode.NOT_COORDINATOR);
    expect(code({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION })).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(code({ errorCode: ErrorCode.NOT_ENOUGH_REPLICAS })).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(code({ errorCode: ErrorCode.REQUEST_TIMED_OUT })).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(code({ errorCode: ErrorCode.NETWORK_EXCEPTION })).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    expect(code({ errorCode: ErrorCode.MESSAGE_TOO_LARGE })).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect(code({ errorCode: ErrorCode.RECORD_LIST_TOO_LARGE })).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect(code({ errorCode: ErrorCode.INVALID_FETCH_SIZE })).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect(code({ errorCode: ErrorCode.INVALID_GROUP_ID })).toBe(ErrorCode.INVALID_GROUP_ID);
  });

  it('refuses a record kind claimed by two shards, and a record no shard replays', () => {
    const { runtime } = setup();
    expect(() => runtime.register(new NotingShard())).toThrow('record kind offset-commit has two shards');
    expect(() => runtime.load({ kind: 'group-metadata', groupId: 'g', value: null })).toThrow('no coordinator shard replays group-metadata records');
  });
});
