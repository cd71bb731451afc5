import type { AddOffsetsToTxnRequest } from '../protocol/messages/AddOffsetsToTxnRequest.js';
import { defaultAddOffsetsToTxnResponse, type AddOffsetsToTxnResponse } from '../protocol/messages/AddOffsetsToTxnResponse.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { byTransactionCoordinator } from './shapes/routing.js';
import { fencedForVersion } from './shapes/txn-errors.js';
import { GROUP_METADATA_TOPIC_NAME } from '../topics/topic-name.js';

/** Below this version PRODUCER_FENCED is answered as INVALID_PRODUCER_EPOCH (KIP-588). */
const PRODUCER_FENCED_VERSION = 2;

/**
 * AddOffsetsToTxn (key 25, v0-4), as Kafka's `KafkaApis.handleAddOffsetsToTxnRequest`: the
 * group's `__consumer_offsets` partition joins the transaction (so its TxnOffsetCommit is
 * verified and gets the transaction's marker), with AddPartitionsToTxn's errors. Transaction
 * version 2 clients (Java 4.x) do not send it: their TxnOffsetCommit v5 adds the partition.
 */
export const api: ApiDefinition<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse> = {
  apiKey: 25,
  name: 'AddOffsetsToTxn',
  minVersion: 0,
  maxVersion: 4,
  errorResponse: topLevelError(defaultAddOffsetsToTxnResponse),
  names: (req) => ({ groups: [req.groupId], transactionalIds: [req.transactionalId] }),
  routing: byTransactionCoordinator(),
  async handle(req, ctx) {
    const partition = ctx.broker.groupLog.partitionFor(req.groupId);
    const errorCode = await ctx.broker.transactions.addPartitions(req.transactionalId, req.producerId, req.producerEpoch, [{ topic: GROUP_METADATA_TOPIC_NAME, partition }], 0);
    return { throttleTimeMs: 0, errorCode: fencedForVersion(errorCode, ctx.apiVersion, PRODUCER_FENCED_VERSION) };
  },
};
