import type { JoinGroupRequest } from '../protocol/messages/JoinGroupRequest.js';
import { defaultJoinGroupResponse, type JoinGroupResponse } from '../protocol/messages/JoinGroupResponse.js';
import type { ApiDefinition } from './types.js';
import { ErrorCode } from '../protocol/errors.js';
import { groupAndMember } from './shapes/names.js';
import { byGroupCoordinator } from './shapes/routing.js';

/**
 * The protocol name a JoinGroup response carries at `version`, as Kafka's `JoinGroupResponse`
 * constructor sets it: "" instead of null before v7 (the field is not nullable there), null
 * instead of "" from v7. Every JoinGroup response goes through it.
 */
export function protocolNameAt(version: number, protocolName: string | null): string | null {
  if (version < 7) return protocolName ?? '';
  return protocolName === '' ? null : protocolName;
}

/**
 * JoinGroup (key 11, v0-9), served by the classic group coordinator (`ClassicGroupCoordinator.joinGroup`):
 * INVALID_GROUP_ID, INVALID_SESSION_TIMEOUT, MEMBER_ID_REQUIRED (v4+ first join),
 * UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, INCONSISTENT_GROUP_PROTOCOL, GROUP_MAX_SIZE_REACHED,
 * REBALANCE_IN_PROGRESS … The answer arrives when the group's join phase completes.
 * The protocol name is shaped as Kafka's `JoinGroupResponse` does (`protocolNameAt`): "" instead of null before v7
 * (the field is not nullable there), null instead of "" from v7.
 */
export const api: ApiDefinition<JoinGroupRequest, JoinGroupResponse> = {
  apiKey: 11,
  name: 'JoinGroup',
  minVersion: 0,
  maxVersion: 9,
  // JoinGroupRequest.getErrorResponse, with the member id the request named.
  errorResponse: (req, version, errorCode) => ({
    ...defaultJoinGroupResponse(),
    errorCode,
    generationId: -1,
    protocolName: protocolNameAt(version, ''),
    memberId: req.memberId ?? '',
  }),
  names: groupAndMember,
  routing: byGroupCoordinator(),
  async handle(req, ctx) {
    // `GroupCoordinatorService.joinGroup` checks the group id and the session timeout bounds
    // before the request reaches any group, classic or consumer.
    const invalid = ctx.broker.classic.joinGroupRequestError(req);
    if (invalid) return { ...invalid, protocolName: protocolNameAt(ctx.apiVersion, null) };
    // An empty KIP-848 consumer group becomes a classic group whatever the migration policy; in a
    // non-empty one the member joins as a classic-protocol member (`classicGroupJoinToConsumerGroup`).
    if (ctx.broker.consumer.servesClassicJoin(req.groupId)) {
      const res = await ctx.broker.consumer.classicJoin(req, ctx);
      return { ...res, protocolName: protocolNameAt(ctx.apiVersion, res.protocolName) };
    }
    let converted: Promise<void> | null = null;
    if (ctx.broker.consumer.hasGroup(req.groupId)) {
      converted = ctx.broker.consumer.removeEmptyGroupForClassicJoin(req.groupId);
      if (converted === null) {
        return {
          throttleTimeMs: 0, errorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL, generationId: -1,
          protocolType: null, protocolName: protocolNameAt(ctx.apiVersion, null), leader: '', skipAssignment: false, memberId: req.memberId, members: [],
        };
      }
    }
    // The classic group must exist in the same turn as the consumer group is forgotten, as in
    // Kafka's single coordinator step: a ConsumerGroupHeartbeat arriving while the tombstones are
    // written then finds the classic group (and converts or upgrades it), never no group at all.
    const [, res] = await Promise.all([converted, ctx.broker.classic.joinGroup(req, ctx)]);
    return { ...res, protocolName: protocolNameAt(ctx.apiVersion, res.protocolName) };
  },
};
