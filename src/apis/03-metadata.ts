import type { MetadataRequest, MetadataRequestTopic } from '../protocol/messages/MetadataRequest.js';
import {
  defaultMetadataResponse,
  defaultMetadataResponseTopic,
  type MetadataResponse,
  type MetadataResponsePartition,
  type MetadataResponseTopic,
} from '../protocol/messages/MetadataResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { ELEMENTS_PER_SLICE, ZERO_UUID } from '../protocol/primitives.js';
import { runSoon, Slicer } from '../util/slices.js';
import { CREATE_SLICE_PARTITIONS } from '../topics/topic-store.js';
import type { Broker } from '../broker.js';
import type { Topic } from '../topics/topic.js';
import { TopicError } from '../topics/topic-error.js';
import { isInternalTopic, isValidTopicName } from '../topics/topic-name.js';
import { ALL_TOPIC_OPERATIONS, partitionMetadata } from './partition-metadata.js';
import type { ApiDefinition } from './types.js';
import { ANY_BROKER } from './shapes/routing.js';

/** Kafka's "authorized operations not requested" sentinel. */
const OPERATIONS_OMITTED = -2147483648;
const ALL_CLUSTER_OPERATIONS = [5, 7, 8, 9, 10, 11, 12].reduce((bits, op) => bits | (1 << op), 0);

/**
 * Metadata (key 3, v0-13), as Kafka's `KafkaApis.handleTopicMetadataRequest`. Brokers: the live
 * brokers of the simulated cluster (one unless `--brokers N`), the lowest live one as controller;
 * each partition's leader, replicas (every broker, preferred leader first), ISR (the live
 * replicas) and offline replicas come from `broker.cluster` (src/cluster/cluster-state.ts), the
 * leader epoch from the partition (bumped on every simulated leader change). Topics: v0 empty
 * list or v1+ null = all topics, `__consumer_offsets` included with `is_internal` true (a Kafka broker lists it once a group coordinator created it; it always
 * exists here), `__transaction_state` and `__share_group_state` too once created (on their
 * coordinators' first lookup, as Kafka creates them); names absent are auto-created with `num.partitions` when
 * `auto.create.topics.enable` and (v4+) `allow_auto_topic_creation` (an illegal name then
 * answers INVALID_TOPIC_EXCEPTION; a name another request is creating in slices LEADER_NOT_AVAILABLE,
 * as Kafka answers a creation in flight; many new topics are created in slices), else UNKNOWN_TOPIC_OR_PARTITION
 * (INVALID_TOPIC_EXCEPTION for an illegal name; `is_internal` by the name); v10+ by topic id
 * (a non-zero id, whatever the name: the Java client sends "" with it) answers UNKNOWN_TOPIC_ID for
 * unknown ids. Topic ids from v10. Before v12 a null name or a non-zero id is refused as a whole
 * (KafkaApis: InvalidRequestException "Topic name can not be null for version N" / "Topic IDs are
 * not supported in requests for version N"), answered with `MetadataRequest.getErrorResponse`:
 * INVALID_REQUEST on every topic named, a null name as "".
 */
