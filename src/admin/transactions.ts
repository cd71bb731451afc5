/**
 * The admin API's view of the transaction coordinator (`GET /transactions`, `GET
 * /transactions/{transactionalId}`) and of a group's pending transactional offsets: what
 * `kafka-transactions list/describe` show, plus the offsets a transaction sent that await its
 * COMMIT marker (Kafka's `OffsetMetadataManager.pendingTransactionalOffsets`).
 */
import type { Broker } from '../broker.js';
import type { TxnMetadata } from '../transactions/transaction-metadata.js';
import { txnStateName } from '../transactions/transaction-state.js';
import { Readable } from 'node:stream';
import { sliceBudgetSpent } from '../util/slices.js';
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

/** Transactions summarized (and serialized) per turn of the event loop at most, or the turn's budget (`sliceBudgetSpent`). */
const TRANSACTIONS_PER_SLICE = 500;

/**
 * `GET /transactions`: every transactional id the coordinator knows (the first `limit` by id when
 * given), as JSON `{"transactions": [...], "total": n}` written a slice at a time: a slice is
 * summarized and serialized only when the reader has taken the one before (the stream's
 * back-pressure), so neither the Kafka port nor memory waits on the whole list. 100,000 ids built
 * and serialized at once (20 MB) held the port 217-251 ms, and ten such answers asked together
 * took the server from 204 MB to 1 GB (adversarial trial 26). `total` counts the ids when the
 * listing began; one expired meanwhile is left out.
 */
export function listTransactionsJson(broker: Broker, limit = Infinity): Readable {
  const all = sortedTransactions(broker);
  const total = all.length;
  const txns = all.slice(0, limit);
  let next = 0;
  let opened = false;
  let first = true;
  const slice = (stream: Readable): void => {
    const parts: string[] = [];
    if (!opened) {
      parts.push('{"transactions":[');
      opened = true;
    }
    // At least one id a slice; then until the turn's budget, shared by every listing being written.
    for (let n = 0; next < txns.length && (n === 0 || (n < TRANSACTIONS_PER_SLICE && !sliceBudgetSpent())); n++) {
      const txn = txns[next++]!;
      if (broker.transactions.get(txn.transactionalId) !== txn) continue;
      parts.push((first ? '' : ',') + JSON.stringify(summary(broker, txn)));
      first = false;
    }
    if (next < txns.length) {
      // A slice of ids all expired meanwhile has nothing to push (an empty push would stall the stream).
      if (parts.length === 0) setImmediate(slice, stream);
      else stream.push(parts.join(''));
      return;
    }
    parts.push(`],"total":${total}}`);
    stream.push(parts.join(''));
    stream.push(null);
  };
  return new Readable({
    // One slice a turn of the event loop: a reader that takes everything at once (a socket whose
    // kernel buffer has room) would otherwise have every slice made in the turn it asked.
    read() {
      setImmediate(slice, this);
    },
  });
}

/** Per broker: its transactions sorted by id, as of the coordinator's `changeCount`. */
const sortedCache = new WeakMap<Broker, { changeCount: number; txns: TxnMetadata[] }>();

/**
 * Every id's metadata, by id: sorted once per change of the coordinator's metadata, so that fifty
 * listings asked together sort 100,000 ids once, not fifty times in one turn. Not to be modified.
 */
function sortedTransactions(broker: Broker): readonly TxnMetadata[] {
  const changeCount = broker.transactions.changeCount;
  const cached = sortedCache.get(broker);
  if (cached?.changeCount === changeCount) return cached.txns;
  const txns = broker.transactions.all().sort((a, b) => byName(a.transactionalId, b.transactionalId));
  sortedCache.set(broker, { changeCount, txns });
  return txns;
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
