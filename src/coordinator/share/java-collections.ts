/**
 * Just enough of `java.util.HashMap` / `HashSet` to iterate as Java does: a key lands in bucket
 * `(h ^ (h >>> 16)) & (capacity - 1)`, buckets are visited in index order and a bucket's keys in
 * list order: `put` appends a new key to its bucket's list, `computeIfAbsent` puts it at the head
 * (Java's `HashMap.computeIfAbsent` links the new node before the bin's first), a resize splits
 * lists keeping their order, and a removed and re-added key is new again. The table is allocated on the first put with the constructor's
 * capacity (`tableSizeFor`) and doubles when the size passes 0.75 of it. Kafka's `SimpleAssignor`
 * walks such maps and sets, and the partitions a member gets depend on that order. Treeified
 * buckets (8+ colliding keys in a table of 64+) are not modelled.
 */
import { tableSizeFor } from '../consumer/assignor/java-order.js';

interface Slot<K, V> {
  key: K;
  value: V;
  /** Position in its bucket's list: appended keys count up from 1, keys linked at the head down from -1. */
  pos: number;
}

/** A `HashMap<K, V>`; `id` turns a key into its identity (`equals`), `hash` is its `hashCode()`. */
export class JavaHashMap<K, V> {
  private readonly slots = new Map<string | number, Slot<K, V>>();
  private capacity: number;
  private seq = 0;
  /**
   * The iteration order as last computed, null once a key was added since (an added key may land
   * anywhere, and may grow the table). Removals keep it: iteration skips removed slots. Iterating
   * an unchanged map again (the assignor restarts its round over the unfilled members once per
   * partition handed out) reuses it instead of sorting every slot again.
   */
  private order: Array<{ k: string | number; s: Slot<K, V> }> | null = null;
  /** `order`'s keys (`keysInOrder`), null until asked for or once `order` is. */
  private orderKeys: K[] | null = null;

  /** `new HashMap<>(initialCapacity)` (16 when omitted, as `new HashMap<>()`). */
  constructor(
    private readonly hash: (key: K) => number,
    private readonly id: (key: K) => string | number,
    initialCapacity = 16,
  ) {
    this.capacity = tableSizeFor(Math.max(initialCapacity, 1));
  }

  get size(): number {
    return this.slots.size;
  }

  get(key: K): V | undefined {
    return this.slots.get(this.id(key))?.value;
  }

  has(key: K): boolean {
    return this.slots.has(this.id(key));
  }

  set(key: K, value: V): this {
    const slot = this.slots.get(this.id(key));
    if (slot) slot.value = value;
    else this.insert(key, value, ++this.seq);
    return this;
  }

  /** `HashMap.computeIfAbsent`: a new key is linked at the head of its bucket. */
  computeIfAbsent(key: K, make: () => V): V {
    const slot = this.slots.get(this.id(key));
    if (slot) return slot.value;
    const value = make();
    this.insert(key, value, -++this.seq);
    return value;
  }

  private insert(key: K, value: V, pos: number): void {
    this.order = null;
    this.orderKeys = null;
    this.slots.set(this.id(key), { key, value, pos });
    while (this.slots.size > this.capacity * 0.75) this.capacity *= 2;
  }

  delete(key: K): boolean {
    return this.slots.delete(this.id(key));
  }

  /**
   * The entries in Java's iteration order, as an iterator that skips entries removed meanwhile
   * (Java's iterator, with `remove()` being `delete` of the entry just returned).
   */
  *entries(): IterableIterator<[K, V]> {
    for (const { k, s } of this.iterationOrder()) {
      if (this.slots.get(k) === s) yield [s.key, s.value];
    }
  }

  private iterationOrder(): ReadonlyArray<{ k: string | number; s: Slot<K, V> }> {
    if (this.order !== null) return this.order;
    const mask = this.capacity - 1;
    const bucket = (key: K): number => {
      const h = this.hash(key);
      return (h ^ (h >>> 16)) & mask;
    };
    const order = [...this.slots.entries()].map(([k, s]) => ({ k, s, b: bucket(s.key) }));
    order.sort((x, y) => x.b - y.b || x.s.pos - y.s.pos);
    return (this.order = order);
  }

  *keys(): IterableIterator<K> {
    for (const [k] of this.entries()) yield k;
  }

  /**
   * The keys in Java's iteration order as they were when last computed, removed ones included (a
   * caller walking it skips those `has` no longer finds, as `entries()` does); the same array until
   * a key is added. For a loop that restarts its walk many times without adding keys.
   */
  keysInOrder(): readonly K[] {
    if (this.orderKeys === null || this.order === null) this.orderKeys = this.iterationOrder().map(({ s }) => s.key);
    return this.orderKeys;
  }
}

/** A `HashSet<K>` (a `HashMap<K, Boolean>` underneath, as Java's). */
export class JavaHashSet<K> {
  private readonly map: JavaHashMap<K, true>;

  constructor(hash: (key: K) => number, id: (key: K) => string | number, initialCapacity = 16) {
    this.map = new JavaHashMap(hash, id, initialCapacity);
  }

  get size(): number {
    return this.map.size;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  add(key: K): this {
    this.map.set(key, true);
    return this;
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  values(): IterableIterator<K> {
    return this.map.keys();
  }

  /** `JavaHashMap.keysInOrder`: removed keys included, skipped by checking `has`. */
  keysInOrder(): readonly K[] {
    return this.map.keysInOrder();
  }

  [Symbol.iterator](): IterableIterator<K> {
    return this.map.keys();
  }
}

/** `Integer.hashCode()` and identity. */
export const intHash = (v: number): number => v | 0;
export const intId = (v: number): number => v;

/** `new HashSet<Integer>()`. */
export function intSet(initialCapacity = 16): JavaHashSet<number> {
  return new JavaHashSet<number>(intHash, intId, initialCapacity);
}

/** `new HashSet<>(collection)`: capacity `max(size / .75f + 1, 16)`, then the elements in order. */
export function copyCapacity(size: number): number {
  return Math.max(Math.trunc(size / 0.75) + 1, 16);
}

/** Kafka's `AssignorHelpers.newHashMap(n)` / `newHashSet(n)`: `new HashMap<>((int) ((n + 1) / 0.75f + 1))`. */
export function helperCapacity(n: number): number {
  return Math.trunc((n + 1) / 0.75 + 1);
}
