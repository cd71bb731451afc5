import type { JoinGroupRequest } from '../protocol/messages/JoinGroupRequest.js';
import type { JoinGroupResponse } from '../protocol/messages/JoinGroupResponse.js';
import type { ApiDefinition } from './types.js';

/**
 * The protocol name as Kafka's `JoinGroupResponse` carries it: "" instead of null before v7 (the
 * field is not nullable there), null instead of "" from v7.
 */
export function joinProtocolName(name: string | null, apiVersion: number): string | null {
  if (apiVersion < 7) return name ?? '';
  return name === '' ? null : name;
}

/**
 * JoinGroup (key 11, v0-9), served by the group coordinator (`GroupCoordinator.joinGroup`):
 * INVALID_GROUP_ID, INVALID_SESSION_TIMEOUT, MEMBER_ID_REQUIRED (v4+ first join),
 * UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, INCONSISTENT_GROUP_PROTOCOL, GROUP_MAX_SIZE_REACHED,
 * REBALANCE_IN_PROGRESS … The answer arrives when the group's join phase completes.
 * The protocol name is shaped by `joinProtocolName`.
 */
export const api: ApiDefinition<JoinGroupRequest, JoinGroupResponse> = {
  apiKey: 11,
  name: 'JoinGroup',
  minVersion: 0,
  maxVersion: 9,
  async handle(req, ctx) {
    const res = await ctx.broker.groups.joinGroup(req, ctx);
    return { ...res, protocolName: joinProtocolName(res.protocolName, ctx.apiVersion) };
  },
};
