import type { ConsumerGroupHeartbeatRequest } from '../protocol/messages/ConsumerGroupHeartbeatRequest.js';
import { defaultConsumerGroupHeartbeatResponse, type ConsumerGroupHeartbeatResponse } from '../protocol/messages/ConsumerGroupHeartbeatResponse.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { groupAndMember } from './shapes/names.js';
import { byGroupCoordinator } from './shapes/routing.js';

/**
 * ConsumerGroupHeartbeat (key 68, v0-1; KIP-848), served by `ConsumerGroupCoordinator.heartbeat`:
 * join at epoch 0 (v1: the client supplies its own member id, KIP-1082; v0: "" gets a server id),
 * heartbeat at the current epoch, leave with -1, static leave with -2. v1 adds SubscribedTopicRegex.
 * The response is sent once the records the heartbeat produced are durable.
 */
export const api: ApiDefinition<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse> = {
  apiKey: 68,
  name: 'ConsumerGroupHeartbeat',
  minVersion: 0,
  maxVersion: 1,
  errorResponse: topLevelError(defaultConsumerGroupHeartbeatResponse),
  names: groupAndMember,
  routing: byGroupCoordinator(),
  handle(req, ctx) {
    return ctx.broker.groups.consumerGroupHeartbeat(req, ctx);
  },
};
