/**
 * The feature flags ApiVersions (v3+) advertises, as a Kafka 4.3.1 broker does (its
 * `SupportedFeatures` and `FinalizedFeatures`, KIP-584): one row per feature whose behaviour this
 * server has, shown only while the API that needs it is advertised (so `--kafka-version 4.0`
 * shows none of them). Kafka 4.3.1 also lists metadata.version (7-30), kraft.version,
 * group.version, streams.version, transaction.version (0-2, finalized 2) and
 * eligible.leader.replicas.version; they are left out until their behaviour is served (a Java
 * producer reads transaction.version 2 as "use KIP-890 transactions").
 */
export interface AdvertisedFeature {
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** The finalized level (Kafka 4.3.1 finalizes each at its max). */
  readonly finalizedLevel: number;
  /** The API key whose presence in ApiVersions the feature goes with. */
  readonly withApiKey: number;
}

export const ADVERTISED_FEATURES: readonly AdvertisedFeature[] = [
  // KIP-932 share groups: level 1 from metadata version 4.2-IV0 (ShareGroupHeartbeat v1).
  { name: 'share.version', minVersion: 0, maxVersion: 1, finalizedLevel: 1, withApiKey: 76 },
];

/**
 * `FinalizedFeaturesEpoch`: Kafka sends the metadata log offset of the last feature record (32 on
 * a fresh 4.3.1 single node); this server has no metadata log and sends 1 whenever it finalizes
 * a feature (-1, "unknown", when it finalizes none).
 */
export function finalizedFeaturesEpoch(features: readonly AdvertisedFeature[]): bigint {
  return features.length > 0 ? 1n : -1n;
}
