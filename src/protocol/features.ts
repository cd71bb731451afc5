/**
 * The feature flags ApiVersions (v3+) advertises, as a Kafka 4.3.1 broker does (its
 * `SupportedFeatures` and `FinalizedFeatures`, KIP-584): one row per feature whose behaviour this
 * server has, shown only while the API versions that need it are advertised (so
 * `--kafka-version 3.9` shows none of them). Kafka 4.3.1 also lists metadata.version (7-30),
 * kraft.version, group.version, streams.version and eligible.leader.replicas.version; they are
 * left out until their behaviour is served.
 */
export interface AdvertisedFeature {
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** The finalized level (Kafka 4.3.1 finalizes each at its max). */
  readonly finalizedLevel: number;
  /** Whether the advertised ranges serve the feature (`maxVersion(key)`: -1 when the API is not advertised). */
  readonly servedWith: (maxVersion: (apiKey: number) => number) => boolean;
}

export const ADVERTISED_FEATURES: readonly AdvertisedFeature[] = [
  // KIP-932 share groups: level 1 from metadata version 4.2-IV0 (ShareGroupHeartbeat v1).
  { name: 'share.version', minVersion: 0, maxVersion: 1, finalizedLevel: 1, servedWith: (max) => max(76) >= 0 },
  // KIP-890 transaction version 2 (EndTxn v5, Produce v12): a Java 4.x producer that reads it adds
  // partitions by producing (no AddPartitionsToTxn/AddOffsetsToTxn) and bumps the epoch per EndTxn.
  // A server capped to an older release (`--api-versions EndTxn=0-4`) finalizes none, as such a cluster.
  { name: 'transaction.version', minVersion: 0, maxVersion: 2, finalizedLevel: 2, servedWith: (max) => max(26) >= 5 && max(0) >= 12 },
];

/** The features the advertised API ranges serve, in `ADVERTISED_FEATURES` order. */
export function servedFeatures(apiKeys: ReadonlyArray<{ apiKey: number; maxVersion: number }>): AdvertisedFeature[] {
  const maxVersion = (key: number): number => apiKeys.find((k) => k.apiKey === key)?.maxVersion ?? -1;
  return ADVERTISED_FEATURES.filter((f) => f.servedWith(maxVersion));
}

/**
 * `FinalizedFeaturesEpoch`: Kafka sends the metadata log offset of the last feature record (32 on
 * a fresh 4.3.1 single node); this server has no metadata log and sends 1 whenever it finalizes
 * a feature (-1, "unknown", when it finalizes none).
 */
export function finalizedFeaturesEpoch(features: readonly AdvertisedFeature[]): bigint {
  return features.length > 0 ? 1n : -1n;
}
