/**
 * A bounded cache of open file descriptors (issue #16): log segment files are opened on first use
 * and the least recently used ones are closed once more than `maxOpen` are open, so a server
 * holding 100,000 partitions does not run out of descriptors (EMFILE). Kafka keeps every segment
 * open (mmap'ed indexes, a FileChannel per segment); this cache is ours (`mock.max.open.files`).
 *
 * A descriptor in use by an asynchronous call (a write on the thread pool, an fdatasync) is pinned
 * and never closed under it; the cache may then hold more than `maxOpen` for a while. Before a
 * file is closed its owner's `beforeClose` runs (a segment fdatasyncs bytes written since its last
 * sync there, so a write error is reported on the descriptor that wrote, not lost with it).
 */
import * as fs from 'node:fs';
import { IoSlots } from './io-slots.js';

/** Asynchronous operations on a cache's descriptors running at once: what can be pinned beyond the cap. */
const BUSY_LIMIT = 16;

/**
 * Least recently used files looked at for a clean one to close before a dirty one is synced and
 * closed (a bound, so that a cache full of dirty files costs each open no more than this).
 */
const CLEAN_FIRST_SCAN = 64;

export class FileHandleCache {
  /** Open files, least recently used first (a Map keeps insertion order; a use re-inserts). */
  private readonly open = new Map<CachedFile, number>();
  /** Bounds the pinned descriptors (libuv runs four file operations at a time anyway). */
  readonly busy = new IoSlots(BUSY_LIMIT);

  /** `maxOpen`: descriptors kept open at most (pinned ones aside), at least 1. */
  constructor(readonly maxOpen: number) {
    if (!(maxOpen >= 1)) throw new RangeError(`maxOpen must be at least 1, got ${maxOpen}`);
  }

  /** Descriptors open now. */
  get openCount(): number {
    return this.open.size;
  }

  /** The descriptor of `file`, opening it (and closing the least recently used others) if needed. */
  acquire(file: CachedFile): number {
    const fd = this.open.get(file);
    if (fd !== undefined) {
      this.open.delete(file);
      this.open.set(file, fd);
      return fd;
    }
    this.evict(this.maxOpen - 1);
    const opened = fs.openSync(file.path, file.flags);
    this.open.set(file, opened);
    return opened;
  }

  /** Closes `file`'s descriptor if open (no `beforeClose`: the owner closes on purpose). */
  release(file: CachedFile): void {
    const fd = this.open.get(file);
    if (fd === undefined) return;
    this.open.delete(file);
    fs.closeSync(fd);
  }

  /**
   * Closes least recently used unpinned files until at most `keep` are open (or only pinned ones, or
   * ones whose `beforeClose` failed, remain): clean ones first among the CLEAN_FIRST_SCAN least
   * recently used, as a dirty one's `beforeClose` (a segment's fdatasync) runs on the event loop.
   */
  private evict(keep: number): void {
    if (this.open.size <= keep) return;
    let scanned = 0;
    for (const [file, fd] of this.open) {
      if (this.open.size <= keep || scanned++ >= CLEAN_FIRST_SCAN) break;
      if (file.pins === 0 && !file.isDirty()) this.close(file, fd);
    }
    for (const [file, fd] of this.open) {
      if (this.open.size <= keep) return;
      if (file.pins === 0) this.close(file, fd);
    }
  }

  /** Closes `file` after its `beforeClose`, unless that throws (kept open: the owner's next sync on this descriptor reports the error). */
  private close(file: CachedFile, fd: number): void {
    try {
      file.beforeClose(fd);
    } catch {
      return;
    }
    this.open.delete(file);
    fs.closeSync(fd);
  }
}

/**
 * What a cached file's owner does before the cache closes its descriptor to make room (a segment:
 * fdatasync the bytes written since its last sync). Methods, not closures: a partition's segment
 * is one of hundreds of thousands.
 */
export interface FileOwner {
  beforeClose(fd: number): void;
  hasWorkBeforeClose(): boolean;
}

const NO_OWNER: FileOwner = { beforeClose: () => {}, hasWorkBeforeClose: () => false };

/** One file opened through a FileHandleCache. */
export class CachedFile {
  /** Asynchronous calls in flight on the descriptor: while above 0 the cache does not close it. */
  pins = 0;
  private closed = false;

  /**
   * `flags`: those of the first open (`w+` creates or truncates); later opens use `r+`.
   * `owner`: told before the cache closes the descriptor to make room (see `FileOwner`).
   */
  constructor(
    readonly cache: FileHandleCache,
    readonly path: string,
    public flags: string,
    private readonly owner: FileOwner = NO_OWNER,
  ) {}

  /** Runs before the cache closes the descriptor to make room; throwing keeps it open. */
  beforeClose(fd: number): void {
    this.owner.beforeClose(fd);
  }

  /** Whether `beforeClose` has work to do now (the cache closes clean files first). */
  isDirty(): boolean {
    return this.owner.hasWorkBeforeClose();
  }

  /** The descriptor, for synchronous use only (the cache may close it once the caller yields). */
  fd(): number {
    if (this.closed) throw new Error(`file ${this.path} is closed`);
    const fd = this.cache.acquire(this);
    this.flags = 'r+';
    return fd;
  }

  /** Runs `op` with the descriptor pinned open until it settles. */
  use<T>(op: (fd: number) => Promise<T>): Promise<T> {
    return this.cache.busy.run(async () => {
      const fd = this.fd();
      this.pins++;
      try {
        return await op(fd);
      } finally {
        this.pins--;
      }
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Closes the file for good. */
  close(): void {
    this.closed = true;
    this.cache.release(this);
  }
}

/**
 * The cap `mock.max.open.files=0` stands for: half the process's soft limit on open files (the
 * other half left to connections and everything else), read from /proc/self/limits; 4096 where
 * that cannot be read. Node has no getrlimit.
 */
export function defaultMaxOpenFiles(): number {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    if (m && m[1] !== 'unlimited') return Math.max(16, Math.floor(Number(m[1]) / 2));
  } catch {
    // not Linux: the fallback below
  }
  return 4096;
}

/** The cache of logs opened without one (tools, tests). */
export const DEFAULT_FILE_CACHE = new FileHandleCache(defaultMaxOpenFiles());

const perServer = new WeakMap<object, FileHandleCache>();

/**
 * The one cache of a server's logs, keyed by its configuration object, capped by
 * `mock.max.open.files` (0: `defaultMaxOpenFiles()`).
 */
export function fileCacheFor(config: { int(key: 'mock.max.open.files'): number }): FileHandleCache {
  let cache = perServer.get(config);
  if (cache === undefined) {
    const max = config.int('mock.max.open.files');
    perServer.set(config, (cache = new FileHandleCache(max > 0 ? max : defaultMaxOpenFiles())));
  }
  return cache;
}
