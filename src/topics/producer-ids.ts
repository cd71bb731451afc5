/**
 * Hands out producer ids and epochs for InitProducerId, standing in for Kafka's
 * `ProducerIdManager` plus the transaction coordinator's id bookkeeping:
 *   - no transactional id: a new producer id with epoch 0 every time (as Kafka);
 *   - a transactional id: the same producer id with its epoch bumped on every init, and a
 *     new id once the epoch would pass 32766 (Kafka's `Short.MaxValue - 1`).
 * Ids start above every producer id found in the recovered logs, so a restart never hands
 * out an id whose old sequence state is still in a partition. Transactional ids are not
 * persisted (Kafka keeps them in `__transaction_state`, which this server does not have).
 */
import { ErrorCode } from '../protocol/errors.js';

const MAX_EPOCH = 32766;

export interface ProducerIdAndEpoch {
  errorCode: number;
  producerId: bigint;
  producerEpoch: number;
}

export class ProducerIdManager {
  private nextId = 0n;
  private readonly transactional = new Map<string, { producerId: bigint; producerEpoch: number }>();

  /** Ensures later ids are above `producerId` (called with ids found during recovery). */
  observe(producerId: bigint): void {
    if (producerId >= this.nextId) this.nextId = producerId + 1n;
  }

  /** A fresh producer id. */
  generate(): bigint {
    return this.nextId++;
  }

  /**
   * InitProducerId. `transactionalId` null: idempotent producer. Empty string:
   * INVALID_REQUEST (as Kafka's TransactionCoordinator). For a transactional id, a request
   * carrying the producer id/epoch (KIP-360, v3+) that does not match the current one gets
   * PRODUCER_FENCED.
   */
  initProducerId(transactionalId: string | null, producerId = -1n, producerEpoch = -1): ProducerIdAndEpoch {
    if (transactionalId === null) return { errorCode: ErrorCode.NONE, producerId: this.generate(), producerEpoch: 0 };
    if (transactionalId === '') return { errorCode: ErrorCode.INVALID_REQUEST, producerId: -1n, producerEpoch: -1 };
    const current = this.transactional.get(transactionalId);
    if (current === undefined) {
      const created = { producerId: this.generate(), producerEpoch: 0 };
      this.transactional.set(transactionalId, created);
      return { errorCode: ErrorCode.NONE, ...created };
    }
    if (producerId >= 0n && (producerId !== current.producerId || producerEpoch !== current.producerEpoch)) {
      return { errorCode: ErrorCode.PRODUCER_FENCED, producerId: -1n, producerEpoch: -1 };
    }
    const next =
      current.producerEpoch >= MAX_EPOCH
        ? { producerId: this.generate(), producerEpoch: 0 }
        : { producerId: current.producerId, producerEpoch: current.producerEpoch + 1 };
    this.transactional.set(transactionalId, next);
    return { errorCode: ErrorCode.NONE, ...next };
  }
}
