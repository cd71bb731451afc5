import { API_NAMES } from './messages/index.js';

/**
 * The API version ranges a Kafka broker of each release advertises in ApiVersions, for the APIs
 * this server implements (`--kafka-version 3.9|4.0|4.1|4.2|4.3`).
 *
 * Source: the request message JSONs (`common/message/*Request.json`) inside
 * `org.apache.kafka:kafka-clients` 3.9.0, 4.0.0, 4.1.0, 4.2.0 and 4.3.1 from Maven Central,
 * taking `validVersions` of the messages whose `listeners` include `broker`, minus the latest
 * version where the message says `"latestVersionUnstable": true` (a broker advertises that one only
 * with `unstable.api.versions.enable=true`; e.g. OffsetCommit v10 and OffsetFetch v10 in 4.1,
 * InitProducerId v6 in 4.1-4.3). One exception applied in `releaseRange`: from 4.0 brokers
 * advertise Produce from v0 although they refuse v0-2 (KAFKA-18659,
 * `ApiKeys.PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION`). Runtime filters of a real broker (a
 * disabled feature, a missing authorizer) are not modelled: 3.9's ConsumerGroupHeartbeat v0 is
 * listed, as its JSON is. The share-group APIs (76-79, 83-87, 90-92) are `latestVersionUnstable` in
 * 3.9 and 4.0 (KIP-932 early access): those releases do not advertise them; the streams-group APIs
 * (88, 89; KIP-1071) are in 4.1, and are advertised from 4.2.
 */
