/**
 * One transactional id's state (Kafka 4.3's `TransactionMetadata` and `TxnTransitMetadata`):
 * the fields `__transaction_state` stores, and the transitions the coordinator prepares. A
 * transition returns the next fields without changing the metadata; the coordinator writes them
 * and, once the record is durable, makes them current (`completeTransition`), as Kafka's
 * `prepareTransitionTo` / `completeTransitionTo`. While a write is in flight `pendingState` is
 * set and other requests for the id answer CONCURRENT_TRANSACTIONS.
 */
import type { TransactionLogValue } from '../records/schemas/TransactionLogValue.js';
import { ErrorCode } from '../protocol/errors.js';
import { TxnState, isValidTransition, txnStateName } from './transaction-state.js';

/** Kafka's `RecordBatch.NO_PRODUCER_ID` / `NO_PRODUCER_EPOCH`. */
export const NO_PRODUCER_ID = -1n;
export const NO_PRODUCER_EPOCH = -1;
/** Kafka's `Short.MAX_VALUE`: an epoch at or above `MAX_EPOCH - 1` is exhausted. */
export const MAX_EPOCH = 32767;

/** `TransactionVersion` levels: 0 and 1 are the client-driven protocol (AddPartitionsToTxn), 2 is KIP-890's. */
export type TransactionVersion = 0 | 1 | 2;

/** A topic partition of a transaction. */
export interface TxnPartition {
  readonly topic: string;
  readonly partition: number;
}

/** The persisted fields of a transactional id (Kafka's `TxnTransitMetadata`). */
export interface TxnFields {
  readonly producerId: bigint;
  readonly previousProducerId: bigint;
  readonly nextProducerId: bigint;
  readonly producerEpoch: number;
  readonly lastProducerEpoch: number;
  readonly txnTimeoutMs: number;
  readonly state: TxnState;
  /** Partitions of the open transaction, `topic\u0000partition` keys. */
  readonly partitions: ReadonlyMap<string, TxnPartition>;
  /** ms; -1 when no transaction has started. */
  readonly txnStartTimestamp: number;
  /** ms */
  readonly txnLastUpdateTimestamp: number;
  readonly clientTransactionVersion: TransactionVersion;
}

export const partitionKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

/** The error a transition refuses with (a Kafka error code). */
export class TxnTransitionError extends Error {
  constructor(readonly errorCode: number, message: string) {
    super(message);
    this.name = 'TxnTransitionError';
  }
}

export class TxnMetadata {
  /** The state a write in flight moves to; null when none is. */
  pendingState: TxnState | null = null;
  /** A timed-out transaction's epoch fence that failed to be written (`hasFailedEpochFence`). */
  hasFailedEpochFence = false;

  constructor(
    readonly transactionalId: string,
    public fields: TxnFields,
  ) {}

  get state(): TxnState {
    return this.fields.state;
  }

  get producerId(): bigint {
    return this.fields.producerId;
  }

  get producerEpoch(): number {
    return this.fields.producerEpoch;
  }

  get pendingTransitionInProgress(): boolean {
    return this.pendingState !== null;
  }

  /** `isProducerEpochExhausted`: the epoch cannot be bumped again (>= 32766). */
  get isProducerEpochExhausted(): boolean {
    return isEpochExhausted(this.fields.producerEpoch);
  }

  hasPartition(topic: string, partition: number): boolean {
    return this.fields.partitions.has(partitionKey(topic, partition));
  }

  // ---- transitions (Kafka's prepare* methods) ---------------------------------------------------

  /** `prepareTransitionTo`: the next fields, marking the transition pending. */
  private transit(next: Partial<TxnFields> & { state: TxnState }, now: number): TxnFields {
    if (this.pendingState !== null) throw new Error(`${this.transactionalId}: transition to ${txnStateName(next.state)} while one to ${txnStateName(this.pendingState)} is pending`);
    if (!isValidTransition(this.fields.state, next.state)) {
      throw new Error(`${this.transactionalId}: cannot go from ${txnStateName(this.fields.state)} to ${txnStateName(next.state)}`);
    }
    this.pendingState = next.state;
    return { ...this.fields, txnLastUpdateTimestamp: now, ...next };
  }

