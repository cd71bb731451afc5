/**
 * OffsetStore's two views: reads see an offset only once its write is durable; later writes see
 * writes in flight; a failed write reaches neither, however writes interleave.
 */
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { CoordinatorRuntime } from '../../../src/coordinator/runtime.js';
import type { CoordinatorRecord } from '../../../src/coordinator/records.js';
import { OffsetStore, type OffsetToCommit } from '../../../src/coordinator/offsets/offset-store.js';
import { deferred, type Deferred } from '../../../src/storage/deferred.js';
import { FakeTime } from '../../support/fake-time.js';

/** A group log whose appends stay in flight until the test settles them, as a slow disk's would. */
class HeldGroupLog {
  readonly held: Array<{ records: readonly CoordinatorRecord[]; write: Deferred }> = [];
  append(records: readonly CoordinatorRecord[]): Promise<void> {
    const write = deferred();
    this.held.push({ records, write });
    return write.promise;
  }
  partitionFor(): number {
    return 0;
  }
}

function setup() {
  const log = new HeldGroupLog();
  const runtime = new CoordinatorRuntime(log, pino({ level: 'silent' }));
  const store = new OffsetStore({ runtime, time: new FakeTime(1_000) });
  runtime.register(store);
  const at = (offset: bigint, partition = 0): OffsetToCommit => ({ topic: 't', partition, offset, leaderEpoch: -1, metadata: '', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', expireTimestamp: -1n });
  const read = (partition = 0) => store.fetch('g', 't', partition)?.committedOffset;
  return { log, store, at, read };
}

/** Lets the store's continuations run after a write settles. */
const settled = (p: Promise<unknown>) => p.then(() => 'ok', (e: Error) => e.message);

describe('OffsetStore: committed and pending views', () => {
  it('shows a commit to reads only once durable, and to later writes at once', async () => {
    const { log, store, at, read } = setup();
    const first = store.commit('g', [at(1n)]);
    expect(read()).toBeUndefined();
    expect(store.hasOffsets('g')).toBe(true);
    expect([...store.groupIds()]).toEqual([]);
    log.held[0]!.write.resolve();
    expect(await settled(first)).toBe('ok');
    expect(read()).toBe(1n);
    expect([...store.groupIds()]).toEqual(['g']);
  });

  it('a failed write is never seen, while a write after it that succeeds is', async () => {
    const { log, store, at, read } = setup();
    const base = store.commit('g', [at(1n)]);
    log.held[0]!.write.resolve();
    await base;
    const lost = store.commit('g', [at(2n), at(7n, 1)]);
    const kept = store.commit('g', [at(3n)]);
    expect(store.offsetsOf('g').map((o) => o.offset.committedOffset)).toEqual([1n]);
    log.held[1]!.write.reject(new Error('ENOSPC'));
    expect(await settled(lost)).toBe('ENOSPC');
    // The pending view is the committed offsets plus the write still in flight: partition 1 is gone.
    expect(read()).toBe(1n);
    const tombstones = store.deleteOffsets('g', [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }]);
    expect(log.held[3]!.records.map((r) => (r.kind === 'offset-commit' ? r.partition : -1))).toEqual([0]);
    log.held[2]!.write.resolve();
    expect(await settled(kept)).toBe('ok');
    expect(read()).toBe(3n);
    expect(read(1)).toBeUndefined();
    log.held[3]!.write.reject(new Error('EIO'));
    expect(await settled(tombstones)).toBe('EIO');
    expect(read()).toBe(3n);
    expect(store.hasOffsets('g')).toBe(true);
  });

  it('a group deletion that fails leaves every offset readable and counted', async () => {
    const { log, store, at, read } = setup();
    const base = store.commit('g', [at(5n), at(6n, 1)]);
    log.held[0]!.write.resolve();
    await base;
    const deletion = store.deleteGroupOffsets('g');
    expect(store.hasOffsets('g')).toBe(false);
    expect(read()).toBe(5n);
    log.held[1]!.write.reject(new Error('EIO'));
    expect(await settled(deletion)).toBe('EIO');
    expect(store.hasOffsets('g')).toBe(true);
    expect([read(), read(1)]).toEqual([5n, 6n]);
    const again = store.deleteGroupOffsets('g');
    log.held[2]!.write.resolve();
    await again;
    expect(store.hasOffsets('g')).toBe(false);
    expect([...store.groupIds()]).toEqual([]);
  });

  it('versionOf changes with each change of the committed offsets: durable commits, COMMIT markers, deletions; not writes in flight, failed writes or aborts', async () => {
    const { log, store, at } = setup();
    const value = (offset: bigint) => ({ offset, leaderEpoch: -1, metadata: '', commitTimestamp: 1_000n, expireTimestamp: -1n, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' });
    const record = (groupId: string, partition: number, offset: bigint) => ({ kind: 'offset-commit' as const, groupId, topic: 't', partition, value: value(offset) });
    expect(store.versionOf('g')).toBe(-1);
    store.load(record('loaded', 0, 4n));
    expect(store.versionOf('loaded')).toBe(0);

    const first = store.commit('g', [at(1n)]);
    expect(store.versionOf('g')).toBe(-1);
    log.held[0]!.write.resolve();
    await first;
    const v1 = store.versionOf('g');
    expect(v1).toBeGreaterThan(0);

    const lost = store.commit('g', [at(2n)]);
    log.held[1]!.write.reject(new Error('EIO'));
    expect(await settled(lost)).toBe('EIO');
    expect(store.versionOf('g')).toBe(v1);

    store.replayTransactional(record('g', 1, 9n), 7n);
    expect(store.versionOf('g')).toBe(v1);
    store.replayEndTransaction(7n, true, () => true);
    const v2 = store.versionOf('g');
    expect(v2).toBeGreaterThan(v1);
    store.replayTransactional(record('g', 2, 9n), 8n);
    store.replayEndTransaction(8n, false, () => true);
    expect(store.versionOf('g')).toBe(v2);
    expect(store.versionOf('loaded')).toBe(0);

    const deleted = store.deleteOffsets('g', [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }]);
    log.held[2]!.write.resolve();
    await deleted;
    expect(store.versionOf('g')).toBe(-1);
    const again = store.commit('g', [at(3n)]);
    log.held[3]!.write.resolve();
    await again;
    expect(store.versionOf('g')).toBeGreaterThan(v2);
  });
});
