import type { ApiVersionsRequest } from '../protocol/messages/ApiVersionsRequest.js';
import { defaultApiVersionsResponse, type ApiVersionsResponse } from '../protocol/messages/ApiVersionsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';
import { finalizedFeaturesEpoch, servedFeatures } from '../protocol/features.js';

/** Kafka's `ApiVersionsRequest.isValid` pattern for client software name and version (KIP-511). */
const SOFTWARE_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/**
 * ApiVersions (key 18, v0-4): the ranges of every API this broker serves (see `registry.ts`),
 * with Kafka 4.3's advertised minimums (Produce from v0), or those of the Kafka release chosen by
 * `--kafka-version` / `--api-versions` (`broker.advertisedApiKeys`, src/protocol/kafka-versions.ts). v3+ with an invalid client software
 * name or version answers INVALID_REQUEST. v3+ carries the feature flags of src/protocol/features.ts
 * (share.version while ShareGroupHeartbeat is served, transaction.version 2 while EndTxn v5 and
 * Produce v12 are). A version newer than v4 never reaches this handler:
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
    const apiKeys = invalid ? [] : [...ctx.broker.advertisedApiKeys];
    const features = servedFeatures(apiKeys);
    return {
      errorCode: invalid ? ErrorCode.INVALID_REQUEST : ErrorCode.NONE,
      apiKeys,
      throttleTimeMs: 0,
      // KIP-1022: below v4 a supported range starting at 0 is left out (older clients cannot read level 0).
      supportedFeatures: features.filter((f) => ctx.apiVersion >= 4 || f.minVersion > 0).map((f) => ({ name: f.name, minVersion: f.minVersion, maxVersion: f.maxVersion })),
      finalizedFeaturesEpoch: finalizedFeaturesEpoch(features),
      finalizedFeatures: features.map((f) => ({ name: f.name, maxVersionLevel: f.finalizedLevel, minVersionLevel: f.finalizedLevel })),
      zkMigrationReady: false,
    };
  },
};

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
