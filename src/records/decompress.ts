/**
 * The record bytes of snappy, lz4 and zstd batches, decompressed as Kafka 4.3's codecs read them
 * (`SnappyCompression`, `Lz4Compression`, `ZstdCompression` of kafka-clients), at most
 * DECOMPRESS_LIMIT bytes, synchronously. The algorithms are libraries' (`snappy` and `lz4-napi`,
 * native, and `fzstd`, JavaScript), loaded at the first such batch; the framing around them is
 * read here:
 *   snappy: snappy-java's stream (`SnappyInputStream`): a 16-byte header (magic `\x82SNAPPY\0`, two
 *     int32 versions), then chunks of an int32 length and a raw snappy block; input without the
 *     magic is one raw snappy block, as snappy-java reads it.
 *   lz4: the LZ4 frame of Kafka's `Lz4BlockInputStream`: magic 0x184D2204, FLG (version 1,
 *     independent blocks: "Dependent block stream is unsupported"), BD, an optional content size,
 *     the header checksum (xxHash32 of the descriptor, second byte), then blocks of an int32 LE
 *     size (top bit: stored uncompressed), each with a checksum when FLG says so, up to a zero size.
 *   zstd: zstd frames (and skippable frames), each read here up to its blocks' headers (window,
 *     content size, block sizes), then decompressed whole by `fzstd` (a window above 128 MiB is
 *     refused, as zstd-jni's default `windowLogMax` 27 makes Kafka refuse it).
 * Malformed bytes throw DecompressionError (Kafka's `KafkaException` while reading the batch,
 * answered UNKNOWN_SERVER_ERROR to a producer). A batch whose reading would cost more than the
 * limits allow throws TooLargeToRead, which callers treat as a batch they do not read (stored as
 * sent; not Kafka's, which streams any size): more than `limit` bytes decompressed, more than
 * MAX_PIECES blocks or chunks (each one call into a library: a 1 MB batch of 200,000 empty
 * chunks held the loop for ~0.5 s), or zstd frames whose decoding would copy more than
 * ZSTD_COPY_BUDGET bytes (`fzstd` moves its window after each block of a frame without a content
 * size: 20,000 one-byte blocks under an 8 MiB window took 9 s; adversarial trial 25b).
 */
import { DecompressionError } from './gzip-records.js';
import { lazyModule } from '../util/lazy-module.js';

/**
 * The most bytes a snappy, lz4 or zstd batch is decompressed to. Decompressing runs on the event
 * loop (zstd in JavaScript, ~150-300 MB/s here), so this also bounds the turn it takes: 8 MiB is
 * several times a full 1 MiB batch of typical records (`message.max.bytes`).
 */
export const DECOMPRESS_LIMIT = 8 * 1024 * 1024;

/** Reading the batch would cost more than this module allows (see the file's comment): its records are not read. */
export class TooLargeToRead extends Error {}

/** The most blocks (lz4, zstd) or chunks (snappy) of one batch read: a 1 MiB batch in pieces of 1 KiB. */
export const MAX_PIECES = 1024;

/**
 * The most bytes `fzstd` may allocate and move while decoding a batch's frames without a content
 * size (their window, then the window again after each block): a 64 MiB window and 2 blocks, some
 * 30 ms here; a legitimate 1 MiB batch of a streaming compressor (2-8 MiB windows) stays far below.
 */
export const ZSTD_COPY_BUDGET = 128 * 1024 * 1024;

/** zstd-jni's default `windowLogMax` (27): Kafka refuses a larger window. */
const ZSTD_MAX_WINDOW = 2 ** 27;

function tooManyPieces(codec: string): TooLargeToRead {
  return new TooLargeToRead(`${codec} records come in more than ${MAX_PIECES} pieces, more than this server reads`);
}

const snappy = lazyModule<typeof import('snappy')>('snappy', 'snappy record batches');
const lz4 = lazyModule<typeof import('lz4-napi')>('lz4-napi', 'lz4 record batches');
const fzstd = lazyModule<typeof import('fzstd')>('fzstd', 'zstd record batches');
const xxhash = lazyModule<typeof import('@node-rs/xxhash')>('@node-rs/xxhash', 'lz4 frame checksums');

/** Decompressors by codec id (`CompressionType.id`: 2 snappy, 3 lz4, 4 zstd). */
const DECOMPRESSORS: Readonly<Record<number, (compressed: Buffer, limit: number) => Buffer>> = {
  2: snappyStream,
  3: lz4Frame,
  4: zstdFrames,
};

