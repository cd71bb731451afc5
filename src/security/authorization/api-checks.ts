import { defaultDescribedGroup as defaultConsumerGroup } from '../../protocol/messages/ConsumerGroupDescribeResponse.js';
import { defaultDescribedGroup as defaultShareGroup } from '../../protocol/messages/ShareGroupDescribeResponse.js';
import { defaultDescribedGroup as defaultStreamsGroup } from '../../protocol/messages/StreamsGroupDescribeResponse.js';
import { defaultMetadataResponseTopic } from '../../protocol/messages/MetadataResponse.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { OffsetDeleteRequest } from '../../protocol/messages/OffsetDeleteRequest.js';
import { defaultOffsetDeleteResponse, type OffsetDeleteResponse } from '../../protocol/messages/OffsetDeleteResponse.js';
import { partitionedTopics } from '../../apis/shapes/partitioned-topics.js';
import { errorMessageOf } from '../../protocol/error-messages.js';
import { ZERO_UUID } from '../../protocol/primitives.js';
import { GROUP_METADATA_TOPIC_NAME, isValidTopicName } from '../../topics/topic-name.js';
import { AclOperation as Op, ResourceType } from '../acl/acl-types.js';
import { TXN_API_CHECKS } from './txn-checks.js';
import type { RequestContext } from '../../apis/types.js';
import { clusterOperation, groupOperation, none, perGroup, refuse, mapResult, topicPartitions, withGroupOperations, type ApiCheck, type Obj } from './checks.js';

const { TOPIC, GROUP, TRANSACTIONAL_ID } = ResourceType;
const OMITTED = -2147483648;

/** OffsetDelete's topics and partitions, for its per-partition TOPIC_AUTHORIZATION_FAILED. */
const OFFSET_DELETE_PARTITIONS = partitionedTopics<OffsetDeleteRequest, OffsetDeleteResponse>({
  request: { topics: 'topics', name: 'name', partitions: 'partitions', index: 'partitionIndex' },
  response: { topics: 'topics', name: 'name', partitions: 'partitions', index: 'partitionIndex' },
  emptyResponse: defaultOffsetDeleteResponse,
  errorPartition: (partitionIndex, errorCode) => ({ partitionIndex, errorCode }),
});

/** A batch's attributes say transactional (bit 4), as `RequestUtils.hasTransactionalRecords` reads the first batch of each partition. */
function hasTransactionalRecords(req: Obj): boolean {
  return (req['topicData'] ?? []).some((t: Obj) => t['partitionData'].some((p: Obj) => {
    const records: Buffer | null = p['records'];
    return records !== null && records.length >= 23 && (records.readInt16BE(21) & 0x10) !== 0;
  }));
}

