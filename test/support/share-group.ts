/**
 * A share group built over the raw protocol for the view tests: one member that joined with
 * ShareGroupHeartbeat, was assigned both partitions of a topic once the group coordinator
 * initialized them, and acquired every record with a ShareFetch.
 */
import { expect } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { RawClient } from './raw-client.js';
import type { ServerHandle } from '../../src/index.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import type { ShareFetchRequest } from '../../src/protocol/messages/ShareFetchRequest.js';

/** Share-group timings short enough for a test (their bounds lowered with them); new targets at once. */
export const SHARE_TEST_CONFIG = {
  'group.share.heartbeat.interval.ms': 200,
  'group.share.min.heartbeat.interval.ms': 100,
  'group.share.assignment.interval.ms': 0,
};

/** ShareFetch v2 of partitions 0 and 1 of `topicId`, without acknowledgements, not waiting. */
export function shareFetchRequest(groupId: string, memberId: string, epoch: number, topicId: string): ShareFetchRequest {
  return {
    groupId, memberId, shareSessionEpoch: epoch, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500, shareAcquireMode: 0, isRenewAck: false,
    topics: [{ topicId, partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, partitionMaxBytes: 0, acknowledgementBatches: [] })) }],
    forgottenTopicsData: [],
  };
}

/**
 * Share group `g` (share.auto.offset.reset earliest) with one member holding all 10 records of
 * `topic` (created: 2 partitions of 5 records `v0`..`v4`): member epoch 3, share session epoch 1 next.
 */
export async function shareGroupHolding(server: ServerHandle, c: RawClient, g: string, topic: string): Promise<{ member: string; topicId: string }> {
  const t = server.broker.topics.create(topic, 2);
  for (const p of t.partitions) {
    const appended = p.appendProduced(encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records: Array.from({ length: 5 }, (_, i) => ({ key: null, value: Buffer.from(`v${i}`) })) }));
    if (!('durable' in appended)) throw new Error(appended.errorMessage);
    await appended.durable;
  }
  await server.broker.configs.store.setGroupConfigs(g, { 'share.auto.offset.reset': 'earliest' });
  const member = randomUUID();
  expect((await c.send(76, 1, { groupId: g, memberId: member, memberEpoch: 0, rackId: null, subscribedTopicNames: [topic] })).memberEpoch).toBe(2);
  // The initialization the join started (persister, then record 15), then the assignment.
  await server.broker.share.initializationsSettled();
  await server.broker.runtime.flush();
  const assigned = await c.send(76, 1, { groupId: g, memberId: member, memberEpoch: 2, rackId: null, subscribedTopicNames: null });
  expect(assigned.assignment!.topicPartitions).toEqual([{ topicId: t.id, partitions: [0, 1] }]);
  const fetched = await c.send(78, 2, shareFetchRequest(g, member, 0, t.id));
  expect(fetched.responses[0]!.partitions.map((p) => p.acquiredRecords)).toEqual([0, 1].map(() => [{ firstOffset: 0n, lastOffset: 4n, deliveryCount: 1 }]));
  return { member, topicId: t.id };
}
