/**
 * ShareFetch (key 78) as Kafka 4.3.1's `KafkaApis.handleShareFetchRequest` serves it with the
 * `SharePartitionManager`: request checks, the share session (`newContext`), piggy-backed
 * acknowledgements (checked as `validateAcknowledgementBatches`, then applied before the fetch),
 * then acquisition from each partition of the session in turn (rotated by the session epoch, as
 * `PartitionRotateStrategy` round-robin), `MaxRecords` shared by the partitions; with nothing
 * acquired the request waits up to `MaxWaitMs` for an append or a release (`DelayedShareFetch`).
 * A partition of a topic the principal may not READ answers TOPIC_AUTHORIZATION_FAILED (its
 * acknowledgements too) and stays in the session, as Kafka checks after `newContext`.
 * A new session answers every partition it names; a later one only partitions with records, an
 * error or an acknowledgement result (`ShareSessionContext`). The final fetch (epoch -1) fetches
 * nothing, applies its acknowledgements and then ends the session, releasing what the member holds.
 */
import { ErrorCode } from '../protocol/errors.js';
import { EMPTY_BYTES } from '../protocol/primitives.js';
import type { ShareFetchRequest } from '../protocol/messages/ShareFetchRequest.js';
import { defaultPartitionData, defaultShareFetchResponse, type PartitionData, type ShareFetchResponse } from '../protocol/messages/ShareFetchResponse.js';
import type { TopicStore } from '../topics/topic-store.js';
import type { Partition } from '../topics/partition.js';
import type { Time } from '../util/time.js';
import { SharePartitionError, type AcquiredRange, type SharePartition } from './share-partition.js';
import type { SharePartitionManager, PartitionOutcome } from './share-partition-manager.js';
import { ackRequestError, isValidMemberId, SHARE_BUDGET_EVERY, SHARE_SLICE_PARTITIONS, supersededEntries } from './share-request-checks.js';
import { nextTurn, Slicer } from '../util/slices.js';
import type { SessionPartition, ShareSession } from './share-sessions.js';

export interface ShareFetchContext {
  manager: SharePartitionManager;
  topics: TopicStore;
  /** The clock long polls wait on. */
  pollTime: Time;
  connectionId: string;
  /** `fetch.max.bytes`-like cap of the broker (Kafka takes min(request, `fetch.max.bytes`)). */
  maxBytes: number;
  /** Whether the principal may READ the topic (always, without an authorizer). */
  readable(topic: string): boolean;
}

/** `ShareFetchRequest.getErrorResponse`: the top-level error only, no message (`ShareFetchResponse.of`). */
function topLevel(errorCode: number, _logged?: string): ShareFetchResponse {
  return { ...defaultShareFetchResponse(), errorCode };
}

const keyOf = (p: SessionPartition): string => `${p.topicId}:${p.partition}`;

/** The partitions a request names, each once, in the order first named. */
function distinctPartitions(topics: ShareFetchRequest['topics']): SessionPartition[] {
  const seen = new Set<string>();
  const out: SessionPartition[] = [];
  for (const t of topics) {
    for (const p of t.partitions) {
      const partition = { topicId: t.topicId, partition: p.partitionIndex };
      const key = keyOf(partition);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(partition);
    }
  }
  return out;
}

