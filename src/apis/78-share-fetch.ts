import type { ShareFetchRequest } from '../protocol/messages/ShareFetchRequest.js';
import { defaultShareFetchResponse, type ShareFetchResponse } from '../protocol/messages/ShareFetchResponse.js';
import { shareFetch } from '../share/share-fetch.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { ANY_BROKER } from './shapes/routing.js';
import { AclOperation } from '../security/acl/acl-types.js';

/**
 * ShareFetch (key 78, v1-2; KIP-932, v2 adds ShareAcquireMode (KIP-1206) and IsRenewAck
 * (KIP-1222)), served by src/share/share-fetch.ts after Kafka 4.3.1's `KafkaApis` and
 * `SharePartitionManager`: share sessions, acquisition with acquisition locks, piggy-backed
 * acknowledgements. Errors as Kafka's: INVALID_REQUEST (no group id, a member id empty or longer
 * than 36, acknowledgements in an initial fetch, a renew-only fetch with non-zero limits),
 * SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH, SHARE_SESSION_LIMIT_REACHED at the top
 * level; per partition UNKNOWN_TOPIC_ID, TOPIC_AUTHORIZATION_FAILED (no READ on the topic, with an
 * authorizer; acknowledgements too), UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_SERVER_ERROR for a
 * share partition the group coordinator has not initialized, and acknowledgement errors
 * (INVALID_REQUEST, INVALID_RECORD_STATE) in AcknowledgeErrorCode.
 */
/** Kafka's `fetch.max.bytes` default (55 MiB): ShareFetch reads at most min(MaxBytes, this). */
const FETCH_MAX_BYTES = 57671680;

export const api: ApiDefinition<ShareFetchRequest, ShareFetchResponse> = {
  apiKey: 78,
  name: 'ShareFetch',
  minVersion: 1,
  maxVersion: 2,
  errorResponse: topLevelError(defaultShareFetchResponse),
  names: (req) => ({ groups: [req.groupId], members: [req.memberId], topics: req.topics.map((t) => ({ topicId: t.topicId, partitions: t.partitions.map((p) => p.partitionIndex) })) }),
  routing: ANY_BROKER,
  handle(req, ctx) {
    const { broker } = ctx;
    return shareFetch(req, ctx.apiVersion, {
      manager: broker.shares,
      topics: broker.topics,
      pollTime: broker.pollTime,
      connectionId: ctx.connectionId,
      maxBytes: FETCH_MAX_BYTES,
      readable: (topic) => ctx.authorizeTopic?.(AclOperation.READ, topic) ?? true,
    });
  },
};
