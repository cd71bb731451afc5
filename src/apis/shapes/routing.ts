/**
 * Routing declarations for `ApiDefinition.routing`: how the simulated cluster (`--brokers N`,
 * src/cluster/routing.ts) serves a request, as Kafka's brokers route it.
 */
import type { GroupList, PartitionLayout, Routing } from '../types.js';

/** Every broker serves the request (Metadata, FindCoordinator, CreateTopics, ...). */
export const ANY_BROKER: Routing = { to: 'any-broker' };

/**
 * Only the coordinator of the request's one group serves it (`groupOf`, default its `groupId`):
 * elsewhere NOT_COORDINATOR, while loading COORDINATOR_LOAD_IN_PROGRESS, or `whileLoading`.
 */
export function byGroupCoordinator<Req extends { groupId: string }>(options: { whileLoading?: number } = {}): Routing<Req> {
  return { to: 'group-coordinator', groupOf: (req) => (typeof req.groupId === 'string' ? req.groupId : ''), ...options };
}

/** Each group of the list is answered by its own coordinator. */
export function byGroupCoordinators<Req, Res>(groups: GroupList<Req, Res>): Routing<Req, Res> {
  return { to: 'group-coordinators', groups };
}

/** Each partition is answered by its leader (the others: NOT_LEADER_OR_FOLLOWER on that partition). */
export function byPartitionLeaders<Req, Res>(partitions: PartitionLayout<Req, Res>): Routing<Req, Res> {
  return { to: 'partition-leaders', partitions };
}

/** Every broker answers with the groups it coordinates (ListGroups). */
export const COORDINATED_GROUPS: Routing = { to: 'coordinated-groups' };

/** Only the coordinator of the request's transactional id (`idOf`, default its `transactionalId`) serves it (elsewhere NOT_COORDINATOR). */
export function byTransactionCoordinator<Req>(idOf: (req: Req) => string | null = (req) => (req as { transactionalId?: string | null }).transactionalId ?? null): Routing<Req> {
  return { to: 'transaction-coordinator', transactionalIdOf: (req) => idOf(req) ?? '' };
}
