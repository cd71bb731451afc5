import type { AlterContext } from '../configs/alter-configs.js';
import { ResourceType } from '../configs/alter-configs.js';
import type { RequestNames } from './types.js';
import { brokerIdOf, type RequestContext } from './types.js';

/** What the config checks of AlterConfigs and IncrementalAlterConfigs need from the request's broker. */
export function alterContext(ctx: RequestContext): AlterContext {
  const { broker } = ctx;
  return {
    configs: broker.configs,
    brokerId: brokerIdOf(ctx),
    topic: (name) => {
      const t = broker.topics.get(name);
      return t ? { id: t.id, internal: t.internal } : undefined;
    },
  };
}

interface AlterRequest {
  resources: Array<{ resourceType: number; resourceName: string }>;
}

/** `AlterConfigsRequest.getErrorResponse` / `IncrementalAlterConfigsRequest.getErrorResponse`: the error on every resource. */
export function alterErrorResponse(req: AlterRequest, _version: number, errorCode: number) {
  return { throttleTimeMs: 0, responses: req.resources.map((r) => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName })) };
}

/** The topics and groups an alter request names (its TOPIC and GROUP resources). */
export function alterNames(req: AlterRequest): RequestNames {
  return {
    topics: req.resources.filter((r) => r.resourceType === ResourceType.TOPIC).map((r) => ({ name: r.resourceName, partitions: null })),
    groups: req.resources.filter((r) => r.resourceType === ResourceType.GROUP).map((r) => r.resourceName),
  };
}
