import type { HeartbeatRequest } from '../protocol/messages/HeartbeatRequest.js';
import { defaultHeartbeatResponse, type HeartbeatResponse } from '../protocol/messages/HeartbeatResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { groupAndMember } from './shapes/names.js';
import { byGroupCoordinator } from './shapes/routing.js';

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
  errorResponse: topLevelError(defaultHeartbeatResponse),
  names: groupAndMember,
  // Kafka's GroupCoordinatorService answers a classic Heartbeat NONE while the group is loading.
  routing: byGroupCoordinator({ whileLoading: ErrorCode.NONE }),
  handle(req, ctx) {
    return ctx.broker.groups.heartbeat(req, ctx);
  },
};
