/**
 * The topic configs this server honours, typed, for one topic at one broker (Kafka's `LogConfig` as
 * the partition leader builds it): what Produce, the segment roll, the retention pass, the log
 * cleaner and DeleteRecords read. Values come from `ClusterConfigs.topicValue` (the topic's own
 * configs, else the broker's dynamic, static or default synonyms).
 */
import type { ClusterConfigs } from './cluster-configs.js';

export interface LogConfig {
  /** `max.message.bytes`: largest record batch accepted (bytes). */
  readonly maxMessageBytes: number;
  /** `cleanup.policy` holds `delete` (retention deletes segments) / `compact` (the cleaner compacts). */
  readonly deletePolicy: boolean;
  readonly compactPolicy: boolean;
  /** `retention.ms` (-1: forever). */
  readonly retentionMs: bigint;
  /** `retention.bytes` per partition (-1: unbounded). */
  readonly retentionBytes: bigint;
  /** `segment.bytes`, `segment.ms`. */
  readonly segmentBytes: number;
  readonly segmentMs: number;
  /** `message.timestamp.type`. */
  readonly logAppendTime: boolean;
  /** `message.timestamp.before.max.ms` / `after.max.ms`: the CreateTime window around the broker's clock. */
  readonly timestampBeforeMaxMs: bigint;
  readonly timestampAfterMaxMs: bigint;
  /** `min.insync.replicas`. */
  readonly minInsyncReplicas: number;
  /** `min.compaction.lag.ms`, `delete.retention.ms`, `min.cleanable.dirty.ratio`. */
  readonly minCompactionLagMs: bigint;
  readonly deleteRetentionMs: bigint;
  readonly minCleanableDirtyRatio: number;
  /** `index.interval.bytes`: the spacing of Kafka's offset index entries (read_committed fetch bounds). */
  readonly indexIntervalBytes: number;
}

/** The LogConfig of topic `name` (id `topicId`) as broker `brokerId` sees it. */
export function logConfigOf(configs: ClusterConfigs, name: string, topicId: string, brokerId: number): LogConfig {
  const overrides = configs.topicOverrides(name, topicId);
  const get = (key: string): string => configs.topicConfig(key, overrides, brokerId).value ?? '';
  const policy = get('cleanup.policy').split(',').map((s) => s.trim());
  const segmentMs = BigInt(get('segment.ms'));
  return {
    maxMessageBytes: Number(get('max.message.bytes')),
    deletePolicy: policy.includes('delete'),
    compactPolicy: policy.includes('compact'),
    retentionMs: BigInt(get('retention.ms')),
    retentionBytes: BigInt(get('retention.bytes')),
    segmentBytes: Number(get('segment.bytes')),
    // Node timers and our clock take numbers: a roll time beyond 2^53 ms never comes anyway.
    segmentMs: segmentMs > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(segmentMs),
    logAppendTime: get('message.timestamp.type') === 'LogAppendTime',
    timestampBeforeMaxMs: BigInt(get('message.timestamp.before.max.ms')),
    timestampAfterMaxMs: BigInt(get('message.timestamp.after.max.ms')),
    minInsyncReplicas: Number(get('min.insync.replicas')),
    minCompactionLagMs: BigInt(get('min.compaction.lag.ms')),
    deleteRetentionMs: BigInt(get('delete.retention.ms')),
    minCleanableDirtyRatio: Number(get('min.cleanable.dirty.ratio')),
    indexIntervalBytes: Number(get('index.interval.bytes')),
  };
}

/** Entries a LogConfigCache holds at most before it starts over (topics deleted leave theirs behind). */
const LOG_CONFIG_CACHE_ENTRIES = 4096;

/**
 * LogConfigs resolved once per topic and broker and kept until any config changes
 * (`ConfigStore.generation`; the static broker config never does): a resolution costs some 15 config
 * lookups (~150 µs), which every Produce and Fetch paid per topic before (issue #16). A change is
 * seen by the next lookup made, as with no cache.
 */
export class LogConfigCache {
  #generation = -1;
  readonly #byTopic = new Map<string, LogConfig>();

  constructor(private readonly configs: ClusterConfigs) {}

  /** The LogConfig of topic `name` (id `topicId`) as broker `brokerId` sees it (see logConfigOf). */
  get(name: string, topicId: string, brokerId: number): LogConfig {
    const generation = this.configs.store.generation;
    if (generation !== this.#generation || this.#byTopic.size >= LOG_CONFIG_CACHE_ENTRIES) {
      this.#byTopic.clear();
      this.#generation = generation;
    }
    const key = `${brokerId}\0${topicId}\0${name}`;
    let lc = this.#byTopic.get(key);
    if (lc === undefined) this.#byTopic.set(key, (lc = logConfigOf(this.configs, name, topicId, brokerId)));
    return lc;
  }
}
