/**
 * OffsetCommit for either group type: Kafka 4.3's `KafkaApis.handleOffsetCommitRequest` topic
 * checks, then `OffsetMetadataManager.commitOffset`. Order: group id "" (INVALID_GROUP_ID), per
 * partition topic existence (UNKNOWN_TOPIC_OR_PARTITION; from v10 topics are named by id:
 * UNKNOWN_TOPIC_ID), then the group's validation (`validateOffsetCommit`) whose error goes on every
 * remaining partition, then per partition OFFSET_METADATA_TOO_LARGE when the metadata is longer
 * than `offset.metadata.max.bytes` in UTF-16 code units (Java's `String.length()`).
 * Accepted offsets are written through the coordinator runtime and durable before the answer; when
 * that write fails, every partition the coordinator handled answers the write's error
 * (NOT_COORDINATOR for a storage error, `CoordinatorOperationExceptionHelper`) and nothing is
 * committed.
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../../protocol/errors.js';
import type { OffsetCommitRequest } from '../../protocol/messages/OffsetCommitRequest.js';
import type { OffsetCommitResponse, OffsetCommitResponseTopic } from '../../protocol/messages/OffsetCommitResponse.js';
import { writeErrorCode } from '../runtime.js';
import type { OffsetStore, OffsetToCommit } from './offset-store.js';
import { validateOffsetCommit, type GroupCoordinators } from './commit-validation.js';

/** What a topic lookup answers (a `TopicStore` fits). */
export interface OffsetTopics {
  get(name: string): { name: string; topicId: string; partitionCount: number } | undefined;
  getById(topicId: string): { name: string; topicId: string; partitionCount: number } | undefined;
}

export interface OffsetCommitContext {
  readonly groups: GroupCoordinators;
  readonly topics: OffsetTopics;
  readonly offsets: Pick<OffsetStore, 'commit'>;
  /** `offset.metadata.max.bytes` */
  readonly maxMetadataSize: number;
  /** ms since the epoch. */
  now(): number;
  readonly log: Logger;
}

/** The offset a request's partition commits (OffsetCommit, TxnOffsetCommit). */
export function offsetToCommit(
  topic: { name: string; topicId: string },
  p: { partitionIndex: number; committedOffset: bigint; committedLeaderEpoch: number; committedMetadata: string | null },
  expireTimestamp: bigint,
): OffsetToCommit {
  return { topic: topic.name, partition: p.partitionIndex, offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch, metadata: p.committedMetadata ?? '', topicId: topic.topicId, expireTimestamp };
}

/** From this version OffsetCommit names topics by id (KIP-848's v10). */
export const OFFSET_COMMIT_TOPIC_IDS_VERSION = 10;

export async function commitOffsets(c: OffsetCommitContext, req: OffsetCommitRequest, apiVersion: number): Promise<OffsetCommitResponse> {
  const byId = apiVersion >= OFFSET_COMMIT_TOPIC_IDS_VERSION;
  const validation = req.groupId === '' ? { errorCode: ErrorCode.INVALID_GROUP_ID as number } : validateOffsetCommit(c.groups, req, apiVersion);
  const groupError = validation.errorCode;
  const now = BigInt(c.now());
  const toCommit: OffsetToCommit[] = [];
  /** The partitions the group coordinator handled (past the topic checks KafkaApis makes first). */
  const coordinated: Array<{ errorCode: number }> = [];
  const topics: OffsetCommitResponseTopic[] = req.topics.map((t) => {
    const topic = byId ? c.topics.getById(t.topicId) : c.topics.get(t.name);
    return {
      name: byId ? '' : t.name,
      topicId: byId ? t.topicId : '',
      partitions: t.partitions.map((p) => {
        let errorCode: number = ErrorCode.NONE;
        if (!topic) errorCode = byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        else if (p.partitionIndex < 0 || p.partitionIndex >= topic.partitionCount) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        else if (groupError !== ErrorCode.NONE) errorCode = groupError;
        else if (validation.partitionError && validation.partitionError(topic.topicId, p.partitionIndex) !== ErrorCode.NONE) {
          errorCode = validation.partitionError(topic.topicId, p.partitionIndex);
        } else if ((p.committedMetadata?.length ?? 0) > c.maxMetadataSize) errorCode = ErrorCode.OFFSET_METADATA_TOO_LARGE;
        else {
          // Java's long arithmetic wraps around; Kafka stores what it computes.
          toCommit.push(offsetToCommit(topic, p, req.retentionTimeMs === -1n ? -1n : BigInt.asIntN(64, now + req.retentionTimeMs)));
        }
        const result = { partitionIndex: p.partitionIndex, errorCode };
        if (errorCode === ErrorCode.NONE || errorCode === ErrorCode.OFFSET_METADATA_TOO_LARGE) coordinated.push(result);
        return result;
      }),
    };
  });
  if (toCommit.length > 0) {
    try {
      await c.offsets.commit(req.groupId, toCommit);
    } catch (err) {
      const errorCode = writeErrorCode(err);
      c.log.warn({ err, groupId: req.groupId, errorCode }, 'offset commit not written');
      for (const p of coordinated) p.errorCode = errorCode;
    }
  }
  return { throttleTimeMs: 0, topics };
}
