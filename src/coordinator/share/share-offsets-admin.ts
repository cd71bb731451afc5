/**
 * AlterShareGroupOffsets and DeleteShareGroupOffsets for one group (KIP-932), as Kafka 4.3.1's
 * `GroupCoordinatorService.alterShareGroupOffsets` / `deleteShareGroupOffsets` with the
 * `GroupMetadataManager` steps they schedule:
 *
 * - Alter (`alterShareGroupOffsets`, then `persisterInitialize`): the group is created when it
 *   does not exist (record 15 creates it on replay, as Kafka's `getOrMaybeCreateShareGroup(id,
 *   true)`); a group of another type answers GROUP_ID_NOT_FOUND, one with members NON_EMPTY_GROUP.
 *   The named partitions go into record 15's initializing set, the share coordinator initializes
 *   their state at the given start offsets (InitializeShareGroupState: a new ShareSnapshot, so the
 *   in-flight and acknowledged states are gone), and once it succeeded a second record 15 moves them
 *   to the initialized set. A partition past the topic's count answers UNKNOWN_TOPIC_OR_PARTITION; a
 *   share-coordinator error is that partition's answer (the partitions stay initializing, as Kafka
 *   leaves them).
 * - Delete (`initiateDeleteShareGroupOffsets`, `persister.deleteState`,
 *   `completeDeleteShareGroupOffsets`): GROUP_ID_NOT_FOUND for no share group, NON_EMPTY_GROUP
 *   unless Empty; each named topic whose share state is initialized (or still deleting) moves to
 *   record 15's deleting set, its state is deleted by the share coordinator (so the next member
 *   starts from `share.auto.offset.reset`), then it leaves the deleting set. A topic with no state
 *   answers UNKNOWN_TOPIC_OR_PARTITION "There is no offset information to delete."; an unknown
 *   topic UNKNOWN_TOPIC_OR_PARTITION with the error's message.
 *
 * Unknown topics of Alter are answered by the API handler (Kafka's `KafkaApis` checks the metadata
 * cache first), so every topic reaching `alterShareGroupOffsets` exists or was deleted meanwhile.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { errorMessageOf } from '../../protocol/error-messages.js';
import { ZERO_UUID } from '../../protocol/primitives.js';
import type { AlterShareGroupOffsetsRequestTopic } from '../../protocol/messages/AlterShareGroupOffsetsRequest.js';
import type { AlterShareGroupOffsetsResponse, AlterShareGroupOffsetsResponsePartition, AlterShareGroupOffsetsResponseTopic } from '../../protocol/messages/AlterShareGroupOffsetsResponse.js';
import type { DeleteShareGroupOffsetsResponse, DeleteShareGroupOffsetsResponseTopic } from '../../protocol/messages/DeleteShareGroupOffsetsResponse.js';
import { javaHashMapOrder } from '../../util/java-hash.js';
import { javaUuidHash } from '../consumer/assignor/java-order.js';
import type { CoordinatorRecord } from '../records.js';
import { writeErrorCode } from '../runtime.js';
import type { ShareContext } from './share-context.js';
import { stateMetadataValue, type InitTopic, type ShareGroup } from './share-group.js';
import { addInitializingTopicsRecords, deletingNames, markInitialized } from './share-state-init.js';

/**
 * Kafka's `Errors.message()` of the errors these APIs answer with the error's own message (their
 * `getErrorResponse` and per-partition answers always carry one), beyond `errorMessageOf`'s.
 */
const MESSAGES: Readonly<Record<number, string>> = {
  [ErrorCode.UNKNOWN_SERVER_ERROR]: 'The server experienced an unexpected error when processing the request.',
  [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]: 'This server does not host this topic-partition.',
  [ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]: "The coordinator is loading and hence can't process requests.",
  [ErrorCode.COORDINATOR_NOT_AVAILABLE]: 'The coordinator is not available.',
  [ErrorCode.NOT_COORDINATOR]: 'This is not the correct coordinator.',
  [ErrorCode.INVALID_GROUP_ID]: 'The group id is invalid.',
  [ErrorCode.GROUP_ID_NOT_FOUND]: 'The group id does not exist.',
  [ErrorCode.NON_EMPTY_GROUP]: 'The group is not empty.',
  [ErrorCode.INVALID_REQUEST]: 'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.',
  [ErrorCode.FENCED_STATE_EPOCH]: 'The share coordinator rejected the request because the share-group state epoch did not match.',
  [ErrorCode.KAFKA_STORAGE_ERROR]: 'Disk error when trying to access log file on the disk.',
};

/** The message Kafka's share-group offset APIs carry with `code`. */
export function shareOffsetsErrorMessage(code: number): string | null {
  return MESSAGES[code] ?? errorMessageOf(code);
}

const NOT_EMPTY = MESSAGES[ErrorCode.NON_EMPTY_GROUP]!;
const NO_OFFSETS_TO_DELETE = 'There is no offset information to delete.';

