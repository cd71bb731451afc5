/**
 * The share coordinator's wire APIs (InitializeShareGroupState 83, ReadShareGroupState 84,
 * WriteShareGroupState 85, DeleteShareGroupState 86, ReadShareGroupStateSummary 87), which Kafka's
 * brokers send to each other (`DefaultStatePersister`), answered as Kafka 4.3.1's
 * `ShareCoordinatorService`: an empty group id or no topics (or a topic without partitions, except
 * for Initialize/Delete) answers no results; each partition is one operation of the share
 * coordinator; results are grouped by topic in request order.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { ShareCoordinator } from './share-coordinator.js';

interface TopicsRequest<P> {
  groupId: string;
  topics: Array<{ topicId: string; partitions: P[] }>;
}

/** Runs `each` on every partition of `req` and groups the answers by topic; `[]` for Kafka's empty cases. */
export async function perPartition<P, R>(req: TopicsRequest<P>, each: (topicId: string, p: P) => Promise<R>, options: { partitionsRequired: boolean }): Promise<Array<{ topicId: string; partitions: R[] }>> {
  if (req.topics.length === 0 || req.groupId === '') return [];
  if (options.partitionsRequired && req.topics.some((t) => t.partitions.length === 0)) return [];
  return Promise.all(req.topics.map(async (t) => ({ topicId: t.topicId, partitions: await Promise.all(t.partitions.map((p) => each(t.topicId, p))) })));
}

/** Every partition of `req` answering `errorCode` (Kafka's `toGlobalErrorResponse`), with `extra` fields at their defaults. */
export function everyPartitionFailed<P extends { partition: number }>(req: { topics: Array<{ topicId: string; partitions: P[] }> }, errorCode: number, extra: object = {}) {
  return req.topics.map((t) => ({ topicId: t.topicId, partitions: t.partitions.map((p) => ({ ...extra, partition: p.partition, errorCode, errorMessage: null })) }));
}

/** The coordinator calls each API makes, keyed by API. */
export function shareStateCalls(coordinator: ShareCoordinator) {
  return {
    initialize: (groupId: string, topicId: string, p: { partition: number; stateEpoch: number; startOffset: bigint }) =>
      coordinator.initializeState(groupId, [{ topicId, partition: p.partition, stateEpoch: p.stateEpoch, startOffset: p.startOffset }]).then(([r]) => ({ partition: p.partition, errorCode: r!.errorCode, errorMessage: r!.errorMessage })),
    read: (groupId: string, topicId: string, p: { partition: number; leaderEpoch: number }) =>
      coordinator.readState(groupId, { topicId, partition: p.partition, leaderEpoch: p.leaderEpoch }).then((r) => ({
        partition: p.partition,
        errorCode: r.errorCode,
        errorMessage: r.errorMessage,
        stateEpoch: r.errorCode === ErrorCode.NONE ? r.stateEpoch : 0,
        startOffset: r.errorCode === ErrorCode.NONE ? r.startOffset : 0n,
        stateBatches: r.stateBatches,
      })),
    write: (groupId: string, topicId: string, p: { partition: number; stateEpoch: number; leaderEpoch: number; startOffset: bigint; deliveryCompleteCount: number; stateBatches: Array<{ firstOffset: bigint; lastOffset: bigint; deliveryState: number; deliveryCount: number }> }) =>
      coordinator.writeState(groupId, { topicId, ...p }).then((r) => ({ partition: p.partition, errorCode: r.errorCode, errorMessage: r.errorMessage })),
    delete: (groupId: string, topicId: string, p: { partition: number }) =>
      coordinator.deleteState(groupId, [{ topicId, partition: p.partition }]).then(([r]) => ({ partition: p.partition, errorCode: r!.errorCode, errorMessage: r!.errorMessage })),
    summary: (groupId: string, topicId: string, p: { partition: number; leaderEpoch: number }) =>
      coordinator.readStateSummary(groupId, [{ topicId, partition: p.partition, leaderEpoch: p.leaderEpoch }]).then(([r]) => ({
        partition: p.partition,
        errorCode: r!.errorCode,
        errorMessage: r!.errorMessage,
        stateEpoch: r!.stateEpoch,
        leaderEpoch: r!.leaderEpoch,
        startOffset: r!.startOffset,
        deliveryCompleteCount: r!.deliveryCompleteCount,
      })),
  };
}
