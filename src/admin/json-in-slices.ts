/**
 * An admin answer's JSON written a slice a turn of the event loop (issue #16: no request keeps the
 * others waiting). `JSON.stringify` of 100,000 groups' summaries (12.7 MB) held the Kafka port
 * ~80 ms in one turn; here the text is made in pieces (a long array's element each), up to 10,000
 * pieces or 64 Ki characters a turn, or until the turn's sliced-work budget is spent
 * (`sliceBudgetSpent`, shared with every other sliced loop), as the client reads it: a client that
 * stops reading stops the making. The text is `JSON.stringify`'s, byte for byte (its rules for
 * left-out properties, `toJSON` and nulls); a `LazyArray`'s elements are made as they are written.
 */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

import { Slicer } from '../util/slices.js';

/** Arrays this long or longer are written an element at a time; shorter ones, and every other value, with one `JSON.stringify`. */
const SPLIT_LENGTH = 64;

/** Pieces made per turn at most (or until the turn's budget is spent), and per look at that budget (reading the clock per piece would cost more than most pieces). */
const PIECES_PER_SLICE = 10_000;
const PIECES_PER_BUDGET_LOOK = 32;
/**
 * Text made per turn at most (UTF-16 code units): what a client that stops reading leaves in the
 * server's memory besides its socket's buffer (300 such clients of a 12.7 MB answer held 0.9-2.4 GB
 * while every answer was made whole first: adversarial trial 27).
 */
const SLICE_LENGTH = 64 * 1024;

/**
 * An array whose elements are made as its JSON is written, each from one of `items` when its
 * piece comes (`element`; undefined leaves the item out): an answer about 100,000 groups holds
 * their ids, not their summaries, and making it stops when its client stops reading or goes.
 * Only `sendJsonInSlices` writes it.
 */
export class LazyArray<T> {
  constructor(
    readonly items: readonly T[],
    readonly element: (item: T) => unknown,
  ) {}
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/** Whether `JSON.stringify` leaves an object's property with this value out. */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** `JSON.stringify(value)`'s text in pieces: long arrays (and the plain objects around them) element by element. */
function* pieces(value: unknown): Generator<string> {
  if (value instanceof LazyArray) {
    yield '[';
    let first = true;
    for (const item of value.items as readonly unknown[]) {
      const element = value.element(item);
      if (element === undefined) continue;
      yield (first ? '' : ',') + JSON.stringify(element);
      first = false;
    }
    yield ']';
  } else if (Array.isArray(value) && value.length >= SPLIT_LENGTH) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      // An array's undefined, function or symbol element is written null, as JSON.stringify does.
      yield (i > 0 ? ',' : '') + (JSON.stringify(value[i]) ?? 'null');
    }
    yield ']';
  } else if (isPlainObject(value)) {
    yield '{';
    let first = true;
    for (const key of Object.keys(value)) {
      const v = value[key];
      if (omitted(v)) continue;
      yield `${first ? '' : ','}${JSON.stringify(key)}:`;
      first = false;
      yield* pieces(v);
    }
    yield '}';
  } else {
    yield JSON.stringify(value) ?? 'null';
  }
}

/** Pieces joined until `slicer` says to yield or they are `SLICE_LENGTH` long (at least one piece), and whether they were the last. */
function slice(work: Generator<string>, slicer: Slicer): { text: string; done: boolean } {
  const parts: string[] = [];
  let length = 0;
  for (;;) {
    const step = work.next();
    if (step.done) return { text: parts.join(''), done: true };
    parts.push(step.value);
    length += step.value.length;
    if (slicer.due() || length >= SLICE_LENGTH) return { text: parts.join(''), done: false };
  }
}

/**
 * Sends `value` as `application/json`, as `reply.send(value)` would: the text at once when it is
 * made within this turn's budget (most answers), else a stream that makes a slice a turn as the
 * client reads.
 */
export function sendJsonInSlices(reply: FastifyReply, value: unknown): FastifyReply {
  reply.type('application/json; charset=utf-8');
  const work = pieces(value);
  const slicer = new Slicer(PIECES_PER_SLICE, PIECES_PER_BUDGET_LOOK);
  const first = slice(work, slicer);
  if (first.done) return reply.send(first.text);
  let made: string | null = first.text;
  let done = false;
  return reply.send(
    new Readable({
      // One slice a turn of the event loop: a reader that takes everything at once (a socket whose
      // kernel buffer has room) would otherwise have every slice made in the turn it asked.
      read() {
        setImmediate(() => {
          try {
            if (made === null && !done) ({ text: made, done } = slice(work, slicer));
          } catch (err) {
            // A value JSON cannot write (a BigInt) past the first slice: the answer is cut short.
            return void this.destroy(err as Error);
          }
          const text = made;
          made = null;
          // A slice is never empty but the last, when the pieces ended with the one before.
          this.push(text === null || text === '' ? null : text);
        });
      },
    }),
  );
}
