import type { ShareGroupHeartbeatRequest } from '../protocol/messages/ShareGroupHeartbeatRequest.js';
import { defaultShareGroupHeartbeatResponse, type ShareGroupHeartbeatResponse } from '../protocol/messages/ShareGroupHeartbeatResponse.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { groupAndMember } from './shapes/names.js';
import { byGroupCoordinator } from './shapes/routing.js';

/**
 * ShareGroupHeartbeat (key 76, v1; KIP-932 share groups), served by `ShareGroupCoordinator.heartbeat`:
 * join at epoch 0 with a client-generated member id (at most 36 characters) and the subscribed
 * topic names, heartbeat at the current epoch, leave with -1. The assignment holds only partitions
 * whose share state is initialized. v0 (Kafka 4.0's early-access version) is not served, as Kafka
 * 4.3 does not. The response is sent once the records the heartbeat produced are durable.
 */
export const api: ApiDefinition<ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse> = {
  apiKey: 76,
  name: 'ShareGroupHeartbeat',
  minVersion: 1,
  maxVersion: 1,
  errorResponse: topLevelError(defaultShareGroupHeartbeatResponse),
  names: groupAndMember,
  routing: byGroupCoordinator(),
  handle(req, ctx) {
    return ctx.broker.groups.shareGroupHeartbeat(req, ctx);
  },
};
