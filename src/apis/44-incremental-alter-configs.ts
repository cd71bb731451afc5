import type { IncrementalAlterConfigsRequest } from '../protocol/messages/IncrementalAlterConfigsRequest.js';
import type { IncrementalAlterConfigsResponse } from '../protocol/messages/IncrementalAlterConfigsResponse.js';
import { alterConfigs } from '../configs/alter-configs.js';
import { alterContext, alterErrorResponse, alterNames } from './alter-context.js';
import type { ApiDefinition } from './types.js';
import { ANY_BROKER } from './shapes/routing.js';

/**
 * IncrementalAlterConfigs (key 44, v0-1; v1 flexible), as Kafka 4.3's `ConfigAdminManager` and the
 * controller's `ConfigurationControlManager.incrementalAlterConfigs`: per resource, SET, DELETE,
 * APPEND and SUBTRACT (LIST configs only) on TOPIC, BROKER ("" = the cluster default, else the
 * answering broker's id) and GROUP resources, checked with Kafka's errors and messages
 * (src/configs/alter-configs.ts), stored durably (src/configs/config-store.ts) before the answer
 * unless `validateOnly`. Topic configs take effect at once (segment limits, Produce checks,
 * retention, cleaning); dynamic broker configs reach topics through their broker synonyms. Not
 * served: BROKER_LOGGER and CLIENT_METRICS resources (INVALID_REQUEST), alter-config policies.
 */
export const api: ApiDefinition<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse> = {
  apiKey: 44,
  name: 'IncrementalAlterConfigs',
  minVersion: 0,
  maxVersion: 1,
  errorResponse: alterErrorResponse,
  names: alterNames,
  routing: ANY_BROKER,
  async handle(req, ctx) {
    const resources = req.resources.map((r) => ({
      resourceType: r.resourceType,
      resourceName: r.resourceName,
      changes: r.configs.map((c) => ({ name: c.name, op: c.configOperation, value: c.value })),
    }));
    const responses = await alterConfigs(alterContext(ctx), resources, true, req.validateOnly, (topic) => ctx.broker.refreshTopicConfigs(topic));
    return { throttleTimeMs: 0, responses };
  },
};
