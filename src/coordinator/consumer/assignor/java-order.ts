/**
 * Emulation of the iteration order of `java.util.HashMap` / `HashSet`, and of Kafka's `Uuid`
 * hashing and ordering, so that the assignors visit members, topics and partitions in the
 * order Kafka's group coordinator does.
 *
 * A `HashMap` with table capacity `cap` (a power of two) iterates its buckets in index order;
 * a key lands in bucket `(h ^ (h >>> 16)) & (cap - 1)` where `h` is its `hashCode()`; keys in
 * one bucket are kept in insertion order (resizes split buckets preserving relative order).
 * So the iteration order is: by bucket index, then by insertion order. Buckets only turn into
 * trees with 8+ colliding keys in a table of 64+ slots, which is not modelled (for such inputs
 * the in-bucket order may differ from Java's).
 */

/** `Integer.hashCode()`. */
export function javaIntHash(v: number): number {
  return v | 0;
}

import { javaStringHashCode } from '../../../util/java-hash.js';

// Where the bucket order lives (util: the config and group views use it too); the assignors import it from here.
export { javaHashOrder } from '../../../util/java-hash.js';

const MASK64 = (1n << 64n) - 1n;

function toSigned64(v: bigint): bigint {
  return BigInt.asIntN(64, v);
}

interface ParsedUuid {
  msb: bigint; // signed 64-bit
  lsb: bigint; // signed 64-bit
}

const uuidCache = new Map<string, ParsedUuid | null>();

/** Parses Kafka's `Uuid.toString()` form (URL-safe base64 of 16 bytes, no padding). */
export function parseKafkaUuid(id: string): ParsedUuid | null {
  const cached = uuidCache.get(id);
  if (cached !== undefined) return cached;
  let parsed: ParsedUuid | null = null;
  if (/^[A-Za-z0-9_-]{22}$/.test(id)) {
    const bytes = Buffer.from(id, 'base64url');
    if (bytes.length === 16) {
      let msb = 0n;
      let lsb = 0n;
      for (let i = 0; i < 8; i++) msb = (msb << 8n) | BigInt(bytes[i]!);
      for (let i = 8; i < 16; i++) lsb = (lsb << 8n) | BigInt(bytes[i]!);
      parsed = { msb: toSigned64(msb), lsb: toSigned64(lsb) };
    }
  }
  if (uuidCache.size > 10_000) uuidCache.clear();
  uuidCache.set(id, parsed);
  return parsed;
}

/**
 * `Uuid.hashCode()`: `(int) (x >> 32) ^ (int) x` with `x = msb ^ lsb`. Ids that are not Kafka
 * UUIDs (only possible in hand-written inputs) fall back to `String.hashCode()`.
 */
export function javaUuidHash(id: string): number {
  const u = parseKafkaUuid(id);
  if (u === null) return javaStringHashCode(id);
  const x = (u.msb ^ u.lsb) & MASK64;
  const hi = Number(BigInt.asIntN(32, x >> 32n));
  const lo = Number(BigInt.asIntN(32, x));
  return (hi ^ lo) | 0;
}

/**
 * `Uuid.compareTo()`: signed comparison of the most, then the least significant bits.
 * Non-UUID ids fall back to `String.compareTo()` (UTF-16 code unit order).
 */
export function compareUuid(a: string, b: string): number {
  const ua = parseKafkaUuid(a);
  const ub = parseKafkaUuid(b);
  if (ua === null || ub === null) return compareJavaStrings(a, b);
  if (ua.msb !== ub.msb) return ua.msb < ub.msb ? -1 : 1;
  if (ua.lsb !== ub.lsb) return ua.lsb < ub.lsb ? -1 : 1;
  return 0;
}

/** `String.compareTo()`: lexicographic over UTF-16 code units (what `<` does in JS). */
export function compareJavaStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `HashMap.tableSizeFor`. */
export function tableSizeFor(cap: number): number {
  let n = 1;
  while (n < cap) n *= 2;
  return Math.max(1, Math.min(n, 1 << 30));
}

/** Capacity of a `new HashMap<>()` (or `HashSet`) after `n` `put`s (default 16, load 0.75). */
export function capacityAfterPuts(n: number, initialCapacity = 16): number {
  let cap = tableSizeFor(initialCapacity);
  while (n > cap * 0.75) cap *= 2;
  return cap;
}

/** Capacity of `new HashSet<>(collection)` of `n` elements. */
export function capacityForCopy(n: number): number {
  return capacityAfterPuts(n, Math.max(Math.trunc(n / 0.75) + 1, 16));
}

