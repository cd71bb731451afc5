import { describe, it, expect } from 'vitest';
import { FrameReader, FrameTooLargeError } from '../../src/server/frame-reader.js';

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

  it('refuses a size over the limit and a negative size', () => {
    const r = new FrameReader(10);
    r.push(frame(new Array(11).fill(0)));
    expect(() => r.next()).toThrow(FrameTooLargeError);
    const n = new FrameReader(10);
    n.push(Buffer.from([0xff, 0xff, 0xff, 0xff]));
    expect(() => n.next()).toThrow(FrameTooLargeError);
  });
});
