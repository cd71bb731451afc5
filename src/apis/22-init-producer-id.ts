import type { InitProducerIdRequest } from '../protocol/messages/InitProducerIdRequest.js';
import { defaultInitProducerIdResponse, type InitProducerIdResponse } from '../protocol/messages/InitProducerIdResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition } from './types.js';
import { byTransactionCoordinator } from './shapes/routing.js';
import { fencedForVersion } from './shapes/txn-errors.js';

/** KIP-360: from v3 the request may carry the producer id and epoch the client had. */
const KIP_360_VERSION = 3;
/** Below this version PRODUCER_FENCED is answered as INVALID_PRODUCER_EPOCH (KIP-588). */
const PRODUCER_FENCED_VERSION = 4;

/**
 * InitProducerId (key 22, v0-5), as Kafka's `TransactionCoordinator.handleInitProducerId`:
 * without a transactional id, a new producer id with epoch 0 every time (idempotent producers);
 * with one, the transaction coordinator (src/transactions) bumps the id's epoch, fencing older
 * instances and aborting their open transaction (CONCURRENT_TRANSACTIONS until that is done), a
 * timeout outside (0, `transaction.max.timeout.ms`] -> INVALID_TRANSACTION_TIMEOUT, an empty id ->
 * INVALID_REQUEST, a KIP-360 producer id and epoch (v3+) that are not the id's -> PRODUCER_FENCED
 * (INVALID_PRODUCER_EPOCH below v4); only one of the two set -> INVALID_REQUEST. Errors answer
 * producer id -1 and epoch -1. Routed to the id's coordinator on a simulated cluster.
 */
export const api: ApiDefinition<InitProducerIdRequest, InitProducerIdResponse> = {
  apiKey: 22,
  name: 'InitProducerId',
  minVersion: 0,
  maxVersion: 5,
  // InitProducerIdRequest.getErrorResponse: producer id and epoch -1.
  errorResponse: (_req, _version, errorCode) => ({ ...defaultInitProducerIdResponse(), errorCode, producerId: -1n, producerEpoch: -1 }),
  names: (req) => ({ transactionalIds: [req.transactionalId] }),
  routing: byTransactionCoordinator(),
  async handle(req, ctx) {
    const base = { throttleTimeMs: 0, ongoingTxnProducerId: -1n, ongoingTxnProducerEpoch: -1 };
    const withIds = ctx.apiVersion >= KIP_360_VERSION;
    const producerId = withIds ? req.producerId : -1n;
    const producerEpoch = withIds ? req.producerEpoch : -1;
    if ((producerId === -1n) !== (producerEpoch === -1)) return { ...base, errorCode: ErrorCode.INVALID_REQUEST, producerId: -1n, producerEpoch: -1 };
    if (req.transactionalId === null) return { ...base, ...ctx.broker.topics.producerIds.initProducerId(null) };
    const expected = producerId === -1n ? null : { producerId, producerEpoch };
    const result = await ctx.broker.transactions.initProducerId(req.transactionalId, req.transactionTimeoutMs, expected);
    return { ...base, ...result, errorCode: fencedForVersion(result.errorCode, ctx.apiVersion, PRODUCER_FENCED_VERSION) };
  },
};
