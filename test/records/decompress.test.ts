/**
 * records/decompress.ts: snappy (snappy-java's stream and raw blocks), lz4 (Kafka's LZ4 frame) and
 * zstd as Kafka 4.3's codecs read them, bounded by a limit, and the errors of malformed bytes in
 * the words of Kafka's `Lz4BlockInputStream`. The compressors here are the same libraries' (snappy,
 * lz4-napi); the zstd bytes are the `zstd` command line's output for the text below.
 */
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { DecompressedTooLarge, decompress } from '../../src/records/decompress.js';
import { DecompressionError } from '../../src/records/gzip-records.js';

const require = createRequire(import.meta.url);
const snappy = require('snappy') as typeof import('snappy');
const lz4 = require('lz4-napi') as typeof import('lz4-napi');

const TEXT = Buffer.from('hello zstd '.repeat(100));
/** `zstd -q` of TEXT (one frame with its content size and checksum). */
const TEXT_ZSTD = Buffer.from('28b52ffd644c039500005868656c6c6f207a7374642001003ef82f5ef0b32c3c', 'hex');

/** snappy-java's stream: magic, versions 1 and 1, then [int32 length][raw block] per chunk. */
function xerial(...chunks: Buffer[]): Buffer {
  const header = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
  return Buffer.concat([header, ...chunks.flatMap((c) => {
    const block = snappy.compressSync(c);
    const length = Buffer.alloc(4);
    length.writeInt32BE(block.length);
    return [length, block];
  })]);
}

describe('decompress', () => {
  it('reads snappy-java streams of several chunks and raw snappy blocks', () => {
    expect(decompress(2, xerial(Buffer.from('first '), Buffer.from('second')))).toEqual(Buffer.from('first second'));
    expect(decompress(2, snappy.compressSync(TEXT))).toEqual(TEXT);
    expect(() => decompress(2, Buffer.from([0x05, 0x01]))).toThrow(DecompressionError);
    const cut = xerial(TEXT);
    expect(() => decompress(2, cut.subarray(0, cut.length - 3))).toThrow(DecompressionError);
  });

  it('reads LZ4 frames, checking the descriptor and refusing dependent blocks as Kafka', () => {
    const frame = lz4.compressFrameSync(TEXT);
    expect(decompress(3, frame)).toEqual(TEXT);
    expect(decompress(3, lz4.compressFrameSync(TEXT, { blockChecksums: true, contentChecksum: true }))).toEqual(TEXT);

    const badMagic = Buffer.from(frame);
    badMagic[0] = 0;
    expect(() => decompress(3, badMagic)).toThrow('Stream unsupported (invalid magic bytes)');
    const badHeaderChecksum = Buffer.from(frame);
    badHeaderChecksum.writeUInt8(badHeaderChecksum.readUInt8(6) ^ 0xff, 6);
    expect(() => decompress(3, badHeaderChecksum)).toThrow('Stream frame descriptor corrupted');
    const dependent = Buffer.from(frame);
    dependent.writeUInt8(dependent.readUInt8(4) & ~0x20, 4);
    expect(() => decompress(3, dependent)).toThrow('Dependent block stream is unsupported');
    const badBlockChecksum = lz4.compressFrameSync(TEXT, { blockChecksums: true });
    const at = badBlockChecksum.length - 6;
    badBlockChecksum.writeUInt8(badBlockChecksum.readUInt8(at) ^ 0xff, at);
    expect(() => decompress(3, badBlockChecksum)).toThrow('Block checksum mismatch');
    expect(() => decompress(3, frame.subarray(0, frame.length - 5))).toThrow('Stream ended prematurely');
  });

  it('reads zstd frames', () => {
    expect(decompress(4, TEXT_ZSTD)).toEqual(TEXT);
    expect(decompress(4, Buffer.concat([TEXT_ZSTD, TEXT_ZSTD]))).toEqual(Buffer.concat([TEXT, TEXT]));
    expect(() => decompress(4, TEXT_ZSTD.subarray(0, 20))).toThrow(DecompressionError);
    expect(() => decompress(4, Buffer.from('not zstd'))).toThrow(DecompressionError);
  });

  it('stops at the limit: DecompressedTooLarge, for each codec', () => {
    const limit = TEXT.length - 1;
    expect(() => decompress(2, xerial(TEXT), limit)).toThrow(DecompressedTooLarge);
    expect(() => decompress(2, snappy.compressSync(TEXT), limit)).toThrow(DecompressedTooLarge);
    expect(() => decompress(3, lz4.compressFrameSync(TEXT), limit)).toThrow(DecompressedTooLarge);
    expect(() => decompress(4, TEXT_ZSTD, limit)).toThrow(DecompressedTooLarge);
    expect(decompress(3, lz4.compressFrameSync(TEXT), TEXT.length)).toEqual(TEXT);
  });
});
