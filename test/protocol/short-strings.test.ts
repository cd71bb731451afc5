/**
 * Short strings read from the wire are decoded once and handed out again while their bytes repeat
 * (src/protocol/short-strings.ts, issue #16): what comes back is always what `Buffer.toString('utf8')`
 * gives for those bytes — repeated, after other strings took the slots, for multi-byte and invalid
 * UTF-8, at the size limit — and a `Reader` reads the same strings through it.
 */
import { describe, expect, it } from 'vitest';
import { SHORT_STRING_MAX_BYTES, shortString } from '../../src/protocol/short-strings.js';
import { Reader, Writer } from '../../src/protocol/primitives.js';

/** `text`'s bytes at offset 3 of a larger buffer, surrounded by other bytes. */
function embedded(bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0x00, 0x41]), bytes, Buffer.from([0x42, 0xfe])]);
}

function read(bytes: Buffer): string {
  return shortString(embedded(bytes), 3, bytes.length);
}

describe('shortString', () => {
  it('gives the same string for the same bytes, from any buffer', () => {
    expect(read(Buffer.from('bench-commit-group'))).toBe('bench-commit-group');
    expect(read(Buffer.from('bench-commit-group'))).toBe('bench-commit-group');
    expect(shortString(Buffer.from('xxbench-commit-group'), 2, 18)).toBe('bench-commit-group');
  });

  it('tells apart strings of equal length and strings that are prefixes of others', () => {
    expect(read(Buffer.from('group-a'))).toBe('group-a');
    expect(read(Buffer.from('group-b'))).toBe('group-b');
    expect(read(Buffer.from('group-a'))).toBe('group-a');
    expect(read(Buffer.from('group'))).toBe('group');
    expect(read(Buffer.from('group-'))).toBe('group-');
    expect(read(Buffer.from('group-b'))).toBe('group-b');
  });

  it('stays right when far more distinct strings than slots go through it (evictions), then repeat', () => {
    const names = Array.from({ length: 5000 }, (_, i) => `topic-${i}-${(i * 7919) % 1000}`);
    for (const name of names) expect(read(Buffer.from(name))).toBe(name);
    for (const name of names.slice().reverse()) expect(read(Buffer.from(name))).toBe(name);
  });

  it('decodes multi-byte and invalid UTF-8 as Buffer.toString does', () => {
    const cases = [
      Buffer.from('gröup-日本-🙂'),
      Buffer.from([0x61, 0xc3]), // cut in the middle of a 2-byte sequence
      Buffer.from([0xed, 0xa0, 0x80]), // a lone surrogate's encoding
      Buffer.from([0x80, 0x81, 0x61]),
    ];
    for (const bytes of cases) {
      const expected = bytes.toString('utf8');
      expect(read(bytes)).toBe(expected);
      expect(read(bytes)).toBe(expected);
    }
  });

  it('handles strings of exactly the size limit', () => {
    const a = 'a'.repeat(SHORT_STRING_MAX_BYTES);
    const b = `${'a'.repeat(SHORT_STRING_MAX_BYTES - 1)}b`;
    expect(read(Buffer.from(a))).toBe(a);
    expect(read(Buffer.from(b))).toBe(b);
    expect(read(Buffer.from(a))).toBe(a);
  });
});

describe('Reader strings', () => {
  it('reads empty, short, long and null strings, classic and compact', () => {
    const long = 'x'.repeat(SHORT_STRING_MAX_BYTES + 1);
    const values = ['', 'client-1', 'client-1', long, long, 'ünïcode'];
    for (const compact of [false, true]) {
      const w = new Writer(16);
      for (const v of values) w.string(v, compact);
      w.nullableString(null, compact);
      const r = new Reader(w.finish());
      expect(values.map(() => r.string(compact))).toEqual(values);
      expect(r.nullableString(compact)).toBeNull();
      expect(r.remaining).toBe(0);
    }
  });
});
