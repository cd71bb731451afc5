/**
 * The group's subscription metadata hash (KIP-1101, record 3 tag `MetadataHash`): it changes when
 * a subscribed topic is created, deleted or gains partitions, which bumps the group epoch.
 * Kafka hashes each topic with XXH3 (`Utils.computeTopicHash`) and combines them; we hash the
 * same inputs (topic id, name, partition count; no racks here) with 64-bit FNV-1a, so the value
 * differs from a real broker's but has the same role. 0 when nothing is subscribed.
 */
export interface HashableTopic {
  name: string;
  topicId: string;
  partitionCount: number;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = (1n << 64n) - 1n;

export function computeMetadataHash(topics: readonly HashableTopic[]): bigint {
  if (topics.length === 0) return 0n;
  const sorted = [...topics].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let h = FNV_OFFSET;
  for (const t of sorted) {
    for (const byte of Buffer.from(`${t.topicId}\u0000${t.name}\u0000${t.partitionCount}\u0001`, 'utf8')) {
      h ^= BigInt(byte);
      h = (h * FNV_PRIME) & MASK;
    }
  }
  const signed = BigInt.asIntN(64, h);
  return signed === 0n ? 1n : signed;
}
