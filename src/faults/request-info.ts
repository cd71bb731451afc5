import type { Broker } from '../broker.js';
import type { ApiDefinition, NamedTopic, RequestNames } from '../apis/types.js';
import { unknownTopicIdName } from '../apis/shapes/partitioned-topics.js';

/** What a request names, for matching fault rules and for the request log. */
export interface RequestInfo {
  groups: string[];
  memberIds: string[];
  transactionalIds: string[];
  /** Topic name -> partitions named (null: the topic is named without partitions). */
  topics: Map<string, number[] | null>;
}

/**
 * The partitions list of a topic named once is the one `names` built, not a copy (a request of a
 * million partitions is on the request path); a topic named twice gets a new list of both.
 */
function addTopic(info: RequestInfo, topic: string, partitions: readonly number[] | null): void {
  const have = info.topics.get(topic);
  if (have === undefined || have === null) info.topics.set(topic, partitions === null ? have ?? null : (partitions as number[]));
  else if (partitions !== null) info.topics.set(topic, have.concat(partitions));
}

const named = (id: unknown): id is string => typeof id === 'string' && id !== '';

/** The ids named (empty ones left out); `ids` itself when all are named (a fresh array from `names`, not kept by the API). */
export function namedIds(ids: readonly (string | null | undefined)[] | undefined): string[] {
  if (ids === undefined) return [];
  for (let i = 0; i < ids.length; i++) if (!named(ids[i])) return ids.filter(named);
  return ids as string[];
}

export function firstNamed(ids: readonly (string | null | undefined)[] | undefined): string | null {
  if (ids !== undefined) for (const id of ids) if (named(id)) return id;
  return null;
}

function topicName(t: NamedTopic, broker: Broker): string {
  return t.topicId ? broker.topics.getById(t.topicId)?.name ?? unknownTopicIdName(t.topicId) : t.name ?? '';
}

/** The names of a request, from its API's `names` declaration (computed once per request, shared by the log and the rules). */
export function requestNames(api: ApiDefinition, version: number, body: unknown): RequestNames {
  return api.names(body ?? {}, version);
}

/**
 * How much of a request's names one request log entry keeps: the first names up to this many and
 * this many characters in all. The log keeps 1,000 requests, and a Metadata or DescribeGroups
 * request may name tens of thousands of ids of up to 32,767 characters each (adversarial trial 11:
 * 1,000 entries of 20,000 names held 4 GiB); fault rules still see every name.
 */
export const LOGGED_NAMES_MAX = 100;
export const LOGGED_NAMES_CHARS = 8192;

/**
 * Puts into `target` (an entry's own array, refilled) the first of `names` within the log's bounds;
 * its length is set only when it changes (a call into V8's runtime otherwise, on every request).
 */
function fillBounded(target: string[], names: readonly string[]): void {
  let chars = 0;
  let n = 0;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    chars += name.length;
    if (n >= LOGGED_NAMES_MAX || chars > LOGGED_NAMES_CHARS) break;
    target[n++] = name;
  }
  if (target.length !== n) target.length = n;
}

/**
 * The topics the request log keeps of a request (see `requestInfo` for the rules of naming), into
 * `target`: each once, in request order, without the partitions (only fault rules look at those),
 * within the log's bounds; on every request. A topic named by a name it has is logged with the
 * topic's own string, not the request's copy, which the log would otherwise keep alive.
 */
export function fillLoggedTopics(target: string[], names: RequestNames, broker: Broker): void {
  const list = names.topics;
  if (list === undefined || list.length === 0) {
    if (target.length !== 0) target.length = 0;
    return;
  }
  if (list.length === 1) {
    const name = topicName(list[0]!, broker);
    if (name.length > LOGGED_NAMES_CHARS) {
      if (target.length !== 0) target.length = 0;
      return;
    }
    target[0] = broker.topics.get(name)?.name ?? name;
    if (target.length !== 1) target.length = 1;
    return;
  }
  const unique = new Set<string>();
  for (const t of list) {
    unique.add(topicName(t, broker));
    if (unique.size > LOGGED_NAMES_MAX) break;
  }
  fillBounded(target, [...unique]);
}

/** The group ids the request log keeps of a request, into `target`: named ones, within the log's bounds. */
export function fillLoggedGroups(target: string[], ids: readonly (string | null | undefined)[] | undefined): void {
  fillBounded(target, ids === undefined ? NO_IDS : namedIds(ids));
}

const NO_IDS: readonly string[] = [];

/**
 * The group ids, member ids, transactional ids, topics and partitions a request names, from its API's `names`
 * declaration: empty ids left out, topics named by id looked up (`<id:...>` when unknown), a
 * topic named twice listed once with its partitions together.
 */
export function requestInfo(api: ApiDefinition, version: number, body: unknown, broker: Broker, names: RequestNames = requestNames(api, version, body)): RequestInfo {
  const info: RequestInfo = {
    groups: namedIds(names.groups),
    memberIds: namedIds(names.members),
    transactionalIds: namedIds(names.transactionalIds),
    topics: new Map(),
  };
  for (const t of names.topics ?? []) addTopic(info, topicName(t, broker), t.partitions);
  return info;
}
