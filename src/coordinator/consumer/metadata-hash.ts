/**
 * The group's subscription metadata hash (KIP-1101, record 3 `ConsumerGroupMetadataValue` tag 0
 * `MetadataHash`): it changes when a subscribed topic is created, deleted, re-created or gains
 * partitions (or its replicas' racks change), which bumps the group epoch.
 *
 * Byte for byte what Kafka 4.3.1 computes (`org.apache.kafka.coordinator.group.Utils`
 * `computeTopicHash` / `computeGroupHash`, called from `modern.ModernGroup.computeMetadataHash`),
 * all with hash4j's XXH3-64 (seed 0; hash4j's streaming XXH3 equals the reference one-shot XXH3 of
 * the concatenated bytes, which is what we feed `@node-rs/xxhash`). hash4j writes every primitive
 * little-endian; its `putString(s)` is `putChars(s)` (each UTF-16 code unit as 2 bytes LE, no
 * UTF-8) followed by `putInt(s.length())` (the UTF-16 length).
 *
 * Topic hash, over:
 *   putByte(0)                                   TOPIC_HASH_MAGIC_BYTE
 *   putLong(topicId.mostSignificantBits)         8 bytes LE
 *   putLong(topicId.leastSignificantBits)        8 bytes LE
 *   putString(name)                              UTF-16LE code units, then int32 LE length
 *   putInt(partitionCount)                       int32 LE
 *   for p in 0 .. partitionCount-1:
 *     putInt(p)
 *     for rack in sorted(racks of p's replicas): putInt(rack.length()); putString(rack)
 * The racks are those of the partition's replica brokers that have one (duplicates kept),
 * sorted by `String.compareTo`; without racks a partition contributes only its index.
 *
 * Group hash: 0 if no subscribed topic exists (nothing subscribed, or only missing topics, which
 * Kafka leaves out of the map rather than hashing as 0); otherwise XXH3-64 over the topic hashes
 * (putLong, 8 bytes LE each) in order of topic name (`Map.Entry.comparingByKey`, i.e.
 * `String.compareTo`: UTF-16 code units, which is also JavaScript's string order).
 * Results are signed 64-bit, as Java's `long`.
 */
import { lazyModule } from '../../util/lazy-module.js';

/** Loaded at the first hash (util/lazy-module.ts). */
const xxhash = lazyModule<typeof import('@node-rs/xxhash')>('@node-rs/xxhash', 'the KIP-848 metadata hash (XXH3)');

export interface HashableTopic {
  name: string;
  /** Kafka's `Uuid.toString()` form: 22 characters of URL-safe base64 without padding. */
  topicId: string;
  partitionCount: number;
  /**
   * Optional: for each partition index, the racks of its replicas' brokers that have a rack (one
   * entry per such replica, any order). Absent, or an empty list for a partition, means no rack,
   * which is what a cluster whose brokers have no `broker.rack` gives.
   */
  partitionRacks?: readonly (readonly string[])[];
}

const TOPIC_HASH_MAGIC_BYTE = 0;

/** Java `String.compareTo`: UTF-16 code unit order (what JavaScript's `<` compares too). */
function compareJavaStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The 16 big-endian bytes of a Kafka topic id (`Uuid.toString()` form). */
function topicIdBytes(topicId: string): Buffer {
  const bytes = /^[A-Za-z0-9_-]{22}$/.test(topicId) ? Buffer.from(topicId, 'base64url') : Buffer.alloc(0);
  if (bytes.length !== 16) throw new TypeError(`not a Kafka topic id: ${JSON.stringify(topicId)}`);
  return bytes;
}

/** Bytes hash4j's `putString(s)` feeds the hash: UTF-16LE code units, then the length as int32 LE. */
function putString(buf: Buffer, offset: number, s: string): number {
  offset += buf.write(s, offset, 'utf16le');
  return buf.writeInt32LE(s.length, offset);
}

/**
 * Topic hashes of rack-less topics by (partition count, id, name): the group hash is recomputed on
 * every heartbeat (Kafka keeps a per-topic cache too, dropped on metadata changes; here the key
 * holds everything the hash depends on, so entries never go stale).
 */
const topicHashCache = new Map<string, bigint>();
const TOPIC_HASH_CACHE_MAX = 10_000;

/** `Utils.computeTopicHash` for an existing topic, as a signed 64-bit value. */
export function computeTopicHash(topic: HashableTopic): bigint {
  const racks = topic.partitionRacks;
  const hasRacks = racks !== undefined && racks.some((r) => r.length > 0);
  const key = hasRacks ? undefined : `${topic.partitionCount}:${topic.topicId}:${topic.name}`;
  const cached = key === undefined ? undefined : topicHashCache.get(key);
  if (cached !== undefined) return cached;
  const hash = hashTopic(topic, racks);
  if (key !== undefined) {
    if (topicHashCache.size >= TOPIC_HASH_CACHE_MAX) topicHashCache.clear();
    topicHashCache.set(key, hash);
  }
  return hash;
}

function hashTopic(topic: HashableTopic, racks: HashableTopic['partitionRacks']): bigint {
  const sortedRacks: string[][] = [];
  let racksBytes = 0;
  for (let p = 0; p < topic.partitionCount; p++) {
    const sorted = [...(racks?.[p] ?? [])].sort(compareJavaStrings);
    sortedRacks.push(sorted);
    for (const rack of sorted) racksBytes += 4 + 2 * rack.length + 4;
  }
  const size = 1 + 16 + 2 * topic.name.length + 4 + 4 + 4 * topic.partitionCount + racksBytes;
  const buf = Buffer.alloc(size);
  let o = buf.writeUInt8(TOPIC_HASH_MAGIC_BYTE, 0);
  const id = topicIdBytes(topic.topicId);
  // putLong writes little-endian: each 8-byte half of the (big-endian) UUID bytes reversed.
  for (let i = 7; i >= 0; i--) buf[o++] = id[i]!;
  for (let i = 15; i >= 8; i--) buf[o++] = id[i]!;
  o = putString(buf, o, topic.name);
  o = buf.writeInt32LE(topic.partitionCount, o);
  for (let p = 0; p < topic.partitionCount; p++) {
    o = buf.writeInt32LE(p, o);
    for (const rack of sortedRacks[p]!) {
      o = buf.writeInt32LE(rack.length, o);
      o = putString(buf, o, rack);
    }
  }
  return BigInt.asIntN(64, xxhash().xxh3.xxh64(buf));
}

/**
 * `ModernGroup.computeMetadataHash` / `Utils.computeGroupHash` over the subscribed topics that
 * exist (pass only those: Kafka drops missing topics before hashing). 0 when there are none.
 */
export function computeMetadataHash(topics: readonly HashableTopic[]): bigint {
  const byName = new Map<string, HashableTopic>();
  for (const t of topics) if (!byName.has(t.name)) byName.set(t.name, t);
  if (byName.size === 0) return 0n;
  const names = [...byName.keys()].sort(compareJavaStrings);
  const buf = Buffer.alloc(8 * names.length);
  names.forEach((name, i) => buf.writeBigInt64LE(computeTopicHash(byName.get(name)!), 8 * i));
  return BigInt.asIntN(64, xxhash().xxh3.xxh64(buf));
}
