/**
 * ShareAcknowledge (key 79) as Kafka 4.3.1's `KafkaApis.handleShareAcknowledgeRequest`: request
 * checks, the share session's epoch (`acknowledgeSessionUpdate`: 0 is INVALID_SHARE_SESSION_EPOCH,
 * no session SHARE_SESSION_NOT_FOUND), each partition's batches checked and applied (a partition
 * named twice: once, with its last entry's batches, `supersededEntries`); with epoch -1
 * the session then ends and the member's remaining records are released.
 */
import { ErrorCode } from '../protocol/errors.js';
import type { ShareAcknowledgeRequest } from '../protocol/messages/ShareAcknowledgeRequest.js';
import { defaultPartitionData, defaultShareAcknowledgeResponse, type PartitionData, type ShareAcknowledgeResponse } from '../protocol/messages/ShareAcknowledgeResponse.js';
import type { TopicStore } from '../topics/topic-store.js';
import { SharePartitionError } from './share-partition.js';
import type { SharePartitionManager } from './share-partition-manager.js';
import { ackRequestError, isValidMemberId, SHARE_BUDGET_EVERY, SHARE_SLICE_PARTITIONS, supersededEntries } from './share-request-checks.js';
import { nextTurn, Slicer } from '../util/slices.js';

/** `ShareAcknowledgeRequest.getErrorResponse`: the top-level error only. */
function topLevel(errorCode: number): ShareAcknowledgeResponse {
  return { ...defaultShareAcknowledgeResponse(), errorCode };
}

/**
 * `readable`: whether the principal may READ a topic (always, without an authorizer); a refused
 * topic's partitions answer TOPIC_AUTHORIZATION_FAILED after the batches' checks, as Kafka's
 * `handleAcknowledgements` does.
 */
export async function shareAcknowledge(req: ShareAcknowledgeRequest, version: number, manager: SharePartitionManager, topics: TopicStore, readable: (topic: string) => boolean = () => true): Promise<ShareAcknowledgeResponse> {
  if (req.groupId === null) return topLevel(ErrorCode.INVALID_REQUEST);
  const groupId = req.groupId;
  if (!isValidMemberId(req.memberId)) return topLevel(ErrorCode.INVALID_REQUEST);
  const memberId = req.memberId!;
  try {
    manager.sessions.forAcknowledge(groupId, memberId, req.shareSessionEpoch);
  } catch (err) {
    if (err instanceof SharePartitionError) return topLevel(err.errorCode);
    throw err;
  }
  const renewAck = version >= 2 && req.isRenewAck;
  const responses = [];
  // The partitions' acknowledgements are applied in slices and written together (Kafka's
  // `SharePartitionManager.acknowledge` combines one future per partition): 9,000 partitions one
  // after the other held the broker 160-430 ms (adversarial trial, session 23).
  const slicer = new Slicer(SHARE_SLICE_PARTITIONS, SHARE_BUDGET_EVERY);
  const writes: Array<Promise<void>> = [];
  const superseded = supersededEntries(req.topics);
  for (const t of req.topics) {
    const partitions: PartitionData[] = [];
    for (const p of t.partitions) {
      if (superseded?.has(p)) continue;
      if (slicer.due()) await nextTurn();
      const data: PartitionData = { ...defaultPartitionData(), partitionIndex: p.partitionIndex };
      partitions.push(data);
      const topic = topics.getById(t.topicId);
      const invalid = !topic
        ? { errorCode: ErrorCode.UNKNOWN_TOPIC_ID, errorMessage: null }
        : (ackRequestError(p.acknowledgementBatches, version >= 2, renewAck) ?? (readable(topic.name) ? null : { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null }));
      const outcome = invalid ?? manager.acknowledge(groupId, memberId, t.topicId, p.partitionIndex, p.acknowledgementBatches);
      if (outcome instanceof Promise) writes.push(outcome.then((o) => void Object.assign(data, o)));
      else Object.assign(data, outcome);
    }
    responses.push({ topicId: t.topicId, partitions });
  }
  await Promise.all(writes);
  if (req.shareSessionEpoch === -1) void manager.releaseSession(groupId, memberId).catch(() => undefined);
  return { ...defaultShareAcknowledgeResponse(), acquisitionLockTimeoutMs: manager.recordLockDurationMs(groupId), responses };
}
