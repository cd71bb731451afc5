import { AlterConfigsError, ResourceType, type AlterContext } from '../configs/alter-configs.js';
import { ErrorCode } from '../protocol/errors.js';
import { errorMessageOf } from '../protocol/error-messages.js';
import { AclOperation, ResourceType as AclResource } from '../security/acl/acl-types.js';
import { requestAuth } from '../security/authorization/request-auth.js';
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
    refusal: broker.authorizer ? alterRefusal(requestAuth(broker.authorizer, ctx)) : undefined,
  };
}

/**
 * ALTER_CONFIGS as `ControllerApis.authorizeAlterResource` checks it (and the broker's
 * `RuntimeLoggerManager` for BROKER_LOGGER): on the cluster for BROKER, BROKER_LOGGER and
 * CLIENT_METRICS, on the topic or group for TOPIC and GROUP; the refusal carries the error's
 * default message. The handlers check it themselves (src/configs/alter-configs.ts), between
 * Kafka's broker-side preprocessing and the controller's checks, which the authorization table
 * (src/security/authorization/api-checks.ts) could not place.
 */
function alterRefusal(auth: ReturnType<typeof requestAuth>) {
  const refused = (code: number) => new AlterConfigsError(code, errorMessageOf(code) ?? '');
  return (resourceType: number, resourceName: string): AlterConfigsError | null => {
    switch (resourceType) {
      case ResourceType.BROKER_LOGGER:
        // Refused during the broker's preprocessing, whose ApiError drops a message equal to the error's default.
        return auth.cluster(AclOperation.ALTER_CONFIGS) ? null : new AlterConfigsError(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessageOf(ErrorCode.CLUSTER_AUTHORIZATION_FAILED) ?? '', null);
      case ResourceType.TOPIC:
        return auth.allowed(AclOperation.ALTER_CONFIGS, AclResource.TOPIC, resourceName) ? null : refused(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      case ResourceType.GROUP:
        return auth.allowed(AclOperation.ALTER_CONFIGS, AclResource.GROUP, resourceName) ? null : refused(ErrorCode.GROUP_AUTHORIZATION_FAILED);
      default:
        return auth.cluster(AclOperation.ALTER_CONFIGS) ? null : refused(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    }
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
