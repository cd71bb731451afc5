import type { TxnOffsetCommitRequest } from '../protocol/messages/TxnOffsetCommitRequest.js';
import type { TxnOffsetCommitResponse } from '../protocol/messages/TxnOffsetCommitResponse.js';
import type { ApiDefinition } from './types.js';
import { byGroupCoordinator } from './shapes/routing.js';
import { GROUP_METADATA_TOPIC_NAME } from '../topics/topic-name.js';

/**
 * TxnOffsetCommit (key 28, v0-5): offsets committed inside a transaction
 * (src/coordinator/offsets/txn-offset-commit.ts: the group checks of OffsetCommit for a
 * transactional commit, then the transaction coordinator's verification of the group's partition,
 * added to the transaction by v5 itself). The offsets stay pending until the transaction ends. v3
 * adds the member id, generation and instance id (KIP-447). Routed to the group's coordinator.
 */
export const api: ApiDefinition<TxnOffsetCommitRequest, TxnOffsetCommitResponse> = {
  apiKey: 28,
  name: 'TxnOffsetCommit',
  minVersion: 0,
  maxVersion: 5,
  // TxnOffsetCommitRequest.getErrorResponse: the error on every partition.
  errorResponse: (req, _version, errorCode) => ({
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
  }),
  names: (req) => ({ groups: [req.groupId], members: [req.memberId], transactionalIds: [req.transactionalId], topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => p.partitionIndex) })) }),
  routing: byGroupCoordinator(),
  handle(req, ctx) {
    const { broker } = ctx;
    return broker.groups.commitTransactionalOffsets(req, ctx.apiVersion, async (r, implicitAdd) => {
      const partition = { topic: GROUP_METADATA_TOPIC_NAME, partition: broker.groupLog.partitionFor(r.groupId) };
      const [code] = await broker.transactions.verify({ transactionalId: r.transactionalId, producerId: r.producerId, producerEpoch: r.producerEpoch, partitions: [partition], implicitAdd });
      return code!;
    });
  },
};
