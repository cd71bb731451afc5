/**
 * The topics-and-partitions layout of a per-partition API, declared once in its API file from
 * the field names of its request and response: what the request names, Kafka's
 * `getErrorResponse` (every partition failed), and failing some partitions while the rest is
 * handled (fault rules, the simulated cluster's partition leaders).
 */
import type { NamedTopic, PartitionLayout, PartitionTarget, TopicLookup } from '../types.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = Record<string, any>;

/** Field names of one API's topics and partitions (a partition entry's `index` field, or none when the entries are the indexes). */
export interface TopicsFields {
  readonly topics: string;
  readonly name: string;
  readonly partitions: string;
  readonly index?: string;
}

export interface TopicsSpec<Res> {
  /**
   * The first version that addresses topics by id (`topicId`) instead of by name, in the request
   * and the response (whose name is then ""); absent: always by name.
   */
  readonly topicIdsFrom?: number;
  readonly request: TopicsFields;
  readonly response: TopicsFields & { readonly index: string };
  /** A response with every field at its default (the codec's `default<Name>Response`). */
  emptyResponse(): Res;
  /** The response entry of a partition answered `errorCode` (NONE for one the handler left out). */
  errorPartition(index: number, errorCode: number): object;
}

/** A flat topics list (the request's topics at the top level). */
export interface PartitionedTopics<Req, Res> extends PartitionLayout<Req, Res> {
  /** Whether `version` addresses topics by id (the one place this API's rule is written). */
  byId(version: number): boolean;
  /**
   * `req` with each topic once and each partition once, where Kafka collects a request's partitions
   * in a map (Produce's `authorizedRequestInfo`, Fetch's `fetchData`): a topic named twice is one
   * topic, where it was first named; a partition named twice is one entry, where it was first
   * named, with its last entry's fields (the map's last put). `req` itself when nothing repeats.
   */
  distinct(req: Req, version: number): Req;
  /** Kafka's `getErrorResponse` for a per-partition request: every partition named answers `errorCode` (the top-level error too, where the response has one). */
  failAll(req: Req, version: number, errorCode: number): Res;
  /** `req` without the targeted partitions (null when none is left), and whether any was targeted. */
  split(req: Obj, version: number, lookup: TopicLookup, target: PartitionTarget): { rest: Obj | null; any: boolean };
  /** The response topics in request order: targeted partitions answer `errorCode`, the others what `handled` says. */
  merge(req: Obj, version: number, lookup: TopicLookup, target: PartitionTarget, errorCode: number, handled: Obj | null): Obj[];
  readonly spec: TopicsSpec<Res>;
}

const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object';

/**
 * Declares a per-partition API's topics, e.g. Produce's:
 * ```ts
 * partitionedTopics({
 *   topicIdsFrom: 13,
 *   request: { topics: 'topicData', name: 'name', partitions: 'partitionData', index: 'index' },
 *   response: { topics: 'responses', name: 'name', partitions: 'partitionResponses', index: 'index' },
 *   emptyResponse: defaultProduceResponse,
 *   errorPartition: (index, errorCode) => ({ ...defaultPartitionProduceResponse(), index, errorCode, baseOffset: -1n }),
 * })
 * ```
 */
/** The name a layout gives a topic named by an id the broker does not know (its handler answers UNKNOWN_TOPIC_ID). */
export function unknownTopicIdName(topicId: string): string {
  return `<id:${topicId}>`;
}

