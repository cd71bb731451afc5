/**
 * TxnOffsetCommit for either group type: Kafka 4.3's `KafkaApis.handleTxnOffsetCommitRequest`
 * topic checks, then `OffsetMetadataManager.commitTransactionalOffset`. Order: group id ""
 * (INVALID_GROUP_ID on every partition), per partition an unknown topic or partition
 * (UNKNOWN_TOPIC_OR_PARTITION), the group's validation (`validateTransactionalOffsetCommit`: an
 * unknown group passes with a negative generation, else ILLEGAL_GENERATION; a group checks member,
 * instance and generation as for a transactional commit, a stale KIP-848 member epoch answering
 * ILLEGAL_GENERATION), OFFSET_METADATA_TOO_LARGE, then the transaction coordinator's verification
 * of the group's `__consumer_offsets` partition (`verify`: under transaction version 2, v5, the
 * partition joins the transaction; before, AddOffsetsToTxn must have added it). Accepted offsets
 * are written in a transactional batch of the producer and stay pending (invisible to
 * OffsetFetch, UNSTABLE_OFFSET_COMMIT with requireStable) until the transaction's marker. Their
 * records carry no topic id (`OffsetAndMetadata.fromRequest(TxnOffsetCommitRequestPartition, ..)`
 * sets ZERO_UUID), unlike OffsetCommit's.
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../../protocol/errors.js';
import type { TxnOffsetCommitRequest } from '../../protocol/messages/TxnOffsetCommitRequest.js';
import type { TxnOffsetCommitResponse, TxnOffsetCommitResponsePartition } from '../../protocol/messages/TxnOffsetCommitResponse.js';
import { writeErrorCode } from '../runtime.js';
import type { OffsetStore, OffsetToCommit } from './offset-store.js';
import { offsetToCommit, type OffsetTopics } from './offset-commit.js';
import { ELEMENTS_PER_SLICE } from '../../protocol/primitives.js';
import { runInSlices, runNow } from '../../util/slices.js';
import { ZERO_UUID } from '../../protocol/primitives.js';

export interface TxnOffsetCommitContext {
  readonly topics: OffsetTopics;
  readonly offsets: Pick<OffsetStore, 'commitTransactional'>;
  /**
   * The group's transactional commit check (`validateTransactionalOffsetCommit`): an error code, or
   * NONE with a check of each partition (a member committing with an older epoch, KIP-1251).
   */
  validateGroup(req: TxnOffsetCommitRequest, apiVersion: number): { errorCode: number; partitionError?: (topicId: string, partition: number) => number };
  /**
   * The transaction coordinator's check of the group's `__consumer_offsets` partition (added to
   * the transaction when `implicitAdd`): NONE or the coordinator's error.
   */
  verify(req: TxnOffsetCommitRequest, implicitAdd: boolean): Promise<number>;
  /** `offset.metadata.max.bytes` */
  readonly maxMetadataSize: number;
  readonly log: Logger;
}

/** From this version the commit adds the group's partition to the transaction itself (KIP-890, transaction version 2). */
export const TXN_OFFSET_COMMIT_IMPLICIT_ADD_VERSION = 5;

/**
 * The error a client of `apiVersion` gets for a verification error (`AddPartitionsToTxnManager`'s
 * mapping): PRODUCER_FENCED is INVALID_PRODUCER_EPOCH to every version, TRANSACTION_ABORTABLE is
 * INVALID_TXN_STATE before v5.
 */
function verificationError(errorCode: number, apiVersion: number): number {
  if (errorCode === ErrorCode.PRODUCER_FENCED) return ErrorCode.INVALID_PRODUCER_EPOCH;
  if (errorCode === ErrorCode.TRANSACTION_ABORTABLE && apiVersion < TXN_OFFSET_COMMIT_IMPLICIT_ADD_VERSION) return ErrorCode.INVALID_TXN_STATE;
  return errorCode;
}

/** The topic checks' results: the response's topics, and the partitions that passed them. */
interface Checked {
  topics: TxnOffsetCommitResponse['topics'];
  validated: TxnOffsetCommitResponsePartition[];
  toCommit: OffsetToCommit[];
  /** The topic id of each `toCommit` entry (those carry none, as Kafka's records of TxnOffsetCommit). */
  topicIds: string[];
}

