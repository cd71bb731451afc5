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
  const bucket = (s: string): number => {
    const h = javaStringHashCode(s);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  const keep = new Set(kept);
  return unique
    .map((s, i) => ({ s, i, b: bucket(s) }))
    .filter((e) => keep.has(e.s))
    .sort((a, b) => a.b - b.b || a.i - b.i)
    .map((e) => e.s);
}
