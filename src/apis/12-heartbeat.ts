import type { HeartbeatRequest } from '../protocol/messages/HeartbeatRequest.js';
import type { HeartbeatResponse } from '../protocol/messages/HeartbeatResponse.js';
import type { ApiDefinition } from './types.js';

/**
 * Heartbeat (key 12, v0-4), served by `ClassicGroupCoordinator.heartbeat`: INVALID_GROUP_ID,
 * UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS (rejoin),
 * COORDINATOR_NOT_AVAILABLE, or NONE.
 */
export const api: ApiDefinition<HeartbeatRequest, HeartbeatResponse> = {
  apiKey: 12,
  name: 'Heartbeat',
  minVersion: 0,
  maxVersion: 4,
  async handle(req, ctx) {
    // A classic member inside a KIP-848 consumer group (`classicGroupHeartbeatToConsumerGroup`).
    if (req.groupId !== '' && ctx.broker.consumer.hasGroup(req.groupId)) return { throttleTimeMs: 0, errorCode: ctx.broker.consumer.classicHeartbeat(req) };
    return ctx.broker.classic.heartbeat(req, ctx);
  },
};
