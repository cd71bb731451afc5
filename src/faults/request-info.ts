import type { Broker } from '../broker.js';
import type { ApiDefinition } from '../apis/types.js';

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

/**
 * The group ids, member ids, transactional ids, topics and partitions a request names, from its API's `names`
 * declaration: empty ids left out, topics named by id looked up (`<id:...>` when unknown), a
 * topic named twice listed once with its partitions together.
 */
export function requestInfo(api: ApiDefinition, version: number, body: unknown, broker: Broker): RequestInfo {
  const names = api.names(body ?? {}, version);
  const info: RequestInfo = {
    groups: (names.groups ?? []).filter(named),
    memberIds: (names.members ?? []).filter(named),
    transactionalIds: (names.transactionalIds ?? []).filter(named),
    topics: new Map(),
  };
  for (const t of names.topics ?? []) {
    const name = t.topicId ? broker.topics.getById(t.topicId)?.name ?? `<id:${t.topicId}>` : t.name ?? '';
    addTopic(info, name, t.partitions);
  }
  return info;
}
