import type { CreatableTopic, CreateTopicsRequest } from '../protocol/messages/CreateTopicsRequest.js';
import {
  defaultCreatableTopicResult,
  defaultCreateTopicsResponse,
  type CreatableTopicResult,
  type CreateTopicsResponse,
} from '../protocol/messages/CreateTopicsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { Broker } from '../broker.js';
import { TopicError } from '../topics/topic-error.js';
import { newTopicId } from '../topics/topic-id.js';
import { AlterConfigsError, validateTopicConfigs } from '../configs/alter-configs.js';
import { checkManualAssignment } from '../topics/create-partitions.js';
import { TOPIC_CONFIGS } from '../configs/kafka-config-data.js';
import { MAX_RECORDS_PER_USER_OP } from '../topics/controller-limits.js';
import { CREATE_SLICE_PARTITIONS } from '../topics/topic-store.js';
import { Slicer } from '../util/slices.js';
import type { ApiDefinition } from './types.js';
import { ANY_BROKER } from './shapes/routing.js';

/**
 * CreateTopics (key 19, v2-7), as Kafka's `ControllerApis.createTopics` and
 * `ReplicationControlManager.createTopic` on a one-node cluster. Per topic:
 * a name given twice -> INVALID_REQUEST ("Duplicate topic name."); illegal or colliding
 * name -> INVALID_TOPIC_EXCEPTION; existing -> TOPIC_ALREADY_EXISTS; partitions 0 or
 * < -1 -> INVALID_PARTITIONS (-1 = `num.partitions`); replication factor 0 or < -1, or
 * above the number of simulated brokers -> INVALID_REPLICATION_FACTOR; manual assignments must list
 * partitions 0..n-1 on this node only (INVALID_REPLICA_ASSIGNMENT) with partitions and
 * replication factor -1 (INVALID_REQUEST). Topic configs are checked as `LogConfig.validate` checks
 * them (INVALID_CONFIG: "Null value not supported for topic configs: x", "Unknown topic config name:
 * x", "Invalid value ..."; a name given twice keeps its last value) and stored with the topic
 * (src/configs). `validateOnly` runs every check without creating. Success answers (v5+) the
 * partition count, replication factor and every topic config with its value and source, as the
 * controller sees them (no per-broker dynamic configs), and (v7+) the new topic id.
 * More than 10,000 partitions in all (Kafka's `MAX_PARTITIONS_PER_BATCH`) fails every topic with
 * POLICY_VIOLATION "Excessively large number of partitions per request."; so do more than 10,000
 * metadata records for the topics that pass their checks (one per topic, per config, per partition:
 * `QuorumController.MAX_RECORDS_PER_USER_OP`), with "Unable to perform excessively large batch
 * operation." (validateOnly too; one topic of 10,000 partitions is 10,001 records). Partitions open in slices
 * with a turn of the event loop between them (`TopicStore.createInSlices`), across the request's
 * topics too: one Slicer counts them all, so a thousand topics of one partition each are sliced.
 */
