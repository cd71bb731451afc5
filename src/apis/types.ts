import type { Logger } from 'pino';
import type { Broker } from '../broker.js';
import type { KafkaPrincipal } from '../security/principal.js';

/** What a handler knows about the request it serves. */
export interface RequestContext {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  /** Client id from the request header ("" when null). */
  readonly clientId: string;
  /** Remote address as Kafka reports it in member metadata: "/127.0.0.1". */
  readonly clientHost: string;
  readonly connectionId: string;
  readonly broker: Broker;
  /**
   * The simulated broker (`--brokers N`) whose listener received the request; absent means
   * `broker.nodeId` (the first one). Read it through `brokerIdOf(ctx)`.
   */
  readonly brokerId?: number;
  /** The listener that received the request (`listeners`, upper case); absent means the first one. */
  readonly listener?: string;
  /** Who sent it (`User:ANONYMOUS` on PLAINTEXT); absent means `User:ANONYMOUS`. */
  readonly principal?: KafkaPrincipal;
  /**
   * With an authorizer, whether the principal may do `operation` (an `AclOperation`) on topic
   * `topic` (Kafka's `AuthHelper.authorize` on a TOPIC resource), for the handlers that check
   * topics themselves (ShareFetch, ShareAcknowledge); absent without one (everything allowed).
   */
  readonly authorizeTopic?: (operation: number, topic: string) => boolean;
  readonly log: Logger;
}

/** The id of the broker serving this request (see `RequestContext.brokerId`). */
export function brokerIdOf(ctx: Pick<RequestContext, 'broker' | 'brokerId'>): number {
  return ctx.brokerId ?? ctx.broker.nodeId;
}

/** Topic names by id, as `broker` knows them. */
export function topicLookup(broker: Pick<Broker, 'topics'>): TopicLookup {
  return (topicId) => broker.topics.getById(topicId)?.name;
}

/** Returned by a handler that must not answer (Produce with acks=0). */
export const NO_RESPONSE = Symbol('no response');

/**
 * How a request handed on by the connection (`FaultRegistry.dispatch`) tells it that it ended
 * after the call returned: the connection's own methods, called once, so the connection waits on
 * no promise of its own per request (issue #16).
 */
export interface RequestDone {
  /** Answered (or ended without an answer): the connection takes its next request. */
  requestDone(): void;
  /** Failed: the connection closes (a `CloseConnection` says why). */
  requestFailed(err: unknown): void;
}

/** What `FaultRegistry.dispatch` returns when it will call the `RequestDone` it was given. */
export const CALLS_BACK = Symbol('calls back');

/**
 * Thrown (or rejected) by a handler to close the connection without an answer where Kafka does so
 * on purpose (an acks=0 Produce that failed: the client learns of it only by the close). Logged at
 * info, unlike a handler failure.
 */
export class CloseConnection extends Error {
  override readonly name: string = 'CloseConnection';
}

/** A topic's name by its id (`TopicStore.getById`), undefined when no topic has that id. */
export type TopicLookup = (topicId: string) => string | undefined;

/** Which partitions an error targets: `(topic name, partition index) => true` to fail it. */
export type PartitionTarget = (topic: string, partition: number) => boolean;

/** One topic a request names. */
export interface NamedTopic {
  readonly name?: string | null;
  /** Set when the request addresses the topic by id: the name is then looked up (`<id:...>` when unknown). */
  readonly topicId?: string;
  /** The partitions named; null when the topic is named as a whole (Metadata, CreateTopics). */
  readonly partitions: readonly number[] | null;
}

/**
 * What a request names, for fault rule matching (`match.group`, `memberId`, `topic`,
 * `partitions`, `transactionalId`) and the request log. Empty and null ids are left out by the reader.
 */
export interface RequestNames {
  readonly groups?: readonly (string | null | undefined)[];
  readonly members?: readonly (string | null | undefined)[];
  readonly topics?: readonly NamedTopic[];
  /** Transactional ids (InitProducerId, EndTxn, a transactional Produce, FindCoordinator key type 1, ...). */
  readonly transactionalIds?: readonly (string | null | undefined)[];
}

/**
 * The topics and partitions of a per-partition API (errors per partition: Produce, Fetch,
 * ListOffsets, OffsetCommit, OffsetFetch), so that some partitions can be failed (a fault rule
 * with `topic`/`partitions`, a broker that does not lead them) while the rest is handled.
 * Built by `partitionedTopics` (src/apis/shapes/partitioned-topics.ts).
 */
export interface PartitionLayout<Req = any, Res = any> {
  /** The topics and partitions `req` names, in request order. */
  named(req: Req, version: number): NamedTopic[];
  /** Whether `target` selects at least one partition `req` names. */
  targets(req: Req, version: number, lookup: TopicLookup, target: PartitionTarget): boolean;
  /**
   * Answers the targeted partitions with `errorCode` and hands only the rest of the request to
   * `handle` (the failed partitions change no state); the response lists every partition in
   * request order.
   */
  answer(req: Req, version: number, lookup: TopicLookup, errorCode: number, target: PartitionTarget, handle: (rest: Req) => Promise<unknown>): Promise<Res>;
}

