import { ErrorCode } from '../protocol/errors.js';
import { NO_RESPONSE, brokerIdOf, type ApiDefinition, type RequestContext } from '../apis/types.js';
import { NO_RESPONSE_MARKER, partialErrorResponse, targetsAnyPartition, wholeErrorResponse, type PartitionTarget } from '../faults/error-response.js';
import type { Broker } from '../broker.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = Record<string, any>;

/** APIs about one group, answered NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS as a whole (OffsetCommit: on every partition). */
const SINGLE_GROUP_APIS: ReadonlySet<number> = new Set([8, 11, 12, 13, 14, 47, 68]);

/** APIs naming several groups: each group not coordinated here gets its own error entry. */
interface GroupList {
  req(b: Obj): string[];
  withReq(b: Obj, keep: Set<string>): Obj;
  res(r: Obj): Obj[];
  withRes(r: Obj, entries: Obj[]): Obj;
  /** The request body for one group (to build its error entry with `wholeErrorResponse`). */
  one(b: Obj, groupId: string): Obj;
}

const MULTI_GROUP_APIS: ReadonlyMap<number, GroupList> = new Map<number, GroupList>([
  [9, {
    // OffsetFetch v8+ (v0-7 name one group: SINGLE_GROUP handling, see groupListOf).
    req: (b) => (b['groups'] ?? []).map((g: Obj) => g['groupId']),
    withReq: (b, keep) => ({ ...b, groups: (b['groups'] ?? []).filter((g: Obj) => keep.has(g['groupId'])) }),
    res: (r) => r['groups'] ?? [],
    withRes: (r, groups) => ({ ...r, groups }),
    one: (b, groupId) => ({ ...b, groups: (b['groups'] ?? []).filter((g: Obj) => g['groupId'] === groupId).slice(0, 1) }),
  }],
  [15, {
    req: (b) => b['groups'] ?? [],
    withReq: (b, keep) => ({ ...b, groups: (b['groups'] ?? []).filter((g: string) => keep.has(g)) }),
    res: (r) => r['groups'] ?? [],
    withRes: (r, groups) => ({ ...r, groups }),
    one: (b, groupId) => ({ ...b, groups: [groupId] }),
  }],
  [42, {
    req: (b) => b['groupsNames'] ?? [],
    withReq: (b, keep) => ({ ...b, groupsNames: (b['groupsNames'] ?? []).filter((g: string) => keep.has(g)) }),
    res: (r) => r['results'] ?? [],
    withRes: (r, results) => ({ ...r, results }),
    one: (b, groupId) => ({ ...b, groupsNames: [groupId] }),
  }],
  [69, {
    req: (b) => b['groupIds'] ?? [],
    withReq: (b, keep) => ({ ...b, groupIds: (b['groupIds'] ?? []).filter((g: string) => keep.has(g)) }),
    res: (r) => r['groups'] ?? [],
    withRes: (r, groups) => ({ ...r, groups }),
    one: (b, groupId) => ({ ...b, groupIds: [groupId] }),
  }],
]);

/** Per-partition APIs served only by a partition's leader. */
const LEADER_APIS: ReadonlySet<number> = new Set([0, 1, 2]);

const HEARTBEAT = 12;
const LIST_GROUPS = 16;
const JOIN_GROUP = 11;

/** The error a group API gets on this broker: NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, or NONE (serve it). */
export function groupRoutingError(broker: Broker, brokerId: number, groupId: string): number {
  // An empty group id is the handler's to refuse (INVALID_GROUP_ID), as Kafka validates before routing.
  if (groupId === '') return ErrorCode.NONE;
  if (broker.cluster.coordinatorOf(groupId) !== brokerId) return ErrorCode.NOT_COORDINATOR;
  if (broker.cluster.isLoading(groupId)) return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
  return ErrorCode.NONE;
}

function singleErrorResponse(apiKey: number, version: number, body: unknown, errorCode: number, broker: Broker): unknown {
  // Kafka's GroupCoordinatorService answers a classic Heartbeat NONE while the group is loading.
  if (apiKey === HEARTBEAT && errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) return wholeErrorResponse(apiKey, version, body, ErrorCode.NONE, broker);
  const res = wholeErrorResponse(apiKey, version, body, errorCode, broker) as Obj;
  if (apiKey === JOIN_GROUP) res['protocolName'] = version < 7 ? '' : null;
  return res;
}

