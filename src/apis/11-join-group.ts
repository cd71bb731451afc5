import type { JoinGroupRequest } from '../protocol/messages/JoinGroupRequest.js';
import { defaultJoinGroupResponse, type JoinGroupResponse } from '../protocol/messages/JoinGroupResponse.js';
import type { ApiDefinition } from './types.js';
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
 * JoinGroup (key 11, v0-9), served by the group coordinator (`GroupCoordinator.joinGroup`):
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
    const res = await ctx.broker.groups.joinGroup(req, ctx);
    return { ...res, protocolName: protocolNameAt(ctx.apiVersion, res.protocolName) };
  },
};
