import type { RE2JS } from 're2js';
import type { ListTransactionsRequest } from '../protocol/messages/ListTransactionsRequest.js';
import { defaultListTransactionsResponse, type ListTransactionsResponse } from '../protocol/messages/ListTransactionsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition } from './types.js';
import { brokerIdOf } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';
import { txnStateByName, txnStateName, type TxnState } from '../transactions/transaction-state.js';
import { lazyModule } from '../util/lazy-module.js';

/** Loaded at the first pattern (util/lazy-module.ts). */
const re2js = lazyModule<typeof import('re2js')>('re2js', 'regular expressions (TransactionalIdPattern)');

/**
 * ListTransactions (key 66, v0-2), as Kafka's `TransactionStateManager.listTransactionStates`: the
 * ids this broker coordinates, filtered by state names (unknown names are echoed in
 * `unknownStateFilters` and match nothing), producer ids, v1 `durationFilter` (only transactions
 * running longer than that many ms; -1: all) and v2 `transactionalIdPattern` (an RE2 regular
 * expression matching the whole id; an invalid one answers INVALID_REGULAR_EXPRESSION).
 */
export const api: ApiDefinition<ListTransactionsRequest, ListTransactionsResponse> = {
  apiKey: 66,
  name: 'ListTransactions',
  minVersion: 0,
  maxVersion: 2,
  errorResponse: topLevelError(defaultListTransactionsResponse),
  names: namesNothing,
  largeAnswers: true,
  routing: ANY_BROKER,
  async handle(req, ctx) {
    const { broker } = ctx;
    const self = brokerIdOf(ctx);
    const now = broker.time.now();
    const unknownStateFilters: string[] = [];
    const states = new Set<TxnState>();
    for (const name of req.stateFilters) {
      const s = txnStateByName(name);
      if (s === undefined) unknownStateFilters.push(name);
      else states.add(s);
    }
    let pattern: RE2JS | null = null;
    if (ctx.apiVersion >= 2 && req.transactionalIdPattern !== null && req.transactionalIdPattern !== '') {
      const engine = re2js().RE2JS; // outside the try: a failure to load it is not an invalid pattern
      try {
        pattern = engine.compile(req.transactionalIdPattern);
      } catch {
        return { ...defaultListTransactionsResponse(), errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION };
      }
    }
    const producerIds = new Set(req.producerIdFilters);
    const duration = ctx.apiVersion >= 1 ? req.durationFilter : -1n;
    // Only state names that are all unknown: nothing can match.
    const matchNothing = req.stateFilters.length > 0 && states.size === 0;
    const candidates = matchNothing
      ? []
      : broker.transactions
          .all()
          .filter((t) => broker.cluster.transactionCoordinatorOf(t.transactionalId) === self)
          .filter((t) => producerIds.size === 0 || producerIds.has(t.producerId))
          .filter((t) => states.size === 0 || states.has(t.state))
          .filter((t) => duration < 0n || BigInt(now - t.fields.txnStartTimestamp) > duration);
    const matched = pattern === null ? candidates : await matchInSlices(candidates, pattern);
    const transactionStates = matched.map((t) => ({ transactionalId: t.transactionalId, producerId: t.producerId, transactionState: txnStateName(t.state) }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, unknownStateFilters, transactionStates };
  },
};

/**
 * Characters of transactional ids matched per turn of the event loop. RE2 is linear but costs tens
 * of ns per character, and ids run to 32,767 characters: thousands of long ids matched in one go
 * held up every other connection for a second.
 */
const MATCH_SLICE_CHARS = 256 * 1024;

/** The transactions whose id `pattern` matches whole, yielding to other connections between slices. */
async function matchInSlices<T extends { transactionalId: string }>(txns: readonly T[], pattern: RE2JS): Promise<T[]> {
  const out: T[] = [];
  let budget = MATCH_SLICE_CHARS;
  for (const t of txns) {
    if (budget <= 0) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      budget = MATCH_SLICE_CHARS;
    }
    budget -= t.transactionalId.length + 1;
    if (pattern.matches(t.transactionalId)) out.push(t);
  }
  return out;
}
