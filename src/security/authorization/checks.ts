import { topicLookup, type ApiDefinition, type PartitionTarget, type RequestContext, type TopicLookup } from '../../apis/types.js';
import { unknownTopicIdName } from '../../apis/shapes/partitioned-topics.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ResourceType } from '../acl/acl-types.js';
import type { RequestAuth } from './request-auth.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Obj = Record<string, any>;

/** The rest of the request's path (routing, then the handler) for a (possibly narrowed) body. */
export type Next = (body: any) => unknown;

/**
 * What one API checks, as Kafka 4.3's `KafkaApis` (or `ControllerApis`, `AclApis`) checks it for
 * that API: answer an authorization error, narrow the request to what is allowed and merge the
 * refusals into the handler's answer, or adjust the answer (authorized operations, filtered lists).
 * `api` is the API's definition (its `errorResponse` and `partitions` declarations).
 */
export type ApiCheck = (body: any, ctx: RequestContext, auth: RequestAuth, next: Next, api: ApiDefinition) => unknown;

/** Applies `f` to a handler result, whether it is a promise or not. */
export function mapResult<T>(result: unknown, f: (value: any) => T): T | Promise<T> {
  return result instanceof Promise ? result.then(f) : f(result);
}

/** The request's error response (`AbstractRequest.getErrorResponse`, the API's `errorResponse`) with `errorCode`. */
export function refuse(api: ApiDefinition, ctx: RequestContext, body: unknown, errorCode: number): Obj {
  return api.errorResponse(body, ctx.apiVersion, errorCode) as Obj;
}

/** No check (ApiVersions, SaslHandshake, SaslAuthenticate). */
export const none: ApiCheck = (body, _ctx, _auth, next) => next(body);

/** `authorizeClusterOperation`: the whole request refused with CLUSTER_AUTHORIZATION_FAILED without `operation` on the cluster. */
export function clusterOperation(operation: number): ApiCheck {
  return (body, ctx, auth, next, api) => (auth.cluster(operation) ? next(body) : refuse(api, ctx, body, ErrorCode.CLUSTER_AUTHORIZATION_FAILED));
}

/** A one-group API: GROUP_AUTHORIZATION_FAILED as a whole without `operation` on the group (`getErrorResponse`). */
export function groupOperation(operation: number, then_: ApiCheck = none): ApiCheck {
  return (body, ctx, auth, next, api) => {
    if (auth.allowed(operation, ResourceType.GROUP, (body as Obj)['groupId'] ?? '')) return then_(body, ctx, auth, next, api);
    return refuse(api, ctx, body, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  };
}

/**
 * A per-partition API (Produce, Fetch, ListOffsets, OffsetCommit, OffsetFetch v1-7, OffsetDelete):
 * the partitions of topics without `operation` answer TOPIC_AUTHORIZATION_FAILED and never reach
 * the handler, the rest is handled (Kafka's `filterByAuthorized` over the topics). A topic id the
 * broker does not know goes on to the handler (UNKNOWN_TOPIC_ID comes first in Kafka). An acks=0
 * Produce with a refused partition closes the connection after handling the rest, as Kafka does.
 * `own` is the layout of an API that declares none (OffsetDelete, routed to its group coordinator).
 */
export function topicPartitions(operation: number, denyAll = false, own?: ApiDefinition['partitions']): ApiCheck {
  return async (body, ctx, auth, next, api) => {
    const { apiVersion: version, broker } = ctx;
    const layout = own ?? api.partitions;
    if (!layout) throw new Error(`${api.name} declares no partition layout (ApiDefinition.partitions)`);
    // Topic ids the broker does not know, by the names this lookup gave them: only these skip the
    // check (a topic *named* like one is checked as any name: adversarial trial 18).
    const known = topicLookup(broker);
    const unknownIds = new Set<string>();
    const lookup: TopicLookup = (topicId) => {
      const name = known(topicId);
      if (name !== undefined) return name;
      const unknown = unknownTopicIdName(topicId);
      unknownIds.add(unknown);
      return unknown;
    };
    const target: PartitionTarget = (topic) => denyAll || (!unknownIds.has(topic) && !auth.allowed(operation, ResourceType.TOPIC, topic));
    if (!layout.targets(body, version, lookup, target)) return next(body);
    const res = await layout.answer(body, version, lookup, ErrorCode.TOPIC_AUTHORIZATION_FAILED, target, async (rest) => next(rest));
    return api.unanswered ? api.unanswered(body, res) : res;
  };
}

/**
 * An API naming several groups (DescribeGroups, DeleteGroups, ConsumerGroupDescribe): groups
 * without `operation` get `refused(groupId)` and the rest is handled; `order` puts the refused
 * entries before (Kafka's describe APIs) or after (DeleteGroups) the handled ones.
 */
export function perGroup(spec: {
  operation: number;
  groups: (b: Obj) => string[];
  withGroups: (b: Obj, groups: string[]) => Obj;
  entries: (r: Obj) => Obj[];
  withEntries: (r: Obj, entries: Obj[]) => Obj;
  refused: (groupId: string, ctx: RequestContext, api: ApiDefinition) => Obj;
  order: 'refused-first' | 'refused-last';
}): ApiCheck {
  return (body, ctx, auth, next, api) => {
    const groups = spec.groups(body);
    const denied = groups.filter((g) => !auth.allowed(spec.operation, ResourceType.GROUP, g));
    if (denied.length === 0) return next(body);
    const refusedEntries = denied.map((g) => spec.refused(g, ctx, api));
    const merge = (res: Obj): Obj => spec.withEntries(res, spec.order === 'refused-first' ? [...refusedEntries, ...spec.entries(res)] : [...spec.entries(res), ...refusedEntries]);
    const allowed = groups.filter((g) => !denied.includes(g));
    if (allowed.length === 0) return merge(refuse(api, ctx, spec.withGroups(body, []), ErrorCode.NONE));
    return mapResult(next(spec.withGroups(body, allowed)), merge);
  };
}

/** Sets `authorizedOperations` on the entries that succeeded, when the request asked (DescribeGroups v3+, ConsumerGroupDescribe). */
export function withGroupOperations(res: Obj, asked: boolean, auth: RequestAuth): Obj {
  if (!asked) return res;
  for (const g of res['groups'] ?? []) if (g.errorCode === ErrorCode.NONE) g.authorizedOperations = auth.operations(ResourceType.GROUP, g.groupId);
  return res;
}
