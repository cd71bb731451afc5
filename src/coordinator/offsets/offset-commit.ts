/**
 * OffsetCommit for either group type: Kafka 4.3's `KafkaApis.handleOffsetCommitRequest` topic
 * checks, then `OffsetMetadataManager.commitOffset`. Order: per partition topic existence (UNKNOWN_TOPIC_OR_PARTITION; from v10 topics are named by id:
 * UNKNOWN_TOPIC_ID), then the group's validation (`validateOffsetCommit`) whose error goes on every
 * remaining partition, then per partition OFFSET_METADATA_TOO_LARGE when the metadata is longer
 * than `offset.metadata.max.bytes` in UTF-16 code units (Java's `String.length()`).
 * Accepted offsets are written through the coordinator runtime and durable before the answer; a
 * write larger than `message.max.bytes` is refused before its records are built (Kafka's runtime:
 * RecordTooLargeException, answered as UNKNOWN_SERVER_ERROR); when
 * that write fails, every partition the coordinator handled answers the write's error
 * (NOT_COORDINATOR for a storage error, `CoordinatorOperationExceptionHelper`) and nothing is
 * committed.
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../../protocol/errors.js';
import type { OffsetCommitRequest, OffsetCommitRequestPartition } from '../../protocol/messages/OffsetCommitRequest.js';
import { ELEMENTS_PER_SLICE } from '../../protocol/primitives.js';
import { runInSlices } from '../../util/slices.js';
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
  /** `message.max.bytes`: the largest batch one write may make (Kafka's runtime `maxBatchSize`). */
  readonly maxBatchBytes: number;
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

/**
 * A lower bound (bytes) of the OffsetCommit record of one partition in a batch: key version,
 * group, topic and partition; value version, offset, metadata and commit timestamp; the record's
 * own framing. String lengths in UTF-16 units, never more than their UTF-8 bytes.
 */
function recordBytesAtLeast(groupId: string, topic: string, metadata: string): number {
  return 2 + 2 + groupId.length + 2 + topic.length + 4 + 2 + 8 + 2 + metadata.length + 8 + 7;
}

/** A request partition past the checks that need no group (KafkaApis' topic checks, the metadata size). */
interface Candidate {
  topic: { name: string; topicId: string };
  partition: OffsetCommitRequestPartition;
  result: { partitionIndex: number; errorCode: number };
  metadataTooLarge: boolean;
}

/**
 * The per-partition checks that do not look at the group, building the response, as a walk that
 * can stop after any number of partitions and go on later: a huge request runs
 * `ELEMENTS_PER_SLICE` partitions per turn of the event loop (issue #16), a small one runs at once
 * without a generator (on the path of every commit: one object instead of a generator, its step
 * results and a result object). Gathers the partitions that reach the group coordinator and a
 * lower bound of the bytes their records would take.
 */
class TopicChecks {
  /** Sized for every partition, cut to those that pass once done (see `sized`). */
  readonly candidates: Candidate[];
  private candidateCount = 0;
  bytesAtLeast = 0;
  /** The next topic of the request to check, and its next partition. */
  private topicIndex = 0;
  private partitionIndex = 0;
  /** The response partitions of the topic being checked (null before its first partition). */
  private partitions: Array<{ partitionIndex: number; errorCode: number }> | null = null;

  constructor(
    private readonly c: OffsetCommitContext,
    private readonly req: OffsetCommitRequest,
    private readonly byId: boolean,
    private readonly topics: OffsetCommitResponseTopic[],
  ) {
    let partitions = 0;
    for (const t of req.topics) partitions += t.partitions.length;
    this.candidates = sized(partitions);
  }

  /** Checks up to `limit` more partitions; true once every partition is checked. */
  step(limit: number): boolean {
    const { c, req, byId, topics, candidates } = this;
    let checked = 0;
    for (; this.topicIndex < req.topics.length; this.topicIndex++) {
      const t = req.topics[this.topicIndex]!;
      const topic = byId ? c.topics.getById(t.topicId) : c.topics.get(t.name);
      if (this.partitions === null) {
        this.partitions = new Array(t.partitions.length);
        topics[this.topicIndex] = { name: byId ? '' : t.name, topicId: byId ? t.topicId : '', partitions: this.partitions };
      }
      const partitions = this.partitions;
      for (; this.partitionIndex < t.partitions.length; this.partitionIndex++) {
        if (checked++ === limit) return false;
        const p = t.partitions[this.partitionIndex]!;
        const result = { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE as number };
        partitions[this.partitionIndex] = result;
        if (!topic) result.errorCode = byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        else if (p.partitionIndex < 0 || p.partitionIndex >= topic.partitionCount) result.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        else {
          const metadataTooLarge = (p.committedMetadata?.length ?? 0) > c.maxMetadataSize;
          candidates[this.candidateCount++] = { topic, partition: p, result, metadataTooLarge };
          if (!metadataTooLarge) this.bytesAtLeast += recordBytesAtLeast(req.groupId, topic.name, p.committedMetadata ?? '');
        }
      }
      this.partitions = null;
      this.partitionIndex = 0;
    }
    cutTo(candidates, this.candidateCount);
    return true;
  }

  /** The walk to its end, a slice per `runInSlices` step. */
  *inSlices(): Generator<void, TopicChecks> {
    while (!this.step(ELEMENTS_PER_SLICE)) yield;
    return this;
  }
}