export function partitionedTopics<Req, Res>(spec: TopicsSpec<Res>): PartitionedTopics<Req, Res> {
  const { request: rq, response: rs } = spec;
  const byId = (version: number): boolean => spec.topicIdsFrom !== undefined && version >= spec.topicIdsFrom;
  const partIndex = (p: any): number => (rq.index === undefined ? (p as number) : p[rq.index]);
  const nameOf = (t: Obj, version: number, lookup: TopicLookup): string => {
    if (byId(version) && t['topicId']) return lookup(t['topicId']) ?? unknownTopicIdName(t['topicId']);
    return t[rq.name] ?? '';
  };
  const resTopic = (t: Obj, version: number, parts: object[]): Obj => {
    const id = byId(version);
    const topic: Obj = { [rs.name]: id ? '' : t[rq.name] };
    if (spec.topicIdsFrom !== undefined) topic['topicId'] = id ? t['topicId'] : '';
    topic[rs.partitions] = parts;
    return topic;
  };
  const withTopics = (res: Obj, topics: Obj[]): Obj => ({ ...res, [rs.topics]: topics });

  const split = (b: Obj, version: number, lookup: TopicLookup, target: PartitionTarget): { rest: Obj | null; any: boolean } => {
    const topics: Obj[] | null = b[rq.topics];
    if (topics === null || topics === undefined) return { rest: b, any: false };
    let any = false;
    const restTopics: Obj[] = [];
    for (const t of topics) {
      const name = nameOf(t, version, lookup);
      const parts: unknown[] = t[rq.partitions];
      const keep = parts.filter((p) => !target(name, partIndex(p)));
      if (keep.length !== parts.length) any = true;
      if (keep.length > 0) restTopics.push({ ...t, [rq.partitions]: keep });
    }
    return { rest: restTopics.length > 0 ? { ...b, [rq.topics]: restTopics } : null, any };
  };

  const merge = (b: Obj, version: number, lookup: TopicLookup, target: PartitionTarget, errorCode: number, handled: Obj | null): Obj[] => {
    const id = byId(version);
    const byKey = new Map<string, Map<number, Obj>>();
    for (const rt of handled ? (handled[rs.topics] as Obj[]) : []) {
      const key = id ? rt['topicId'] : rt[rs.name];
      const parts = byKey.get(key) ?? new Map<number, Obj>();
      for (const rp of rt[rs.partitions] as Obj[]) parts.set(rp[rs.index], rp);
      byKey.set(key, parts);
    }
    return ((b[rq.topics] as Obj[] | null) ?? []).map((t) => {
      const name = nameOf(t, version, lookup);
      const handledParts = byKey.get(id ? t['topicId'] : t[rq.name]);
      return resTopic(t, version, (t[rq.partitions] as unknown[]).map((p) => {
        const index = partIndex(p);
        if (target(name, index)) return spec.errorPartition(index, errorCode);
        return handledParts?.get(index) ?? spec.errorPartition(index, 0);
      }));
    });
  };

  const distinct = (b: Obj, version: number): Obj => {
    const topics: Obj[] | null = b[rq.topics];
    if (topics === null || topics === undefined) return b;
    const ids = byId(version);
    const keyOf = (t: Obj): string => (ids ? `id:${t['topicId']}` : `name:${t[rq.name]}`);
    // The usual request names each topic and partition once: checked without copying anything.
    const topicKeys = new Set<string>();
    let repeats = false;
    for (const t of topics) {
      const key = keyOf(t);
      const parts: unknown[] = t[rq.partitions];
      if (topicKeys.has(key) || (parts.length > 1 && new Set(parts.map(partIndex)).size !== parts.length)) repeats = true;
      topicKeys.add(key);
      if (repeats) break;
    }
    if (!repeats) return b;
    const byKey = new Map<string, { topic: Obj; partitions: Map<number, unknown> }>();
    for (const t of topics) {
      const key = keyOf(t);
      let entry = byKey.get(key);
      if (!entry) byKey.set(key, (entry = { topic: t, partitions: new Map() }));
      for (const p of t[rq.partitions] as unknown[]) entry.partitions.set(partIndex(p), p);
    }
    return { ...b, [rq.topics]: [...byKey.values()].map(({ topic, partitions }) => ({ ...topic, [rq.partitions]: [...partitions.values()] })) };
  };

  return {
    spec,
    byId,
    split,
    merge,
    distinct: (req, version) => distinct(req as Obj, version) as Req,
    // On every request (the request log): plain objects of one shape, no spreads.
    named: (req, version) => {
      const ids = byId(version);
      return (((req as Obj)[rq.topics] as Obj[] | null) ?? []).map(
        (t): NamedTopic => ({ name: t[rq.name] as string, topicId: ids ? (t['topicId'] as string) : undefined, partitions: (t[rq.partitions] as unknown[]).map(partIndex) }),
      );
    },
    failAll(req, version, errorCode) {
      const res = spec.emptyResponse() as Obj;
      if ('errorCode' in res) res['errorCode'] = errorCode;
      const topics = (((req as Obj)[rq.topics] as Obj[] | null) ?? []).map((t) =>
        resTopic(t, version, (t[rq.partitions] as unknown[]).map((p) => spec.errorPartition(partIndex(p), errorCode))),
      );
      return withTopics(res, topics) as Res;
    },
    targets: (req, version, lookup, target) => split(req as Obj, version, lookup, target).any,
    async answer(req, version, lookup, errorCode, target, handle) {
      const { rest } = split(req as Obj, version, lookup, target);
      const handled = rest ? await handle(rest as Req) : null;
      const answered = isObject(handled) ? handled : null;
      return withTopics(answered ?? (spec.emptyResponse() as Obj), merge(req as Obj, version, lookup, target, errorCode, answered)) as Res;
    },
  };
}

/**
 * Topics inside groups from version `from` on (OffsetFetch v8+: `groups[].topics`, each group
 * answered by its own entry); before it, the flat layout `inner`. A group whose topics are null
 * (every committed offset) is handled as it is.
 */
export function topicsInGroups<Req, Res>(inner: PartitionedTopics<Req, Res>, from: number, groups: { readonly request: string; readonly response: string }): PartitionLayout<Req, Res> {
  const groupsOf = (b: Obj): Obj[] => b[groups.request] ?? [];
  return {
    named: (req, version) => (version < from ? inner.named(req, version) : groupsOf(req as Obj).flatMap((g) => inner.named(g as Req, version))),
    targets: (req, version, lookup, target) =>
      version < from ? inner.targets(req, version, lookup, target) : groupsOf(req as Obj).some((g) => inner.split(g, version, lookup, target).any),
    async answer(req, version, lookup, errorCode, target, handle) {
      if (version < from) return inner.answer(req, version, lookup, errorCode, target, handle);
      const all = groupsOf(req as Obj);
      const restGroups = all.map((g) => inner.split(g, version, lookup, target).rest).filter((g): g is Obj => g !== null);
      const handled = restGroups.length > 0 ? ((await handle({ ...(req as Obj), [groups.request]: restGroups } as Req)) as Obj) : null;
      const handledGroups = new Map<string, Obj>(((handled?.[groups.response] ?? []) as Obj[]).map((g) => [g['groupId'], g]));
      const res = handled ?? (inner.spec.emptyResponse() as Obj);
      res[groups.response] = all.map((g) => {
        const got = handledGroups.get(g['groupId']);
        if (g[inner.spec.request.topics] === null) return got ?? { groupId: g['groupId'], [inner.spec.response.topics]: [], errorCode: 0 };
        if (got && got['errorCode'] !== 0) return got;
        return { groupId: g['groupId'], errorCode: 0, [inner.spec.response.topics]: inner.merge(g, version, lookup, target, errorCode, got ?? null) };
      });
      return res as Res;
    },
  };
}
