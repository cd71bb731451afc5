/**
 * The admin API's view of the transaction coordinator (`GET /transactions`, `GET
 * /transactions/{transactionalId}`) and of a group's pending transactional offsets: what
 * `kafka-transactions list/describe` show, plus the offsets a transaction sent that await its
 * COMMIT marker (Kafka's `OffsetMetadataManager.pendingTransactionalOffsets`).
 */
import type { Broker } from '../broker.js';
import type { TxnMetadata } from '../transactions/transaction-metadata.js';
import { txnStateName } from '../transactions/transaction-state.js';
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

/** Every transactional id the coordinator knows, by id. */
export function listTransactions(broker: Broker): TransactionSummary[] {
  return broker.transactions.all().map((t) => summary(broker, t)).sort((a, b) => byName(a.transactionalId, b.transactionalId));
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
