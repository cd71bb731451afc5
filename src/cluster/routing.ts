import { ErrorCode } from '../protocol/errors.js';
import { brokerIdOf, routingOf, topicLookup, type ApiDefinition, type GroupList, type PartitionTarget, type RequestContext } from '../apis/types.js';
import type { Broker } from '../broker.js';
import { addLeaderHints } from './leader-hints.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = Record<string, any>;

/** The error a group API gets on this broker: NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, or NONE (serve it). */
export function groupRoutingError(broker: Broker, brokerId: number, groupId: string): number {
  // An empty group id is the handler's to refuse (INVALID_GROUP_ID), as Kafka validates before routing.
  if (groupId === '') return ErrorCode.NONE;
  if (broker.cluster.coordinatorOf(groupId) !== brokerId) return ErrorCode.NOT_COORDINATOR;
  if (broker.cluster.isLoading(groupId)) return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
  return ErrorCode.NONE;
}

/**
 * Serves one request as the broker `ctx.brokerId` of the simulated cluster would, before the
 * handler: group APIs sent to a broker that does not coordinate the group answer NOT_COORDINATOR
 * (per group for DescribeGroups, DeleteGroups, OffsetFetch v8+, ConsumerGroupDescribe; on every
 * partition for OffsetCommit), COORDINATOR_LOAD_IN_PROGRESS while `coordinatorLoadInProgress`
 * lasts (a classic Heartbeat gets NONE then, as Kafka); the per-partition APIs routed to leaders
 * (Produce, Fetch, ListOffsets, DeleteRecords, OffsetForLeaderEpoch) answer NOT_LEADER_OR_FOLLOWER on
 * the partitions this broker does not lead while the rest is handled (Produce and Fetch with KIP-951's
 * `currentLeader` and `nodeEndpoints`: leader-hints.ts);
 * ListGroups lists only the groups this broker coordinates; the transaction APIs sent to a broker that
 * does not coordinate the transactional id answer NOT_COORDINATOR. Everything else goes to the handler.
 */
export function routeRequest(api: ApiDefinition, body: unknown, ctx: RequestContext): unknown {
  const { broker } = ctx;
  const self = brokerIdOf(ctx);
  const version = ctx.apiVersion;
  const routing = routingOf(api, version);
  switch (routing.to) {
    case 'group-coordinator': {
      const errorCode = groupRoutingError(broker, self, routing.groupOf(body));
      if (errorCode === ErrorCode.NONE) return api.handle(body, ctx);
      const answered = errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ? routing.whileLoading ?? errorCode : errorCode;
      return api.errorResponse(body, version, answered);
    }
    case 'group-coordinators':
      return routeGroups(api, routing.groups, (body ?? {}) as Obj, ctx, self);
    case 'partition-leaders': {
      // KIP-951: Produce and Fetch partitions told to go elsewhere say where (leader-hints.ts).
      const hinted = (res: unknown): unknown => addLeaderHints(api.apiKey, version, res, broker);
      const notLeader: PartitionTarget = (topic, partition) => {
        const count = broker.topics.get(topic)?.partitionCount;
        return count !== undefined && partition >= 0 && partition < count && broker.cluster.leaderOf(topic, partition) !== self;
      };
      const lookup = topicLookup(broker);
      if (broker.cluster.size === 1 || !routing.partitions.targets(body, version, lookup, notLeader)) {
        const res = api.handle(body, ctx);
        return res instanceof Promise ? res.then(hinted) : hinted(res);
      }
      return routing.partitions
        .answer(body, version, lookup, ErrorCode.NOT_LEADER_OR_FOLLOWER, notLeader, async (rest) => api.handle(rest, ctx))
        .then((res) => (api.unanswered ? api.unanswered(body, hinted(res)) : hinted(res)));
    }
    case 'coordinated-groups':
      return listGroups(api, body, ctx, self);
    case 'transaction-coordinator': {
      // An empty id is the handler's to refuse (INVALID_REQUEST).
      const id = routing.transactionalIdOf(body);
      if (id === '' || broker.cluster.transactionCoordinatorOf(id) === self) return api.handle(body, ctx);
      return api.errorResponse(body, version, ErrorCode.NOT_COORDINATOR);
    }
    case 'any-broker':
      return api.handle(body, ctx);
  }
}

function routeGroups(api: ApiDefinition, list: GroupList, b: Obj, ctx: RequestContext, self: number): unknown {
  const { broker } = ctx;
  const errors = new Map<string, number>();
  for (const g of list.ids(b)) {
    const code = groupRoutingError(broker, self, g);
    if (code !== ErrorCode.NONE) errors.set(g, code);
  }
  if (errors.size === 0) return api.handle(b, ctx);
  const keep = new Set(list.ids(b).filter((g) => !errors.has(g)));
  const merge = (handled: Obj | null): Obj => {
    const served = new Map<string, Obj>((handled ? list.entries(handled) : []).map((e) => [e['groupId'], e]));
    const base = handled ?? (api.errorResponse(list.only(b, () => false), ctx.apiVersion, ErrorCode.NONE) as Obj);
    const entries = list.ids(b).map((g) => {
      const code = errors.get(g);
      if (code === undefined) return served.get(g) ?? errorEntry(api, list, b, g, ErrorCode.NONE, ctx);
      return errorEntry(api, list, b, g, code, ctx);
    });
    return list.withEntries(base, entries);
  };
  if (keep.size === 0) return merge(null);
  const handled = api.handle(list.only(b, (g) => keep.has(g)), ctx);
  return handled instanceof Promise ? handled.then((h) => merge(h as Obj)) : merge(handled as Obj);
}

function errorEntry(api: ApiDefinition, list: GroupList, b: Obj, groupId: string, errorCode: number, ctx: RequestContext): Obj {
  const res = api.errorResponse(list.only(b, (g) => g === groupId), ctx.apiVersion, errorCode);
  return list.entries(res)[0] ?? { groupId, errorCode };
}

/** ListGroups on one broker of the cluster: the groups it coordinates; COORDINATOR_LOAD_IN_PROGRESS while any of them loads. */
function listGroups(api: ApiDefinition, body: unknown, ctx: RequestContext, self: number): unknown {
  const { cluster } = ctx.broker;
  const loading = cluster.anyLoading();
  const filter = (res: Obj): Obj => {
    if (!res || typeof res !== 'object' || res['errorCode'] !== ErrorCode.NONE) return res;
    const groups: Obj[] = cluster.size > 1 ? (res['groups'] ?? []).filter((g: Obj) => cluster.coordinatorOf(g['groupId']) === self) : res['groups'] ?? [];
    if (loading.all || groups.some((g) => loading.groups.includes(g['groupId']))) return { ...res, errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, groups: [] };
    return { ...res, groups };
  };
  if (cluster.size === 1 && !loading.all && loading.groups.length === 0) return api.handle(body, ctx);
  const res = api.handle(body, ctx);
  return res instanceof Promise ? res.then((r) => filter(r as Obj)) : filter(res as Obj);
}

/**
 * The handlers as the simulated cluster serves them: each `handle` goes through `routeRequest`
 * first. Fault rules still come before (they wrap `handle`), so a rule can match `brokerId`.
 */
export function clusterHandlers(handlers: ReadonlyMap<number, ApiDefinition>): ReadonlyMap<number, ApiDefinition> {
  const out = new Map<number, ApiDefinition>();
  for (const [key, api] of handlers) {
    out.set(key, { ...api, handle: (body: unknown, ctx: RequestContext) => routeRequest(api, body, ctx) as ReturnType<ApiDefinition['handle']> });
  }
  return out;
}