/** Produce: WRITE on the transactional id for transactional batches, WRITE on each topic. */
const produce: ApiCheck = (req, ctx, auth, next, api) => {
  if (hasTransactionalRecords(req) && (req.transactionalId === null || !auth.allowed(Op.WRITE, TRANSACTIONAL_ID, req.transactionalId))) {
    return refuse(api, ctx, req, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  }
  return topicPartitions(Op.WRITE)(req, ctx, auth, next, api);
};

/**
 * DescribeProducers: READ on each topic with a legal name (`KafkaApis.handleDescribeProducersRequest`
 * checks the name first): a refused topic's partitions answer TOPIC_AUTHORIZATION_FAILED with the
 * error's message, in request order.
 */
const describeProducers: ApiCheck = (req, ctx, auth, next) => {
  const refused = (t: Obj): boolean => isValidTopicName(t['name']) && !auth.allowed(Op.READ, TOPIC, t['name']);
  const topics: Obj[] = req.topics;
  if (!topics.some(refused)) return next(req);
  return mapResult(next({ ...req, topics: topics.filter((t) => !refused(t)) }), (res) => {
    const handled: Obj[] = [...res['topics']];
    const message = errorMessageOf(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    return {
      ...res,
      topics: topics.map((t) =>
        refused(t)
          ? { name: t['name'], partitions: t['partitionIndexes'].map((partitionIndex: number) => ({ partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: message, activeProducers: [] })) }
          : handled.shift(),
      ),
    };
  });
};

/**
 * The share-group offset APIs, as `KafkaApis.handleAlterShareGroupOffsetsRequest` and
 * `handleDeleteShareGroupOffsetsRequest`: `groupOp` on the group, else GROUP_AUTHORIZATION_FAILED
 * as a whole; a topic without READ answers TOPIC_AUTHORIZATION_FAILED (`refusedEntry`), before the
 * others; a top-level error of the rest is the whole answer.
 */
function shareOffsetsCheck(groupOp: number, refusedEntry: (topic: Obj, ctx: RequestContext, message: string | null) => Obj): ApiCheck {
  return groupOperation(groupOp, (req, ctx, auth, next) => {
    const refused = (req.topics as Obj[]).filter((t) => !auth.allowed(Op.READ, TOPIC, t['topicName']));
    if (refused.length === 0) return next(req);
    const message = errorMessageOf(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    return mapResult(next({ ...req, topics: (req.topics as Obj[]).filter((t) => !refused.includes(t)) }), (res: Obj) =>
      res['errorCode'] !== ErrorCode.NONE ? res : { ...res, responses: [...refused.map((t) => refusedEntry(t, ctx, message)), ...res['responses']] },
    );
  });
}

/** AlterShareGroupOffsets: READ on the group; a refused topic fails on each partition (with its id). */
const alterShareGroupOffsets = shareOffsetsCheck(Op.READ, (t, ctx, errorMessage) => ({
  topicName: t['topicName'],
  topicId: ctx.broker.topics.get(t['topicName'])?.topicId ?? ZERO_UUID,
  partitions: t['partitions'].map((p: Obj) => ({ partitionIndex: p['partitionIndex'], errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage })),
}));

/** DeleteShareGroupOffsets: DELETE on the group; a refused topic fails as a whole. */
const deleteShareGroupOffsets = shareOffsetsCheck(Op.DELETE, (t, _ctx, errorMessage) => ({ topicName: t['topicName'], topicId: ZERO_UUID, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage }));

/** DescribeShareGroupOffsets' groups: DESCRIBE on each group (refused groups first, without topics). */
const DESCRIBE_SHARE_GROUPS = perGroup({ operation: Op.DESCRIBE, groups: (b) => b['groups'].map((g: Obj) => g.groupId), withGroups: (b, ids) => ({ ...b, groups: b['groups'].filter((g: Obj) => ids.includes(g.groupId)) }), entries: (r) => r['groups'] ?? [], withEntries: (r, groups) => ({ ...r, groups }), refused: (groupId) => ({ groupId, topics: [], errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: null }), order: 'refused-first' });

/**
 * DescribeShareGroupOffsets, as `KafkaApis.describeShareGroupOffsetsForGroup` and
 * `describeShareGroupAllOffsetsForGroup`: DESCRIBE on each group; of named topics, those without
 * DESCRIBE are answered after the others (start offset and lag -1, TOPIC_AUTHORIZATION_FAILED); of
 * all the group's topics, those without DESCRIBE are left out; a group's error is its whole answer.
 */
const describeShareGroupOffsets: ApiCheck = (req, ctx, auth, next, api) => {
  const denied = (t: Obj): boolean => !auth.allowed(Op.DESCRIBE, TOPIC, t['topicName']);
  const refusedTopics = new Map<string, Obj[]>();
  const groups = (req.groups as Obj[]).map((g) => {
    if (g['topics'] === null) return g;
    refusedTopics.set(g['groupId'], (g['topics'] as Obj[]).filter(denied));
    return { ...g, topics: (g['topics'] as Obj[]).filter((t) => !denied(t)) };
  });
  const message = errorMessageOf(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  return mapResult(DESCRIBE_SHARE_GROUPS({ ...req, groups }, ctx, auth, next, api), (res: Obj) => ({
    ...res,
    groups: (res['groups'] as Obj[]).map((g) => {
      if (g['errorCode'] !== ErrorCode.NONE) return g;
      const refused = refusedTopics.get(g['groupId']);
      if (refused === undefined) return { ...g, topics: (g['topics'] as Obj[]).filter((t) => !denied(t)) };
      const failed = refused.map((t) => ({
        topicName: t['topicName'],
        topicId: ZERO_UUID,
        partitions: (t['partitions'] as number[]).map((partitionIndex) => ({ partitionIndex, startOffset: -1n, leaderEpoch: 0, lag: -1n, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: message })),
      }));
      return { ...g, topics: [...g['topics'], ...failed] };
    }),
  }));
};

/** WriteTxnMarkers: ALTER on the cluster, else CLUSTER_ACTION (`KafkaApis.handleWriteTxnMarkersRequest`). */
const writeTxnMarkers: ApiCheck = (req, ctx, auth, next, api) =>
  auth.cluster(Op.ALTER) || auth.cluster(Op.CLUSTER_ACTION) ? next(req) : refuse(api, ctx, req, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);

/** Fetch: a follower (replica id >= 0) needs CLUSTER_ACTION, else every partition is refused; a consumer READ on each topic. */
const fetch: ApiCheck = (req, ctx, auth, next, api) => {
  const replicaId = ctx.apiVersion >= 15 ? req.replicaState.replicaId : req.replicaId;
  if (replicaId >= 0) return topicPartitions(Op.CLUSTER_ACTION, !auth.cluster(Op.CLUSTER_ACTION))(req, ctx, auth, next, api);
  return topicPartitions(Op.READ)(req, ctx, auth, next, api);
};

/**
 * Metadata, as `KafkaApis.handleTopicMetadataRequest`: all-topics requests list only the topics the
 * principal may DESCRIBE; a named topic it may not answers TOPIC_AUTHORIZATION_FAILED (no id, by
 * name: nothing reveals whether it exists; by id: the id); a missing topic it could auto-create
 * needs CREATE on the cluster or the topic, else TOPIC_AUTHORIZATION_FAILED. Authorized
 * operations: each topic's (v8+, when asked), the cluster's (v8-10, when asked; 0 without DESCRIBE).
 */
const metadata: ApiCheck = (req, ctx, auth, next) => {
  const { broker, apiVersion: version } = ctx;
  const allTopics = req.topics === null || (version === 0 && req.topics.length === 0);
  const finish = (res: Obj, refused: Obj[]): Obj => {
    if (version >= 8 && req.includeTopicAuthorizedOperations) {
      for (const t of res['topics']) t.topicAuthorizedOperations = auth.operations(TOPIC, t.name ?? '');
    }
    res['topics'] = [...res['topics'], ...refused];
    if (version >= 8 && version <= 10 && req.includeClusterAuthorizedOperations) {
      res['clusterAuthorizedOperations'] = auth.cluster(Op.DESCRIBE) ? auth.operations(ResourceType.CLUSTER, 'kafka-cluster') : 0;
    }
    return res;
  };
  if (allTopics) return mapResult(next(req), (res: Obj) => finish({ ...res, topics: res['topics'].filter((t: Obj) => auth.allowed(Op.DESCRIBE, TOPIC, t.name)) }, []));
  // Before v12 a null name or a topic id is an invalid request as a whole, before any authorization.
  if (version < 12 && req.topics.some((t: Obj) => t.name === null || t.topicId !== ZERO_UUID)) return next(req);
  const autoCreate = broker.config.bool('auto.create.topics.enable') && (version < 4 || req.allowAutoTopicCreation);
  const kept: Obj[] = [];
  const refusedCreate: Obj[] = [];
  const refusedDescribe: Obj[] = [];
  const refusal = (name: string | null, topicId: string): Obj => ({
    ...defaultMetadataResponseTopic(), errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name, topicId, isInternal: name === GROUP_METADATA_TOPIC_NAME, partitions: [], topicAuthorizedOperations: OMITTED,
  });
  for (const t of req.topics as Obj[]) {
    if (t.topicId !== ZERO_UUID || t.name === null) {
      const topic = broker.topics.getById(t.topicId);
      if (topic && !auth.allowed(Op.DESCRIBE, TOPIC, topic.name)) refusedDescribe.push(refusal(null, t.topicId));
      else kept.push(t);
    } else if (!auth.allowed(Op.DESCRIBE, TOPIC, t.name)) {
      refusedDescribe.push(refusal(t.name, ZERO_UUID));
    } else if (autoCreate && t.name !== GROUP_METADATA_TOPIC_NAME && !broker.topics.get(t.name) && !auth.cluster(Op.CREATE) && !auth.allowed(Op.CREATE, TOPIC, t.name)) {
      refusedCreate.push(refusal(t.name, ZERO_UUID));
    } else {
      kept.push(t);
    }
  }
  const dedupe = (list: Obj[]) => list.filter((x, i) => list.findIndex((y) => y.name === x.name && y.topicId === x.topicId) === i);
  return mapResult(next({ ...req, topics: kept }), (res: Obj) => finish(res, [...dedupe(refusedCreate), ...dedupe(refusedDescribe)]));
};

/** The topics of one OffsetFetch group the principal may DESCRIBE; the others as TOPIC_AUTHORIZATION_FAILED partitions. */
function offsetFetchTopics(group: Obj, version: number, auth: Parameters<ApiCheck>[2], broker: Parameters<ApiCheck>[1]['broker']): { allowed: Obj[]; refused: Obj[] } {
  const allowed: Obj[] = [];
  const refused: Obj[] = [];
  for (const t of group['topics'] as Obj[]) {
    const name = version >= 10 ? broker.topics.getById(t.topicId)?.name : t.name;
    if (name === undefined || auth.allowed(Op.DESCRIBE, TOPIC, name)) {
      allowed.push(t);
      continue;
    }
    refused.push({
      name: version >= 10 ? '' : name,
      topicId: version >= 10 ? t.topicId : ZERO_UUID,
      partitions: (t.partitionIndexes as number[]).map((partitionIndex) => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })),
    });
  }
  return { allowed, refused };
}

/**
 * OffsetFetch, as `KafkaApis.handleOffsetFetchRequest`: DESCRIBE on each group (GROUP_AUTHORIZATION_FAILED
 * for that group; v1 has no field for it and answers no topics), then DESCRIBE on each topic:
 * named topics refused per partition, all-topics answers leave them out.
 */
const offsetFetch: ApiCheck = (req, ctx, auth, next, api) => {
  const { apiVersion: version, broker } = ctx;
  if (version < 8) {
    if (!auth.allowed(Op.DESCRIBE, GROUP, req.groupId)) return version < 2 ? { throttleTimeMs: 0, topics: [], errorCode: 0, groups: [] } : refuse(api, ctx, req, ErrorCode.GROUP_AUTHORIZATION_FAILED);
    if (req.topics === null) return mapResult(next(req), (res: Obj) => ({ ...res, topics: res['topics'].filter((t: Obj) => auth.allowed(Op.DESCRIBE, TOPIC, t.name)) }));
    return topicPartitions(Op.DESCRIBE)(req, ctx, auth, next, api);
  }
  const refusedTopics = new Map<string, Obj[]>();
  const deniedGroups = new Set<string>();
  const groups: Obj[] = [];
  for (const g of req.groups as Obj[]) {
    if (!auth.allowed(Op.DESCRIBE, GROUP, g['groupId'])) {
      deniedGroups.add(g['groupId']);
      continue;
    }
    if (g['topics'] === null) {
      groups.push(g);
      continue;
    }
    const { allowed, refused } = offsetFetchTopics(g, version, auth, broker);
    refusedTopics.set(g['groupId'], refused);
    groups.push({ ...g, topics: allowed });
  }
  const merge = (res: Obj): Obj => {
    const handled = new Map<string, Obj>((res['groups'] ?? []).map((g: Obj) => [g.groupId, g]));
    res['groups'] = (req.groups as Obj[]).map((g) => {
      if (deniedGroups.has(g['groupId'])) return { groupId: g['groupId'], topics: [], errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
      const got = handled.get(g['groupId']) ?? { groupId: g['groupId'], topics: [], errorCode: ErrorCode.NONE };
      if (got.errorCode !== ErrorCode.NONE) return got;
      if (g['topics'] === null) return { ...got, topics: got.topics.filter((t: Obj) => auth.allowed(Op.DESCRIBE, TOPIC, version >= 10 ? broker.topics.getById(t.topicId)?.name ?? '' : t.name)) };
      return { ...got, topics: [...got.topics, ...(refusedTopics.get(g['groupId']) ?? [])] };
    });
    return res;
  };
  if (groups.length === 0) return merge(refuse(api, ctx, { ...req, groups: [] }, ErrorCode.NONE));
  return mapResult(next({ ...req, groups }), merge);
};

/** FindCoordinator: DESCRIBE on the group (key type 0) or transactional id (1) of each key. */
const findCoordinator: ApiCheck = (req, ctx, auth, next, api) => {
  const keyType = ctx.apiVersion >= 1 ? req.keyType : 0;
  const resource = keyType === 0 ? GROUP : keyType === 1 ? TRANSACTIONAL_ID : null;
  const code = keyType === 0 ? ErrorCode.GROUP_AUTHORIZATION_FAILED : ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
  if (resource === null) return next(req);
  if (ctx.apiVersion < 4) return auth.allowed(Op.DESCRIBE, resource, req.key) ? next(req) : refuse(api, ctx, req, code);
  const keys: string[] = req.coordinatorKeys;
  const denied = new Set(keys.filter((k) => !auth.allowed(Op.DESCRIBE, resource, k)));
  if (denied.size === 0) return next(req);
  const merge = (res: Obj): Obj => {
    const handled = new Map<string, Obj>((res['coordinators'] ?? []).map((c: Obj) => [c.key, c]));
    res['coordinators'] = keys.map((key) => (denied.has(key) ? { key, nodeId: -1, host: '', port: -1, errorCode: code, errorMessage: '' } : handled.get(key)!));
    return res;
  };
  const allowed = keys.filter((k) => !denied.has(k));
  if (allowed.length === 0) return merge(refuse(api, ctx, { ...req, coordinatorKeys: [] }, ErrorCode.NONE));
  return mapResult(next({ ...req, coordinatorKeys: allowed }), merge);
};

/** JoinGroup: READ on the group; Kafka's error response names no member and no protocol. */
const joinGroup: ApiCheck = (req, ctx, auth, next, api) => {
  if (auth.allowed(Op.READ, GROUP, req.groupId)) return next(req);
  return { ...refuse(api, ctx, req, ErrorCode.GROUP_AUTHORIZATION_FAILED), memberId: '', leader: '', generationId: -1, protocolName: ctx.apiVersion >= 7 ? null : '', members: [] };
};

/** ListGroups: every group with DESCRIBE on the cluster, else only the groups the principal may DESCRIBE. */
const listGroups: ApiCheck = (req, _ctx, auth, next) => {
  if (auth.cluster(Op.DESCRIBE)) return next(req);
  return mapResult(next(req), (res: Obj) => ({ ...res, groups: res['groups'].filter((g: Obj) => auth.allowed(Op.DESCRIBE, GROUP, g.groupId)) }));
};

/**
 * CreateTopics, as `ControllerApis.createTopics`: CREATE on the cluster, or on each topic (else
 * TOPIC_AUTHORIZATION_FAILED "Authorization failed."); a created topic's configs, partition count and
 * replication factor only with DESCRIBE_CONFIGS on it (else `topicConfigErrorCode` TOPIC_AUTHORIZATION_FAILED).
 */
const createTopics: ApiCheck = (req, _ctx, auth, next) => {
  const clusterCreate = auth.cluster(Op.CREATE);
  const denied = new Set<string>((req.topics as Obj[]).map((t) => t.name).filter((n: string) => !clusterCreate && !auth.allowed(Op.CREATE, TOPIC, n)));
  const refused = [...denied].map((name) => ({ name, topicId: ZERO_UUID, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Authorization failed.', topicConfigErrorCode: 0, numPartitions: -1, replicationFactor: -1, configs: [] }));
  const merge = (res: Obj): Obj => {
    for (const t of res['topics'] as Obj[]) {
      if (t.errorCode === ErrorCode.NONE && !auth.allowed(Op.DESCRIBE_CONFIGS, TOPIC, t.name)) Object.assign(t, { configs: [], numPartitions: -1, replicationFactor: -1, topicConfigErrorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
    }
    res['topics'] = [...res['topics'], ...refused];
    return res;
  };
  return mapResult(next({ ...req, topics: (req.topics as Obj[]).filter((t) => !denied.has(t.name)) }), merge);
};

/**
 * DeleteTopics, as `ControllerApis.deleteTopics`: DELETE on the cluster, or DESCRIBE and DELETE on
 * each topic. A name without DESCRIBE is refused whether or not it exists; with DESCRIBE but not
 * DELETE it is refused when it exists. An id without DELETE is refused, naming the topic only
 * with DESCRIBE. Unknown ids and names go on to the handler.
 */
const deleteTopics: ApiCheck = (req, ctx, auth, next) => {
  if (auth.cluster(Op.DELETE)) return next(req);
  const { broker } = ctx;
  const refused: Obj[] = [];
  const error = { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: errorMessageOf(ErrorCode.TOPIC_AUTHORIZATION_FAILED) };
  const nameAllowed = (name: string): boolean => {
    const describe = auth.allowed(Op.DESCRIBE, TOPIC, name);
    if (describe && (!broker.topics.get(name) || auth.allowed(Op.DELETE, TOPIC, name))) return true;
    refused.push({ name, topicId: ZERO_UUID, ...error });
    return false;
  };
  const topicNames = (req.topicNames as string[]).filter(nameAllowed);
  const topics = (req.topics as Obj[]).filter((t) => {
    if (t.name !== null && t.topicId === ZERO_UUID) return nameAllowed(t.name);
    const topic = t.topicId === ZERO_UUID ? undefined : broker.topics.getById(t.topicId);
    if (!topic || t.name !== null || auth.allowed(Op.DELETE, TOPIC, topic.name)) return true;
    refused.push({ name: auth.allowed(Op.DESCRIBE, TOPIC, topic.name) ? topic.name : null, topicId: t.topicId, ...error });
    return false;
  });
  if (refused.length === 0) return next(req);
  return mapResult(next({ ...req, topicNames, topics }), (res: Obj) => ({ ...res, responses: [...res['responses'], ...refused] }));
};

/**
 * InitProducerId: WRITE on the transactional id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), or without
 * one IDEMPOTENT_WRITE on the cluster or WRITE on some topic (CLUSTER_AUTHORIZATION_FAILED).
 */
const initProducerId: ApiCheck = (req, ctx, auth, next, api) => {
  if (req.transactionalId !== null) return auth.allowed(Op.WRITE, TRANSACTIONAL_ID, req.transactionalId) ? next(req) : refuse(api, ctx, req, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  return auth.cluster(Op.IDEMPOTENT_WRITE) || auth.byResourceType(Op.WRITE, TOPIC) ? next(req) : refuse(api, ctx, req, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
};

/** `ConfigResource.Type` ids of DescribeConfigs and the resource each one is authorized on. */
const CONFIG_RESOURCES: Readonly<Record<number, readonly [number, number]>> = {
  2: [TOPIC, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  4: [ResourceType.CLUSTER, ErrorCode.CLUSTER_AUTHORIZATION_FAILED], // BROKER
  8: [ResourceType.CLUSTER, ErrorCode.CLUSTER_AUTHORIZATION_FAILED], // BROKER_LOGGER
  16: [ResourceType.CLUSTER, ErrorCode.CLUSTER_AUTHORIZATION_FAILED], // CLIENT_METRICS
  32: [GROUP, ErrorCode.GROUP_AUTHORIZATION_FAILED],
};

/** DescribeConfigs, as `ConfigHelper.handleDescribeConfigsRequest`: DESCRIBE_CONFIGS on each resource; the refused ones after the others. */
const describeConfigs: ApiCheck = (req, _ctx, auth, next) => {
  const refused: Obj[] = [];
  const resources = (req.resources as Obj[]).filter((r) => {
    const kind = CONFIG_RESOURCES[r.resourceType];
    if (!kind) return true;
    const name = kind[0] === ResourceType.CLUSTER ? 'kafka-cluster' : r.resourceName;
    if (auth.allowed(Op.DESCRIBE_CONFIGS, kind[0], name)) return true;
    refused.push({ errorCode: kind[1], errorMessage: errorMessageOf(kind[1]), resourceType: r.resourceType, resourceName: r.resourceName, configs: [] });
    return false;
  });
  if (refused.length === 0) return next(req);
  return mapResult(next({ ...req, resources }), (res: Obj) => ({ ...res, results: [...res['results'], ...refused] }));
};

/** ConsumerGroupHeartbeat: READ on the group, then DESCRIBE on every subscribed topic name (else TOPIC_AUTHORIZATION_FAILED). */
const consumerGroupHeartbeat: ApiCheck = groupOperation(Op.READ, (req, ctx, auth, next, api) => {
  const names: string[] | null = req.subscribedTopicNames;
  if (names === null || names.length === 0 || names.every((n) => auth.allowed(Op.DESCRIBE, TOPIC, n))) return next(req);
  return refuse(api, ctx, req, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
});

/** The describe APIs (DescribeGroups, ConsumerGroupDescribe): DESCRIBE on each group named in `key`, the refused ones first as in Kafka. */
function describeEachGroup(key: string, refused: (groupId: string, ctx: Parameters<ApiCheck>[1], api: Parameters<ApiCheck>[4]) => Obj): ApiCheck {
  return perGroup({
    operation: Op.DESCRIBE,
    groups: (b) => b[key],
    withGroups: (b, groups) => ({ ...b, [key]: groups }),
    entries: (r) => r['groups'] ?? [],
    withEntries: (r, groups) => ({ ...r, groups }),
    refused,
    order: 'refused-first',
  });
}

/** ConsumerGroupDescribe: DESCRIBE on each group, its authorized operations, and DESCRIBE on every topic its members are assigned. */
const consumerGroupDescribe: ApiCheck = (req, ctx, auth, next, api) => describeEachGroup(
  'groupIds',
  (groupId) => ({ ...defaultConsumerGroup(), groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: null }),
)(req, ctx, auth, (b) => mapResult(next(b), (res: Obj) => {
  withGroupOperations(res, req.includeAuthorizedOperations, auth);
  res['groups'] = (res['groups'] as Obj[]).map((g) => {
    const topics = (g.members as Obj[]).flatMap((m) => [...m.assignment.topicPartitions, ...m.targetAssignment.topicPartitions].map((tp: Obj) => tp.topicName as string));
    if (topics.every((t) => auth.allowed(Op.DESCRIBE, TOPIC, t))) return g;
    return { ...defaultConsumerGroup(), groupId: g.groupId, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'The group has described topic(s) that the client is not authorized to describe.', members: [] };
  });
  return res;
}), api);

/** ShareGroupDescribe: as ConsumerGroupDescribe, over the members' assignments (share members have no separate target). */
const shareGroupDescribe: ApiCheck = (req, ctx, auth, next, api) => describeEachGroup(
  'groupIds',
  (groupId) => ({ ...defaultShareGroup(), groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: null }),
)(req, ctx, auth, (b) => mapResult(next(b), (res: Obj) => {
  withGroupOperations(res, req.includeAuthorizedOperations, auth);
  res['groups'] = (res['groups'] as Obj[]).map((g) => {
    const topics = (g.members as Obj[]).flatMap((m) => m.assignment.topicPartitions.map((tp: Obj) => tp.topicName as string));
    if (topics.every((t) => auth.allowed(Op.DESCRIBE, TOPIC, t))) return g;
    return { ...defaultShareGroup(), groupId: g.groupId, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'The group has described topic(s) that the client is not authorized to describe.', members: [] };
  });
  return res;
}), api);

/**
 * StreamsGroupHeartbeat (`KafkaApis.handleStreamsGroupHeartbeat`): READ on the group, and with a
 * topology DESCRIBE on every topic it names (source, repartition and changelog topics).
 */
const streamsGroupHeartbeat: ApiCheck = groupOperation(Op.READ, (req, ctx, auth, next, api) => {
  const subtopologies: Obj[] = req.topology?.subtopologies ?? [];
  const topics = subtopologies.flatMap((s) => [...s.sourceTopics, ...s.repartitionSinkTopics, ...s.repartitionSourceTopics.map((t: Obj) => t.name), ...s.stateChangelogTopics.map((t: Obj) => t.name)] as string[]);
  if (topics.every((t) => auth.allowed(Op.DESCRIBE, TOPIC, t))) return next(req);
  return refuse(api, ctx, req, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
});

/** StreamsGroupDescribe: DESCRIBE on each group, its authorized operations, and DESCRIBE on every topic of its topology. */
const streamsGroupDescribe: ApiCheck = (req, ctx, auth, next, api) => describeEachGroup(
  'groupIds',
  (groupId) => ({ ...defaultStreamsGroup(), groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: null }),
)(req, ctx, auth, (b) => mapResult(next(b), (res: Obj) => {
  withGroupOperations(res, req.includeAuthorizedOperations, auth);
  res['groups'] = (res['groups'] as Obj[]).map((g) => {
    const subtopologies: Obj[] = g.topology?.subtopologies ?? [];
    const topics = subtopologies.flatMap((s) => [...s.sourceTopics, ...s.repartitionSinkTopics, ...s.repartitionSourceTopics.map((t: Obj) => t.name), ...s.stateChangelogTopics.map((t: Obj) => t.name)] as string[]);
    if (topics.every((t) => auth.allowed(Op.DESCRIBE, TOPIC, t))) return g;
    return { ...defaultStreamsGroup(), groupId: g.groupId, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'The described group uses topics that the client is not authorized to describe.', members: [], topology: null };
  });
  return res;
}), api);

/** DescribeGroups: DESCRIBE on each group (refused ones first, as Kafka), and their authorized operations (v3+). */
const describeGroups: ApiCheck = (req, ctx, auth, next, api) => describeEachGroup(
  'groups',
  (groupId, c, a) => refuse(a, c, { groups: [groupId] }, ErrorCode.GROUP_AUTHORIZATION_FAILED)['groups'][0],
)(req, ctx, auth, (b) => mapResult(next(b), (res: Obj) => withGroupOperations(res, ctx.apiVersion >= 3 && req.includeAuthorizedOperations, auth)), api);

/** DeleteGroups: DELETE on each group; the refused ones after the others. */
const deleteGroups: ApiCheck = perGroup({
  operation: Op.DELETE,
  groups: (b) => b['groupsNames'],
  withGroups: (b, groupsNames) => ({ ...b, groupsNames }),
  entries: (r) => r['results'] ?? [],
  withEntries: (r, results) => ({ ...r, results }),
  refused: (groupId) => ({ groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED }),
  order: 'refused-last',
});

/** DescribeCluster: the cluster's authorized operations when asked (0 without DESCRIBE on it). */
const describeCluster: ApiCheck = (req, _ctx, auth, next) => mapResult(next(req), (res: Obj) => {
  if (req.includeClusterAuthorizedOperations && res['errorCode'] === ErrorCode.NONE) {
    res['clusterAuthorizedOperations'] = auth.cluster(Op.DESCRIBE) ? auth.operations(ResourceType.CLUSTER, 'kafka-cluster') : 0;
  }
  return res;
});

/** OffsetForLeaderEpoch: CLUSTER_ACTION on the cluster (a follower) allows every partition, else DESCRIBE on each topic (KIP-320 consumers). */
const offsetForLeaderEpoch: ApiCheck = (req, ctx, auth, next, api) => (auth.cluster(Op.CLUSTER_ACTION) ? next(req) : topicPartitions(Op.DESCRIBE)(req, ctx, auth, next, api));

/**
 * CreatePartitions, as `ControllerApis.createPartitions`: a topic named twice is refused as a
 * duplicate whatever the ACLs; of the others, those without ALTER answer TOPIC_AUTHORIZATION_FAILED
 * (no message), after the duplicates and before the handled ones.
 */
const createPartitions: ApiCheck = (req, _ctx, auth, next) => {
  const counts = new Map<string, number>();
  for (const t of req.topics as Obj[]) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  const denied = new Set([...counts.keys()].filter((n) => counts.get(n) === 1 && !auth.allowed(Op.ALTER, TOPIC, n)));
  if (denied.size === 0) return next(req);
  const refused = [...denied].map((name) => ({ name, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null }));
  return mapResult(next({ ...req, topics: (req.topics as Obj[]).filter((t) => !denied.has(t.name)) }), (res: Obj) => {
    const results = res['results'] as Obj[];
    const duplicates = results.filter((r) => (counts.get(r.name) ?? 0) > 1);
    return { ...res, results: [...duplicates, ...refused, ...results.filter((r) => !duplicates.includes(r))] };
  });
};

/**
 * DescribeTopicPartitions, as `DescribeTopicPartitionsRequestHandler`: only topics with DESCRIBE
 * are described (and paged: the handler sees the allowed names only); a named topic without it
 * answers TOPIC_AUTHORIZATION_FAILED after the others (no id, not internal), an all-topics request
 * leaves it out. Each described topic carries the principal's authorized operations on it.
 */
const describeTopicPartitions: ApiCheck = (req, ctx, auth, next) => {
  const all = (req.topics as Obj[]).length === 0;
  const names: string[] = all ? ctx.broker.topics.list().map((t) => t.name) : [...new Set((req.topics as Obj[]).map((t) => t.name as string))];
  const allowed = names.filter((n) => auth.allowed(Op.DESCRIBE, TOPIC, n));
  const refused = all ? [] : names.filter((n) => !allowed.includes(n)).sort().map((name) => ({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name, topicId: ZERO_UUID, isInternal: false, partitions: [], topicAuthorizedOperations: OMITTED }));
  const finish = (res: Obj): Obj => {
    for (const t of res['topics'] as Obj[]) t.topicAuthorizedOperations = auth.operations(TOPIC, t.name);
    return { ...res, topics: [...res['topics'], ...refused] };
  };
  // Nothing allowed: nothing to describe (an empty list would mean every topic to the handler).
  if (allowed.length === 0) return finish({ throttleTimeMs: 0, topics: [], nextCursor: null });
  if (!all && allowed.length === names.length) return mapResult(next(req), finish);
  return mapResult(next({ ...req, topics: allowed.map((name) => ({ name })) }), finish);
};

/**
 * What every served API checks, by API key. Kafka's `KafkaApis` (and `ControllerApis` for the
 * APIs a broker forwards to its controller, `AclApis` for the ACL APIs) is the source; an API
 * served without an entry here fails at start when an authorizer is configured (see
 * `authorizedHandlers`), so adding an API means saying what it checks.
 */
export const API_CHECKS: Readonly<Record<number, ApiCheck>> = {
  0: produce,
  1: fetch,
  2: topicPartitions(Op.DESCRIBE), // ListOffsets
  3: metadata,
  8: groupOperation(Op.READ, topicPartitions(Op.READ)), // OffsetCommit
  9: offsetFetch,
  10: findCoordinator,
  11: joinGroup,
  12: groupOperation(Op.READ), // Heartbeat
  13: groupOperation(Op.READ), // LeaveGroup
  14: groupOperation(Op.READ), // SyncGroup
  15: describeGroups,
  16: listGroups,
  17: none, // SaslHandshake
  18: none, // ApiVersions
  19: createTopics,
  20: deleteTopics,
  21: topicPartitions(Op.DELETE), // DeleteRecords
  22: initProducerId,
  23: offsetForLeaderEpoch,
  27: writeTxnMarkers,
  29: clusterOperation(Op.DESCRIBE), // DescribeAcls
  30: clusterOperation(Op.ALTER), // CreateAcls
  31: clusterOperation(Op.ALTER), // DeleteAcls
  32: describeConfigs,
  33: none, // AlterConfigs: ALTER_CONFIGS per resource, checked by the handler after Kafka's preprocessing (src/apis/alter-context.ts)
  35: clusterOperation(Op.DESCRIBE), // DescribeLogDirs
  36: none, // SaslAuthenticate
  37: createPartitions,
  42: deleteGroups,
  43: clusterOperation(Op.ALTER), // ElectLeaders
  44: none, // IncrementalAlterConfigs: as AlterConfigs (33)
  47: groupOperation(Op.DELETE, topicPartitions(Op.READ, false, OFFSET_DELETE_PARTITIONS)), // OffsetDelete
  48: clusterOperation(Op.DESCRIBE_CONFIGS), // DescribeClientQuotas
  50: clusterOperation(Op.DESCRIBE), // DescribeUserScramCredentials
  51: clusterOperation(Op.ALTER), // AlterUserScramCredentials
  60: describeCluster,
  61: describeProducers,
  68: consumerGroupHeartbeat,
  69: consumerGroupDescribe,
  74: clusterOperation(Op.DESCRIBE_CONFIGS), // ListConfigResources
  75: describeTopicPartitions,
  ...TXN_API_CHECKS,
  76: consumerGroupHeartbeat, // ShareGroupHeartbeat: READ on the group, DESCRIBE on the subscribed topics
  77: shareGroupDescribe,
  88: streamsGroupHeartbeat,
  89: streamsGroupDescribe,
  90: describeShareGroupOffsets,
  91: alterShareGroupOffsets,
  92: deleteShareGroupOffsets,
  // ShareFetch, ShareAcknowledge: READ on the group here; READ on each topic in the handler, after
  // the share session is updated (`ctx.authorizeTopic`), as KafkaApis does.
  78: groupOperation(Op.READ),
  79: groupOperation(Op.READ),
  83: clusterOperation(Op.CLUSTER_ACTION), // InitializeShareGroupState
  84: clusterOperation(Op.CLUSTER_ACTION), // ReadShareGroupState
  85: clusterOperation(Op.CLUSTER_ACTION), // WriteShareGroupState
  86: clusterOperation(Op.CLUSTER_ACTION), // DeleteShareGroupState
  87: clusterOperation(Op.CLUSTER_ACTION), // ReadShareGroupStateSummary
};

