/**
 * records/decompress.ts: snappy (snappy-java's stream and raw blocks), lz4 (Kafka's LZ4 frame) and
 * zstd as Kafka 4.3's codecs read them, bounded by a limit, and the errors of malformed bytes in
 * the words of Kafka's `Lz4BlockInputStream`. The compressors here are the same libraries' (snappy,
 * lz4-napi); the zstd bytes are the `zstd` command line's output for the text below.
 */
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { MAX_PIECES, TooLargeToRead, decompress } from '../../src/records/decompress.js';
import { DecompressionError } from '../../src/records/gzip-records.js';

const require = createRequire(import.meta.url);
const snappy = require('snappy') as typeof import('snappy');
const lz4 = require('lz4-napi') as typeof import('lz4-napi');
const xxhash = require('@node-rs/xxhash') as typeof import('@node-rs/xxhash');

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

  it('stops at the limit: TooLargeToRead, for each codec', () => {
    const limit = TEXT.length - 1;
    expect(() => decompress(2, xerial(TEXT), limit)).toThrow(TooLargeToRead);
    expect(() => decompress(2, snappy.compressSync(TEXT), limit)).toThrow(TooLargeToRead);
    expect(() => decompress(3, lz4.compressFrameSync(TEXT), limit)).toThrow(TooLargeToRead);
    expect(() => decompress(4, TEXT_ZSTD, limit)).toThrow(TooLargeToRead);
    expect(decompress(3, lz4.compressFrameSync(TEXT), TEXT.length)).toEqual(TEXT);
  });
});

/** A zstd frame without a content size: window descriptor `wd`, then `blocks` raw blocks of one byte. */
function zstdRawBlocks(wd: number, blocks: number): Buffer {
  const parts = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, wd])];
  for (let i = 0; i < blocks; i++) {
    const header = Buffer.alloc(3);
    header.writeUIntLE((1 << 3) | (i === blocks - 1 ? 1 : 0), 0, 3); // type Raw, one byte
    parts.push(header, Buffer.from('x'));
  }
  return Buffer.concat(parts);
}

/** An LZ4 frame (independent blocks, block size by `bd`) of the given compressed blocks, with a right header checksum. */
function lz4FrameOf(bd: number, blocks: Buffer[]): Buffer {
  const descriptor = Buffer.from([0x60, bd]);
  const checksum = (xxhash.xxh32(descriptor, 0) >>> 8) & 0xff;
  const sized = blocks.flatMap((b) => {
    const size = Buffer.alloc(4);
    size.writeUInt32LE(b.length);
    return [size, b];
  });
  return Buffer.concat([Buffer.from([0x04, 0x22, 0x4d, 0x18]), descriptor, Buffer.from([checksum]), ...sized, Buffer.alloc(4)]);
}

describe('decompress: hostile batches cost little (adversarial trial 25b)', () => {
  it('a zstd window above 128 MiB is refused, as Kafka (zstd-jni windowLogMax 27), before anything is allocated', () => {
    expect(() => decompress(4, zstdRawBlocks(0xa7, 1))).toThrow('Frame requires too much memory for decoding');
    expect(decompress(4, zstdRawBlocks(0x48, 3))).toEqual(Buffer.from('xxx'));
  });

  it('more than MAX_PIECES blocks or chunks, or a zstd decoding that would move too many bytes, is not read; skippable frames cost nothing', () => {
    expect(() => decompress(4, zstdRawBlocks(0x58, MAX_PIECES + 1))).toThrow(TooLargeToRead);
    // 8 MiB window x 100 blocks: more copying than ZSTD_COPY_BUDGET.
    expect(() => decompress(4, zstdRawBlocks(0x68, 100))).toThrow(/bytes of copying/);
    const skippable = Buffer.from([0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]);
    // Kafka reads 100,000 empty skippable frames as no records (INVALID_RECORD for a batch that declares one).
    expect(decompress(4, Buffer.concat(Array(100_000).fill(skippable)))).toEqual(Buffer.alloc(0));
    const emptyBlock = Buffer.from([0x00]); // a token of no literals and no match
    expect(decompress(3, lz4FrameOf(0x70, Array(10).fill(emptyBlock)))).toEqual(Buffer.alloc(0));
    expect(() => decompress(3, lz4FrameOf(0x70, Array(MAX_PIECES + 1).fill(emptyBlock)))).toThrow(TooLargeToRead);
    expect(() => decompress(2, xerial(...Array(MAX_PIECES + 1).fill(Buffer.alloc(0))))).toThrow(TooLargeToRead);
  });

  it('an LZ4 block decoding past its frame block size is corrupt (Kafka: UNKNOWN_SERVER_ERROR), not too large to read', () => {
    const big = lz4.compressSync(Buffer.alloc(1 << 20)).subarray(4); // a raw block of 1 MiB of zeros
    expect(() => decompress(3, lz4FrameOf(0x40, [big]))).toThrow(DecompressionError);
    expect(decompress(3, lz4FrameOf(0x60, [big])).equals(Buffer.alloc(1 << 20))).toBe(true);
  });
});
