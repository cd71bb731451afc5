import type { CreatePartitionsRequest, CreatePartitionsTopic } from '../protocol/messages/CreatePartitionsRequest.js';
import { defaultCreatePartitionsResponse, type CreatePartitionsResponse, type CreatePartitionsTopicResult } from '../protocol/messages/CreatePartitionsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { Broker } from '../broker.js';
import { checkCreatePartitions } from '../topics/create-partitions.js';
import { TopicError } from '../topics/topic-error.js';
import { MAX_RECORDS_PER_USER_OP } from '../topics/controller-limits.js';
import { CREATE_SLICE_PARTITIONS } from '../topics/topic-store.js';
import { Slicer } from '../util/slices.js';
import type { ApiDefinition } from './types.js';
import { ANY_BROKER } from './shapes/routing.js';

/**
 * CreatePartitions (key 37, v0-3; v2+ flexible), as Kafka 4.3's `ControllerApis.createPartitions`
 * and `ReplicationControlManager.createPartitions`: a topic named twice gets one INVALID_REQUEST
 * "Duplicate topic name." (answered first, as Kafka collects duplicates first); every other topic is
 * checked on its own (src/topics/create-partitions.ts: UNKNOWN_TOPIC_OR_PARTITION,
 * INVALID_PARTITIONS with Kafka's messages, INVALID_REPLICA_ASSIGNMENT) and, unless `validateOnly`,
 * grown: each new partition gets its directory and `partition.metadata` (opened in slices counted
 * across the request's topics, other connections served in between; a topic's partitions appear together), leaders are placed as for
 * every partition of the simulated cluster (manual assignments are checked but do not pick the
 * leaders), and KIP-848 groups subscribed to the topic see the new partitions through their metadata
 * hash (a new group epoch at their next heartbeat). More than `MAX_RECORDS_PER_USER_OP` (10,000)
 * new partitions in the request: the topic that crosses it, and every later one that adds any,
 * get UNKNOWN_SERVER_ERROR (no message) and are not grown (Kafka keeps the partitions added before
 * the crossing: see DIFFERENCES.md). Classic group members notice the new partition
 * count in Metadata and rejoin, as with Kafka. `timeoutMs` is not waited on: the change is complete
 * when answered; a `timeoutMs` of 0 or less answers REQUEST_TIMED_OUT for every topic, nothing grown
 * (the controller's deadline passed). Not served: the controller mutation quota (THROTTLING_QUOTA_EXCEEDED).
 */
export const api: ApiDefinition<CreatePartitionsRequest, CreatePartitionsResponse> = {
  apiKey: 37,
  name: 'CreatePartitions',
  minVersion: 0,
  maxVersion: 3,
  // CreatePartitionsRequest.getErrorResponse: one result per topic.
  errorResponse: (req, _version, errorCode) => ({
    ...defaultCreatePartitionsResponse(),
    results: req.topics.map((t) => ({ name: t.name, errorCode, errorMessage: null })),
  }),
  names: (req) => ({ topics: req.topics.map((t) => ({ name: t.name, partitions: null })) }),
  routing: ANY_BROKER,
  async handle(req, ctx) {
    // The controller's deadline (now + timeoutMs) has passed before it starts: the whole request
    // times out, nothing done (`QuorumController` appendWriteEvent; conformance: admin-edge-cases).
    if (req.timeoutMs <= 0) return api.errorResponse(req, ctx.apiVersion, ErrorCode.REQUEST_TIMED_OUT);
    const counts = new Map<string, number>();
    for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    const results: CreatePartitionsTopicResult[] = [];
    for (const [name, n] of counts) if (n > 1) results.push({ name, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Duplicate topic name.' });
    const budget: RecordBudget = { used: 0 };
    // One Slicer across the request's topics: +1 partition on each of a thousand topics is sliced too.
    const slices = new Slicer(CREATE_SLICE_PARTITIONS);
    let grown = 0;
    for (const t of req.topics) {
      if (counts.get(t.name) !== 1) continue;
      if (grown++ > 0) await slices.next();
      results.push(await createPartitions(ctx.broker, t, req.validateOnly, budget, slices));
    }
    return { throttleTimeMs: 0, results };
  },
};

/** The metadata records (one PartitionRecord per new partition) the request's topics used so far. */
interface RecordBudget {
  used: number;
}

async function createPartitions(broker: Broker, t: CreatePartitionsTopic, validateOnly: boolean, budget: RecordBudget, slices: Slicer): Promise<CreatePartitionsTopicResult> {
  try {
    // One growth of a topic at a time, as the controller applies them in order: this one checks
    // the count another CreatePartitions (its partitions opening in slices) leaves.
    await broker.topics.whileGrowing(t.name);
    const topic = broker.topics.get(t.name);
    const assignments = t.assignments === null ? null : t.assignments.map((a) => a.brokerIds);
    const added = checkCreatePartitions(topic, t.name, t.count, assignments, broker.cluster);
    // Kafka's controller adds the request's PartitionRecords to one BoundedList of
    // MAX_RECORDS_PER_USER_OP (validateOnly too): the record past it throws
    // BoundedListTooLongException, which `ReplicationControlManager.createPartitions` answers for
    // that topic as UNKNOWN_SERVER_ERROR without a message; the list stays full for the topics after.
    if (budget.used + added > MAX_RECORDS_PER_USER_OP) {
      budget.used = MAX_RECORDS_PER_USER_OP;
      return { name: t.name, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null };
    }
    budget.used += added;
    if (!validateOnly) await broker.topics.addPartitions(topic!, t.count, slices);
    return { name: t.name, errorCode: ErrorCode.NONE, errorMessage: null };
  } catch (err) {
    if (err instanceof TopicError) return { name: t.name, errorCode: err.errorCode, errorMessage: err.errorMessage };
    // An I/O failure: the partitions created so far are removed (TopicStore.addPartitions).
    broker.log.error({ err, topic: t.name }, 'could not add partitions');
    return { name: t.name, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: (err as Error).message };
  }
}