/**
 * Serves one request as the broker `ctx.brokerId` of the simulated cluster would, before the
 * handler: group APIs sent to a broker that does not coordinate the group answer NOT_COORDINATOR
 * (per group for DescribeGroups, DeleteGroups, OffsetFetch v8+, ConsumerGroupDescribe; on every
 * partition for OffsetCommit), COORDINATOR_LOAD_IN_PROGRESS while `coordinatorLoadInProgress`
 * lasts (a classic Heartbeat gets NONE then, as Kafka); Produce, Fetch and ListOffsets answer
 * NOT_LEADER_OR_FOLLOWER on the partitions this broker does not lead while the rest is handled;
 * ListGroups lists only the groups this broker coordinates. Everything else goes to the handler.
 */
export function routeRequest(api: ApiDefinition, body: unknown, ctx: RequestContext): unknown {
  const { broker } = ctx;
  const self = brokerIdOf(ctx);
  const b = (body ?? {}) as Obj;
  const version = ctx.apiVersion;
  const key = api.apiKey;

  const multi = key === 9 && version < 8 ? undefined : MULTI_GROUP_APIS.get(key);
  if (SINGLE_GROUP_APIS.has(key) || (key === 9 && version < 8)) {
    const errorCode = groupRoutingError(broker, self, typeof b['groupId'] === 'string' ? b['groupId'] : '');
    if (errorCode !== ErrorCode.NONE) return singleErrorResponse(key, version, body, errorCode, broker);
    return api.handle(body, ctx);
  }
  if (multi) return routeGroups(api, multi, b, ctx, self);
  if (LEADER_APIS.has(key) && broker.cluster.size > 1) {
    const notLeader: PartitionTarget = (topic, partition) => {
      const count = broker.topics.get(topic)?.partitionCount;
      return count !== undefined && partition >= 0 && partition < count && broker.cluster.leaderOf(topic, partition) !== self;
    };
    if (!targetsAnyPartition(key, version, body, notLeader, broker)) return api.handle(body, ctx);
    return partialErrorResponse(key, version, body, ErrorCode.NOT_LEADER_OR_FOLLOWER, notLeader, broker, (rest) => api.handle(rest, ctx))
      .then((res) => (res === NO_RESPONSE_MARKER ? NO_RESPONSE : res));
  }
  if (key === LIST_GROUPS) return listGroups(api, body, ctx, self);
  return api.handle(body, ctx);
}

function routeGroups(api: ApiDefinition, list: GroupList, b: Obj, ctx: RequestContext, self: number): unknown {
  const { broker } = ctx;
  const errors = new Map<string, number>();
  for (const g of list.req(b)) {
    const code = groupRoutingError(broker, self, g);
    if (code !== ErrorCode.NONE) errors.set(g, code);
  }
  if (errors.size === 0) return api.handle(b, ctx);
  const keep = new Set(list.req(b).filter((g) => !errors.has(g)));
  const merge = (handled: Obj | null): Obj => {
    const served = new Map<string, Obj>((handled ? list.res(handled) : []).map((e) => [e['groupId'], e]));
    const base = handled ?? (wholeErrorResponse(api.apiKey, ctx.apiVersion, list.withReq(b, new Set()), ErrorCode.NONE, broker) as Obj);
    const entries = list.req(b).map((g) => {
      const code = errors.get(g);
      if (code === undefined) return served.get(g) ?? errorEntry(api, list, b, g, ErrorCode.NONE, ctx);
      return errorEntry(api, list, b, g, code, ctx);
    });
    return list.withRes(base, entries);
  };
  if (keep.size === 0) return merge(null);
  const handled = api.handle(list.withReq(b, keep), ctx);
  return handled instanceof Promise ? handled.then((h) => merge(h as Obj)) : merge(handled as Obj);
}

function errorEntry(api: ApiDefinition, list: GroupList, b: Obj, groupId: string, errorCode: number, ctx: RequestContext): Obj {
  const res = wholeErrorResponse(api.apiKey, ctx.apiVersion, list.one(b, groupId), errorCode, ctx.broker) as Obj;
  return list.res(res)[0] ?? { groupId, errorCode };
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