export const KAFKA_API_VERSIONS = {
  '3.9': {
    0: [0, 11], // Produce
    1: [0, 17], // Fetch
    2: [0, 9], // ListOffsets
    3: [0, 12], // Metadata
    8: [0, 9], // OffsetCommit
    9: [0, 9], // OffsetFetch
    10: [0, 6], // FindCoordinator
    11: [0, 9], // JoinGroup
    12: [0, 4], // Heartbeat
    13: [0, 5], // LeaveGroup
    14: [0, 5], // SyncGroup
    15: [0, 5], // DescribeGroups
    16: [0, 5], // ListGroups
    17: [0, 1], // SaslHandshake
    18: [0, 4], // ApiVersions
    19: [0, 7], // CreateTopics
    20: [0, 6], // DeleteTopics
    21: [0, 2], // DeleteRecords
    22: [0, 5], // InitProducerId
    23: [0, 4], // OffsetForLeaderEpoch
    24: [0, 5], // AddPartitionsToTxn
    25: [0, 4], // AddOffsetsToTxn
    26: [0, 4], // EndTxn
    27: [0, 1], // WriteTxnMarkers
    28: [0, 4], // TxnOffsetCommit
    29: [0, 3], // DescribeAcls
    30: [0, 3], // CreateAcls
    31: [0, 3], // DeleteAcls
    32: [0, 4], // DescribeConfigs
    33: [0, 2], // AlterConfigs
    35: [0, 4], // DescribeLogDirs
    36: [0, 2], // SaslAuthenticate
    37: [0, 3], // CreatePartitions
    42: [0, 2], // DeleteGroups
    43: [0, 2], // ElectLeaders
    44: [0, 1], // IncrementalAlterConfigs
    47: [0, 0], // OffsetDelete
    48: [0, 1], // DescribeClientQuotas
    50: [0, 0], // DescribeUserScramCredentials
    51: [0, 0], // AlterUserScramCredentials
    60: [0, 1], // DescribeCluster
    61: [0, 0], // DescribeProducers
    65: [0, 0], // DescribeTransactions
    66: [0, 1], // ListTransactions
    68: [0, 0], // ConsumerGroupHeartbeat
    69: [0, 0], // ConsumerGroupDescribe
    74: [0, 0], // ListConfigResources (ListClientMetricsResources before 4.1)
    75: [0, 0], // DescribeTopicPartitions
  },
  '4.0': {
    0: [3, 12], // Produce
    1: [4, 17], // Fetch
    2: [1, 10], // ListOffsets
    3: [0, 13], // Metadata
    8: [2, 9], // OffsetCommit
    9: [1, 9], // OffsetFetch
    10: [0, 6], // FindCoordinator
    11: [2, 9], // JoinGroup
    12: [0, 4], // Heartbeat
    13: [0, 5], // LeaveGroup
    14: [0, 5], // SyncGroup
    15: [0, 6], // DescribeGroups
    16: [0, 5], // ListGroups
    17: [0, 1], // SaslHandshake
    18: [0, 4], // ApiVersions
    19: [2, 7], // CreateTopics
    20: [1, 6], // DeleteTopics
    21: [0, 2], // DeleteRecords
    22: [0, 5], // InitProducerId
    23: [2, 4], // OffsetForLeaderEpoch
    24: [0, 5], // AddPartitionsToTxn
    25: [0, 4], // AddOffsetsToTxn
    26: [0, 5], // EndTxn
    27: [1, 1], // WriteTxnMarkers
    28: [0, 5], // TxnOffsetCommit
    29: [1, 3], // DescribeAcls
    30: [1, 3], // CreateAcls
    31: [1, 3], // DeleteAcls
    32: [1, 4], // DescribeConfigs
    33: [0, 2], // AlterConfigs
    35: [1, 4], // DescribeLogDirs
    36: [0, 2], // SaslAuthenticate
    37: [0, 3], // CreatePartitions
    42: [0, 2], // DeleteGroups
    43: [0, 2], // ElectLeaders
    44: [0, 1], // IncrementalAlterConfigs
    47: [0, 0], // OffsetDelete
    48: [0, 1], // DescribeClientQuotas
    50: [0, 0], // DescribeUserScramCredentials
    51: [0, 0], // AlterUserScramCredentials
    60: [0, 2], // DescribeCluster
    61: [0, 0], // DescribeProducers
    65: [0, 0], // DescribeTransactions
    66: [0, 1], // ListTransactions
    68: [0, 1], // ConsumerGroupHeartbeat
    69: [0, 1], // ConsumerGroupDescribe
    74: [0, 0], // ListConfigResources (ListClientMetricsResources before 4.1)
    75: [0, 0], // DescribeTopicPartitions
  },
  '4.1': {
    0: [3, 13], // Produce
    1: [4, 18], // Fetch
    2: [1, 10], // ListOffsets
    3: [0, 13], // Metadata
    8: [2, 9], // OffsetCommit
    9: [1, 9], // OffsetFetch
    10: [0, 6], // FindCoordinator
    11: [0, 9], // JoinGroup
    12: [0, 4], // Heartbeat
    13: [0, 5], // LeaveGroup
    14: [0, 5], // SyncGroup
    15: [0, 6], // DescribeGroups
    16: [0, 5], // ListGroups
    17: [0, 1], // SaslHandshake
    18: [0, 4], // ApiVersions
    19: [2, 7], // CreateTopics
    20: [1, 6], // DeleteTopics
    21: [0, 2], // DeleteRecords
    22: [0, 5], // InitProducerId
    23: [2, 4], // OffsetForLeaderEpoch
    24: [0, 5], // AddPartitionsToTxn
    25: [0, 4], // AddOffsetsToTxn
    26: [0, 5], // EndTxn
    27: [1, 1], // WriteTxnMarkers
    28: [0, 5], // TxnOffsetCommit
    29: [1, 3], // DescribeAcls
    30: [1, 3], // CreateAcls
    31: [1, 3], // DeleteAcls
    32: [1, 4], // DescribeConfigs
    33: [0, 2], // AlterConfigs
    35: [1, 4], // DescribeLogDirs
    36: [0, 2], // SaslAuthenticate
    37: [0, 3], // CreatePartitions
    42: [0, 2], // DeleteGroups
    43: [0, 2], // ElectLeaders
    44: [0, 1], // IncrementalAlterConfigs
    47: [0, 0], // OffsetDelete
    48: [0, 1], // DescribeClientQuotas
    50: [0, 0], // DescribeUserScramCredentials
    51: [0, 0], // AlterUserScramCredentials
    60: [0, 2], // DescribeCluster
    61: [0, 0], // DescribeProducers
    65: [0, 0], // DescribeTransactions
    66: [0, 2], // ListTransactions
    68: [0, 1], // ConsumerGroupHeartbeat
    69: [0, 1], // ConsumerGroupDescribe
    74: [0, 1], // ListConfigResources (ListClientMetricsResources before 4.1)
    75: [0, 0], // DescribeTopicPartitions
    76: [1, 1], // ShareGroupHeartbeat
    77: [1, 1], // ShareGroupDescribe
    78: [1, 1], // ShareFetch
    79: [1, 1], // ShareAcknowledge
    83: [0, 0], // InitializeShareGroupState
    84: [0, 0], // ReadShareGroupState
    85: [0, 0], // WriteShareGroupState
    86: [0, 0], // DeleteShareGroupState
    87: [0, 0], // ReadShareGroupStateSummary
    90: [0, 0], // DescribeShareGroupOffsets
    91: [0, 0], // AlterShareGroupOffsets
    92: [0, 0], // DeleteShareGroupOffsets
  },
  '4.2': {
    0: [3, 13], // Produce
    1: [4, 18], // Fetch
    2: [1, 11], // ListOffsets
    3: [0, 13], // Metadata
    8: [2, 10], // OffsetCommit
    9: [1, 10], // OffsetFetch
    10: [0, 6], // FindCoordinator
    11: [0, 9], // JoinGroup
    12: [0, 4], // Heartbeat
    13: [0, 5], // LeaveGroup
    14: [0, 5], // SyncGroup
    15: [0, 6], // DescribeGroups
    16: [0, 5], // ListGroups
    17: [0, 1], // SaslHandshake
    18: [0, 4], // ApiVersions
    19: [2, 7], // CreateTopics
    20: [1, 6], // DeleteTopics
    21: [0, 2], // DeleteRecords
    22: [0, 5], // InitProducerId
    23: [2, 4], // OffsetForLeaderEpoch
    24: [0, 5], // AddPartitionsToTxn
    25: [0, 4], // AddOffsetsToTxn
    26: [0, 5], // EndTxn
    27: [1, 2], // WriteTxnMarkers
    28: [0, 5], // TxnOffsetCommit
    29: [1, 3], // DescribeAcls
    30: [1, 3], // CreateAcls
    31: [1, 3], // DeleteAcls
    32: [1, 4], // DescribeConfigs
    33: [0, 2], // AlterConfigs
    35: [1, 4], // DescribeLogDirs
    36: [0, 2], // SaslAuthenticate
    37: [0, 3], // CreatePartitions
    42: [0, 2], // DeleteGroups
    43: [0, 2], // ElectLeaders
    44: [0, 1], // IncrementalAlterConfigs
    47: [0, 0], // OffsetDelete
    48: [0, 1], // DescribeClientQuotas
    50: [0, 0], // DescribeUserScramCredentials
    51: [0, 0], // AlterUserScramCredentials
    60: [0, 2], // DescribeCluster
    61: [0, 0], // DescribeProducers
    65: [0, 0], // DescribeTransactions
    66: [0, 2], // ListTransactions
    68: [0, 1], // ConsumerGroupHeartbeat
    69: [0, 1], // ConsumerGroupDescribe
    74: [0, 1], // ListConfigResources (ListClientMetricsResources before 4.1)
    75: [0, 0], // DescribeTopicPartitions
    76: [1, 1], // ShareGroupHeartbeat
    77: [1, 1], // ShareGroupDescribe
    78: [1, 2], // ShareFetch
    79: [1, 2], // ShareAcknowledge
    83: [0, 0], // InitializeShareGroupState
    84: [0, 0], // ReadShareGroupState
    85: [0, 1], // WriteShareGroupState
    86: [0, 0], // DeleteShareGroupState
    87: [0, 1], // ReadShareGroupStateSummary
    88: [0, 0], // StreamsGroupHeartbeat
    89: [0, 0], // StreamsGroupDescribe
    90: [0, 1], // DescribeShareGroupOffsets
    91: [0, 0], // AlterShareGroupOffsets
    92: [0, 0], // DeleteShareGroupOffsets
  },
  '4.3': {
    0: [3, 13], // Produce
    1: [4, 18], // Fetch
    2: [1, 11], // ListOffsets
    3: [0, 13], // Metadata
    8: [2, 10], // OffsetCommit
    9: [1, 10], // OffsetFetch
    10: [0, 6], // FindCoordinator
    11: [0, 9], // JoinGroup
    12: [0, 4], // Heartbeat
    13: [0, 5], // LeaveGroup
    14: [0, 5], // SyncGroup
    15: [0, 6], // DescribeGroups
    16: [0, 5], // ListGroups
    17: [0, 1], // SaslHandshake
    18: [0, 4], // ApiVersions
    19: [2, 7], // CreateTopics
    20: [1, 6], // DeleteTopics
    21: [0, 2], // DeleteRecords
    22: [0, 5], // InitProducerId
    23: [2, 4], // OffsetForLeaderEpoch
    24: [0, 5], // AddPartitionsToTxn
    25: [0, 4], // AddOffsetsToTxn
    26: [0, 5], // EndTxn
    27: [1, 2], // WriteTxnMarkers
    28: [0, 5], // TxnOffsetCommit
    29: [1, 3], // DescribeAcls
    30: [1, 3], // CreateAcls
    31: [1, 3], // DeleteAcls
    32: [1, 4], // DescribeConfigs
    33: [0, 2], // AlterConfigs
    35: [1, 5], // DescribeLogDirs
    36: [0, 2], // SaslAuthenticate
    37: [0, 3], // CreatePartitions
    42: [0, 2], // DeleteGroups
    43: [0, 2], // ElectLeaders
    44: [0, 1], // IncrementalAlterConfigs
    47: [0, 0], // OffsetDelete
    48: [0, 1], // DescribeClientQuotas
    50: [0, 0], // DescribeUserScramCredentials
    51: [0, 0], // AlterUserScramCredentials
    60: [0, 2], // DescribeCluster
    61: [0, 0], // DescribeProducers
    65: [0, 0], // DescribeTransactions
    66: [0, 2], // ListTransactions
    68: [0, 1], // ConsumerGroupHeartbeat
    69: [0, 1], // ConsumerGroupDescribe
    74: [0, 1], // ListConfigResources (ListClientMetricsResources before 4.1)
    75: [0, 0], // DescribeTopicPartitions
    76: [1, 1], // ShareGroupHeartbeat
    77: [1, 1], // ShareGroupDescribe
    78: [1, 2], // ShareFetch
    79: [1, 2], // ShareAcknowledge
    83: [0, 0], // InitializeShareGroupState
    84: [0, 0], // ReadShareGroupState
    85: [0, 1], // WriteShareGroupState
    86: [0, 0], // DeleteShareGroupState
    87: [0, 1], // ReadShareGroupStateSummary
    88: [0, 0], // StreamsGroupHeartbeat
    89: [0, 0], // StreamsGroupDescribe
    90: [0, 1], // DescribeShareGroupOffsets
    91: [0, 0], // AlterShareGroupOffsets
    92: [0, 0], // DeleteShareGroupOffsets
  },
} as const satisfies Record<string, Readonly<Record<number, readonly [number, number]>>>;

