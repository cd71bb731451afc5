/**
 * Empty collections shared by many owners until one first writes (`owned`): a classic group known
 * only by its offsets never has a member, and a partition never written to by an idempotent or
 * transactional producer has no producer state, so 100,000 of them held tens of MiB of empty Maps
 * and Sets (issue #16, bounded memory; an empty Map is ~180 bytes). Writing to a shared one throws,
 * so a write that skipped `owned` cannot reach every owner; deleting from one or clearing it does
 * nothing, as it is empty.
 */
export class SharedEmptyMap<K, V> extends Map<K, V> {
  override set(): this {
    throw new Error('a shared empty Map is never written');
  }
}

export class SharedEmptySet<T> extends Set<T> {
  override add(): this {
    throw new Error('a shared empty Set is never written');
  }
}

/** `collection`, or a new one of its own in place of a shared empty one. */
export function owned<K, V>(collection: Map<K, V>): Map<K, V>;
export function owned<T>(collection: Set<T>): Set<T>;
export function owned<K, V>(collection: Map<K, V> | Set<K>): Map<K, V> | Set<K> {
  if (collection instanceof SharedEmptyMap) return new Map<K, V>();
  if (collection instanceof SharedEmptySet) return new Set<K>();
  return collection;
}
