/** Java's `String.hashCode()`: 31-based over UTF-16 code units with int32 wraparound. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's `Utils.abs`: like Math.abs, but Integer.MIN_VALUE maps to 0. */
export function kafkaAbs(n: number): number {
  return n === -2147483648 ? 0 : Math.abs(n);
}

/** The `__consumer_offsets` partition of a group (Kafka's `GroupCoordinatorService.partitionFor`). */
export function offsetsPartitionFor(groupId: string, partitions: number): number {
  return kafkaAbs(javaStringHashCode(groupId)) % partitions;
}

/**
 * Orders `keys` (given in insertion order) as a Java `HashMap` of table capacity `capacity`
 * would iterate them.
 */
export function javaHashOrder<K>(keys: Iterable<K>, hash: (k: K) => number, capacity: number): K[] {
  const mask = capacity - 1;
  const list = Array.isArray(keys) ? (keys as K[]) : [...keys];
  const n = list.length;
  if (n < 2) return list.slice();
  // A counting sort on the bucket index, stable (insertion order within a bucket): O(n + capacity),
  // and the capacity of a table holding n keys is O(n).
  const buckets = new Int32Array(n);
  const starts = new Int32Array(capacity + 1);
  for (let i = 0; i < n; i++) {
    const h = hash(list[i]!);
    const b = (h ^ (h >>> 16)) & mask;
    buckets[i] = b;
    starts[b + 1]!++;
  }
  for (let b = 0; b < capacity; b++) starts[b + 1]! += starts[b]!;
  const out = new Array<K>(n);
  for (let i = 0; i < n; i++) out[starts[buckets[i]!]!++] = list[i]!;
  return out;
}

/**
 * The iteration order of `new java.util.HashSet<>(strings)` (then `retainAll`-ed down to `kept`):
 * bucket by bucket over a table sized for `strings` (`HashMap`'s capacity for that many entries),
 * each bucket in insertion order. Kafka prints some sets this way (`Cannot update these configs
 * dynamically: [...]`).
 */
export function javaHashSetOrder(strings: readonly string[], kept: readonly string[] = strings): string[] {
  const unique = [...new Set(strings)];
  let capacity = 1;
  const wanted = Math.max(Math.floor(unique.length / 0.75) + 1, 16);
  while (capacity < wanted) capacity *= 2;
  const keep = new Set(kept);
  return javaHashOrder(unique, javaStringHashCode, capacity).filter((s) => keep.has(s));
}

/**
 * The iteration order of a default-sized Java `HashMap` (or `ConcurrentHashMap` with `concurrent`)
 * filled with `keys` one `put` at a time: 16 slots, doubled when the map passes its 0.75 load
 * (a `ConcurrentHashMap` doubles on reaching it). Collisions keep insertion order (exact for the
 * small maps Kafka builds per request; a `ConcurrentHashMap` resize may reorder a crowded bucket).
 */
export function javaHashMapOrder<T>(keys: readonly T[], hashOf: (key: T) => number, concurrent = false): T[] {
  let capacity = 16;
  while (concurrent ? keys.length >= capacity * 0.75 : keys.length > capacity * 0.75) capacity *= 2;
  return javaHashOrder(keys, hashOf, capacity);
}

/** Java's `Long.hashCode`. */
export function javaLongHashCode(v: bigint): number {
  const u = BigInt.asUintN(64, v);
  return Number(BigInt.asIntN(32, u ^ (u >> 32n)));
}

/** Kafka's `TopicPartition.hashCode`. */
export function topicPartitionHashCode(topic: string, partition: number): number {
  return (Math.imul(31, 31 + partition) + javaStringHashCode(topic)) | 0;
}
