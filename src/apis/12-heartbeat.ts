import type { HeartbeatRequest } from '../protocol/messages/HeartbeatRequest.js';
import type { HeartbeatResponse } from '../protocol/messages/HeartbeatResponse.js';
import type { ApiDefinition } from './types.js';

/**
 * Heartbeat (key 12, v0-4), served by `GroupCoordinator.heartbeat` (classic coordinator, or a classic member of a consumer group): INVALID_GROUP_ID,
 * UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS (rejoin),
 * COORDINATOR_NOT_AVAILABLE, or NONE.
 */
export const api: ApiDefinition<HeartbeatRequest, HeartbeatResponse> = {
  apiKey: 12,
  name: 'Heartbeat',
  minVersion: 0,
  maxVersion: 4,
  handle(req, ctx) {
    return ctx.broker.groups.heartbeat(req, ctx);
  },
};