/** Whether `codec` is one this module decompresses. */
export function decompresses(codec: number): boolean {
  return DECOMPRESSORS[codec] !== undefined;
}

/** The records' bytes of a batch compressed with `codec` (2, 3 or 4), at most `limit` bytes. */
export function decompress(codec: number, compressed: Buffer, limit = DECOMPRESS_LIMIT): Buffer {
  const decompressor = DECOMPRESSORS[codec];
  if (decompressor === undefined) throw new Error(`codec ${codec} is not decompressed here`);
  try {
    return decompressor(compressed, limit);
  } catch (err) {
    if (err instanceof DecompressionError || err instanceof TooLargeToRead) throw err;
    // The library's own error for bytes it cannot decode.
    throw new DecompressionError(`${CODEC_NAMES[codec]} records do not decompress: ${(err as Error).message}`);
  }
}

const CODEC_NAMES: Readonly<Record<number, string>> = { 2: 'snappy', 3: 'lz4', 4: 'zstd' };

/** Joins `parts` (of `total` bytes). */
function joined(parts: Buffer[], total: number): Buffer {
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
}

// ---- snappy ------------------------------------------------------------------------------------

const SNAPPY_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const SNAPPY_HEADER_BYTES = 16;
/** The most a snappy block's bytes expand by (a 3-byte copy element of 64 bytes, rounded up). */
const SNAPPY_MAX_RATIO = 22;

function snappyStream(compressed: Buffer, limit: number): Buffer {
  if (compressed.length < SNAPPY_HEADER_BYTES || !compressed.subarray(0, SNAPPY_MAGIC.length).equals(SNAPPY_MAGIC)) {
    return snappyBlock(compressed, limit);
  }
  // The chunks' bounds first, so that a stream of too many is refused before any is decoded.
  const chunks: Array<[number, number]> = [];
  let at = SNAPPY_HEADER_BYTES;
  while (at < compressed.length) {
    if (at + 4 > compressed.length) throw new DecompressionError('snappy records end inside a chunk length');
    const length = compressed.readInt32BE(at);
    at += 4;
    if (length < 0 || at + length > compressed.length) throw new DecompressionError(`snappy chunk of ${length} bytes at byte ${at - 4} runs past the batch`);
    chunks.push([at, at + length]);
    at += length;
    if (chunks.length > MAX_PIECES) throw tooManyPieces('snappy');
  }
  const parts: Buffer[] = [];
  let total = 0;
  for (const [from, to] of chunks) {
    const block = snappyBlock(compressed.subarray(from, to), limit - total, limit);
    parts.push(block);
    total += block.length;
  }
  return joined(parts, total);
}

/** One raw snappy block; its uncompressed length (its leading varint) is checked against the `room` left first. */
function snappyBlock(block: Buffer, room: number, limit = room): Buffer {
  let length = 0;
  for (let i = 0, shift = 0; ; i++, shift += 7) {
    if (i >= 5 || i >= block.length) throw new DecompressionError('snappy block has no valid length');
    length += (block[i]! & 0x7f) * 2 ** shift;
    if ((block[i]! & 0x80) === 0) break;
  }
  // A copy element of 3 bytes yields at most 64: a length past that ratio is a corrupt block, not a big one.
  if (length > block.length * SNAPPY_MAX_RATIO) throw new DecompressionError(`snappy block of ${block.length} bytes claims ${length}`);
  if (length > room) throw new TooLargeToRead(`snappy records decompress to more than ${limit} bytes`);
  return snappy().uncompressSync(block, { asBuffer: true }) as Buffer;
}

// ---- lz4 ---------------------------------------------------------------------------------------

const LZ4_MAGIC = 0x184d2204;
/** BD's block maximum sizes by its bits 4-6 (4: 64 KiB ... 7: 4 MiB). */
const LZ4_BLOCK_MAX: Readonly<Record<number, number>> = { 4: 64 << 10, 5: 256 << 10, 6: 1 << 20, 7: 4 << 20 };

