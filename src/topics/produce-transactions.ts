/**
 * The transactional part of a Produce request, as Kafka's broker treats it before appending
 * (`KafkaApis.handleProduceRequest`, `ReplicaManager.handleProduceAppend`, `AddPartitionsToTxnManager`):
 *   - a request carrying transactional batches needs a transactional id (else the whole request is
 *     answered TRANSACTIONAL_ID_AUTHORIZATION_FAILED), and one producer id at most (else
 *     INVALID_PRODUCER_ID_MAPPING);
 *   - the first transactional batch of a transaction in a partition is verified with the transaction
 *     coordinator (KIP-890; under Produce v12+ the partition is added to the transaction on the way),
 *     and the coordinator's errors are translated into errors producers know.
 */
import { ErrorCode } from '../protocol/errors.js';
import { ATTRIBUTES_OFFSET, PRODUCER_ID_OFFSET, PRODUCER_EPOCH_OFFSET, RECORD_BATCH_OVERHEAD, TRANSACTIONAL_FLAG_MASK } from '../records/record-batch.js';

/** Kafka's `AddPartitionsToTxnManager.TransactionSupportedOperation`, by Produce version. */
export type TransactionSupportedOperation = 'default-error' | 'generic-error-supported' | 'add-partition';

/** `produceRequestVersionToTransactionSupportedOperation`: v12+ add the partition, v11 knows TRANSACTION_ABORTABLE. */
export function produceTransactionOperation(produceVersion: number): TransactionSupportedOperation {
  if (produceVersion > 11) return 'add-partition';
  if (produceVersion > 10) return 'generic-error-supported';
  return 'default-error';
}

/** The producer of a partition's records when its (first) batch is transactional, else null. */
export function transactionalProducer(records: Buffer | null): { producerId: bigint; producerEpoch: number } | null {
  if (records === null || records.length < RECORD_BATCH_OVERHEAD) return null;
  if ((records.readInt16BE(ATTRIBUTES_OFFSET) & TRANSACTIONAL_FLAG_MASK) === 0) return null;
  return { producerId: records.readBigInt64BE(PRODUCER_ID_OFFSET), producerEpoch: records.readInt16BE(PRODUCER_EPOCH_OFFSET) };
}

/**
 * What a Produce answers for a partition whose verification the coordinator refused with `error`:
 * `AddPartitionsToTxnManager` first (PRODUCER_FENCED -> INVALID_PRODUCER_EPOCH, TRANSACTION_ABORTABLE
 * -> INVALID_TXN_STATE for clients before v11), then `ReplicaManager` (INVALID_TXN_STATE with its
 * message; errors older clients would not retry -> NOT_ENOUGH_REPLICAS, CONCURRENT_TRANSACTIONS kept
 * for v12+).
 */
export function verificationFailure(error: number, operation: TransactionSupportedOperation): { errorCode: number; message: string | null } {
  let code = error;
  if (code === ErrorCode.PRODUCER_FENCED) code = ErrorCode.INVALID_PRODUCER_EPOCH;
  else if (code === ErrorCode.TRANSACTION_ABORTABLE && operation === 'default-error') code = ErrorCode.INVALID_TXN_STATE;
  if (code === ErrorCode.INVALID_TXN_STATE) return { errorCode: code, message: 'Partition was not added to the transaction' };
  const retriable = RETRIABLE_VERIFICATION_ERRORS[code];
  if (retriable !== undefined || (code === ErrorCode.CONCURRENT_TRANSACTIONS && operation !== 'add-partition')) {
    const name = retriable ?? 'CONCURRENT_TRANSACTIONS';
    return { errorCode: ErrorCode.NOT_ENOUGH_REPLICAS, message: `Unable to verify the partition has been added to the transaction. Underlying error: ${name}` };
  }
  return { errorCode: code, message: null };
}

/**
 * `ReplicaManager.handleProduceAppend` under transactions v2 (Produce v12+, the operations that
 * `supportsEpochBump`): while any partition's verification answers CONCURRENT_TRANSACTIONS (the
 * producer's previous transaction is still writing its markers), the verification is asked again
 * after `backoffMs` until `maxMs` have passed since the first ask (`add.partitions.to.txn.retry.
 * backoff.ms` and `.max.ms`, at most `request.timeout.ms`); then the last answer stands. The
 * producer so sees its next transaction start, not the error (a new-user trial, session 25: a Java
 * producer's back-to-back transactions logged CONCURRENT_TRANSACTIONS for 141 of 200 and ran 8x
 * slower than against Kafka 4.3.1). Real time, as the marker sender's retries: a manual clock does
 * not hold a producer.
 */
export async function verifyRetryingConcurrentTransactions(verify: () => Promise<number[]>, backoffMs: number, maxMs: number): Promise<number[]> {
  const start = Date.now();
  for (;;) {
    const errors = await verify();
    if (Date.now() - start >= maxMs || !errors.includes(ErrorCode.CONCURRENT_TRANSACTIONS)) return errors;
    await new Promise((resolve) => setTimeout(resolve, backoffMs));
  }
}

/** Coordinator errors turned into NOT_ENOUGH_REPLICAS for every client, with the name Kafka prints. */
const RETRIABLE_VERIFICATION_ERRORS: Readonly<Record<number, string>> = {
  [ErrorCode.NETWORK_EXCEPTION]: 'NETWORK_EXCEPTION',
  [ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]: 'COORDINATOR_LOAD_IN_PROGRESS',
  [ErrorCode.COORDINATOR_NOT_AVAILABLE]: 'COORDINATOR_NOT_AVAILABLE',
  [ErrorCode.NOT_COORDINATOR]: 'NOT_COORDINATOR',
};
