import type { DeleteTopicsRequest } from '../protocol/messages/DeleteTopicsRequest.js';
import { defaultDeletableTopicResult, defaultDeleteTopicsResponse, type DeletableTopicResult, type DeleteTopicsResponse } from '../protocol/messages/DeleteTopicsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { ZERO_UUID } from '../protocol/primitives.js';
import type { Broker } from '../broker.js';
import { TopicError } from '../topics/topic-error.js';
import { isInternalTopic } from '../topics/topic-name.js';
import { javaHashSetOrder } from '../util/java-hash.js';
import { DELETE_SLICE_PARTITIONS } from '../topics/topic-store.js';
import { Slicer } from '../util/slices.js';
import type { ApiDefinition } from './types.js';
import { ANY_BROKER } from './shapes/routing.js';

/** The topics a request names: by name (`topic_names`, v1-5), by name or id (`topics`, v6). */
function named(req: DeleteTopicsRequest): Array<{ name: string | null; topicId: string }> {
  return [...req.topicNames.map((name) => ({ name, topicId: '' })), ...req.topics];
}

/**
 * DeleteTopics (key 20, v1-6), as Kafka's `ControllerApis.deleteTopics`: v1-5 by name
 * (`topic_names`), v6 by name or id (`topics`). An id (a name) given more than once is answered
 * once, first (names before ids; Kafka 4.3.1 answers the two in either order), with INVALID_REQUEST "Duplicate topic id." ("Duplicate topic
 * name.") and nothing is deleted for it. Per topic: both or neither of name and id -> INVALID_REQUEST; unknown name -> UNKNOWN_TOPIC_OR_PARTITION;
 * unknown id -> UNKNOWN_TOPIC_ID; `delete.topic.enable=false` -> TOPIC_DELETION_DISABLED
 * (INVALID_REQUEST below v3); internal topics are refused with INVALID_REQUEST. Files are
 * removed before the response, in slices (`TopicStore.deleteInSlices`, one Slicer counting the
 * request's topics and partitions): other requests are answered meanwhile.
 */
export const api: ApiDefinition<DeleteTopicsRequest, DeleteTopicsResponse> = {
  apiKey: 20,
  name: 'DeleteTopics',
  minVersion: 1,
  maxVersion: 6,
  // DeleteTopicsRequest.getErrorResponse: one result per topic.
  errorResponse: (req, _version, errorCode) => ({
    ...defaultDeleteTopicsResponse(),
    responses: named(req).map((t) => ({ ...defaultDeletableTopicResult(), name: t.name, topicId: t.topicId || defaultDeletableTopicResult().topicId, errorCode })),
  }),
  names: (req) => ({ topics: named(req).map((t) => ({ name: t.name, ...(t.name ? {} : { topicId: t.topicId }), partitions: null })) }),
  routing: ANY_BROKER,
  async handle(req, ctx) {
    // The controller's deadline (now + timeoutMs) has passed before it starts: the whole request
    // times out, nothing done (`QuorumController` appendWriteEvent; conformance: admin-edge-cases).
    if (req.timeoutMs <= 0) return api.errorResponse(req, ctx.apiVersion, ErrorCode.REQUEST_TIMED_OUT);
    const v = ctx.apiVersion;
    const entries = v >= 6 ? req.topics : req.topicNames.map((name) => ({ name, topicId: ZERO_UUID }));
    const keys = entries.map((e) => (e.name !== null ? `name:${e.name}` : `id:${e.topicId}`));
    const counts = new Map<string, number>();
    for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
    const duplicated = (prefix: string): string[] =>
      javaHashSetOrder([...new Set(keys.filter((k) => k.startsWith(prefix) && counts.get(k)! > 1))].map((k) => k.slice(prefix.length)));
    const duplicates: DeletableTopicResult[] = [
      ...duplicated('name:').map((name) => ({ name, topicId: ZERO_UUID, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Duplicate topic name.' })),
      ...duplicated('id:').map((topicId) => ({ name: null, topicId, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Duplicate topic id.' })),
    ];
    const unique = entries.filter((_, i) => counts.get(keys[i]!) === 1);
    const responses: DeletableTopicResult[] = [];
    // One Slicer across the request's topics: a thousand topics of one partition each are sliced too.
    const slices = new Slicer(DELETE_SLICE_PARTITIONS);
    for (const e of unique) {
      if (responses.length > 0) await slices.next();
      const res: DeletableTopicResult = { name: e.name, topicId: e.topicId, errorCode: ErrorCode.NONE, errorMessage: null };
      try {
        const name = resolveName(ctx.broker, e.name, e.topicId);
        res.name = name;
        if (!ctx.broker.config.bool('delete.topic.enable')) {
          throw new TopicError(v < 3 ? ErrorCode.INVALID_REQUEST : ErrorCode.TOPIC_DELETION_DISABLED, 'Topic deletion is disabled.');
        }
        res.topicId = (await ctx.broker.topics.deleteInSlices(name, slices)).id;
      } catch (err) {
        if (err instanceof TopicError) {
          res.errorCode = err.errorCode;
          res.errorMessage = err.message;
        } else {
          // An I/O failure (a full disk): the client told, as CreateTopics answers one, and as
          // Kafka answers an unexpected exception with UNKNOWN_SERVER_ERROR for that topic.
          ctx.broker.log.error({ err, topic: res.name }, 'could not delete topic');
          res.errorCode = ErrorCode.UNKNOWN_SERVER_ERROR;
          res.errorMessage = (err as Error).message;
        }
      }
      responses.push(res);
    }
    return { throttleTimeMs: 0, responses: [...duplicates, ...responses] };
  },
};

function resolveName(broker: Broker, name: string | null, topicId: string): string {
  if (name !== null && topicId !== ZERO_UUID) throw new TopicError(ErrorCode.INVALID_REQUEST, 'You may not specify both topic name and topic id.');
  if (name === null) {
    if (topicId === ZERO_UUID) throw new TopicError(ErrorCode.INVALID_REQUEST, 'Neither topic name nor id were specified.');
    const topic = broker.topics.getById(topicId);
    if (!topic) throw new TopicError(ErrorCode.UNKNOWN_TOPIC_ID, 'This server does not host this topic ID.');
    return topic.name;
  }
  if (isInternalTopic(name)) throw new TopicError(ErrorCode.INVALID_REQUEST, `Deleting the internal topic ${name} is not supported.`);
  if (!broker.topics.get(name)) throw new TopicError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.');
  return name;
}
