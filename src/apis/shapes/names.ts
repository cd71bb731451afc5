/** `ApiDefinition.names` shared by many API definitions. */
import type { RequestNames } from '../types.js';

/** A request about one group and one member (JoinGroup, Heartbeat, SyncGroup, ConsumerGroupHeartbeat). */
export function groupAndMember(req: { groupId: string; memberId: string }): RequestNames {
  return { groups: [req.groupId], members: [req.memberId] };
}

/** A request that names no group, member or topic. */
export function namesNothing(): RequestNames {
  return {};
}
