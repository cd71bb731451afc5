import type { Broker } from '../broker.js';
import { API_CODECS, API_NAMES, type ApiKeyWithCodec } from '../protocol/messages/index.js';
import { EMPTY_BYTES } from '../protocol/primitives.js';
import { defaultPartitionProduceResponse } from '../protocol/messages/ProduceResponse.js';
import { defaultPartitionData } from '../protocol/messages/FetchResponse.js';
import { defaultListOffsetsPartitionResponse } from '../protocol/messages/ListOffsetsResponse.js';
import { defaultCoordinator } from '../protocol/messages/FindCoordinatorResponse.js';
import { defaultDescribedGroup } from '../protocol/messages/DescribeGroupsResponse.js';
import { defaultDeletableGroupResult } from '../protocol/messages/DeleteGroupsResponse.js';
import { defaultCreatableTopicResult } from '../protocol/messages/CreateTopicsResponse.js';
import { defaultDeletableTopicResult } from '../protocol/messages/DeleteTopicsResponse.js';
import { defaultMetadataResponseTopic } from '../protocol/messages/MetadataResponse.js';
import { defaultDescribedGroup as defaultConsumerDescribedGroup } from '../protocol/messages/ConsumerGroupDescribeResponse.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = Record<string, any>;

/** The APIs whose errors sit per partition, so a fault can fail some partitions and let the rest through. */
export const PER_PARTITION_APIS: ReadonlySet<number> = new Set([0, 1, 2, 8, 9]);

/** A response with every field at its default (the codec's `default<Name>Response`). */
function defaultResponse(apiKey: number): Obj {
  const codec = API_CODECS[apiKey as ApiKeyWithCodec];
  const make = (codec?.response as Obj | undefined)?.[`default${API_NAMES[apiKey]}Response`] as (() => Obj) | undefined;
  return make ? make() : { throttleTimeMs: 0, errorCode: 0 };
}

/** How one per-partition API lays out topics and partitions in its request and response. */
interface Shape {
  reqTopics(b: Obj): Obj[] | null;
  withReqTopics(b: Obj, topics: Obj[]): Obj;
  reqTopicName(t: Obj): string;
  reqTopicKey(t: Obj): string;
  reqParts(t: Obj): any[];
  withReqParts(t: Obj, parts: any[]): Obj;
  partIndex(p: any): number;
  resTopics(r: Obj): Obj[];
  withResTopics(r: Obj, topics: Obj[]): Obj;
  resTopicKey(rt: Obj): string;
  resParts(rt: Obj): Obj[];
  resPartIndex(rp: Obj): number;
  newResTopic(t: Obj, parts: Obj[]): Obj;
  errorPart(index: number, code: number): Obj;
}

function nameOf(broker: Broker, name: string | null | undefined, topicId: string | undefined, byId: boolean): string {
  if (byId && topicId) return broker.topics.getById(topicId)?.name ?? `<id:${topicId}>`;
  return name ?? '';
}

function offsetFetchPartitionError(partitionIndex: number, errorCode: number): Obj {
  return { partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode };
}

