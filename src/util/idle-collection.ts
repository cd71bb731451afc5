/**
 * Gives the memory of a burst back once the burst is over. V8 collects garbage when JavaScript
 * allocates: a server gone idle after a burst allocates nothing, so the buffers of large requests
 * answered or dropped with their connections (100 MiB each at most: `socket.request.max.bytes`),
 * and the state of thousands of closed connections, would stay in the process's RSS until the next
 * burst. Once `RELEASED_BYTES_FOR_COLLECTION` bytes are let go, one full collection runs
 * `COLLECTION_DELAY_MS` later (however much more is let go meanwhile), so a steady load pays nothing
 * and a big release pays one collection (tens of ms for the heap of a busy server).
 *
 * Only a process that owns itself turns it on (the command line, hence `npm start` and the image);
 * a server started in another program's process (`startServer`) leaves that program's collector
 * alone. `gc` is V8's, exposed at run time as jest's leak detector does (`--expose-gc` set from
 * inside, then read from a new context), or `globalThis.gc` when the process was started with it.
 */
import * as vm from 'node:vm';
import { lazyModule } from './lazy-module.js';

/** Node's v8 module, loaded at the first collection (lazy-module.ts): most processes never run one. */
const nodeV8 = lazyModule<typeof import('node:v8')>('node:v8', 'collections after big releases');

/** Bytes let go (estimated) that make a collection worth it: a few requests of the largest sizes, or about a thousand closed connections. */
export const RELEASED_BYTES_FOR_COLLECTION = 64 * 1024 * 1024;
/** Bytes a closed connection is counted for: its socket's read buffer and its objects (an estimate: ~64 KiB read chunks). */
export const CLOSED_CONNECTION_BYTES = 64 * 1024;
/** Wait (ms) after the threshold is crossed, so that the rest of the burst is let go first. */
export const COLLECTION_DELAY_MS = 1000;

let enabled = false;
/** V8's gc, got at the first collection (a new context costs memory an idle server need not hold). */
let collect: (() => void) | null = null;
let released = 0;
let timer: NodeJS.Timeout | null = null;

/** Turns collections after big releases on for this process (idempotent). */
export function enableIdleCollection(): void {
  enabled = true;
}

/** Tells that about `bytes` of memory were let go (a large request answered, a connection closed). Does nothing unless enabled. */
export function noteReleased(bytes: number): void {
  if (!enabled) return;
  released += bytes;
  if (released < RELEASED_BYTES_FOR_COLLECTION || timer !== null) return;
  timer = setTimeout(runCollection, COLLECTION_DELAY_MS);
  timer.unref();
}

/** Collections run so far (for tests). */
export let collections = 0;

function runCollection(): void {
  timer = null;
  released = 0;
  collections++;
  collect ??= gcFunction();
  collect();
}

function gcFunction(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  nodeV8().setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}
