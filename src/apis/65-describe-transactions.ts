import type { DescribeTransactionsRequest } from '../protocol/messages/DescribeTransactionsRequest.js';
import { defaultTransactionState, type DescribeTransactionsResponse, type TransactionState, type TopicData } from '../protocol/messages/DescribeTransactionsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition } from './types.js';
import { brokerIdOf } from './types.js';
import { ANY_BROKER } from './shapes/routing.js';
import { txnStateName } from '../transactions/transaction-state.js';
import { ELEMENTS_PER_SLICE } from '../protocol/primitives.js';
import { mapInSlices } from '../util/slices.js';

/**
 * DescribeTransactions (key 65, v0), as Kafka's `TransactionCoordinator.handleDescribeTransactions`:
 * per id its state name, producer id and epoch, timeout, start time (-1 before the first
 * transaction) and the partitions of the open transaction, grouped by topic; an empty id answers
 * INVALID_REQUEST, an unknown (or expiring) one TRANSACTIONAL_ID_NOT_FOUND, an id another
 * simulated broker coordinates NOT_COORDINATOR.
 */
export const api: ApiDefinition<DescribeTransactionsRequest, DescribeTransactionsResponse> = {
  apiKey: 65,
  name: 'DescribeTransactions',
  minVersion: 0,
  maxVersion: 0,
  // DescribeTransactionsRequest.getErrorResponse: the error on every id.
  errorResponse: (req, _version, errorCode) => ({ throttleTimeMs: 0, transactionStates: req.transactionalIds.map((transactionalId) => ({ ...defaultTransactionState(), transactionalId, errorCode })) }),
  names: (req) => ({ transactionalIds: req.transactionalIds }),
  largeAnswers: true,
  routing: ANY_BROKER,
  // In slices of ELEMENTS_PER_SLICE ids (issue #16): each id as it stands when its slice runs.
  async handle(req, ctx) {
    const { broker } = ctx;
    const transactionStates = await mapInSlices(req.transactionalIds, ELEMENTS_PER_SLICE, (transactionalId): TransactionState => {
      const answer = (errorCode: number): TransactionState => ({ ...defaultTransactionState(), transactionalId, errorCode });
      if (transactionalId === '') return answer(ErrorCode.INVALID_REQUEST);
      if (broker.cluster.transactionCoordinatorOf(transactionalId) !== brokerIdOf(ctx)) return answer(ErrorCode.NOT_COORDINATOR);
      const txn = broker.transactions.get(transactionalId);
      if (!txn) return answer(ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
      const topics: TopicData[] = [];
      for (const p of txn.fields.partitions.values()) {
        const t = topics.find((e) => e.topic === p.topic);
        if (t) t.partitions.push(p.partition);
        else topics.push({ topic: p.topic, partitions: [p.partition] });
      }
      return {
        errorCode: ErrorCode.NONE,
        transactionalId,
        transactionState: txnStateName(txn.state),
        transactionTimeoutMs: txn.fields.txnTimeoutMs,
        transactionStartTimeMs: BigInt(txn.fields.txnStartTimestamp),
        producerId: txn.producerId,
        producerEpoch: txn.producerEpoch,
        topics,
      };
    });
    return { throttleTimeMs: 0, transactionStates };
  },
};
