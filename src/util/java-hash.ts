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
 * The iteration order of `new HashSet<>(values)` for strings in Java 17 (`HashMap` buckets by
 * `(h ^ (h >>> 16)) & (capacity - 1)`, capacity the power of two above `size / 0.75`, at least 16;
 * insertion order within a bucket). Kafka answers some lists in that order (SaslHandshake's mechanisms).
 */
export function javaHashSetOrder(values: readonly string[]): string[] {
  const unique = [...new Set(values)];
  let capacity = 16;
  while (capacity < Math.floor(unique.length / 0.75) + 1) capacity *= 2;
  const bucket = (s: string): number => {
    const h = javaStringHashCode(s);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  return unique.map((s, i) => ({ s, i, b: bucket(s) })).sort((x, y) => x.b - y.b || x.i - y.i).map((x) => x.s);
}