  /**
   * `prepareIncrementProducerEpoch` (InitProducerId): Empty with the epoch bumped. With the
   * epoch the client sent (KIP-360), a retry of the last bump returns the current epoch again;
   * any other epoch is PRODUCER_FENCED.
   */
  prepareIncrementProducerEpoch(txnTimeoutMs: number, expectedEpoch: number | null, now: number): TxnFields {
    if (this.isProducerEpochExhausted) throw new Error(`${this.transactionalId}: epoch exhausted`);
    const bumped = this.fields.producerEpoch + 1;
    let epoch: number;
    let lastEpoch: number;
    if (expectedEpoch === null) [epoch, lastEpoch] = [bumped, NO_PRODUCER_EPOCH];
    else if (this.fields.producerEpoch === NO_PRODUCER_EPOCH || expectedEpoch === this.fields.producerEpoch) [epoch, lastEpoch] = [bumped, this.fields.producerEpoch];
    else if (expectedEpoch === this.fields.lastProducerEpoch) [epoch, lastEpoch] = [this.fields.producerEpoch, this.fields.lastProducerEpoch];
    else throw new TxnTransitionError(ErrorCode.PRODUCER_FENCED, 'fenced');
    return this.transit(
      { state: TxnState.EMPTY, producerEpoch: epoch, lastProducerEpoch: lastEpoch, txnTimeoutMs, partitions: new Map(), txnStartTimestamp: -1, nextProducerId: NO_PRODUCER_ID },
      now,
    );
  }

  /** `prepareProducerIdRotation`: a new producer id at epoch 0 once the epoch is exhausted. */
  prepareProducerIdRotation(newProducerId: bigint, txnTimeoutMs: number, now: number, recordLastEpoch: boolean): TxnFields {
    return this.transit(
      {
        state: TxnState.EMPTY,
        producerId: newProducerId,
        previousProducerId: this.fields.producerId,
        nextProducerId: NO_PRODUCER_ID,
        producerEpoch: 0,
        lastProducerEpoch: recordLastEpoch ? this.fields.producerEpoch : NO_PRODUCER_EPOCH,
        txnTimeoutMs,
        partitions: new Map(),
        txnStartTimestamp: -1,
      },
      now,
    );
  }

  /**
   * `prepareFenceProducerEpoch`: PrepareEpochFence with the epoch bumped (not after a fence that
   * failed to be written, nor at Short.MAX_VALUE), never answered to a client: the open
   * transaction is aborted with it.
   */
  prepareFenceProducerEpoch(now: number): TxnFields {
    const f = this.fields;
    const epoch = this.hasFailedEpochFence || f.producerEpoch === MAX_EPOCH ? f.producerEpoch : f.producerEpoch + 1;
    return this.transit({ state: TxnState.PREPARE_EPOCH_FENCE, producerEpoch: epoch }, now);
  }

  /** `prepareAddPartitions`: Ongoing with the partitions added; a new transaction starts its clock now. */
  prepareAddPartitions(added: readonly TxnPartition[], now: number, clientTransactionVersion: TransactionVersion): TxnFields {
    const starting = this.fields.state === TxnState.EMPTY || this.fields.state === TxnState.COMPLETE_COMMIT || this.fields.state === TxnState.COMPLETE_ABORT;
    const partitions = new Map(this.fields.partitions);
    for (const p of added) partitions.set(partitionKey(p.topic, p.partition), p);
    return this.transit(
      { state: TxnState.ONGOING, partitions, txnStartTimestamp: starting ? now : this.fields.txnStartTimestamp, clientTransactionVersion },
      now,
    );
  }

  /**
   * `prepareAbortOrCommit`: PrepareCommit or PrepareAbort. Under transaction version 2 the epoch
   * is bumped with every transaction (a new producer id once exhausted: `nextProducerId`); an
   * abort of a transaction without partitions starts and ends now.
   */
  prepareAbortOrCommit(state: typeof TxnState.PREPARE_COMMIT | typeof TxnState.PREPARE_ABORT, clientTransactionVersion: TransactionVersion, nextProducerId: bigint, now: number, noPartitionAdded: boolean): TxnFields {
    const f = this.fields;
    const tv2 = clientTransactionVersion >= 2;
    // Kafka aborts at Short.MAX_VALUE without a bump (which would overflow) rather than fail.
    const bump = tv2 && !(f.producerEpoch === MAX_EPOCH && state === TxnState.PREPARE_ABORT);
    return this.transit(
      {
        state,
        nextProducerId,
        producerEpoch: bump ? f.producerEpoch + 1 : f.producerEpoch,
        lastProducerEpoch: tv2 ? f.producerEpoch : f.lastProducerEpoch,
        txnStartTimestamp: noPartitionAdded ? now : f.txnStartTimestamp,
        clientTransactionVersion,
      },
      now,
    );
  }