export async function shareFetch(req: ShareFetchRequest, version: number, ctx: ShareFetchContext): Promise<ShareFetchResponse> {
  const { manager } = ctx;
  if (req.groupId === null) return topLevel(ErrorCode.INVALID_REQUEST, 'Invalid group id in the request.');
  const groupId = req.groupId;
  if (!isValidMemberId(req.memberId)) return topLevel(ErrorCode.INVALID_REQUEST, 'Invalid member id in the request.');
  const memberId = req.memberId!;
  const renewOnly = version >= 2 && req.isRenewAck;
  if (renewOnly) {
    let msg = '';
    if (req.maxBytes !== 0) msg += 'maxBytes must be set to 0, ';
    if (req.minBytes !== 0) msg += 'minBytes must be set to 0, ';
    if (req.maxRecords !== 0) msg += 'maxRecords must be set to 0, ';
    if (req.maxWaitMs !== 0) msg += 'maxWaitMs must be set to 0, ';
    if (msg !== '') return topLevel(ErrorCode.INVALID_REQUEST, `${msg}if isRenewAck is true.`);
  }
  // A partition named twice is fetched and answered once, acknowledged with the batches of its
  // last entry that has some (Kafka's handler keeps them in a map).
  const requested = distinctPartitions(req.topics);
  const superseded = supersededEntries(req.topics.map((t) => ({ topicId: t.topicId, partitions: t.partitions.filter((p) => p.acknowledgementBatches.length > 0) })));
  const forgotten: SessionPartition[] = req.forgottenTopicsData.flatMap((t) => t.partitions.map((partition) => ({ topicId: t.topicId, partition })));
  const hasAcks = req.topics.some((t) => t.partitions.some((p) => p.acknowledgementBatches.length > 0));
  if (req.shareSessionEpoch === 0 && hasAcks) return topLevel(ErrorCode.INVALID_REQUEST);
  let session;
  try {
    session = manager.sessions.forFetch(groupId, memberId, req.shareSessionEpoch, requested, forgotten, ctx.connectionId).session;
  } catch (err) {
    if (err instanceof SharePartitionError) return topLevel(err.errorCode, err.message);
    throw err;
  }
  const isNew = req.shareSessionEpoch === 0;
  const isFinal = req.shareSessionEpoch === -1;

  // Acknowledgements first (their records may be acquired again by this very fetch), applied in
  // slices and written together, as ShareAcknowledge's.
  const acks = new Map<string, PartitionOutcome>();
  const slicer = new Slicer(SHARE_SLICE_PARTITIONS, SHARE_BUDGET_EVERY);
  const writes: Array<Promise<void>> = [];
  for (const t of req.topics) {
    for (const p of t.partitions) {
      if (p.acknowledgementBatches.length === 0 || superseded?.has(p)) continue;
      if (slicer.due()) await nextTurn();
      const key = keyOf({ topicId: t.topicId, partition: p.partitionIndex });
      const invalid = ackRequestError(p.acknowledgementBatches, version >= 2, renewOnly);
      if (invalid !== null) {
        acks.set(key, invalid);
        continue;
      }
      const topic = ctx.topics.getById(t.topicId);
      if (!topic) {
        acks.set(key, { errorCode: ErrorCode.UNKNOWN_TOPIC_ID, errorMessage: null });
        continue;
      }
      if (!ctx.readable(topic.name)) {
        acks.set(key, { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null });
        continue;
      }
      writes.push(manager.acknowledge(groupId, memberId, t.topicId, p.partitionIndex, p.acknowledgementBatches).then((outcome) => void acks.set(key, outcome)));
    }
  }
  await Promise.all(writes);

  const fetchList: SessionPartition[] = renewOnly || isFinal ? [] : isNew ? requested : [...session.partitions.values()];
  const results = new Map<string, PartitionData>();
  if (fetchList.length > 0) await fetchPartitions(req, groupId, memberId, session, fetchList, ctx, results);

  // The response: every fetched partition of a new session, else those with something to say.
  const topics = new Map<string, PartitionData[]>();
  const add = (topicId: string, data: PartitionData): void => {
    const list = topics.get(topicId) ?? [];
    list.push(data);
    topics.set(topicId, list);
  };
  for (const p of fetchList) {
    const data = results.get(keyOf(p))!;
    const ack = acks.get(keyOf(p));
    if (ack) {
      data.acknowledgeErrorCode = ack.errorCode;
      data.acknowledgeErrorMessage = ack.errorMessage;
      acks.delete(keyOf(p));
    }
    if (isNew || ack || data.errorCode !== ErrorCode.NONE || data.acquiredRecords.length > 0) add(p.topicId, data);
  }
  for (const [key, ack] of acks) {
    const [topicId, partition] = key.split(':') as [string, string];
    add(topicId, { ...defaultPartitionData(), partitionIndex: Number(partition), acknowledgeErrorCode: ack.errorCode, acknowledgeErrorMessage: ack.errorMessage, records: EMPTY_BYTES });
  }
  if (isFinal) {
    void manager.releaseSession(groupId, memberId).catch(() => undefined);
  }
  return {
    ...defaultShareFetchResponse(),
    acquisitionLockTimeoutMs: manager.recordLockDurationMs(groupId),
    responses: [...topics].map(([topicId, partitions]) => ({ topicId, partitions })),
  };
}

/**
 * Acquires from `list` into `results` (one entry per partition), waiting while nothing is acquired.
 * Stops when `session` ends meanwhile (its connection closed between slices or during the wait,
 * and its records were released): what it acquired is released too, or it would stay locked for
 * a client that is gone (adversarial trial 23b: 8,196 records of a closed session held).
 */