function shapeOf(apiKey: number, version: number, broker: Broker): Shape | null {
  switch (apiKey) {
    case 0: {
      const byId = version >= 13;
      return {
        reqTopics: (b) => b['topicData'],
        withReqTopics: (b, topicData) => ({ ...b, topicData }),
        reqTopicName: (t) => nameOf(broker, t['name'], t['topicId'], byId),
        reqTopicKey: (t) => (byId ? t['topicId'] : t['name']),
        reqParts: (t) => t['partitionData'],
        withReqParts: (t, partitionData) => ({ ...t, partitionData }),
        partIndex: (p) => p.index,
        resTopics: (r) => r['responses'],
        withResTopics: (r, responses) => ({ ...r, responses }),
        resTopicKey: (rt) => (byId ? rt['topicId'] : rt['name']),
        resParts: (rt) => rt['partitionResponses'],
        resPartIndex: (rp) => rp['index'],
        newResTopic: (t, partitionResponses) => ({ name: byId ? '' : t['name'], topicId: t['topicId'], partitionResponses }),
        errorPart: (index, errorCode) => ({ ...defaultPartitionProduceResponse(), index, errorCode, baseOffset: -1n }),
      };
    }
    case 1: {
      const byId = version >= 13;
      return {
        reqTopics: (b) => b['topics'],
        withReqTopics: (b, topics) => ({ ...b, topics }),
        reqTopicName: (t) => nameOf(broker, t['topic'], t['topicId'], byId),
        reqTopicKey: (t) => (byId ? t['topicId'] : t['topic']),
        reqParts: (t) => t['partitions'],
        withReqParts: (t, partitions) => ({ ...t, partitions }),
        partIndex: (p) => p.partition,
        resTopics: (r) => r['responses'],
        withResTopics: (r, responses) => ({ ...r, responses }),
        resTopicKey: (rt) => (byId ? rt['topicId'] : rt['topic']),
        resParts: (rt) => rt['partitions'],
        resPartIndex: (rp) => rp['partitionIndex'],
        newResTopic: (t, partitions) => ({ topic: byId ? '' : t['topic'], topicId: t['topicId'], partitions }),
        errorPart: (partitionIndex, errorCode) => ({
          ...defaultPartitionData(),
          partitionIndex,
          errorCode,
          highWatermark: -1n,
          lastStableOffset: -1n,
          logStartOffset: -1n,
          abortedTransactions: null,
          records: EMPTY_BYTES,
        }),
      };
    }
    case 2:
      return {
        reqTopics: (b) => b['topics'],
        withReqTopics: (b, topics) => ({ ...b, topics }),
        reqTopicName: (t) => t['name'],
        reqTopicKey: (t) => t['name'],
        reqParts: (t) => t['partitions'],
        withReqParts: (t, partitions) => ({ ...t, partitions }),
        partIndex: (p) => p.partitionIndex,
        resTopics: (r) => r['topics'],
        withResTopics: (r, topics) => ({ ...r, topics }),
        resTopicKey: (rt) => rt['name'],
        resParts: (rt) => rt['partitions'],
        resPartIndex: (rp) => rp['partitionIndex'],
        newResTopic: (t, partitions) => ({ name: t['name'], partitions }),
        errorPart: (partitionIndex, errorCode) => ({ ...defaultListOffsetsPartitionResponse(), partitionIndex, errorCode }),
      };
    case 8: {
      const byId = version >= 10;
      return {
        reqTopics: (b) => b['topics'],
        withReqTopics: (b, topics) => ({ ...b, topics }),
        reqTopicName: (t) => nameOf(broker, t['name'], t['topicId'], byId),
        reqTopicKey: (t) => (byId ? t['topicId'] : t['name']),
        reqParts: (t) => t['partitions'],
        withReqParts: (t, partitions) => ({ ...t, partitions }),
        partIndex: (p) => p.partitionIndex,
        resTopics: (r) => r['topics'],
        withResTopics: (r, topics) => ({ ...r, topics }),
        resTopicKey: (rt) => (byId ? rt['topicId'] : rt['name']),
        resParts: (rt) => rt['partitions'],
        resPartIndex: (rp) => rp['partitionIndex'],
        newResTopic: (t, partitions) => ({ name: byId ? '' : t['name'], topicId: byId ? t['topicId'] : '', partitions }),
        errorPart: (partitionIndex, errorCode) => ({ partitionIndex, errorCode }),
      };
    }
    case 9: {
      // v1-7 (one group, topics at the top); v8+ is handled group by group with this shape.
      const byId = version >= 10;
      return {
        reqTopics: (b) => b['topics'],
        withReqTopics: (b, topics) => ({ ...b, topics }),
        reqTopicName: (t) => nameOf(broker, t['name'], t['topicId'], byId),
        reqTopicKey: (t) => (byId ? t['topicId'] : t['name']),
        reqParts: (t) => t['partitionIndexes'],
        withReqParts: (t, partitionIndexes) => ({ ...t, partitionIndexes }),
        partIndex: (p) => p as number,
        resTopics: (r) => r['topics'],
        withResTopics: (r, topics) => ({ ...r, topics }),
        resTopicKey: (rt) => (byId ? rt['topicId'] : rt['name']),
        resParts: (rt) => rt['partitions'],
        resPartIndex: (rp) => rp['partitionIndex'],
        newResTopic: (t, partitions) => (version >= 8 ? { name: byId ? '' : t['name'], topicId: byId ? t['topicId'] : '', partitions } : { name: t['name'], partitions }),
        errorPart: offsetFetchPartitionError,
      };
    }
    default:
      return null;
  }
}