export type KafkaRelease = keyof typeof KAFKA_API_VERSIONS;

export const KAFKA_RELEASES = Object.keys(KAFKA_API_VERSIONS) as KafkaRelease[];

/** A refused `--kafka-version` or `--api-versions` value. */
export class ApiVersionsError extends Error {
  override readonly name = 'ApiVersionsError';
}

/** `3.9`, `3.9.1`, `4.0.0` -> the release key (`3.9`, `4.0`); throws ApiVersionsError for others. */
export function kafkaRelease(version: string): KafkaRelease {
  const m = /^\s*(\d+)\.(\d+)(?:\.\d+)?\s*$/.exec(version);
  const key = m ? `${m[1]}.${m[2]}` : '';
  if (!Object.hasOwn(KAFKA_API_VERSIONS, key)) throw new ApiVersionsError(`unknown Kafka version "${version}" (known: ${KAFKA_RELEASES.join(', ')})`);
  return key as KafkaRelease;
}

/** What a release advertises for one API: [min, max], or null when it does not have it. */
export function releaseRange(release: KafkaRelease, apiKey: number): readonly [number, number] | null {
  const range = (KAFKA_API_VERSIONS[release] as Readonly<Record<number, readonly [number, number]>>)[apiKey];
  if (!range) return null;
  // KAFKA-18659: 4.x brokers advertise Produce v0-2 for old librdkafka versions, and refuse them.
  if (apiKey === 0 && release !== '3.9') return [0, range[1]];
  return range;
}