export const api: ApiDefinition<MetadataRequest, MetadataResponse> = {
  apiKey: 3,
  name: 'Metadata',
  minVersion: 0,
  maxVersion: 13,
  errorResponse,
  // A topic without a name is named by its id.
  names: (req) => ({ topics: (req.topics ?? []).map((t) => ({ name: t.name, ...(t.name ? {} : { topicId: t.topicId }), partitions: null })) }),
  largeAnswers: true,
  routing: ANY_BROKER,
  handle(req, ctx) {
    const { broker } = ctx;
    const version = ctx.apiVersion;
    const allTopics = req.topics === null || (version === 0 && req.topics.length === 0);
    const allowAutoCreation = version < 4 || req.allowAutoTopicCreation;
    // Topic operations from v8 on (v11 dropped only the cluster's, which DescribeCluster answers).
    const withTopicOps = version >= 8 && req.includeTopicAuthorizedOperations;
    const withClusterOps = version >= 8 && version <= 10 && req.includeClusterAuthorizedOperations;

    if (!allTopics && version < 12 && req.topics!.some((t) => t.name === null || t.topicId !== ZERO_UUID)) {
      return errorResponse(req, version, ErrorCode.INVALID_REQUEST);
    }
    const answer = (topics: MetadataResponseTopic[]): MetadataResponse => {
      // On every topic answered by name, errors included (KafkaApis sets them on the whole list;
      // an unknown id, answered without a name, keeps the sentinel there too).
      if (withTopicOps) for (const t of topics) if (t.name !== null) t.topicAuthorizedOperations = ALL_TOPIC_OPERATIONS;
      return {
        throttleTimeMs: 0,
        brokers: broker.cluster.liveBrokers(ctx.listener).map((b) => ({ nodeId: b.id, host: b.host, port: b.port, rack: null })),
        clusterId: broker.clusterId,
        controllerId: broker.cluster.controllerId(),
        topics,
        clusterAuthorizedOperations: withClusterOps ? ALL_CLUSTER_OPERATIONS : OPERATIONS_OMITTED,
        errorCode: ErrorCode.NONE,
      };
    };
    let topics: MetadataResponseTopic[];
    if (allTopics) {
      // Every topic of a broker with hundreds of thousands of partitions: described
      // ELEMENTS_PER_SLICE partitions per turn of the event loop (the first slice at once).
      const described = runSoon(describeAll(broker, broker.topics.list()));
      return described instanceof Promise ? described.then(answer) : answer(described);
    } else {
      const seen = new Set<string>();
      const requested = req.topics!.filter((t) => {
        const key = t.topicId !== ZERO_UUID || t.name === null ? `id:${t.topicId}` : `name:${t.name}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      // Topics to auto-create: each is synchronous file writes, so they go in slices (issue #16).
      if (requested.some((t) => t.topicId === ZERO_UUID && t.name !== null && broker.topics.wouldAutoCreate(t.name, allowAutoCreation))) {
        return lookupInSlices(broker, requested, allowAutoCreation).then(answer);
      }
      topics = requested.map((t) => lookupTopic(broker, t.name, t.topicId, allowAutoCreation));
    }
    return answer(topics);
  },
};

/** `MetadataRequest.getErrorResponse`: the error on every topic named, a null name as "" (the response may not hold null before v12). */
function errorResponse(req: MetadataRequest, _version: number, errorCode: number): MetadataResponse {
  return {
    ...defaultMetadataResponse(),
    errorCode,
    topics: (req.topics ?? []).map((t) => ({ ...defaultMetadataResponseTopic(), name: t.name ?? '', topicId: t.topicId, errorCode })),
  };
}

/**
 * `lookupTopic` of each of `requested`, in order, the absent ones auto-created in slices of one
 * Slicer shared by the request (`TopicStore.getOrAutoCreateInSlices`): a Metadata request naming
 * hundreds of new topics leaves the other connections their turns between them.
 */
async function lookupInSlices(broker: Broker, requested: readonly MetadataRequestTopic[], allowAutoCreation: boolean): Promise<MetadataResponseTopic[]> {
  const slices = new Slicer(CREATE_SLICE_PARTITIONS);
  const out: MetadataResponseTopic[] = [];
  for (const { name, topicId } of requested) {
    if (out.length > 0) await slices.next();
    if (topicId !== ZERO_UUID || name === null || !broker.topics.wouldAutoCreate(name, allowAutoCreation)) {
      out.push(lookupTopic(broker, name, topicId, allowAutoCreation));
      continue;
    }
    try {
      const topic = await broker.topics.getOrAutoCreateInSlices(name, allowAutoCreation, slices);
      out.push(topic ? describeTopic(broker, topic) : absentTopic(name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
    } catch (err) {
      out.push(absentTopic(name, autoCreationError(broker, name, err)));
    }
  }
  return out;
}

function lookupTopic(broker: Broker, name: string | null, topicId: string, allowAutoCreation: boolean): MetadataResponseTopic {
  const res = defaultMetadataResponseTopic();
  // Kafka looks a topic up by id whenever the id is not zero: the Java client sends the generated
  // default name "" (not null) with it.
  if (topicId !== ZERO_UUID || name === null) {
    const topic = broker.topics.getById(topicId);
    if (topic) return describeTopic(broker, topic);
    res.name = null;
    res.topicId = topicId;
    res.errorCode = ErrorCode.UNKNOWN_TOPIC_ID;
    return res;
  }
  try {
    const topic = broker.topics.getOrAutoCreate(name, allowAutoCreation);
    if (topic) return describeTopic(broker, topic);
    // Not created: a name Kafka's Topic.validate refuses is said so (KafkaApis.getTopicMetadata).
    return absentTopic(name, isValidTopicName(name) ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.INVALID_TOPIC_EXCEPTION);
  } catch (err) {
    return absentTopic(name, autoCreationError(broker, name, err));
  }
}

/** A named topic answered without partitions: `is_internal` by its name, as Kafka's `metadataResponseTopic(error, topic, ..., Topic.isInternal(topic), [])`. */
function absentTopic(name: string, errorCode: number): MetadataResponseTopic {
  return { ...defaultMetadataResponseTopic(), name, errorCode, isInternal: isInternalTopic(name) };
}

/**
 * The topic's error when its auto-creation failed: the TopicError's (an illegal name), else (an
 * I/O failure: a full disk) LEADER_NOT_AVAILABLE, what Kafka answers for a topic whose creation it
 * has asked the controller for; the client asks again.
 */
function autoCreationError(broker: Broker, name: string, err: unknown): number {
  if (err instanceof TopicError) return err.errorCode;
  broker.log.warn({ err, topic: name }, 'could not auto-create topic');
  return ErrorCode.LEADER_NOT_AVAILABLE;
}

function describeTopic(broker: Broker, topic: Topic, partitions: MetadataResponsePartition[] = partitionsOf(broker, topic)): MetadataResponseTopic {
  return {
    errorCode: ErrorCode.NONE,
    name: topic.name,
    topicId: topic.id,
    isInternal: topic.internal,
    partitions,
    topicAuthorizedOperations: OPERATIONS_OMITTED,
  };
}

/** `describeTopic` of each of `topics`, in order, yielding every `ELEMENTS_PER_SLICE` partitions described. */
function* describeAll(broker: Broker, topics: readonly Topic[]): Generator<void, MetadataResponseTopic[]> {
  const out: MetadataResponseTopic[] = [];
  let sinceYield = 0;
  for (const topic of topics) {
    const partitions: MetadataResponsePartition[] = [];
    for (const p of topic.partitions) {
      partitions.push(partitionMetadata(broker, topic, p.index));
      if (++sinceYield === ELEMENTS_PER_SLICE) {
        sinceYield = 0;
        yield;
      }
    }
    out.push(describeTopic(broker, topic, partitions));
  }
  return out;
}

function partitionsOf(broker: Broker, topic: Topic): MetadataResponsePartition[] {
  return topic.partitions.map((p) => partitionMetadata(broker, topic, p.index));
}
