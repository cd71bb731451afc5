import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pino, { type Logger } from 'pino';
import type { Time, Timer } from '../../src/util/time.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';

const created: string[] = [];

/** A fresh directory under the OS temp dir (removed by removeTempDirs). */
export function tempDir(prefix = 'kmc-log-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Removes every directory made by tempDir so far. */
export function removeTempDirs(): void {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

export interface CapturedLog {
  log: Logger;
  lines: Array<Record<string, unknown>>;
  warnings(): Array<Record<string, unknown>>;
}

/** A pino logger whose JSON lines are kept in memory. */
export function captureLog(): CapturedLog {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines, warnings: () => lines.filter((l) => l.level === 40) };
}

/** A clock the test moves by hand; timers fire when `advance` passes them. */
export class ManualTime implements Time {
  private timers: Array<{ at: number; fn: () => void; cancelled: boolean }> = [];
  constructor(public ms = 1_700_000_000_000) {}
  now(): number {
    return this.ms;
  }
  schedule(delayMs: number, fn: () => void): Timer {
    const t = { at: this.ms + delayMs, fn, cancelled: false };
    this.timers.push(t);
    return { cancel: () => void (t.cancelled = true) };
  }
  advance(ms: number): void {
    this.ms += ms;
    const due = this.timers.filter((t) => !t.cancelled && t.at <= this.ms);
    this.timers = this.timers.filter((t) => !due.includes(t));
    for (const t of due) t.fn();
  }
}

/** A batch of `count` records with values `v0..`, all at `timestamp`. */
export function batchOf(count: number, timestamp = 1000n, valueBytes = 10): Buffer {
  const records = Array.from({ length: count }, (_, i) => ({ key: null, value: Buffer.alloc(valueBytes, 97 + (i % 26)) }));
  return encodeRecordBatch({ baseOffset: 0n, timestamp, records });
}
