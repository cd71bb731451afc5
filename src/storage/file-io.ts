/**
 * Small promise wrappers over node:fs calls on numeric file descriptors, used by the
 * log's write path (positional writes, so no shared file cursor is involved).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FILE_IO_SLOTS } from './io-slots.js';

/** Writes all of `buffers` at `position`, retrying short writes. */
export async function writeFully(fd: number, buffers: Buffer[], position: number): Promise<void> {
  let pending = buffers;
  let at = position;
  while (pending.length > 0) {
    const written = await new Promise<number>((resolve, reject) => {
      fs.writev(fd, pending, at, (err, n) => (err ? reject(err) : resolve(n)));
    });
    at += written;
    pending = dropBytes(pending, written);
  }
}

/**
 * `writeFully` done on the calling thread: for small writes, where a page-cache copy of a few
 * kilobytes costs less than handing the call to libuv's thread pool and waking up for its
 * completion (and the answer it unblocks leaves in the same event-loop turn).
 */
export function writeFullySync(fd: number, buffers: Buffer[], position: number): void {
  let pending = buffers;
  let at = position;
  while (pending.length > 0) {
    const written = fs.writevSync(fd, pending, at);
    at += written;
    pending = dropBytes(pending, written);
  }
}

function dropBytes(buffers: Buffer[], n: number): Buffer[] {
  let i = 0;
  while (i < buffers.length && n >= buffers[i]!.length) n -= buffers[i++]!.length;
  const rest = buffers.slice(i);
  if (n > 0 && rest.length > 0) rest[0] = rest[0]!.subarray(n);
  return rest;
}

/** fdatasync(2): the file's data (and the metadata needed to read it) reaches the disk. */
export function fdatasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}

/**
 * fdatasync(2) on the calling thread: under 'always' while the disk answers fast (inline-sync-gate.ts).
 * A function of ours, not `fs.fdatasyncSync` called directly, so a test can make it fail.
 */
export function fdatasyncSync(fd: number): void {
  fs.fdatasyncSync(fd);
}

/** ftruncate(2): cuts (or extends) the file to `bytes`. */
export function ftruncate(fd: number, bytes: number): Promise<void> {
  return new Promise((resolve, reject) => fs.ftruncate(fd, bytes, (err) => (err ? reject(err) : resolve())));
}

/** fsync of a directory, so a newly created file's name is durable (at most FILE_IO_SLOTS at once). */
export function fsyncDirectory(dir: string): Promise<void> {
  return FILE_IO_SLOTS.run(() => fsyncDirectoryNow(dir));
}

function fsyncDirectoryNow(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    fs.open(dir, 'r', (err, fd) => {
      if (err) return reject(err);
      fs.fsync(fd, (syncErr) => {
        fs.close(fd, () => (syncErr ? reject(syncErr) : resolve()));
      });
    });
  });
}

/**
 * Replaces `file` with `text` durably: a temporary file next to it is written and fdatasync'ed, then
 * renamed over `file`, then the directory is synced. A crash leaves the old or the new content.
 * At most FILE_IO_SLOTS run at once (each holds a descriptor).
 */
export async function writeFileDurably(file: string, text: string): Promise<void> {
  await FILE_IO_SLOTS.run(() => writeTemporary(file, text));
  await fs.promises.rename(`${file}.tmp`, file);
  await fsyncDirectory(path.dirname(file));
}

async function writeTemporary(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp`;
  const handle = await fs.promises.open(tmp, 'w');
  try {
    await handle.writeFile(text);
    await fdatasync(handle.fd);
  } catch (err) {
    // A write that failed (a full disk) leaves no half-written temporary file behind.
    await handle.close().catch(() => undefined);
    await fs.promises.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
  await handle.close();
}

/** `writeFileDurably`, synchronously: at start-up, and for the rare small write a request must wait for (a new producer id block, once per 1000 ids). */
export function writeFileDurablySync(file: string, text: string): void {
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeFileSync(fd, text);
    fs.fdatasyncSync(fd);
  } catch (err) {
    // As writeTemporary: no half-written temporary file left behind.
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
  fsyncDirectorySync(path.dirname(file));
}

/** fsync of a directory, synchronously (start-up and creation paths). */
export function fsyncDirectorySync(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads exactly `length` bytes at `position` into a new buffer; throws if the file is shorter. */
export function readExactlySync(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buf, done, length - done, position + done);
    if (n === 0) throw new Error(`unexpected end of file reading ${length} bytes at ${position}`);
    done += n;
  }
  return buf;
}
