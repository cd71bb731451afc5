/**
 * The Java collections of strings that Kafka's topic configuration builds, where their iteration
 * order reaches a message or a result: `HashSet`/`HashMap` (bucket order of `String.hashCode()`),
 * `Collectors.toMap` (a `HashMap` refusing duplicate keys) and the `toString()` of maps and sets.
 */
import { JavaHashMap, JavaHashSet, copyCapacity } from '../../share/java-collections.js';
import { javaStringHashCode } from '../../../util/java-hash.js';
import { illegalState } from './topic-errors.js';

const identity = (s: string): string => s;

/** `new HashMap<String, V>()` (or with an initial capacity). */
export function newStringHashMap<V>(initialCapacity?: number): JavaHashMap<string, V> {
  return new JavaHashMap<string, V>(javaStringHashCode, identity, initialCapacity);
}

/** `new HashSet<String>()` (or with an initial capacity). */
export function newStringHashSet(initialCapacity?: number): JavaHashSet<string> {
  return new JavaHashSet<string>(javaStringHashCode, identity, initialCapacity);
}

/** `stream.collect(Collectors.toSet())`: a default `HashSet`, elements added in stream order. */
export function collectToSet(values: Iterable<string>): JavaHashSet<string> {
  const set = newStringHashSet();
  for (const v of values) set.add(v);
  return set;
}

/** `new HashSet<>(list)`: sized for the list (`Math.max(size / .75f + 1, 16)`), then filled in order. */
export function copyToHashSet(values: readonly string[]): JavaHashSet<string> {
  const set = newStringHashSet(copyCapacity(values.length));
  for (const v of values) set.add(v);
  return set;
}

/** A JDK `ReadonlySet` view in Java's iteration order (a JS Set keeps the order it was filled in). */
export function toOrderedSet(set: JavaHashSet<string>): Set<string> {
  return new Set(set.values());
}

/** A JS Map in Java's iteration order. */
export function toOrderedMap<V>(map: JavaHashMap<string, V>): Map<string, V> {
  return new Map(map.entries());
}

/**
 * The accumulator of `Collectors.toMap(key, value)`: `putIfAbsent`, and a duplicate key is an
 * `IllegalStateException` naming the key and both values (`valueString` is the value's `toString()`).
 */
export function putUnique<V>(map: JavaHashMap<string, V>, key: string, value: V, valueString: (v: V) => string): void {
  const existing = map.get(key);
  if (existing !== undefined) {
    throw illegalState(
      `Duplicate key ${key} (attempted merging values ${valueString(existing)} and ${valueString(value)})`,
    );
  }
  map.set(key, value);
}

/** `AbstractMap.toString()`: `{k1=v1, k2=v2}` in the given order. */
export function javaMapString(entries: Iterable<readonly [string, string | number]>): string {
  const parts: string[] = [];
  for (const [k, v] of entries) parts.push(`${k}=${v}`);
  return `{${parts.join(', ')}}`;
}

/** `AbstractCollection.toString()`: `[a, b]` in the given order. */
export function javaCollectionString(values: Iterable<string>): string {
  return `[${[...values].join(', ')}]`;
}

/** `TreeMap`'s order: `String.compareTo`, i.e. UTF-16 code units, as JS's default comparison. */
export function compareJavaStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
