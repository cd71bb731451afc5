/**
 * CRC-32C (Castagnoli), the checksum of RecordBatch v2 (Kafka's `Crc32C`), computed by
 * the native `@node-rs/crc32` binding, loaded at the first checksum (util/lazy-module.ts).
 * Results are unsigned 32-bit numbers.
 */
import { lazyModule } from '../util/lazy-module.js';

const nativeBinding = lazyModule<typeof import('@node-rs/crc32')>('@node-rs/crc32', 'the CRC-32C of record batches');
let nativeCrc32c: ((data: Uint8Array, initial?: number) => number) | undefined;

/**
 * CRC-32C of `data`, continuing from `initial` (the result of a previous call over the bytes
 * before `data`; 0 to start). Returns an unsigned int in [0, 2^32).
 */
export function crc32c(data: Uint8Array, initial = 0): number {
  return (nativeCrc32c ??= nativeBinding().crc32c)(data, initial) >>> 0;
}
