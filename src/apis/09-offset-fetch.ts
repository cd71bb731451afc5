import type { OffsetFetchRequest } from '../protocol/messages/OffsetFetchRequest.js';
import type { OffsetFetchResponse } from '../protocol/messages/OffsetFetchResponse.js';
import type { ApiDefinition } from './types.js';

/**
 * OffsetFetch (key 9, v1-10), served by `GroupCoordinator.fetchOffsets` (coordinator/offsets/
 * offset-fetch.ts: Kafka 4.3's `OffsetMetadataManager.fetchOffsets` / `fetchAllOffsets`). Errors
 * sit per partition (v1), at the top level (v2-7) or per group (v8+); v9+ checks a KIP-848 member;
 * v10 names topics by id.
 */
export const api: ApiDefinition<OffsetFetchRequest, OffsetFetchResponse> = {
  apiKey: 9,
  name: 'OffsetFetch',
  minVersion: 1,
  maxVersion: 10,
  handle(req, ctx) {
    return ctx.broker.groups.fetchOffsets(req, ctx.apiVersion);
  },
};
