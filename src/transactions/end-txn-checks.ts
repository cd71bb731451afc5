/**
 * What an EndTxn (or the coordinator's own fence abort) does given the transaction's state, as
 * Kafka 4.3's `TransactionCoordinator` decides it before writing: an error code to answer, NONE
 * for an end already done (answered with the current producer id and epoch), or `PREPARE` to
 * write PrepareCommit/PrepareAbort. Version 2 (EndTxn v5) is `endTransaction`, earlier versions
 * `endTransactionWithTV1`.
 */
import { ErrorCode } from '../protocol/errors.js';
import { TxnState, txnStateName } from './transaction-state.js';
import { MAX_EPOCH, type TxnMetadata } from './transaction-metadata.js';

/** The end goes ahead: PrepareCommit or PrepareAbort is written. */
export const PREPARE = 'prepare';
export type EndOutcome = number | typeof PREPARE;

const { NONE, INVALID_TXN_STATE: INVALID, CONCURRENT_TRANSACTIONS: CONCURRENT } = ErrorCode;

/** Per state: the outcome of a commit and of an abort (the states an end can meet). */
type ByState<T> = Partial<Record<TxnState, { commit: T; abort: T }>>;

/** `endTransactionWithTV1`: a repeated end of a completed transaction answers NONE. */
const TV1_OUTCOMES: ByState<EndOutcome> = {
  [TxnState.ONGOING]: { commit: PREPARE, abort: PREPARE },
  [TxnState.COMPLETE_COMMIT]: { commit: NONE, abort: INVALID },
  [TxnState.COMPLETE_ABORT]: { commit: INVALID, abort: NONE },
  [TxnState.PREPARE_COMMIT]: { commit: CONCURRENT, abort: INVALID },
  [TxnState.PREPARE_ABORT]: { commit: INVALID, abort: CONCURRENT },
  [TxnState.EMPTY]: { commit: INVALID, abort: INVALID },
};

/**
 * `endTransaction` (version 2), [not a retry, a retry]: only a retry (the epoch before the last
 * end's bump) of a completed end answers NONE; with the current epoch an abort starts and ends an
 * empty transaction, a commit is INVALID_TXN_STATE.
 */
const TV2_OUTCOMES: ByState<readonly [EndOutcome, EndOutcome]> = {
  [TxnState.ONGOING]: { commit: [PREPARE, PREPARE], abort: [PREPARE, PREPARE] },
  [TxnState.COMPLETE_COMMIT]: { commit: [INVALID, NONE], abort: [PREPARE, INVALID] },
  [TxnState.COMPLETE_ABORT]: { commit: [INVALID, INVALID], abort: [PREPARE, NONE] },
  [TxnState.PREPARE_COMMIT]: { commit: [CONCURRENT, CONCURRENT], abort: [INVALID, INVALID] },
  [TxnState.PREPARE_ABORT]: { commit: [INVALID, INVALID], abort: [CONCURRENT, CONCURRENT] },
  [TxnState.EMPTY]: { commit: [INVALID, INVALID], abort: [PREPARE, PREPARE] },
};

function outcomeOf<T>(table: ByState<T>, txn: TxnMetadata, commit: boolean): T {
  const entry = table[txn.state];
  if (!entry) throw new Error(`${txn.transactionalId} is in state ${txnStateName(txn.state)}`);
  return commit ? entry.commit : entry.abort;
}

/**
 * `endTransactionWithTV1`: the producer id, then the epoch (a client's must be the current one,
 * the coordinator's fence may be newer), then a write in flight (other than the fence's own).
 */
export function checkEndTv1(txn: TxnMetadata, producerId: bigint, producerEpoch: number, commit: boolean, fromClient: boolean): EndOutcome {
  const f = txn.fields;
  if (f.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
  if ((fromClient && producerEpoch !== f.producerEpoch) || producerEpoch < f.producerEpoch) return ErrorCode.PRODUCER_FENCED;
  if (txn.pendingTransitionInProgress && txn.pendingState !== TxnState.PREPARE_EPOCH_FENCE) return ErrorCode.CONCURRENT_TRANSACTIONS;
  return outcomeOf(TV1_OUTCOMES, txn, commit);
}

/**
 * `endTransaction` (version 2): a write in flight first (CONCURRENT_TRANSACTIONS: a retry while the
 * markers are written waits for them), then the producer id (or the previous one, retrying across
 * a rotation), then the epoch: the current one, or once the transaction is ending or ended the one
 * before the last end's bump (a retry; after a timed-out transaction's abort, the producer's own epoch).
 * `fencing`: the coordinator's abort with its fence epoch.
 */
export function checkEndTv2(txn: TxnMetadata, producerId: bigint, producerEpoch: number, commit: boolean, fromClient: boolean, fencing: boolean): EndOutcome {
  const f = txn.fields;
  const retryOnOverflow = !fencing && f.previousProducerId === producerId && producerEpoch === MAX_EPOCH - 1 && f.producerEpoch === 0;
  const retryOnEpochBump = !fencing && f.producerEpoch === producerEpoch + 1;
  if (txn.pendingTransitionInProgress && !fencing) return ErrorCode.CONCURRENT_TRANSACTIONS;
  if (f.producerId !== producerId && !retryOnOverflow) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
  if (!validEpochTv2(txn, producerEpoch, fromClient, fencing, retryOnEpochBump, retryOnOverflow)) return ErrorCode.PRODUCER_FENCED;
  return outcomeOf(TV2_OUTCOMES, txn, commit)[retryOnEpochBump || retryOnOverflow ? 1 : 0];
}

function validEpochTv2(txn: TxnMetadata, producerEpoch: number, fromClient: boolean, fencing: boolean, retryOnEpochBump: boolean, retryOnOverflow: boolean): boolean {
  const current = txn.fields.producerEpoch;
  if (fencing) return (!fromClient || producerEpoch === current) && producerEpoch >= current;
  switch (txn.state) {
    case TxnState.PREPARE_COMMIT:
    case TxnState.PREPARE_ABORT:
      return retryOnEpochBump;
    case TxnState.COMPLETE_COMMIT:
    case TxnState.COMPLETE_ABORT:
      return retryOnEpochBump || retryOnOverflow || producerEpoch === current;
    default:
      return producerEpoch === current;
  }
}
