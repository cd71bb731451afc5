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
