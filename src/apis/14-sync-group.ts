import type { SyncGroupRequest } from '../protocol/messages/SyncGroupRequest.js';
import { defaultSyncGroupResponse, type SyncGroupResponse } from '../protocol/messages/SyncGroupResponse.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { groupAndMember } from './shapes/names.js';
import { byGroupCoordinator } from './shapes/routing.js';

/**
 * SyncGroup (key 14, v0-5), served by `GroupCoordinator.syncGroup`: `ClassicGroupCoordinator.syncGroup` (or, for a classic
 * member inside a consumer group, `ConsumerGroupCoordinator.classicSync`): INVALID_GROUP_ID,
 * UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION, INCONSISTENT_GROUP_PROTOCOL (v5+
 * without protocol type/name, or a mismatch), REBALANCE_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE.
 * Followers' answers wait for the leader's assignment to be durable.
 *
 * As `KafkaApis.handleSyncGroupRequest`, a v5+ request without protocol type or name
 * (`SyncGroupRequest.areMandatoryProtocolTypeAndNamePresent`) is refused with
 * INCONSISTENT_GROUP_PROTOCOL before it reaches the coordinator, whatever the group's type
 * (and before the empty group id check, which is the coordinator's).
 */
export const api: ApiDefinition<SyncGroupRequest, SyncGroupResponse> = {
  apiKey: 14,
  name: 'SyncGroup',
  minVersion: 0,
  maxVersion: 5,
  errorResponse: topLevelError(defaultSyncGroupResponse),
  names: groupAndMember,
  routing: byGroupCoordinator(),
  handle(req, ctx) {
    return ctx.broker.groups.syncGroup(req, ctx);
  },
};
