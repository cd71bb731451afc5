import type { ShareAcknowledgeRequest } from '../protocol/messages/ShareAcknowledgeRequest.js';
import { defaultShareAcknowledgeResponse, type ShareAcknowledgeResponse } from '../protocol/messages/ShareAcknowledgeResponse.js';
import { shareAcknowledge } from '../share/share-acknowledge.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { ANY_BROKER } from './shapes/routing.js';
import { AclOperation } from '../security/acl/acl-types.js';

/**
 * ShareAcknowledge (key 79, v1-2; v2 adds IsRenewAck and AcknowledgeType RENEW, KIP-1222), served
 * by src/share/share-acknowledge.ts after Kafka 4.3.1's `KafkaApis.handleShareAcknowledgeRequest`:
 * top level INVALID_REQUEST, INVALID_SHARE_SESSION_EPOCH (epoch 0 or not the session's),
 * SHARE_SESSION_NOT_FOUND; per partition UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_OR_PARTITION (no share
 * partition loaded), INVALID_REQUEST (malformed batches), TOPIC_AUTHORIZATION_FAILED (no READ on
 * the topic, with an authorizer), INVALID_RECORD_STATE.
 */
export const api: ApiDefinition<ShareAcknowledgeRequest, ShareAcknowledgeResponse> = {
  apiKey: 79,
  name: 'ShareAcknowledge',
  minVersion: 1,
  maxVersion: 2,
  errorResponse: topLevelError(defaultShareAcknowledgeResponse),
  names: (req) => ({ groups: [req.groupId], members: [req.memberId], topics: req.topics.map((t) => ({ topicId: t.topicId, partitions: t.partitions.map((p) => p.partitionIndex) })) }),
  routing: ANY_BROKER,
  handle(req, ctx) {
    const { authorizeTopic } = ctx;
    return shareAcknowledge(req, ctx.apiVersion, ctx.broker.shares, ctx.broker.topics, authorizeTopic ? (topic) => authorizeTopic(AclOperation.READ, topic) : undefined);
  },
};