const API_KEYS_BY_NAME = new Map<string, number>(Object.entries(API_NAMES).map(([key, name]) => [name.toLowerCase(), Number(key)]));

/**
 * Parses `OffsetCommit=2-8,Fetch=4-12` (names case-insensitive, or API keys: `8=2-8`; a single
 * number `Fetch=12` means exactly that version) into API key -> [min, max].
 */
export function parseApiVersionOverrides(text: string): Map<number, [number, number]> {
  const out = new Map<number, [number, number]>();
  for (const part of text.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const m = /^([A-Za-z]+|\d+)\s*=\s*(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (!m) throw new ApiVersionsError(`expected API=MIN-MAX (e.g. OffsetCommit=2-8), got "${part}"`);
    const apiKey = /^\d+$/.test(m[1]!) ? Number(m[1]) : API_KEYS_BY_NAME.get(m[1]!.toLowerCase());
    if (apiKey === undefined) throw new ApiVersionsError(`unknown API "${m[1]}" in "${part}"`);
    const min = Number(m[2]);
    const max = m[3] === undefined ? min : Number(m[3]);
    if (min > max) throw new ApiVersionsError(`"${part}": ${min} is above ${max}`);
    out.set(apiKey, [min, max]);
  }
  return out;
}

export interface VersionCapOptions {
  /** Advertise (and serve) the ranges of this Kafka release, intersected with ours. */
  kafkaVersion?: string;
  /** Per-API ranges (after `kafkaVersion`): a map, an object by API name, or `OffsetCommit=2-8,Fetch=4-12`. */
  apiVersions?: string | ReadonlyMap<number, readonly [number, number]> | Readonly<Record<string, readonly [number, number] | string>>;
}

function overridesOf(input: NonNullable<VersionCapOptions['apiVersions']>): Map<number, [number, number]> {
  if (typeof input === 'string') return parseApiVersionOverrides(input);
  if (input instanceof Map) return new Map([...input].map(([k, [lo, hi]]) => [k, [lo, hi]]));
  const text = Object.entries(input as Record<string, readonly [number, number] | string>)
    .map(([name, range]) => `${name}=${typeof range === 'string' ? range : `${range[0]}-${range[1]}`}`)
    .join(',');
  return parseApiVersionOverrides(text);
}

/** What capping reads of an API definition (src/apis/types.ts `ApiDefinition` has it). */
export interface VersionedApi {
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** Advertised below what is served (Produce from v0). */
  readonly advertisedMinVersion?: number;
}

/**
 * The handlers with their version ranges capped: each API keeps the intersection of what we serve
 * and what the release advertises (an API the release lacks is dropped), then per-API overrides
 * replace the range (they must lie within what we serve). Requests outside the capped range are
 * refused like any unsupported version (the connection closes; ApiVersions answers its v0
 * fallback). Returns `handlers` itself when nothing is capped.
 */
export function capApiVersions<A extends VersionedApi>(handlers: ReadonlyMap<number, A>, options: VersionCapOptions): ReadonlyMap<number, A> {
  if (options.kafkaVersion === undefined && options.apiVersions === undefined) return handlers;
  const release = options.kafkaVersion === undefined ? null : kafkaRelease(options.kafkaVersion);
  const overrides = options.apiVersions === undefined ? new Map<number, [number, number]>() : overridesOf(options.apiVersions);
  const out = new Map<number, A>();
  for (const [key, api] of handlers) {
    const advertisedMin = api.advertisedMinVersion ?? api.minVersion;
    let lo = advertisedMin;
    let hi = api.maxVersion;
    if (release !== null) {
      const range = releaseRange(release, key);
      if (range === null) continue;
      lo = Math.max(lo, range[0]);
      hi = Math.min(hi, range[1]);
      if (lo > hi) continue;
    }
    const override = overrides.get(key);
    if (override) {
      if (override[0] < advertisedMin || override[1] > api.maxVersion) {
        throw new ApiVersionsError(`${api.name}=${override[0]}-${override[1]}: this server serves ${api.name} v${api.minVersion}-${api.maxVersion}`);
      }
      [lo, hi] = override;
    }
    if (lo === advertisedMin && hi === api.maxVersion) {
      out.set(key, api);
      continue;
    }
    // Versions below what the handler serves stay advertised-only (Produce v0-2), as before.
    const capped: A = { ...api, minVersion: Math.max(lo, api.minVersion), maxVersion: hi };
    if (lo < api.minVersion) (capped as { advertisedMinVersion?: number }).advertisedMinVersion = lo;
    else delete (capped as { advertisedMinVersion?: number }).advertisedMinVersion;
    out.set(key, capped);
  }
  for (const key of overrides.keys()) {
    if (!handlers.has(key)) throw new ApiVersionsError(`${API_NAMES[key] ?? `API ${key}`} is not served by this server`);
  }
  // ApiVersions itself is always served, so a client can learn the ranges.
  if (!out.has(18) && handlers.has(18)) out.set(18, handlers.get(18)!);
  return out;
}