function lz4Frame(compressed: Buffer, limit: number): Buffer {
  if (compressed.length < 7 || compressed.readUInt32LE(0) !== LZ4_MAGIC) throw new DecompressionError('Stream unsupported (invalid magic bytes)');
  const flg = compressed[4]!;
  const bd = compressed[5]!;
  if ((flg >> 6) !== 1) throw new DecompressionError(`Version ${flg >> 6} is unsupported`);
  if ((flg & 0x02) !== 0) throw new DecompressionError('Reserved bits must be 0');
  if ((flg & 0x20) === 0) throw new DecompressionError('Dependent block stream is unsupported');
  const blockMax = LZ4_BLOCK_MAX[(bd >> 4) & 0x07];
  if (blockMax === undefined || (bd & 0x8f) !== 0) throw new DecompressionError('Stream frame descriptor corrupted');
  const blockChecksums = (flg & 0x10) !== 0;
  const contentSize = (flg & 0x08) !== 0;
  let at = 6 + (contentSize ? 8 : 0) + ((flg & 0x01) !== 0 ? 4 : 0);
  if (at >= compressed.length) throw new DecompressionError('Stream ended prematurely');
  // The header checksum: the second byte of the descriptor's xxHash32, as Kafka checks it (magic v2).
  if (((xxhash().xxh32(compressed.subarray(4, at), 0) >>> 8) & 0xff) !== compressed[at]) throw new DecompressionError('Stream frame descriptor corrupted');
  at += 1;
  // The blocks' bounds and checksums first, so that a frame of too many is refused before any is decoded.
  const blocks: Array<{ block: Buffer; stored: boolean }> = [];
  for (;;) {
    if (at + 4 > compressed.length) throw new DecompressionError('Stream ended prematurely');
    const word = compressed.readUInt32LE(at);
    at += 4;
    if (word === 0) break;
    const stored = (word & 0x80000000) !== 0;
    const size = word & 0x7fffffff;
    if (size > blockMax) throw new DecompressionError(`Block size ${size} exceeded max: ${blockMax}`);
    if (at + size + (blockChecksums ? 4 : 0) > compressed.length) throw new DecompressionError('Stream ended prematurely');
    const block = compressed.subarray(at, at + size);
    at += size;
    if (blockChecksums) {
      if ((xxhash().xxh32(block, 0) | 0) !== compressed.readInt32LE(at)) throw new DecompressionError('Block checksum mismatch');
      at += 4;
    }
    blocks.push({ block, stored });
    if (blocks.length > MAX_PIECES) throw tooManyPieces('lz4');
  }
  const parts: Buffer[] = [];
  let total = 0;
  for (const { block, stored } of blocks) {
    let out: Buffer;
    if (stored) {
      if (block.length > limit - total) throw new TooLargeToRead(`lz4 records decompress to more than ${limit} bytes`);
      out = block;
    } else {
      out = lz4Block(block, blockMax, limit - total, limit);
    }
    parts.push(out);
    total += out.length;
  }
  return joined(parts, total);
}

/** The most an LZ4 block's bytes expand by: a sequence's match length grows 255 bytes per byte. */
const LZ4_MAX_RATIO = 255;

/**
 * One compressed LZ4 block decompressed into at most the block's own bound (the frame's block size,
 * and what its bytes can expand to) or the `room` left, whichever is less (lz4-napi reads a block
 * after the size it may reach, and fills that much: a bound from the block's own size keeps an
 * empty block from costing a 4 MiB buffer).
 */
function lz4Block(block: Buffer, blockMax: number, room: number, limit: number): Buffer {
  const bound = Math.min(blockMax, LZ4_MAX_RATIO * block.length + 16);
  const input = Buffer.allocUnsafe(4 + block.length);
  input.writeUInt32LE(Math.min(bound, room), 0);
  block.copy(input, 4);
  try {
    return lz4().uncompressSync(input);
  } catch (err) {
    // lz4_flex: "provided output is too small for the decompressed data": past the room left, too
    // large to read; past the block's own bound, a corrupt block (Kafka: "Block size exceeded").
    if (/too small/.test((err as Error).message) && room < bound) throw new TooLargeToRead(`lz4 records decompress to more than ${limit} bytes`);
    throw err;
  }
}

// ---- zstd --------------------------------------------------------------------------------------

/** Where a zstd frame lies in the stream. */
interface ZstdFrame {
  start: number;
  end: number;
}

const ZSTD_MAGIC = 0xfd2fb528;
/** Skippable frames: 0x184D2A50 to 0x184D2A5F. */
const ZSTD_SKIPPABLE = 0x184d2a50;
const ZSTD_BLOCK_MAX = 128 * 1024;