/** A response failed as a whole (`getErrorResponseData(error, message)`: the error's own message by default). */
function failed(errorCode: number, errorMessage: string | null = null): { throttleTimeMs: number; errorCode: number; errorMessage: string | null; responses: never[] } {
  return { throttleTimeMs: 0, errorCode, errorMessage: errorMessage ?? shareOffsetsErrorMessage(errorCode), responses: [] };
}

/** `shareGroup(groupId)` / `getOrMaybeCreateShareGroup`: the error for a missing or foreign group, else null. */
function groupError(group: ShareGroup | undefined, groupId: string, groupTaken: boolean, create: boolean): { errorCode: number; errorMessage: string } | null {
  if (group) return group.isEmpty() ? null : { errorCode: ErrorCode.NON_EMPTY_GROUP, errorMessage: NOT_EMPTY };
  if (groupTaken) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} is not a share group.` };
  return create ? null : { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} not found.` };
}

/**
 * AlterShareGroupOffsets for the topics that exist (the handler answered the others). Returns the
 * group's response: a top-level error, or per topic (request order) per partition.
 */
export async function alterShareGroupOffsets(
  ctx: ShareContext,
  groupId: string,
  topics: readonly AlterShareGroupOffsetsRequestTopic[],
  groupTaken: boolean,
): Promise<AlterShareGroupOffsetsResponse> {
  if (groupId === '') return failed(ErrorCode.INVALID_GROUP_ID);
  const current = ctx.store.get(groupId);
  const refused = groupError(current, groupId, groupTaken, true);
  if (refused) return failed(refused.errorCode, refused.errorMessage);
  const now = ctx.time.now();
  const responses: AlterShareGroupOffsetsResponseTopic[] = [];
  const initializing = new Map<string, InitTopic>();
  const offsets: Array<{ topicId: string; partition: number; startOffset: bigint }> = [];
  for (const t of topics) {
    const topic = ctx.topics.get(t.topicName);
    const unknown = (partitionIndex: number): AlterShareGroupOffsetsResponsePartition => ({
      partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: shareOffsetsErrorMessage(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION),
    });
    if (!topic) {
      responses.push({ topicName: t.topicName, topicId: ZERO_UUID, partitions: t.partitions.map((p) => unknown(p.partitionIndex)) });
      continue;
    }
    const partitions: AlterShareGroupOffsetsResponsePartition[] = [];
    const valid = new Set<number>();
    for (const p of t.partitions) {
      if (p.partitionIndex < topic.partitionCount) {
        partitions.push({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE, errorMessage: null });
        offsets.push({ topicId: topic.topicId, partition: p.partitionIndex, startOffset: p.startOffset });
        valid.add(p.partitionIndex);
      } else {
        partitions.push(unknown(p.partitionIndex));
      }
    }
    // Kafka puts the topic in the initializing set even when none of its partitions exists.
    initializing.set(topic.topicId, { name: t.topicName, partitions: valid, timestamp: now });
    responses.push({ topicName: t.topicName, topicId: topic.topicId, partitions });
  }
  // `addInitializingTopicsRecords`; the group is created by this record when it is new.
  const records: CoordinatorRecord[] = [];
  if (initializing.size > 0) {
    addInitializingTopicsRecords(ctx, groupId, current?.stateMetadata ?? null, initializing, ctx.store.emitInto(records));
    try {
      await ctx.writer.append(records);
    } catch (err) {
      ctx.log.error({ err, groupId }, 'failed to write share group offsets alteration');
      return failed(writeErrorCode(err));
    }
  }
  const response: AlterShareGroupOffsetsResponse = { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses };
  if (offsets.length === 0) return response;
  const stateEpoch = ctx.store.get(groupId)?.groupEpoch ?? 1;
  let results;
  try {
    results = await ctx.persister.initializeState(groupId, offsets.map((o) => ({ ...o, stateEpoch })));
  } catch (err) {
    // `buildErrorResponse(request, response, exp)` sets the top-level error, which KafkaApis answers alone.
    ctx.log.error({ err, groupId }, 'unable to initialize share group state while altering share group offsets');
    return failed(ErrorCode.UNKNOWN_SERVER_ERROR, (err as Error).message);
  }
  const errors = new Map(results.filter((r) => r.errorCode !== ErrorCode.NONE).map((r) => [`${r.topicId}:${r.partition}`, r]));
  if (errors.size > 0) {
    // `buildErrorResponse(response, result)`: the share coordinator's error on its partitions.
    return {
      ...response,
      responses: responses.map((t) => ({
        ...t,
        partitions: t.partitions.map((p) => {
          const e = p.errorCode === ErrorCode.NONE ? errors.get(`${t.topicId}:${p.partitionIndex}`) : undefined;
          return e ? { partitionIndex: p.partitionIndex, errorCode: e.errorCode, errorMessage: e.errorMessage } : p;
        }),
      })),
    };
  }
  // `performShareGroupStateMetadataInitialize` (Kafka does not wait for it; we do, so a describe
  // right after the response sees the partitions initialized).
  const group = ctx.store.get(groupId);
  if (group) {
    const done = new Map<string, Set<number>>();
    for (const o of offsets) done.set(o.topicId, (done.get(o.topicId) ?? new Set()).add(o.partition));
    const more: CoordinatorRecord[] = [];
    markInitialized(ctx, group, done, ctx.store.emitInto(more));
    if (more.length > 0) {
      try {
        await ctx.writer.append(more);
      } catch (err) {
        ctx.log.error({ err, groupId }, 'unable to initialize share group state partition metadata');
      }
    }
  }
  return response;
}