async function fetchPartitions(req: ShareFetchRequest, groupId: string, memberId: string, session: ShareSession, list: readonly SessionPartition[], ctx: ShareFetchContext, results: Map<string, PartitionData>): Promise<void> {
  const epoch = session.epoch;
  const ended = (): boolean => ctx.manager.sessions.get(groupId, memberId) !== session;
  const taken: Array<[SharePartition, AcquiredRange[]]> = [];
  const releaseTaken = (): void => {
    for (const [sp, ranges] of taken) void sp.releaseRanges(memberId, ranges).catch(() => undefined);
  };
  const deadline = ctx.pollTime.now() + Math.max(0, req.maxWaitMs);
  const maxBytes = Math.min(req.maxBytes, ctx.maxBytes);
  // PartitionRotateStrategy ROUND_ROBIN: start at epoch % size.
  const start = list.length === 0 ? 0 : epoch % list.length;
  const rotated = [...list.slice(start), ...list.slice(0, start)];
  const slicer = new Slicer(SHARE_SLICE_PARTITIONS, SHARE_BUDGET_EVERY);
  for (;;) {
    let acquired = 0;
    let bytes = 0;
    let anyError = false;
    // A partition whose log start passed its share partition answers at once, as a share-partition error does.
    let movedStart = false;
    const waitOn: Partition[] = [];
    for (const p of rotated) {
      // In slices (a fetch of 9,000 partitions held the broker 0.3-1 s: adversarial trial, session 23).
      if (slicer.due()) {
        await nextTurn();
        if (ended()) return releaseTaken();
      }
      const data: PartitionData = { ...defaultPartitionData(), partitionIndex: p.partition, records: EMPTY_BYTES };
      results.set(keyOf(p), data);
      // These three are KafkaApis' erroneous partitions: answered with the others, which are still
      // waited for (an answer at once only when no partition is left to wait on).
      const topic = ctx.topics.getById(p.topicId);
      if (!topic) {
        data.errorCode = ErrorCode.UNKNOWN_TOPIC_ID;
        continue;
      }
      // The partition stays in the share session; its fetches answer this until the ACL allows it.
      if (!ctx.readable(topic.name)) {
        data.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        continue;
      }
      const partition = topic.partition(p.partition);
      if (!partition) {
        data.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        continue;
      }
      let sp;
      try {
        sp = await ctx.manager.forFetch(groupId, p.topicId, p.partition);
      } catch (err) {
        const e = err instanceof SharePartitionError ? err : new SharePartitionError(ErrorCode.UNKNOWN_SERVER_ERROR, String(err));
        Object.assign(data, { errorCode: e.errorCode, errorMessage: e.message });
        anyError = true;
        continue;
      }
      if (ended()) return releaseTaken();
      waitOn.push(partition);
      // currentLeader stays 0/0 here: Kafka 4.3.1's ShareFetchUtils.processFetchResponse never sets it
      // on a partition served (clients read it only with NOT_LEADER_OR_FOLLOWER; cluster/leader-hints.ts).
      const remaining = req.maxRecords - acquired;
      if (remaining <= 0 || maxBytes - bytes <= 0 || !sp.canAcquireRecords()) continue;
      const from = sp.nextFetchOffset();
      if (from < partition.logStartOffset) {
        // Kafka's read answers OFFSET_OUT_OF_RANGE: the share partition moves to the log start
        // (`updateCacheAndOffsets`) and this partition answers nothing, the client fetching again.
        sp.updateCacheAndOffsets(partition.logStartOffset);
        movedStart = true;
        continue;
      }
      // read_committed: below the last stable offset, with the aborted transactions of the range.
      const read = sp.readCommitted
        ? partition.readCommitted(from, maxBytes - bytes, bytes === 0, ctx.topics.logConfig(topic, p.partition)?.indexIntervalBytes ?? 4096)
        : { batches: partition.readUncommitted(from, maxBytes - bytes, bytes === 0), abortedTransactions: null };
      if (read.batches.length === 0) continue;
      const got = sp.acquire(memberId, read.batches, remaining, req.shareAcquireMode, read.abortedTransactions);
      if (got.ranges.length === 0) continue;
      taken.push([sp, got.ranges]);
      data.acquiredRecords = got.ranges;
      data.records = got.records.length === 1 ? got.records[0]! : Buffer.concat(got.records);
      bytes += data.records.length;
      for (const r of got.ranges) acquired += Number(r.lastOffset - r.firstOffset + 1n);
    }
    if (acquired > 0 || anyError || movedStart || waitOn.length === 0) return;
    const wait = deadline - ctx.pollTime.now();
    if (wait <= 0) return;
    // Woken by an append or a release, or at the deadline: one more look either way.
    await ctx.topics.waitForAppend(waitOn, wait);
    if (ended()) return;
  }
}