function zstdFrames(compressed: Buffer, limit: number): Buffer {
  const frames = zstdFrameBounds(compressed, limit);
  const parts: Buffer[] = [];
  let total = 0;
  for (const frame of frames) {
    const out = fzstd().decompress(compressed.subarray(frame.start, frame.end));
    total += out.length;
    if (total > limit) throw new TooLargeToRead(`zstd records decompress to more than ${limit} bytes`);
    parts.push(Buffer.from(out.buffer, out.byteOffset, out.length));
  }
  return joined(parts, total);
}

/**
 * The frames of a zstd stream, read up to their blocks' headers (RFC 8878), with the checks that
 * keep decoding bounded: a window above 128 MiB is refused (DecompressionError, as Kafka), more than
 * MAX_PIECES blocks, more than `limit` bytes by the headers or more than
 * ZSTD_COPY_BUDGET bytes for `fzstd` to allocate and move are not read (TooLargeToRead).
 */
function zstdFrameBounds(b: Buffer, limit: number): ZstdFrame[] {
  const frames: ZstdFrame[] = [];
  const cut = (): DecompressionError => new DecompressionError('zstd records end inside a frame');
  let at = 0;
  let pieces = 0;
  let bound = 0;
  let cost = 0;
  while (at < b.length) {
    if (at + 4 > b.length) throw cut();
    const magic = b.readUInt32LE(at);
    if ((magic & 0xfffffff0) >>> 0 === ZSTD_SKIPPABLE) {
      if (at + 8 > b.length) throw cut();
      // Skipped here, not by the library: any number costs little (fzstd recursed once per frame).
      at += 8 + b.readUInt32LE(at + 4);
      if (at > b.length) throw cut();
      continue;
    }
    if (magic !== ZSTD_MAGIC) throw new DecompressionError('Unknown frame descriptor');
    if (at + 5 > b.length) throw cut();
    const fhd = b[at + 4]!;
    if ((fhd & 0x08) !== 0) throw new DecompressionError('Corrupted block detected');
    const singleSegment = (fhd & 0x20) !== 0;
    let p = at + 5;
    let window = 0;
    if (!singleSegment) {
      if (p >= b.length) throw cut();
      const wd = b[p++]!;
      const base = 2 ** (10 + (wd >> 3));
      window = base + (base / 8) * (wd & 7);
    }
    p += [0, 1, 2, 4][fhd & 0x03]!;
    const fcsFlag = fhd >> 6;
    const fcsBytes = fcsFlag === 0 ? (singleSegment ? 1 : 0) : 2 ** fcsFlag;
    if (p + fcsBytes > b.length) throw cut();
    let contentSize = -1;
    if (fcsBytes === 1) contentSize = b[p]!;
    else if (fcsBytes === 2) contentSize = b.readUInt16LE(p) + 256;
    else if (fcsBytes === 4) contentSize = b.readUInt32LE(p);
    else if (fcsBytes === 8) contentSize = Number(b.readBigUInt64LE(p));
    p += fcsBytes;
    if (singleSegment) window = contentSize;
    if (window > ZSTD_MAX_WINDOW) throw new DecompressionError('Frame requires too much memory for decoding');
    let blocks = 0;
    let blocksBound = 0;
    for (let last = false; !last; ) {
      if (p + 3 > b.length) throw cut();
      const header = b.readUIntLE(p, 3);
      p += 3;
      last = (header & 1) === 1;
      const type = (header >> 1) & 3;
      const size = header >>> 3;
      if (type === 3) throw new DecompressionError('Corrupted block detected');
      p += type === 1 ? 1 : size;
      if (p > b.length) throw cut();
      blocksBound += type === 2 ? Math.min(window, ZSTD_BLOCK_MAX) : size;
      blocks++;
      if (++pieces > MAX_PIECES) throw tooManyPieces('zstd');
    }
    if ((fhd & 0x04) !== 0) p += 4;
    if (p > b.length) throw cut();
    const frameBound = contentSize >= 0 ? contentSize : blocksBound;
    bound += frameBound;
    if (bound > limit) throw new TooLargeToRead(`zstd records decompress to more than ${limit} bytes`);
    // fzstd decodes a frame with a content size in place; one without allocates its window and
    // moves it after each block.
    if (contentSize < 0) cost += window * (blocks + 1);
    if (cost > ZSTD_COPY_BUDGET) throw new TooLargeToRead(`zstd records would take more than ${ZSTD_COPY_BUDGET} bytes of copying to decompress`);
    frames.push({ start: at, end: p });
    at = p;
  }
  return frames;
}
