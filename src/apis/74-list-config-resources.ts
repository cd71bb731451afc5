import type { ListConfigResourcesRequest } from '../protocol/messages/ListConfigResourcesRequest.js';
import { defaultListConfigResourcesResponse, type ListConfigResourcesResponse } from '../protocol/messages/ListConfigResourcesResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { ResourceType } from '../configs/alter-configs.js';
import { brokerIdOf, type ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';

/** What v1 lists when no type is asked for, in the order a Kafka 4.3 broker answers them. */
const ALL_TYPES = [ResourceType.BROKER_LOGGER, ResourceType.BROKER, ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLIENT_METRICS];

/**
 * ListConfigResources (key 74; v0 is the former ListClientMetricsResources: client metrics
 * subscriptions only), which `kafka-configs` asks before describing a group, as Kafka 4.3's
 * `KafkaApis.handleListConfigResources`: for the types asked (none: every type) the answering broker's
 * id as BROKER_LOGGER and BROKER resources, every topic (`__consumer_offsets` included), the groups
 * that have configs of their own, and no client metrics subscriptions (none exist here); a type it
 * does not know answers UNSUPPORTED_VERSION with nothing listed.
 */
export const api: ApiDefinition<ListConfigResourcesRequest, ListConfigResourcesResponse> = {
  apiKey: 74,
  name: 'ListConfigResources',
  minVersion: 0,
  maxVersion: 1,
  errorResponse: topLevelError(defaultListConfigResourcesResponse),
  names: namesNothing,
  largeAnswers: true,
  routing: ANY_BROKER,
  handle(req, ctx) {
    const { broker } = ctx;
    const types = ctx.apiVersion === 0 ? [ResourceType.CLIENT_METRICS] : req.resourceTypes.length === 0 ? ALL_TYPES : req.resourceTypes;
    if (types.some((t) => !(ALL_TYPES as readonly number[]).includes(t))) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION, configResources: [] };
    }
    const configResources: ListConfigResourcesResponse['configResources'] = [];
    const self = String(brokerIdOf(ctx));
    for (const type of ALL_TYPES) {
      if (!types.includes(type)) continue;
      const names =
        type === ResourceType.BROKER_LOGGER || type === ResourceType.BROKER ? [self]
          : type === ResourceType.TOPIC ? broker.topics.list().map((t) => t.name)
            : type === ResourceType.GROUP ? broker.configs.store.groupsWithConfigs()
              : [];
      for (const resourceName of names) configResources.push({ resourceName, resourceType: type });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, configResources };
  },
};
