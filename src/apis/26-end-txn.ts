import type { EndTxnRequest } from '../protocol/messages/EndTxnRequest.js';
import { defaultEndTxnResponse, type EndTxnResponse } from '../protocol/messages/EndTxnResponse.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { byTransactionCoordinator } from './shapes/routing.js';
import { fencedForVersion } from './shapes/txn-errors.js';

/** From v5 the client runs transaction version 2 (KIP-890): the epoch is bumped with every transaction. */
const TV2_VERSION = 5;
/** Below this version PRODUCER_FENCED is answered as INVALID_PRODUCER_EPOCH (KIP-588). */
const PRODUCER_FENCED_VERSION = 2;

/**
 * EndTxn (key 26, v0-5), as Kafka's `TransactionCoordinator.handleEndTransaction`: commits or
 * aborts the open transaction (PrepareCommit/PrepareAbort written, answered, then the markers and
 * CompleteCommit/CompleteAbort). Errors: INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED
 * (INVALID_PRODUCER_EPOCH below v2), CONCURRENT_TRANSACTIONS while the previous end is still being
 * completed, INVALID_TXN_STATE (commit after abort, end without a transaction, ...). Repeating the
 * end just completed answers NONE. v5 answers the producer id and epoch of the next transaction
 * (the epoch bumped; a new producer id once it is exhausted); v5 may also abort a transaction
 * that added no partition.
 */
export const api: ApiDefinition<EndTxnRequest, EndTxnResponse> = {
  apiKey: 26,
  name: 'EndTxn',
  minVersion: 0,
  maxVersion: 5,
  errorResponse: topLevelError(defaultEndTxnResponse),
  names: (req) => ({ transactionalIds: [req.transactionalId] }),
  routing: byTransactionCoordinator(),
  async handle(req, ctx) {
    const tv = ctx.apiVersion >= TV2_VERSION ? 2 : 0;
    const r = await ctx.broker.transactions.endTxn(req.transactionalId, req.producerId, req.producerEpoch, req.committed, tv);
    return { throttleTimeMs: 0, errorCode: fencedForVersion(r.errorCode, ctx.apiVersion, PRODUCER_FENCED_VERSION), producerId: r.producerId, producerEpoch: r.producerEpoch };
  },
};