/**
 * An array of `n` slots to fill by index, then cut to the count filled: on the path of every commit,
 * where `[]` and a first `push` would reserve 17 slots for the usual one element.
 */
function sized<T>(n: number): T[] {
  return new Array<T>(n);
}

/**
 * Cuts a `sized` array to the `n` slots filled: only when some were left empty, as setting an
 * array's length is a call into V8's runtime (~50 ns) even when it does not change (3 per commit).
 */
function cutTo(array: unknown[], n: number): void {
  if (array.length !== n) array.length = n;
}

/**
 * OffsetCommit (see the file's comment). Not an async function: a small request is checked in the
 * same step and its answer follows the write's promise directly (no extra promise hops per commit).
 */
export function commitOffsets(c: OffsetCommitContext, req: OffsetCommitRequest, apiVersion: number): Promise<OffsetCommitResponse> {
  const byId = apiVersion >= OFFSET_COMMIT_TOPIC_IDS_VERSION;
  const topics: OffsetCommitResponseTopic[] = sized(req.topics.length);
  const checks = new TopicChecks(c, req, byId, topics);
  if (!checks.step(ELEMENTS_PER_SLICE)) return runInSlices(checks.inSlices()).then((checked) => commitChecked(c, req, apiVersion, topics, checked));
  return commitChecked(c, req, apiVersion, topics, checks);
}

/**
 * A commit of an older member epoch (KIP-1251): Kafka's validator checks each partition in turn
 * (those whose metadata is too large are answered first and never checked) and throws at the first
 * one the member was given after that epoch, which fails the whole request: every partition the
 * coordinator handled answers that error (conformance: consumer and streams groups).
 */
function partitionsError(candidates: TopicChecks['candidates'], partitionError: (topicId: string, partition: number) => number): number {
  for (const { topic, partition, metadataTooLarge } of candidates) {
    if (metadataTooLarge) continue;
    const errorCode = partitionError(topic.topicId, partition.partitionIndex);
    if (errorCode !== ErrorCode.NONE) return errorCode;
  }
  return ErrorCode.NONE;
}

/** The group's validation and the write of the partitions past the topic checks: one synchronous step, then the write. */
function commitChecked(
  c: OffsetCommitContext,
  req: OffsetCommitRequest,
  apiVersion: number,
  topics: OffsetCommitResponseTopic[],
  { candidates, bytesAtLeast }: TopicChecks,
): Promise<OffsetCommitResponse> {
  const response: OffsetCommitResponse = { throttleTimeMs: 0, topics };
  // From here on one synchronous step, as Kafka's coordinator runs the operation: the group's
  // validation and the records it writes see the same state.
  // The empty group id commits as any other (a simple group), as Kafka 4.3.1 (conformance: classic).
  const validation = validateOffsetCommit(c.groups, req, apiVersion);
  const groupError = validation.partitionError ? partitionsError(candidates, validation.partitionError) : validation.errorCode;
  const toCommit: OffsetToCommit[] = sized(candidates.length);
  /** The partitions the group coordinator handled (past the topic checks KafkaApis makes first). */
  const coordinated: Array<{ errorCode: number }> = sized(candidates.length);
  if (groupError === ErrorCode.NONE && bytesAtLeast > c.maxBatchBytes) {
    // Kafka's runtime refuses an atomic write larger than a batch before building it
    // (RecordTooLargeException): every partition the coordinator handled answers that error, as
    // when a write fails.
    const errorCode = writeErrorCode(Object.assign(new Error('record batch too large'), { errorCode: ErrorCode.MESSAGE_TOO_LARGE }));
    c.log.warn({ groupId: req.groupId, partitions: candidates.length, bytesAtLeast, maxBatchBytes: c.maxBatchBytes, errorCode }, 'offset commit not written: larger than one batch');
    for (const p of candidates) p.result.errorCode = errorCode;
    return Promise.resolve(response);
  }
  // Java's long arithmetic wraps around; Kafka stores what it computes.
  const expireTimestamp = req.retentionTimeMs === -1n ? -1n : BigInt.asIntN(64, BigInt(c.now()) + req.retentionTimeMs);
  let committing = 0;
  let handled = 0;
  for (const { topic, partition: p, result, metadataTooLarge } of candidates) {
    if (groupError !== ErrorCode.NONE) result.errorCode = groupError;
    else if (metadataTooLarge) result.errorCode = ErrorCode.OFFSET_METADATA_TOO_LARGE;
    else toCommit[committing++] = offsetToCommit(topic, p, expireTimestamp);
    if (result.errorCode === ErrorCode.NONE || result.errorCode === ErrorCode.OFFSET_METADATA_TOO_LARGE) coordinated[handled++] = result;
  }
  cutTo(toCommit, committing);
  cutTo(coordinated, handled);
  if (toCommit.length === 0) return Promise.resolve(response);
  let written: Promise<void>;
  try {
    written = c.offsets.commit(req.groupId, toCommit);
  } catch (err) {
    written = Promise.reject(err);
  }
  return written.then(
    () => response,
    (err: unknown) => {
      const errorCode = writeErrorCode(err);
      c.log.warn({ err, groupId: req.groupId, errorCode }, 'offset commit not written');
      for (const p of coordinated) p.errorCode = errorCode;
      return response;
    },
  );
}
