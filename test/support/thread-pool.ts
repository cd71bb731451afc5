import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Occupies every thread of libuv's pool (UV_THREADPOOL_SIZE, default 4) with an open(2) of a FIFO
 * that blocks until its writer appears, so asynchronous file operations submitted afterwards (a
 * log's fdatasync) wait in the pool's queue until the returned `release` runs: a test can hold a
 * sync "in flight" for as long as it needs, whatever the speed of the disk. Synchronous file calls
 * and sockets do not use the pool and go on.
 */
export function blockThreadPool(): () => void {
  const threads = Number(process.env['UV_THREADPOOL_SIZE']) || 4;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kmc-pool-'));
  const fifos = Array.from({ length: threads }, (_, i) => path.join(dir, `fifo-${i}`));
  for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
  const readers = fifos.map((fifo) => fs.promises.open(fifo, 'r'));
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // Each writer's open meets its blocked reader (at once, or as soon as a pool thread takes it).
    for (const fifo of fifos) fs.closeSync(fs.openSync(fifo, 'w'));
    void Promise.all(readers.map((reader) => reader.then((handle) => handle.close()))).finally(() => fs.rmSync(dir, { recursive: true, force: true }));
  };
}

/** Resolves in the event loop's next check phase: after every `setImmediate` queued before this call. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
