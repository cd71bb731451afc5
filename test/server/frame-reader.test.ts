import { describe, it, expect } from 'vitest';
import { FILL_IN_PLACE_BYTES, FrameReader, FrameTooLargeError, MAX_HELD_CHUNKS } from '../../src/server/frame-reader.js';

const frame = (payload: number[]): Buffer => {
  const b = Buffer.alloc(4 + payload.length);
  b.writeInt32BE(payload.length, 0);
  Buffer.from(payload).copy(b, 4);
  return b;
};

describe('FrameReader', () => {
  it('splits frames that arrive in pieces and together', () => {
    const r = new FrameReader(100);
    const both = Buffer.concat([frame([1, 2, 3]), frame([4])]);
    r.push(both.subarray(0, 2));
    expect(r.next()).toBeNull();
    r.push(both.subarray(2, 8));
    expect([...r.next()!]).toEqual([1, 2, 3]);
    expect(r.next()).toBeNull();
    r.push(both.subarray(8));
    expect([...r.next()!]).toEqual([4]);
  });

  it('holdsFrame: true once a whole frame is buffered (or its size is bad), false for a part of one', () => {
    const r = new FrameReader(100);
    const both = Buffer.concat([frame([1, 2, 3]), frame([4])]);
    expect(r.holdsFrame).toBe(false);
    r.push(both.subarray(0, 2));
    expect(r.holdsFrame).toBe(false);
    r.push(both.subarray(2, 6));
    expect(r.holdsFrame).toBe(false);
    r.push(both.subarray(6, 9));
    expect(r.holdsFrame).toBe(true);
    r.next();
    expect(r.holdsFrame).toBe(false); // 1 byte of the next frame
    r.push(both.subarray(9));
    expect(r.holdsFrame).toBe(true);
    r.next();
    expect(r.holdsFrame).toBe(false);
    const bad = new FrameReader(10);
    bad.push(frame(new Array(11).fill(0)).subarray(0, 4));
    expect(bad.holdsFrame).toBe(true); // next() throws for it
  });

  it('refuses a size over the limit and a negative size', () => {
    const r = new FrameReader(10);
    r.push(frame(new Array(11).fill(0)));
    expect(() => r.next()).toThrow(FrameTooLargeError);
    const n = new FrameReader(10);
    n.push(Buffer.from([0xff, 0xff, 0xff, 0xff]));
    expect(() => n.next()).toThrow(FrameTooLargeError);
  });

  it('a frame of FILL_IN_PLACE_BYTES or more, arriving in 64 KiB pieces with the next frame behind it, is read whole into one buffer of its size', () => {
    const size = FILL_IN_PLACE_BYTES * 3 + 5;
    const big = Buffer.alloc(4 + size);
    big.writeInt32BE(size, 0);
    for (let i = 4; i < big.length; i++) big[i] = i % 251;
    const stream = Buffer.concat([frame([9]), big, frame([7, 8])]);
    const r = new FrameReader(size);
    const got: Buffer[] = [];
    // 64 KiB pieces: the big frame begins in the first, the last frame is in the last.
    for (let at = 0; at < stream.length; at += 65536) {
      r.push(stream.subarray(at, Math.min(stream.length, at + 65536)));
      for (let f = r.next(); f !== null; f = r.next()) got.push(Buffer.from(f));
    }
    expect(got.map((f) => f.length)).toEqual([1, size, 2]);
    expect(got[1]!.equals(big.subarray(4))).toBe(true);
    expect([...got[2]!]).toEqual([7, 8]);
    // Its size is known (for queued.max.request.bytes) from its prefix on.
    const p = new FrameReader(size);
    p.push(big.subarray(0, 70_000));
    expect(p.next()).toBeNull();
    expect(p.nextSize()).toBe(size);
  });

  it('a frame arriving a byte per read (not taken meanwhile, as on a busy connection) is held as MAX_HELD_CHUNKS reads at the most, then in one buffer of its size', () => {
    const payload = Array.from({ length: 5000 }, (_, i) => i % 253);
    const stream = Buffer.concat([frame(payload), frame([7, 8])]);
    const r = new FrameReader(100_000);
    let peak = 0;
    for (let i = 0; i < stream.length; i++) {
      r.push(stream.subarray(i, i + 1));
      peak = Math.max(peak, r.heldChunks);
    }
    expect(peak).toBe(MAX_HELD_CHUNKS);
    // Its buffer counts whole from the first copy on (muted reads stop on it), the next frame's reads beside it.
    expect(r.heldBytes).toBe(5000 + 6);
    expect([...r.next()!]).toEqual(payload);
    expect([...r.next()!]).toEqual([7, 8]);
    expect(r.next()).toBeNull();
    expect(r.heldChunks).toBe(0);
  });

  it('reads taken as they come: a frame in one read is not copied (its bytes are the read\'s); a big frame not yet taken is joined, not allocated whole', () => {
    const one = Buffer.concat([frame([1, 2, 3]), frame([4])]);
    const r = new FrameReader(100);
    r.push(one);
    const first = r.next()!;
    expect(first.buffer).toBe(one.buffer);
    expect(first.byteOffset).toBe(one.byteOffset + 4);
    const size = FILL_IN_PLACE_BYTES + 10;
    const big = Buffer.alloc(4 + size);
    big.writeInt32BE(size, 0);
    const b = new FrameReader(size);
    for (let i = 0; i < 4 * MAX_HELD_CHUNKS; i++) b.push(big.subarray(i, i + 1));
    // Not taken yet (no next()): its bytes are what arrived, in few buffers, not its declared size.
    expect(b.heldBytes).toBe(4 * MAX_HELD_CHUNKS);
    expect(b.heldChunks).toBeLessThanOrEqual(MAX_HELD_CHUNKS);
    b.push(big.subarray(4 * MAX_HELD_CHUNKS));
    expect(b.next()!.length).toBe(size);
  });
});
