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
 *   zstd: one or more zstd frames.
 * Malformed bytes throw DecompressionError (Kafka's `KafkaException` while reading the batch,
 * answered UNKNOWN_SERVER_ERROR to a producer); more than the limit throws DecompressedTooLarge,
 * which callers treat as a batch they do not read (it is not Kafka's: Kafka streams any size).
 */
import { DecompressionError } from './gzip-records.js';
import { lazyModule } from '../util/lazy-module.js';

/**
 * The most bytes a snappy, lz4 or zstd batch is decompressed to. Decompressing runs on the event
 * loop (zstd in JavaScript, ~150-300 MB/s here), so this also bounds the turn it takes: 8 MiB is
 * several times a full 1 MiB batch of typical records (`message.max.bytes`).
 */
export const DECOMPRESS_LIMIT = 8 * 1024 * 1024;

/** The batch decompresses to more than the limit it was read with: its records are not read. */
export class DecompressedTooLarge extends Error {}

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
    if (err instanceof DecompressionError || err instanceof DecompressedTooLarge) throw err;
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
  const parts: Buffer[] = [];
  let total = 0;
  let at = SNAPPY_HEADER_BYTES;
  while (at < compressed.length) {
    if (at + 4 > compressed.length) throw new DecompressionError('snappy records end inside a chunk length');
    const length = compressed.readInt32BE(at);
    at += 4;
    if (length < 0 || at + length > compressed.length) throw new DecompressionError(`snappy chunk of ${length} bytes at byte ${at - 4} runs past the batch`);
    const block = snappyBlock(compressed.subarray(at, at + length), limit - total);
    at += length;
    parts.push(block);
    total += block.length;
  }
  return joined(parts, total);
}

/** One raw snappy block; its uncompressed length (its leading varint) is checked against `limit` first. */
function snappyBlock(block: Buffer, limit: number): Buffer {
  let length = 0;
  for (let i = 0, shift = 0; ; i++, shift += 7) {
    if (i >= 5 || i >= block.length) throw new DecompressionError('snappy block has no valid length');
    length += (block[i]! & 0x7f) * 2 ** shift;
    if ((block[i]! & 0x80) === 0) break;
  }
  // A copy element of 3 bytes yields at most 64: a length past that ratio is a corrupt block, not a big one.
  if (length > block.length * SNAPPY_MAX_RATIO) throw new DecompressionError(`snappy block of ${block.length} bytes claims ${length}`);
  if (length > limit) throw new DecompressedTooLarge(`snappy records decompress to more than ${limit} bytes`);
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
  const parts: Buffer[] = [];
  let total = 0;
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
    const room = Math.min(blockMax, limit - total);
    let out: Buffer;
    if (stored) {
      if (size > room) throw new DecompressedTooLarge(`lz4 records decompress to more than ${limit} bytes`);
      out = block;
    } else {
      out = lz4Block(block, room, limit);
    }
    parts.push(out);
    total += out.length;
  }
  return joined(parts, total);
}

/** One compressed LZ4 block of at most `room` bytes decompressed (lz4-napi reads a block after its LE size bound). */
function lz4Block(block: Buffer, room: number, limit: number): Buffer {
  const input = Buffer.allocUnsafe(4 + block.length);
  input.writeUInt32LE(room, 0);
  block.copy(input, 4);
  try {
    return lz4().uncompressSync(input);
  } catch (err) {
    // lz4_flex: "provided output is too small for the decompressed data".
    if (/too small/.test((err as Error).message)) throw new DecompressedTooLarge(`lz4 records decompress to more than ${limit} bytes`);
    throw err;
  }
}

// ---- zstd --------------------------------------------------------------------------------------

function zstdFrames(compressed: Buffer, limit: number): Buffer {
  const parts: Buffer[] = [];
  let total = 0;
  const stream = new (fzstd().Decompress)((chunk: Uint8Array) => {
    total += chunk.length;
    if (total > limit) throw new DecompressedTooLarge(`zstd records decompress to more than ${limit} bytes`);
    // A copy: the decoder may reuse its window for the next chunk.
    parts.push(Buffer.from(chunk));
  });
  stream.push(compressed, true);
  return joined(parts, total);
}
