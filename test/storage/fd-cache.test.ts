import { mkdtempSync, readFileSync, readlinkSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CachedFile, FileHandleCache } from '../../src/storage/fd-cache.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { batchOf, captureLog, ManualTime, removeTempDirs, tempDir } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  removeTempDirs();
});

function files(n: number, cache: FileHandleCache, beforeClose?: (name: string) => void, dirty: (name: string) => boolean = () => false): CachedFile[] {
  const dir = mkdtempSync(join(tmpdir(), 'kmc-fd-'));
  dirs.push(dir);
  return Array.from({ length: n }, (_, i) => new CachedFile(cache, join(dir, `f${i}`), 'w+', { beforeClose: () => beforeClose?.(`f${i}`), hasWorkBeforeClose: () => dirty(`f${i}`) }));
}

const isOpen = (fd: number, path: string): boolean => {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`) === path;
  } catch {
    return false;
  }
};

describe('FileHandleCache', () => {
  it('keeps at most maxOpen files open, closing the least recently used (after its beforeClose), and reopens on use without truncating', () => {
    const closed: string[] = [];
    const cache = new FileHandleCache(2);
    const [a, b, c] = files(3, cache, (name) => closed.push(name));
    writeSync(a!.fd(), 'first', 0);
    b!.fd();
    a!.fd(); // a is now the most recently used
    c!.fd();
    expect(cache.openCount).toBe(2);
    expect(closed).toEqual(['f1']);
    writeSync(b!.fd(), 'again', 0); // reopened r+ (the file it created stays)
    expect(closed).toEqual(['f1', 'f0']);
    expect(readFileSync(a!.path, 'utf8')).toBe('first');
    expect(readFileSync(b!.path, 'utf8')).toBe('again');
    c!.close();
    expect(cache.openCount).toBe(1);
    expect(() => c!.fd()).toThrow(/is closed/);
  });

  it('closes a clean file before a less recently used dirty one (whose beforeClose would fdatasync on the event loop), and a dirty one when no clean one is left', () => {
    const closed: string[] = [];
    const dirty = new Set(['f0', 'f1']);
    const cache = new FileHandleCache(3);
    const [a, b, c, d, e] = files(5, cache, (name) => closed.push(name), (name) => dirty.has(name));
    for (const f of [a, b, c]) f!.fd();
    d!.fd(); // f0 and f1 are older, but dirty: f2 goes
    expect(closed).toEqual(['f2']);
    dirty.delete('f1');
    e!.fd(); // f1 is clean now: it goes before the older f0
    expect(closed).toEqual(['f2', 'f1']);
    c!.fd(); // f0 is dirty: the least recently used clean one, f3, goes
    expect(closed).toEqual(['f2', 'f1', 'f3']);
    dirty.add('f4');
    dirty.add('f2');
    b!.fd(); // f0, f4 and f2 all dirty: the least recently used goes, after its beforeClose
    expect(closed).toEqual(['f2', 'f1', 'f3', 'f0']);
    expect(cache.openCount).toBe(3);
  });

  it('never closes a file pinned by a running operation, nor one whose beforeClose throws', async () => {
    const cache = new FileHandleCache(1);
    let failing = true;
    const [a, b, c] = files(3, cache, (name) => {
      if (name === 'f2' && failing) throw new Error('EIO');
    });
    let release!: () => void;
    let pinnedFd = -1;
    const running = a!.use(async (fd) => {
      pinnedFd = fd;
      await new Promise<void>((resolve) => (release = resolve));
    });
    await new Promise((resolve) => setImmediate(resolve));
    b!.fd(); // a is pinned: both stay open, over the cap
    expect(cache.openCount).toBe(2);
    expect(isOpen(pinnedFd, a!.path)).toBe(true);
    release();
    await running;
    const cFd = c!.fd(); // a and b go
    expect(cache.openCount).toBe(1);
    a!.fd(); // c's beforeClose fails: c stays open
    expect(cache.openCount).toBe(2);
    expect(isOpen(cFd, c!.path)).toBe(true);
    failing = false;
    b!.fd();
    expect(cache.openCount).toBe(1);
  });

  it.each(['interval', 'never'] as const)(
    'under flush %s a log segment the cache closes is not synced first (no sync was due); the next sync reopens it, and its log reads and appends after',
    async (flushPolicy) => {
      const cache = new FileHandleCache(1);
      const time = new ManualTime();
      const open = () =>
        PartitionLog.open({ dir: tempDir(), segmentBytes: 1 << 20, rollMs: 1e9, flushPolicy, flushIntervalMs: 3_600_000, log: captureLog().log, time, files: cache });
      const a = open();
      const b = open();
      await a.append([batchOf(3)]).durable;
      const aSegment = (a as unknown as { segments: Array<{ dirty: boolean }> }).segments[0]!;
      expect([a.stats.syncs, aSegment.dirty]).toEqual([0, true]);
      await b.append([batchOf(2)]).durable; // b's file takes the one slot: a's is closed as it is
      expect([aSegment.dirty, cache.openCount, a.recoveryPoint]).toEqual([true, 1, 0n]);
      expect(a.read(0n, 1 << 20).length).toBe(1);
      await a.append([batchOf(1)]).durable;
      expect([a.logEndOffset, b.logEndOffset, a.read(0n, 1 << 20).length]).toEqual([4n, 2n, 2]);
      // The interval's timer sync (or, under 'never', the one at close) reaches a's bytes on a reopened descriptor.
      if (flushPolicy === 'interval') {
        time.advance(3_600_000);
        await a.whenIdle();
      } else {
        await a.close();
      }
      expect([a.stats.syncs, aSegment.dirty, a.recoveryPoint]).toEqual([1, false, 4n]);
      await a.close();
      await b.close();
      expect(cache.openCount).toBe(0);
    },
  );
});
