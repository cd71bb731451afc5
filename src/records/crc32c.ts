/**
 * CRC-32C (Castagnoli), the checksum of RecordBatch v2 (Kafka's `Crc32C`). Inputs up to
 * `JS_MAX_BYTES` (an offset commit's batch: ~100 bytes) are checksummed in JavaScript, eight bytes
 * a step from tables (the "slicing-by-8" method): for them the call into the native binding costs
 * more than the checksum (measured: ~600 ns of CPU per 90-byte batch through the binding, ~200 ns
 * here). Larger inputs (produced batches) go to the native `@node-rs/crc32` binding (SSE 4.2),
 * loaded at the first of them (util/lazy-module.ts). Results are unsigned 32-bit numbers.
 */
import { lazyModule } from '../util/lazy-module.js';

const nativeBinding = lazyModule<typeof import('@node-rs/crc32')>('@node-rs/crc32', 'the CRC-32C of record batches');
let nativeCrc32c: ((data: Uint8Array, initial?: number) => number) | undefined;

/** Inputs up to this many bytes are checksummed in JavaScript; larger ones by the native binding. */
export const JS_MAX_BYTES = 256;

/** Castagnoli's polynomial, reflected. */
const POLYNOMIAL = 0x82f63b78;

/** Table k (k = 0..7, 256 entries each): the CRC of a byte followed by k zero bytes. */
const TABLES = ((): Int32Array => {
  const t = new Int32Array(256 * 8);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLYNOMIAL : c >>> 1;
    t[n] = c;
  }
  for (let k = 1; k < 8; k++) {
    for (let n = 0; n < 256; n++) {
      const prev = t[(k - 1) * 256 + n]!;
      t[k * 256 + n] = t[prev & 0xff]! ^ (prev >>> 8);
    }
  }
  return t;
})();

/**
 * CRC-32C of `data`, continuing from `initial` (the result of a previous call over the bytes
 * before `data`; 0 to start). Returns an unsigned int in [0, 2^32).
 */
export function crc32c(data: Uint8Array, initial = 0): number {
  if (data.length <= JS_MAX_BYTES) return crc32cInJs(data, initial);
  return (nativeCrc32c ??= nativeBinding().crc32c)(data, initial) >>> 0;
}

/**
 * `crc32c` in JavaScript (see the file's comment), of `data[start, end)`: a range of a buffer
 * without a view made of it (a commit's batch is checksummed from its attributes on).
 */
export function crc32cInJs(data: Uint8Array, initial = 0, start = 0, end = data.length): number {
  const t = TABLES;
  let c = ~initial;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    const a = c ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24));
    c =
      t[1792 + (a & 0xff)]! ^
      t[1536 + ((a >>> 8) & 0xff)]! ^
      t[1280 + ((a >>> 16) & 0xff)]! ^
      t[1024 + (a >>> 24)]! ^
      t[768 + data[i + 4]!]! ^
      t[512 + data[i + 5]!]! ^
      t[256 + data[i + 6]!]! ^
      t[data[i + 7]!]!;
  }
  for (; i < end; i++) c = t[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}
