/**
 * src/topics/append-window.ts: a request's appends waiting for their write at once are bounded;
 * past the bound the request waits for one of them, whichever settles first, failed or not.
 */
import { describe, expect, it } from 'vitest';
import { AppendWindow } from '../../src/topics/append-window.js';

const deferred = () => {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => {});
  return { promise, resolve, reject };
};

describe('AppendWindow', () => {
  it('has room below its bound, and at it waits until one append settles (fulfilled or rejected)', async () => {
    const window = new AppendWindow(2);
    const [a, b, c] = [deferred(), deferred(), deferred()];
    window.track(a.promise);
    expect(window.room()).toBeNull();
    window.track(b.promise);
    const full = window.room();
    expect(full).not.toBeNull();
    let roomAgain = false;
    void full!.then(() => (roomAgain = true));
    await Promise.resolve();
    expect(roomAgain).toBe(false);
    b.reject(new Error('write failed'));
    await full;
    expect(roomAgain).toBe(true);
    expect(window.room()).toBeNull();
    window.track(c.promise);
    const fullAgain = window.room();
    a.resolve();
    await fullAgain;
    expect(window.room()).toBeNull();
  });
});