/**
 * The groups of a request that names several (DescribeGroups, DeleteGroups, OffsetFetch v8+,
 * ConsumerGroupDescribe), each answered by its own response entry. Built by `groupList`
 * (src/apis/shapes/group-list.ts).
 */
export interface GroupList<Req = any, Res = any> {
  /** The group ids named, in request order. */
  ids(req: Req): string[];
  /** The request naming only the groups `keep` accepts. */
  only(req: Req, keep: (groupId: string) => boolean): Req;
  /** The response's per-group entries. */
  entries(res: Res): Array<{ groupId: string }>;
  /** The response with these per-group entries. */
  withEntries(res: Res, entries: object[]): Res;
}

/**
 * How the simulated cluster (`--brokers N`, src/cluster/routing.ts) serves a request before its
 * handler; the helpers in src/apis/shapes/routing.ts build these.
 * - `any-broker`: every broker serves it.
 * - `group-coordinator`: one group; a broker that does not coordinate it answers
 *   `errorResponse(NOT_COORDINATOR)`, a loading coordinator COORDINATOR_LOAD_IN_PROGRESS (or
 *   `whileLoading`, as Kafka's classic Heartbeat answers NONE).
 * - `group-coordinators`: several groups, each answered by its own coordinator (the others get
 *   their error entry; the groups coordinated here are handled together).
 * - `partition-leaders`: partitions a broker does not lead answer NOT_LEADER_OR_FOLLOWER.
 * - `coordinated-groups`: a listing (ListGroups) of the groups this broker coordinates.
 * - `transaction-coordinator`: one transactional id; a broker that does not coordinate it answers
 *   `errorResponse(NOT_COORDINATOR)`.
 */
export type Routing<Req = any, Res = any> =
  | { readonly to: 'any-broker' }
  | { readonly to: 'group-coordinator'; groupOf(req: Req): string; readonly whileLoading?: number }
  | { readonly to: 'group-coordinators'; readonly groups: GroupList<Req, Res> }
  | { readonly to: 'partition-leaders'; readonly partitions: PartitionLayout<Req, Res> }
  | { readonly to: 'coordinated-groups' }
  | { readonly to: 'transaction-coordinator'; transactionalIdOf(req: Req): string };

/**
 * One Kafka API served by this broker: its versions, its handler, and what the fault layer and
 * the simulated cluster need to know about its requests (its error response, the names it
 * carries, its routing), declared next to the handler. `advertisedMinVersion` may be lower than
 * `minVersion` where Kafka 4.3 advertises versions it refuses (Produce v0-2): such
 * requests close the connection, as they do on a 4.3 broker.
 */
export interface ApiDefinition<Req = any, Res = any> {
  readonly apiKey: number;
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
  readonly advertisedMinVersion?: number;
  /**
   * The response to `req` failed as a whole with `errorCode`, as Kafka's
   * `AbstractRequest.getErrorResponse` for this request builds it: the error at the top level
   * where the response has one, and on every entry (partition, group, topic, key) the request
   * named. Used by fault rules and by the cluster's NOT_COORDINATOR answers; the handler does not run.
   */
  errorResponse(req: Req, version: number, errorCode: number): Res;
  /** The groups, member ids and topics `req` names. */
  names(req: Req, version: number): RequestNames;
  /** How the simulated cluster routes the request (per version where it changes). */
  readonly routing: Routing<Req, Res> | ((version: number) => Routing<Req, Res>);
  /** Per-partition APIs: their topics layout (fault rules with `topic`/`partitions` fail only those). */
  readonly partitions?: PartitionLayout<Req, Res>;
  /**
   * True for an API whose answer may be far larger than its request (every topic's metadata, every
   * offset or group): its response is encoded a slice per turn of the event loop
   * (`ELEMENTS_PER_SLICE` elements or `BYTES_PER_SLICE` bytes; the first slice at once, so a small
   * answer leaves in the same turn), whatever the request's size. Left out on the hot paths
   * (OffsetCommit, Heartbeat, Produce), whose answers are as small as their requests.
   */
  readonly largeAnswers?: boolean;
  /**
   * For a request whose client expects no answer (Produce with acks=0): what its answer `res`
   * becomes. NO_RESPONSE when `res` holds no error; else it throws a CloseConnection, as Kafka
   * closes the connection so that the client learns something failed and refreshes its metadata
   * (`KafkaApis.handleProduceRequest`). A request its client waits for gets `res` back. Every path
   * that answers for the handler (faults, routing, authorization) goes through it.
   */
  unanswered?(req: Req, res: Res): Res | typeof NO_RESPONSE;
  /**
   * The distinct non-zero error codes of a response in the order the request log's walk of any
   * response finds them (faults/request-log.ts `responseErrors`), read straight from its known
   * shape; null leaves it to that walk (a response too large to read in one go). For the hot
   * paths, where the generic walk is a visible part of each request (issue #16).
   */
  readonly errorCodes?: (response: Res) => readonly number[] | null;
  handle(request: Req, ctx: RequestContext): Res | typeof NO_RESPONSE | Promise<Res | typeof NO_RESPONSE>;
}

/** The routing of `api` at `version`. */
export function routingOf(api: ApiDefinition, version: number): Routing {
  return typeof api.routing === 'function' ? api.routing(version) : api.routing;
}
