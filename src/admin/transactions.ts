/**
 * The admin API's view of the transaction coordinator (`GET /transactions`, `GET
 * /transactions/{transactionalId}`) and of a group's pending transactional offsets: what
 * `kafka-transactions list/describe` show, plus the offsets a transaction sent that await its
 * COMMIT marker (Kafka's `OffsetMetadataManager.pendingTransactionalOffsets`).
 */
import type { Broker } from '../broker.js';
import type { TxnMetadata } from '../transactions/transaction-metadata.js';
import { txnStateName } from '../transactions/transaction-state.js';
import { nextTurn, sliceBudgetSpent, Slicer } from '../util/slices.js';
import type { PendingOffsetView, TransactionDescription, TransactionSummary } from './views.js';

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function summary(broker: Broker, txn: TxnMetadata): TransactionSummary {
  const f = txn.fields;
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of f.partitions.values()) byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition]);
  return {
    transactionalId: txn.transactionalId,
    state: txnStateName(f.state),
    producerId: Number(f.producerId),
    producerEpoch: f.producerEpoch,
    timeoutMs: f.txnTimeoutMs,
    startTime: f.txnStartTimestamp < 0 ? null : new Date(f.txnStartTimestamp).toISOString(),
    lastUpdateTime: new Date(f.txnLastUpdateTimestamp).toISOString(),
    coordinator: broker.cluster.transactionCoordinatorOf(txn.transactionalId),
    partitions: [...byTopic].sort(([a], [b]) => byName(a, b)).map(([topic, partitions]) => ({ topic, partitions: partitions.sort((x, y) => x - y) })),
  };
}

/** Transactions summarized per turn of the event loop at most (or the turn's SLICE_BUDGET_MS). */
const TRANSACTIONS_PER_SLICE = 500;

/**
 * Every transactional id the coordinator knows, by id: summarized in slices, other connections
 * served in between (50,000 ids held the Kafka port ~180 ms in one turn, and the console's
 * Transactions page asks again after each change); an id expired meanwhile is left out.
 */
export async function listTransactions(broker: Broker): Promise<TransactionSummary[]> {
  const out: TransactionSummary[] = [];
  const slicer = new Slicer(TRANSACTIONS_PER_SLICE);
  for (const txn of broker.transactions.all()) {
    await slicer.next();
    if (broker.transactions.get(txn.transactionalId) === txn) out.push(summary(broker, txn));
  }
  while (sliceBudgetSpent()) await nextTurn();
  return out.sort((a, b) => byName(a.transactionalId, b.transactionalId));
}

/** One transactional id with its pending offsets; null when unknown. */
export function describeTransaction(broker: Broker, transactionalId: string): TransactionDescription | null {
  const txn = broker.transactions.get(transactionalId);
  if (!txn) return null;
  const pendingOffsets = broker.offsets
    .pendingOffsetsOfProducer(txn.producerId)
    .map(({ groupId, topic, partition, offset }) => ({ groupId, topic, partition, offset: Number(offset.committedOffset), metadata: offset.metadata }))
    .sort((a, b) => byName(a.groupId, b.groupId) || byName(a.topic, b.topic) || a.partition - b.partition);
  return { ...summary(broker, txn), pendingOffsets };
}

/** A group's pending transactional offsets, each with the transactional id of its producer. */
export function pendingOffsetsOfGroup(broker: Broker, groupId: string): PendingOffsetView[] {
  const pending = broker.offsets.pendingOffsetsOf(groupId);
  if (pending.length === 0) return [];
  const idOf = new Map<bigint, string>(broker.transactions.all().map((t) => [t.producerId, t.transactionalId]));
  return pending
    .map(({ producerId, topic, partition, offset }) => ({
      topic,
      partition,
      offset: Number(offset.committedOffset),
      leaderEpoch: offset.leaderEpoch,
      metadata: offset.metadata,
      producerId: Number(producerId),
      transactionalId: idOf.get(producerId) ?? null,
    }))
    .sort((a, b) => byName(a.topic, b.topic) || a.partition - b.partition || a.producerId - b.producerId);
}