/** Which partitions a fault targets: `(topic, partition) => true` to fail it. */
export type PartitionTarget = (topic: string, partition: number) => boolean;

/**
 * The response Kafka's `AbstractRequest.getErrorResponse` gives for a request failed as a whole
 * with `errorCode`: the error at the top level where the response has one, and on every entry
 * (partition, group, topic) the request named. The handler never runs.
 */
export function wholeErrorResponse(apiKey: number, version: number, body: unknown, errorCode: number, broker: Broker): unknown {
  const b = (body ?? {}) as Obj;
  const res = defaultResponse(apiKey);
  if ('errorCode' in res) res['errorCode'] = errorCode;
  const shape = shapeOf(apiKey, version, broker);
  switch (apiKey) {
    case 0:
    case 1:
    case 2:
    case 8:
      return shape!.withResTopics(res, (shape!.reqTopics(b) ?? []).map((t) => shape!.newResTopic(t, shape!.reqParts(t).map((p) => shape!.errorPart(shape!.partIndex(p), errorCode)))));
    case 9:
      if (version >= 8) {
        res['errorCode'] = 0;
        res['groups'] = (b['groups'] ?? []).map((g: Obj) => ({ groupId: g['groupId'], topics: [], errorCode }));
        return res;
      }
      if (version < 2) {
        // v1 has no top-level error: every named partition carries it.
        return shape!.withResTopics(res, (b['topics'] ?? []).map((t: Obj) => shape!.newResTopic(t, t['partitionIndexes'].map((p: number) => offsetFetchPartitionError(p, errorCode)))));
      }
      return res;
    case 3:
      // MetadataRequest.getErrorResponse: a null name becomes "" (the response may not hold null before v12).
      res['topics'] = (b['topics'] ?? []).map((t: Obj) => ({ ...defaultMetadataResponseTopic(), name: t['name'] ?? '', topicId: t['topicId'], errorCode }));
      return res;
    case 10:
      if (version >= 4) {
        res['coordinators'] = (b['coordinatorKeys'] ?? []).map((key: string) => ({ ...defaultCoordinator(), key, nodeId: -1, host: '', port: -1, errorCode, errorMessage: null }));
      } else {
        Object.assign(res, { nodeId: -1, host: '', port: -1 });
      }
      return res;
    case 11:
      res['memberId'] = b['memberId'] ?? '';
      res['generationId'] = -1;
      return res;
    case 15:
      res['groups'] = (b['groups'] ?? []).map((groupId: string) => ({ ...defaultDescribedGroup(), groupId, errorCode, groupState: '', authorizedOperations: -2147483648 }));
      return res;
    case 19:
      res['topics'] = (b['topics'] ?? []).map((t: Obj) => ({ ...defaultCreatableTopicResult(), name: t['name'], errorCode, numPartitions: -1, replicationFactor: -1, configs: null }));
      return res;
    case 20: {
      const names: Obj[] = [...(b['topicNames'] ?? []).map((name: string) => ({ name, topicId: '' })), ...(b['topics'] ?? [])];
      res['responses'] = names.map((t) => ({ ...defaultDeletableTopicResult(), name: t['name'], topicId: t['topicId'] || defaultDeletableTopicResult().topicId, errorCode }));
      return res;
    }
    case 42:
      res['results'] = (b['groupsNames'] ?? []).map((groupId: string) => ({ ...defaultDeletableGroupResult(), groupId, errorCode }));
      return res;
    case 69:
      res['groups'] = (b['groupIds'] ?? []).map((groupId: string) => ({ ...defaultConsumerDescribedGroup(), groupId, errorCode }));
      return res;
    default:
      return res;
  }
}

/** Splits one topics-list request (or one OffsetFetch v8+ group) into targeted partitions and the rest. */
function split(shape: Shape, b: Obj, target: PartitionTarget): { rest: Obj | null; any: boolean } {
  const topics = shape.reqTopics(b);
  if (topics === null) return { rest: b, any: false };
  let hit = false;
  const restTopics: Obj[] = [];
  for (const t of topics) {
    const name = shape.reqTopicName(t);
    const keep = shape.reqParts(t).filter((p) => !target(name, shape.partIndex(p)));
    if (keep.length !== shape.reqParts(t).length) hit = true;
    if (keep.length > 0) restTopics.push(shape.withReqParts(t, keep));
  }
  return { rest: restTopics.length > 0 ? shape.withReqTopics(b, restTopics) : null, any: hit };
}

