import type { ApiVersionsRequest } from '../protocol/messages/ApiVersionsRequest.js';
import { defaultApiVersionsResponse, type ApiVersionsResponse } from '../protocol/messages/ApiVersionsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';

/** Kafka's `ApiVersionsRequest.isValid` pattern for client software name and version (KIP-511). */
const SOFTWARE_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/**
 * The features a Kafka 4.3.1 broker supports and a fresh cluster finalizes that change what clients
 * do: `transaction.version` 2 (KIP-890) makes Java 4.x producers add partitions to a transaction
 * by producing (no AddPartitionsToTxn/AddOffsetsToTxn) and bump the epoch with every EndTxn.
 * Kafka's other features (metadata.version, group.version, ...) are not advertised.
 */
const FEATURES = [{ name: 'transaction.version', minVersion: 0, maxVersion: 2, finalized: 2 }] as const;
/** The epoch of the finalized features (Kafka's metadata offset of the last feature change). */
const FINALIZED_FEATURES_EPOCH = 1n;

/**
 * ApiVersions (key 18, v0-4): the ranges of every API this broker serves (see `registry.ts`),
 * with Kafka 4.3's advertised minimums (Produce from v0), or those of the Kafka release chosen by
 * `--kafka-version` / `--api-versions` (`broker.advertisedApiKeys`, src/protocol/kafka-versions.ts). v3+ with an invalid client software
 * name or version answers INVALID_REQUEST. v3+ carries the features (`FEATURES`). A version newer than v4 never reaches this handler:
 * the connection answers it with the v0 body and UNSUPPORTED_VERSION (see server/api-versions-fallback.ts).
 */
export const api: ApiDefinition<ApiVersionsRequest, ApiVersionsResponse> = {
  apiKey: 18,
  name: 'ApiVersions',
  minVersion: 0,
  maxVersion: 4,
  errorResponse: topLevelError(defaultApiVersionsResponse),
  names: namesNothing,
  routing: ANY_BROKER,
  handle(req, ctx) {
    const invalid = !isValidApiVersionsRequest(req, ctx.apiVersion);
    // Kafka's error response for an invalid request carries no API ranges.
    return {
      errorCode: invalid ? ErrorCode.INVALID_REQUEST : ErrorCode.NONE,
      apiKeys: invalid ? [] : [...ctx.broker.advertisedApiKeys],
      throttleTimeMs: 0,
      supportedFeatures: invalid ? [] : FEATURES.map(({ name, minVersion, maxVersion }) => ({ name, minVersion, maxVersion })),
      finalizedFeaturesEpoch: invalid ? -1n : FINALIZED_FEATURES_EPOCH,
      finalizedFeatures: invalid || !servesTransactionVersion2(ctx.broker.advertisedApiKeys) ? [] : FEATURES.map(({ name, finalized }) => ({ name, maxVersionLevel: finalized, minVersionLevel: finalized })),
      zkMigrationReady: false,
    };
  },
};

/**
 * Whether the advertised ranges carry transaction version 2 (EndTxn v5, Produce v12): a server
 * capped to an older release (`--kafka-version 3.9`, `--api-versions EndTxn=0-4`) finalizes no
 * `transaction.version`, as such a cluster, so Java producers keep to AddPartitionsToTxn.
 */
function servesTransactionVersion2(apiKeys: ReadonlyArray<{ apiKey: number; maxVersion: number }>): boolean {
  const max = (key: number): number => apiKeys.find((k) => k.apiKey === key)?.maxVersion ?? -1;
  return max(26) >= 5 && max(0) >= 12;
}

/** Kafka's `ApiVersionsRequest.isValid`: from v3 the client software name and version must match KIP-511's pattern. */
export function isValidApiVersionsRequest(req: ApiVersionsRequest, version: number): boolean {
  return version < 3 || (SOFTWARE_PATTERN.test(req.clientSoftwareName) && SOFTWARE_PATTERN.test(req.clientSoftwareVersion));
}

/** The ranges ApiVersions advertises for the served `handlers`, by API key (computed once at start). */
export function advertisedApiKeys(handlers: ReadonlyMap<number, ApiDefinition>): ApiVersionsResponse['apiKeys'] {
  return [...handlers.values()]
    .sort((a, b) => a.apiKey - b.apiKey)
    .map((a) => ({ apiKey: a.apiKey, minVersion: a.advertisedMinVersion ?? a.minVersion, maxVersion: a.maxVersion }));
}