export const api: ApiDefinition<CreateTopicsRequest, CreateTopicsResponse> = {
  apiKey: 19,
  name: 'CreateTopics',
  minVersion: 2,
  maxVersion: 7,
  // CreateTopicsRequest.getErrorResponse: one result per topic.
  errorResponse: (req, _version, errorCode) => ({
    ...defaultCreateTopicsResponse(),
    topics: req.topics.map((t) => ({ ...defaultCreatableTopicResult(), name: t.name, errorCode, errorMessage: null, numPartitions: -1, replicationFactor: -1, configs: [] })),
  }),
  names: (req) => ({ topics: req.topics.map((t) => ({ name: t.name, partitions: null })) }),
  routing: ANY_BROKER,
  async handle(req, ctx) {
    // The controller's deadline (now + timeoutMs) has passed before it starts: the whole request
    // times out, nothing done (`QuorumController` appendWriteEvent; conformance: admin-edge-cases).
    if (req.timeoutMs <= 0) return api.errorResponse(req, ctx.apiVersion, ErrorCode.REQUEST_TIMED_OUT);
    const counts = new Map<string, number>();
    for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    // Kafka's `ReplicationControlManager.validateTotalNumberOfPartitions`, before anything else: the
    // whole request fails (`CreateTopicsRequest.getErrorResponse`, every topic entry).
    const distinct = req.topics.filter((t) => counts.get(t.name) === 1);
    if (totalPartitions(ctx.broker, distinct) > MAX_PARTITIONS_PER_REQUEST) return failAll(req, 'Excessively large number of partitions per request.');
    // Then the records of the topics that pass their checks must fit the controller's bounded list:
    // one more throws BoundedListTooLongException, which `EventHandlerExceptionInfo` answers as a
    // PolicyViolationException for the whole request (10,000 partitions of one topic are 10,001 records).
    if (recordsOf(ctx.broker, distinct) > MAX_RECORDS_PER_USER_OP) return failAll(req, 'Unable to perform excessively large batch operation.');
    const answered = new Set<string>();
    const topics: CreatableTopicResult[] = [];
    const slices = new Slicer(CREATE_SLICE_PARTITIONS);
    for (const t of req.topics) {
      if (answered.has(t.name)) continue;
      if (topics.length > 0) await slices.next();
      answered.add(t.name);
      if (counts.get(t.name)! > 1) {
        topics.push(result(t.name, ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'));
        continue;
      }
      topics.push(await createOne(ctx.broker, t, req.validateOnly, ctx.apiVersion, slices));
    }
    // The new topics' configs were durable before their partitions opened (TopicStore.create).
    return { throttleTimeMs: 0, topics };
  },
};

function result(name: string, errorCode: number, errorMessage: string | null): CreatableTopicResult {
  const res = defaultCreatableTopicResult();
  res.name = name;
  res.errorCode = errorCode;
  res.errorMessage = errorMessage;
  return res;
}

/** `ReplicationControlManager.MAX_PARTITIONS_PER_BATCH`: partitions one CreateTopics may ask for in all. */
export const MAX_PARTITIONS_PER_REQUEST = 10_000;

/** Every topic of the request fails with POLICY_VIOLATION (`CreateTopicsRequest.getErrorResponse` shape). */
function failAll(req: CreateTopicsRequest, message: string): CreateTopicsResponse {
  return {
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({ ...result(t.name, ErrorCode.POLICY_VIOLATION, message), numPartitions: -1, replicationFactor: -1, configs: [] })),
  };
}

/** The partitions the request's distinct topics ask for, counted as Kafka counts them (-1: `num.partitions`, invalid counts: none). */
function totalPartitions(broker: Broker, topics: readonly CreatableTopic[]): number {
  let total = 0;
  for (const t of topics) {
    if (t.assignments.length > 0) total += t.assignments.length;
    else if (t.numPartitions === -1) total += broker.topics.defaultPartitions;
    else if (t.numPartitions > 0) total += t.numPartitions;
  }
  return total;
}

/** A topic that passed every check: what it creates (its partitions and configs). */
interface CheckedTopic {
  partitions: number;
  configs: Record<string, string>;
}

/** Every check of one topic, in Kafka's order (throws TopicError / AlterConfigsError). */
function checkTopic(broker: Broker, t: CreatableTopic): CheckedTopic {
  const partitions = partitionCount(broker, t);
  broker.topics.checkCreate(t.name, partitions);
  checkReplicationFactor(t.assignments.length > 0 ? 1 : t.replicationFactor, broker.cluster.size);
  return { partitions, configs: topicConfigs(t) };
}

/**
 * The metadata records Kafka's controller would write for the topics that pass their checks (one
 * TopicRecord, one ConfigRecord per config, one PartitionRecord per partition each), counted as
 * `ReplicationControlManager.createTopics` adds them to its `BoundedList` of
 * `MAX_RECORDS_PER_USER_OP` (validateOnly builds them too).
 */
function recordsOf(broker: Broker, topics: readonly CreatableTopic[]): number {
  let records = 0;
  for (const t of topics) {
    try {
      const { partitions, configs } = checkTopic(broker, t);
      records += 1 + Object.keys(configs).length + partitions;
    } catch (err) {
      if (!(err instanceof TopicError) && !(err instanceof AlterConfigsError)) throw err;
    }
  }
  return records;
}

/**
 * One topic created as the controller creates it for a CreateTopics request (checks, configs,
 * partitions opened in slices): also what the group coordinator's internal topic creation sends
 * (`AutoTopicCreationManager`, streams groups' repartition and changelog topics).
 */
export async function createOne(broker: Broker, t: CreatableTopic, validateOnly: boolean, version: number, slices: Slicer): Promise<CreatableTopicResult> {
  try {
    const { partitions, configs } = checkTopic(broker, t);
    const res = result(t.name, ErrorCode.NONE, null);
    res.numPartitions = partitions;
    res.replicationFactor = 1;
    if (version >= 5) {
      res.configs = Object.keys(TOPIC_CONFIGS).map((name) => {
        const c = broker.configs.topicConfig(name, configs, -1);
        return { name, value: c.value, readOnly: false, configSource: c.source, isSensitive: false };
      });
    }
    // Opened in slices: thousands of partitions do not hold up other connections (issue #16).
    // validateOnly answers the id the topic would have had, as Kafka's controller draws it before
    // it checks (`ReplicationControlManager.createTopic`): random, never used.
    res.topicId = validateOnly ? newTopicId() : (await broker.topics.createInSlices(t.name, partitions, configs, slices)).id;
    return res;
  } catch (err) {
    if (err instanceof TopicError) return result(t.name, err.errorCode, err.message);
    if (err instanceof AlterConfigsError) return result(t.name, err.errorCode, err.message);
    // An I/O failure (EMFILE, ENOSPC): the topic is rolled back and the client told, as Kafka
    // answers an unexpected exception with UNKNOWN_SERVER_ERROR for that topic.
    broker.log.error({ err, topic: t.name }, 'could not create topic');
    return result(t.name, ErrorCode.UNKNOWN_SERVER_ERROR, (err as Error).message);
  }
}

/** The topic's configs (a name given twice keeps its last value), checked as `LogConfig.validate` does. */
function topicConfigs(t: CreatableTopic): Record<string, string> {
  const configs: Record<string, string> = {};
  for (const c of t.configs) {
    if (c.value === null) throw new AlterConfigsError(ErrorCode.INVALID_CONFIG, `Null value not supported for topic configs: ${c.name}`);
    configs[c.name] = c.value;
  }
  validateTopicConfigs(configs);
  return configs;
}

/** The partition count asked for, from numPartitions or the manual assignments. */
function partitionCount(broker: Broker, t: CreatableTopic): number {
  if (t.assignments.length === 0) {
    if (t.numPartitions === -1) return broker.topics.defaultPartitions;
    if (t.numPartitions <= 0) throw new TopicError(ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.');
    return t.numPartitions;
  }
  if (t.numPartitions !== -1) {
    throw new TopicError(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but numPartitions was not set to -1.');
  }
  if (t.replicationFactor !== -1) {
    throw new TopicError(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but replication factor was not set to -1.');
  }
  // Kafka's checks, order and messages (ReplicationControlManager.createTopic): each assignment in
  // turn (a partition named twice; the first partition's list sets the replication factor the
  // others must have), then the partitions 0 to n-1.
  const first = t.assignments[0]!;
  const seen = new Set<number>();
  for (const a of t.assignments) {
    if (seen.has(a.partitionIndex)) throw new TopicError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Found multiple manual partition assignments for partition ${a.partitionIndex}`);
    seen.add(a.partitionIndex);
    checkManualAssignment(a.brokerIds, a.partitionIndex, first.brokerIds.length, broker.cluster);
  }
  for (let i = 0; i < seen.size; i++) {
    if (!seen.has(i)) throw new TopicError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'partitions should be a consecutive 0-based integer sequence');
  }
  // Ours: a topic created with assignments has one replica, on the answering broker.
  for (const a of t.assignments) {
    if (a.brokerIds.length !== 1 || a.brokerIds[0] !== broker.nodeId) {
      throw new TopicError(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `The manual partition assignment includes broker(s) [${a.brokerIds.join(', ')}]; only broker ${broker.nodeId} can hold the partitions of a topic created with assignments here.`,
      );
    }
  }
  return t.assignments.length;
}

/** A replication factor the simulated cluster can place: -1 (the default) or 1 to the number of brokers. */
function checkReplicationFactor(replicationFactor: number, brokers: number): void {
  if (replicationFactor === -1 || (replicationFactor >= 1 && replicationFactor <= brokers)) return;
  if (replicationFactor <= 0) {
    throw new TopicError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0, or -1 to use the default value.');
  }
  throw new TopicError(
    ErrorCode.INVALID_REPLICATION_FACTOR,
    `Unable to replicate the partition ${replicationFactor} time(s): The target replication factor of ${replicationFactor} cannot be reached because only ${brokers} broker(s) are registered or some brokers have all their log directories cordoned.`,
  );
}
