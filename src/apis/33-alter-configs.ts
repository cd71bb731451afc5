import type { AlterConfigsRequest } from '../protocol/messages/AlterConfigsRequest.js';
import type { AlterConfigsResponse } from '../protocol/messages/AlterConfigsResponse.js';
import { AlterOp, alterConfigs } from '../configs/alter-configs.js';
import { alterContext, alterErrorResponse, alterNames } from './alter-context.js';
import type { ApiDefinition } from './types.js';
import { ANY_BROKER } from './shapes/routing.js';

/**
 * AlterConfigs (key 33, v0-2; v2 flexible), the older, non-incremental form: the configs given
 * replace every config the resource had (a config left out goes back to its default), with the
 * checks, messages and storage of IncrementalAlterConfigs (src/apis/44-incremental-alter-configs.ts).
 */
export const api: ApiDefinition<AlterConfigsRequest, AlterConfigsResponse> = {
  apiKey: 33,
  name: 'AlterConfigs',
  minVersion: 0,
  maxVersion: 2,
  errorResponse: alterErrorResponse,
  names: alterNames,
  routing: ANY_BROKER,
  async handle(req, ctx) {
    const resources = req.resources.map((r) => ({
      resourceType: r.resourceType,
      resourceName: r.resourceName,
      changes: r.configs.map((c) => ({ name: c.name, op: AlterOp.SET, value: c.value })),
    }));
    const responses = await alterConfigs(alterContext(ctx), resources, false, req.validateOnly, (topic) => ctx.broker.refreshTopicConfigs(topic));
    return { throttleTimeMs: 0, responses };
  },
};