/** Rebuilds the topics of a response in request order: targeted partitions get the error, the others what the handler said. */
function merge(shape: Shape, b: Obj, target: PartitionTarget, errorCode: number, handled: Obj | null): Obj[] {
  const byKey = new Map<string, Map<number, Obj>>();
  for (const rt of handled ? shape.resTopics(handled) : []) {
    const key = shape.resTopicKey(rt);
    const parts = byKey.get(key) ?? new Map<number, Obj>();
    for (const rp of shape.resParts(rt)) parts.set(shape.resPartIndex(rp), rp);
    byKey.set(key, parts);
  }
  return (shape.reqTopics(b) ?? []).map((t) => {
    const name = shape.reqTopicName(t);
    const handledParts = byKey.get(shape.reqTopicKey(t));
    return shape.newResTopic(
      t,
      shape.reqParts(t).map((p) => {
        const index = shape.partIndex(p);
        if (target(name, index)) return shape.errorPart(index, errorCode);
        return handledParts?.get(index) ?? shape.errorPart(index, 0);
      }),
    );
  });
}

/**
 * A per-partition fault: the targeted partitions answer `errorCode`, the rest of the request
 * is handled by `handle` (and only that rest reaches it, so the failed partitions change no
 * state). Returns null when the API has no per-partition errors (the caller fails the whole
 * request instead).
 */
export async function partialErrorResponse(
  apiKey: number,
  version: number,
  body: unknown,
  errorCode: number,
  target: PartitionTarget,
  broker: Broker,
  handle: (restBody: unknown) => unknown,
): Promise<unknown | null> {
  const shape = shapeOf(apiKey, version, broker);
  if (!shape) return null;
  const b = body as Obj;
  if (apiKey === 9 && version >= 8) {
    // Group by group: a group with no targeted partition goes through untouched.
    const groups: Obj[] = b['groups'] ?? [];
    const restGroups: Obj[] = [];
    for (const g of groups) {
      const { rest } = split(shape, g, target);
      if (rest) restGroups.push(rest);
    }
    const handled = restGroups.length > 0 ? ((await handle({ ...b, groups: restGroups })) as Obj) : null;
    const handledGroups = new Map<string, Obj>((handled?.['groups'] ?? []).map((g: Obj) => [g['groupId'], g]));
    const res = handled ?? defaultResponse(9);
    res['groups'] = groups.map((g) => {
      const got = handledGroups.get(g['groupId']);
      if (g['topics'] === null) return got ?? { groupId: g['groupId'], topics: [], errorCode: 0 };
      if (got && got['errorCode'] !== 0) return got;
      return { groupId: g['groupId'], errorCode: 0, topics: merge(shape, g, target, errorCode, got ?? null) };
    });
    return res;
  }
  if (apiKey === 0 && b['acks'] === 0) {
    const { rest } = split(shape, b, target);
    if (rest) await handle(rest);
    return NO_RESPONSE_MARKER;
  }
  const { rest } = split(shape, b, target);
  const handled = rest ? ((await handle(rest)) as Obj) : null;
  const res = handled && typeof handled === 'object' ? handled : defaultResponse(apiKey);
  return shape.withResTopics(res, merge(shape, b, target, errorCode, handled && typeof handled === 'object' ? handled : null));
}

/** Returned by `partialErrorResponse` for Produce with acks=0 (nothing is sent). */
export const NO_RESPONSE_MARKER = Symbol('no response (acks=0)');

/** Whether `target` selects at least one partition the request names (false when it names none). */
export function targetsAnyPartition(apiKey: number, version: number, body: unknown, target: PartitionTarget, broker: Broker): boolean {
  const shape = shapeOf(apiKey, version, broker);
  if (!shape) return false;
  const b = body as Obj;
  if (apiKey === 9 && version >= 8) return (b['groups'] ?? []).some((g: Obj) => split(shape, g, target).any);
  return split(shape, b, target).any;
}
