import type { InitProducerIdRequest } from '../protocol/messages/InitProducerIdRequest.js';
import { defaultInitProducerIdResponse, type InitProducerIdResponse } from '../protocol/messages/InitProducerIdResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition } from './types.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';

/** Kafka's `transaction.max.timeout.ms` default (ms). */
const TRANSACTION_MAX_TIMEOUT_MS = 900_000;

/**
 * InitProducerId (key 22, v0-5), as Kafka's `TransactionCoordinator.handleInitProducerId`:
 * without a transactional id, a new producer id with epoch 0 every time (idempotent
 * producers); with one, the same id with its epoch bumped (fencing older instances), a
 * timeout outside (0, 900000] ms -> INVALID_TRANSACTION_TIMEOUT, an empty id ->
 * INVALID_REQUEST. Errors answer producer id -1 and epoch -1. Transactions themselves
 * (AddPartitionsToTxn, EndTxn) are not served by this broker.
 */
export const api: ApiDefinition<InitProducerIdRequest, InitProducerIdResponse> = {
  apiKey: 22,
  name: 'InitProducerId',
  minVersion: 0,
  maxVersion: 5,
  // InitProducerIdRequest.getErrorResponse: producer id and epoch -1.
  errorResponse: (_req, _version, errorCode) => ({ ...defaultInitProducerIdResponse(), errorCode, producerId: -1n, producerEpoch: -1 }),
  names: namesNothing,
  routing: ANY_BROKER,
  handle(req, ctx) {
    const base = { throttleTimeMs: 0, ongoingTxnProducerId: -1n, ongoingTxnProducerEpoch: -1 };
    const transactional = req.transactionalId !== null && req.transactionalId !== '';
    if (transactional && (req.transactionTimeoutMs <= 0 || req.transactionTimeoutMs > TRANSACTION_MAX_TIMEOUT_MS)) {
      return { ...base, errorCode: ErrorCode.INVALID_TRANSACTION_TIMEOUT, producerId: -1n, producerEpoch: -1 };
    }
    const withIds = ctx.apiVersion >= 3;
    const result = ctx.broker.topics.producerIds.initProducerId(
      req.transactionalId,
      withIds ? req.producerId : -1n,
      withIds ? req.producerEpoch : -1,
    );
    return { ...base, ...result };
  },
};