  /** `prepareComplete`: CompleteCommit or CompleteAbort, no partitions; version 2 moves to the next producer id if one was drawn. */
  prepareComplete(now: number): TxnFields {
    const state = this.fields.state === TxnState.PREPARE_COMMIT ? TxnState.COMPLETE_COMMIT : TxnState.COMPLETE_ABORT;
    this.hasFailedEpochFence = false;
    const rotate = this.fields.clientTransactionVersion >= 2 && this.fields.nextProducerId !== NO_PRODUCER_ID;
    return this.transit(
      {
        state,
        producerId: rotate ? this.fields.nextProducerId : this.fields.producerId,
        previousProducerId: rotate ? this.fields.producerId : this.fields.previousProducerId,
        producerEpoch: rotate ? 0 : this.fields.producerEpoch,
        nextProducerId: NO_PRODUCER_ID,
        partitions: new Map(),
      },
      now,
    );
  }

  /** `prepareDead`: the id expires (`transactional.id.expiration.ms`). */
  prepareDead(now: number): TxnFields {
    return this.transit({ state: TxnState.DEAD, partitions: new Map() }, now);
  }

  /** The transition was written: its fields become current. */
  completeTransition(next: TxnFields): void {
    this.fields = next;
    this.pendingState = null;
  }

  /** The transition's write failed: nothing changes. */
  abortTransition(): void {
    this.pendingState = null;
  }
}

/** `TransactionMetadata.isEpochExhausted`. */
export function isEpochExhausted(epoch: number): boolean {
  return epoch >= MAX_EPOCH - 1;
}

/** A new transactional id's metadata (InitProducerId of an unknown id): Empty, epoch -1 until the first bump. */
export function newTxnFields(producerId: bigint, txnTimeoutMs: number, now: number): TxnFields {
  return {
    producerId,
    previousProducerId: NO_PRODUCER_ID,
    nextProducerId: NO_PRODUCER_ID,
    producerEpoch: NO_PRODUCER_EPOCH,
    lastProducerEpoch: NO_PRODUCER_EPOCH,
    txnTimeoutMs,
    state: TxnState.EMPTY,
    partitions: new Map(),
    txnStartTimestamp: -1,
    txnLastUpdateTimestamp: now,
    clientTransactionVersion: 0,
  };
}

/**
 * The TransactionLogValue of fields (`TransactionLog.valueToBytes`): partitions grouped by topic
 * (null in Empty, as Kafka writes them; an empty list once completed), value version 1.
 */
export function toLogValue(f: TxnFields): TransactionLogValue {
  let transactionPartitions: TransactionLogValue['transactionPartitions'] = null;
  if (f.state !== TxnState.EMPTY) {
    const byTopic = new Map<string, number[]>();
    for (const p of f.partitions.values()) {
      const list = byTopic.get(p.topic);
      if (list) list.push(p.partition);
      else byTopic.set(p.topic, [p.partition]);
    }
    transactionPartitions = [...byTopic].map(([topic, partitionIds]) => ({ topic, partitionIds }));
  }
  return {
    producerId: f.producerId,
    previousProducerId: f.previousProducerId,
    nextProducerId: f.nextProducerId,
    producerEpoch: f.producerEpoch,
    nextProducerEpoch: -1,
    transactionTimeoutMs: f.txnTimeoutMs,
    transactionStatus: f.state,
    transactionPartitions,
    transactionLastUpdateTimestampMs: BigInt(f.txnLastUpdateTimestamp),
    transactionStartTimestampMs: BigInt(f.txnStartTimestamp),
    clientTransactionVersion: f.clientTransactionVersion,
  };
}

/** The fields of a stored TransactionLogValue (`TransactionLog.readTxnRecordValue`); the last epoch is not stored. */
export function fromLogValue(v: TransactionLogValue, state: TxnState): TxnFields {
  const partitions = new Map<string, TxnPartition>();
  for (const t of v.transactionPartitions ?? []) for (const p of t.partitionIds) partitions.set(partitionKey(t.topic, p), { topic: t.topic, partition: p });
  return {
    producerId: v.producerId,
    previousProducerId: v.previousProducerId,
    nextProducerId: v.nextProducerId,
    producerEpoch: v.producerEpoch,
    lastProducerEpoch: NO_PRODUCER_EPOCH,
    txnTimeoutMs: v.transactionTimeoutMs,
    state,
    partitions,
    txnStartTimestamp: Number(v.transactionStartTimestampMs),
    txnLastUpdateTimestamp: Number(v.transactionLastUpdateTimestampMs),
    clientTransactionVersion: (v.clientTransactionVersion >= 2 ? 2 : v.clientTransactionVersion === 1 ? 1 : 0) as TransactionVersion,
  };
}