/**
 * The per-partition checks before the group's (KafkaApis' topic checks, the metadata size),
 * building the response: a generator that yields every `ELEMENTS_PER_SLICE` partitions, so a huge
 * request runs a slice per turn of the event loop (issue #16), as OffsetCommit's.
 */
function* checkTopics(c: TxnOffsetCommitContext, req: TxnOffsetCommitRequest): Generator<void, Checked> {
  const groupError = req.groupId === '' ? ErrorCode.INVALID_GROUP_ID : null;
  const checked: Checked = { topics: [], validated: [], toCommit: [], topicIds: [] };
  let sinceYield = 0;
  for (const t of req.topics) {
    const topic = c.topics.get(t.name);
    const partitions: TxnOffsetCommitResponsePartition[] = new Array(t.partitions.length);
    checked.topics.push({ name: t.name, partitions });
    for (let i = 0; i < t.partitions.length; i++) {
      const p = t.partitions[i]!;
      const result = { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE as number };
      partitions[i] = result;
      if (groupError !== null) result.errorCode = groupError;
      else if (!topic || p.partitionIndex < 0 || p.partitionIndex >= topic.partitionCount) result.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      else {
        checked.validated.push(result);
        if ((p.committedMetadata?.length ?? 0) > c.maxMetadataSize) result.errorCode = ErrorCode.OFFSET_METADATA_TOO_LARGE;
        // Kafka's `OffsetAndMetadata.fromRequest` for a TxnOffsetCommit: no expiry and no topic id
        // (ZERO_UUID), so the record is value v4 without the tagged TopicId, live and stored.
        else {
          checked.toCommit.push({ ...offsetToCommit(topic, p, -1n), topicId: ZERO_UUID });
          checked.topicIds.push(topic.topicId);
        }
      }
      if (++sinceYield === ELEMENTS_PER_SLICE) {
        sinceYield = 0;
        yield;
      }
    }
  }
  return checked;
}

export async function commitTransactionalOffsets(c: TxnOffsetCommitContext, req: TxnOffsetCommitRequest, apiVersion: number): Promise<TxnOffsetCommitResponse> {
  let partitionCount = 0;
  for (const t of req.topics) partitionCount += t.partitions.length;
  const checks = checkTopics(c, req);
  const { topics, validated, toCommit, topicIds } = partitionCount >= ELEMENTS_PER_SLICE ? await runInSlices(checks) : runNow(checks);
  const fail = (errorCode: number): TxnOffsetCommitResponse => {
    for (const p of validated) p.errorCode = errorCode;
    return { throttleTimeMs: 0, topics };
  };
  if (validated.length === 0) return { throttleTimeMs: 0, topics };
  const validation = c.validateGroup(req, apiVersion);
  if (validation.errorCode !== ErrorCode.NONE) return fail(validation.errorCode);
  // An older member epoch: the first partition the member was given after it fails the whole
  // request, as Kafka's validator throws in its loop (conformance: streams groups).
  if (validation.partitionError) {
    for (let i = 0; i < toCommit.length; i++) {
      const errorCode = validation.partitionError(topicIds[i]!, toCommit[i]!.partition);
      if (errorCode !== ErrorCode.NONE) return fail(errorCode);
    }
  }
  if (toCommit.length === 0) return { throttleTimeMs: 0, topics };
  const verified = await c.verify(req, apiVersion >= TXN_OFFSET_COMMIT_IMPLICIT_ADD_VERSION);
  if (verified !== ErrorCode.NONE) return fail(verificationError(verified, apiVersion));
  try {
    await c.offsets.commitTransactional(req.groupId, toCommit, req.producerId, req.producerEpoch);
  } catch (err) {
    const errorCode = writeErrorCode(err);
    c.log.warn({ err, groupId: req.groupId, errorCode }, 'transactional offset commit not written');
    for (const p of validated) if (p.errorCode === ErrorCode.NONE) p.errorCode = errorCode;
  }
  return { throttleTimeMs: 0, topics };
}
