import { encodeRecordKey } from '../../records/coordinator-record.js';
import type { OffsetCommitRecord } from '../../records/schemas/record-types.js';

/** Partitions numbered below this have their keys kept (an array index per topic). */
const CACHED_PARTITIONS = 1 << 16;
/** The cache is emptied when it holds this many keys (at most ~1 MiB of small buffers). */
const MAX_CACHED_KEYS = 4096;
const keysByGroup = new Map<string, Map<string, Buffer[]>>();
let cachedKeys = 0;

/**
 * The key bytes of an OffsetCommit record (type 1, then group, topic and partition), encoded once
 * per group, topic and partition and then reused: a consumer commits the same partitions over
 * and over, and encoding the key (two strings) was a tenth of a commit's own work (issue #16).
 * The bytes are shared: callers copy them (into a batch) and never write to them. Each kept key
 * has a buffer of its own, so a kept key never holds a slab of Node's buffer pool.
 */
export function offsetCommitKey(record: OffsetCommitRecord): Buffer {
  const { groupId, topic, partition } = record;
  let byTopic = keysByGroup.get(groupId);
  let keys = byTopic?.get(topic);
  const kept = keys?.[partition];
  if (kept !== undefined) return kept;
  const encoded = encodeRecordKey(record);
  if (partition < 0 || partition >= CACHED_PARTITIONS) return encoded;
  if (cachedKeys >= MAX_CACHED_KEYS) {
    keysByGroup.clear();
    cachedKeys = 0;
    byTopic = keys = undefined;
  }
  const key = Buffer.allocUnsafeSlow(encoded.length);
  encoded.copy(key);
  if (byTopic === undefined) keysByGroup.set(groupId, (byTopic = new Map()));
  if (keys === undefined) byTopic.set(topic, (keys = []));
  keys[partition] = key;
  cachedKeys++;
  return key;
}