/**
 * DeleteShareGroupOffsets for the named topics. Returns the group's response: a top-level error,
 * or the topics deleted (in Kafka's HashMap order of their ids) followed by the topics that failed.
 */
export async function deleteShareGroupOffsets(
  ctx: ShareContext,
  groupId: string,
  topicNames: readonly string[],
  groupTaken: boolean,
): Promise<DeleteShareGroupOffsetsResponse> {
  if (groupId === '') return failed(ErrorCode.INVALID_GROUP_ID);
  const group = ctx.store.get(groupId);
  const refused = groupError(group, groupId, groupTaken, false);
  if (refused) return failed(refused.errorCode, refused.errorMessage);
  const info = group!.stateMetadata;
  const ok = (responses: DeleteShareGroupOffsetsResponseTopic[]): DeleteShareGroupOffsetsResponse => ({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses });
  // `sharePartitionsEligibleForOffsetDeletion`: without record 15 nothing is answered per topic.
  if (!info) return ok([]);
  const errors: DeleteShareGroupOffsetsResponseTopic[] = [];
  const toDelete: Array<{ topicId: string; partitions: number[] }> = [];
  const initialized = new Map(info.initialized);
  const deleting = new Set(info.deleting);
  for (const name of topicNames) {
    const topic = ctx.topics.get(name);
    if (!topic) {
      errors.push({ topicName: name, topicId: ZERO_UUID, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: shareOffsetsErrorMessage(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) });
    } else if (initialized.has(topic.topicId)) {
      toDelete.push({ topicId: topic.topicId, partitions: [...initialized.get(topic.topicId)!.partitions].sort((a, b) => a - b) });
      initialized.delete(topic.topicId);
      deleting.add(topic.topicId);
    } else if (deleting.has(topic.topicId)) {
      toDelete.push({ topicId: topic.topicId, partitions: Array.from({ length: topic.partitionCount }, (_, p) => p) });
    } else {
      errors.push({ topicName: name, topicId: ZERO_UUID, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: NO_OFFSETS_TO_DELETE });
    }
  }
  const records: CoordinatorRecord[] = [];
  ctx.store.emitInto(records)({ kind: 'share-group-state-partition-metadata', groupId, value: stateMetadataValue(info.initializing, initialized, deletingNames(ctx, deleting)) });
  try {
    await ctx.writer.append(records);
  } catch (err) {
    ctx.log.error({ err, groupId }, 'failed to write share group offsets deletion');
    return failed(writeErrorCode(err));
  }
  if (toDelete.length === 0) return ok(errors);
  let results;
  try {
    results = await ctx.persister.deleteState(groupId, toDelete.flatMap((t) => t.partitions.map((partition) => ({ topicId: t.topicId, partition }))));
  } catch (err) {
    ctx.log.error({ err, groupId }, 'failed to delete share group state');
    return failed(ErrorCode.UNKNOWN_SERVER_ERROR);
  }
  // `handleDeleteShareGroupOffsetStateResult`: a topic with any partition error failed as a whole.
  const succeeded: string[] = [];
  for (const t of toDelete) {
    const error = results.find((r) => r.topicId === t.topicId && r.errorCode !== ErrorCode.NONE);
    const name = ctx.topics.getById(t.topicId)?.name ?? null;
    if (error) errors.push({ topicName: name ?? '', topicId: t.topicId, errorCode: error.errorCode, errorMessage: shareOffsetsErrorMessage(error.errorCode) });
    else succeeded.push(t.topicId);
  }
  if (succeeded.length === 0) return ok(errors);
  // `completeDeleteShareGroupOffsets`: the deleted topics leave the deleting set.
  const latest = ctx.store.get(groupId)?.stateMetadata;
  if (latest) {
    const more: CoordinatorRecord[] = [];
    const left = [...latest.deleting].filter((topicId) => !succeeded.includes(topicId));
    ctx.store.emitInto(more)({ kind: 'share-group-state-partition-metadata', groupId, value: stateMetadataValue(latest.initializing, latest.initialized, deletingNames(ctx, left)) });
    try {
      await ctx.writer.append(more);
    } catch (err) {
      ctx.log.error({ err, groupId }, 'failed to complete share group offsets deletion');
      return failed(writeErrorCode(err));
    }
  }
  const done = javaHashMapOrder(succeeded, javaUuidHash).map((topicId): DeleteShareGroupOffsetsResponseTopic => ({
    topicName: ctx.topics.getById(topicId)?.name ?? '', topicId, errorCode: ErrorCode.NONE, errorMessage: null,
  }));
  return ok([...done, ...errors]);
}
