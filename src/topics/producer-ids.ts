/**
 * Hands out producer ids and epochs for InitProducerId, standing in for Kafka's
 * `ProducerIdManager` plus the transaction coordinator's id bookkeeping:
 *   - no transactional id: a new producer id with epoch 0 every time (as Kafka);
 *   - a transactional id: the same producer id with its epoch bumped on every init, and a
 *     new id once the epoch would pass 32766 (Kafka's `Short.MaxValue - 1`).
 * Ids come in blocks of 1000 (`ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE`), as a Kafka broker gets
 * them from the controller, and the end of the last block handed out is durable before its first id
 * is (Kafka's controller writes a `ProducerIdsRecord`; we write `kmc-producer-ids.json` in the data
 * directory). A restart starts at a new block and above every producer id found in the recovered
 * logs, so no id is ever handed out twice: an idempotent producer that got an id before a crash and
 * wrote nothing yet would otherwise share it with a new one, and one's batches would be taken for
 * duplicates of the other's.
 */
import * as fs from 'node:fs';
import { ErrorCode } from '../protocol/errors.js';
import { writeFileDurablySync } from '../storage/file-io.js';

const MAX_EPOCH = 32766;
/** Kafka's `ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE`. */
export const PRODUCER_ID_BLOCK_SIZE = 1000n;
/** The data directory's record of the next block (ours: Kafka keeps it in the metadata log). */
export const PRODUCER_ID_BLOCK_FILE = 'kmc-producer-ids.json';

export interface ProducerIdAndEpoch {
  errorCode: number;
  producerId: bigint;
  producerEpoch: number;
}

/**
 * No producer id could be handed out: the next block could not be made durable. Kafka's broker
 * answers COORDINATOR_LOAD_IN_PROGRESS while it waits for a block (`RPCProducerIdManager`); clients retry.
 */
export class ProducerIdBlockError extends Error {
  readonly errorCode = ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
}

export class ProducerIdManager {
  private nextId = 0n;
  /** End (exclusive) of the block ids are handed out from; durable in `file` before any id of it is used. */
  private blockEnd = 0n;
  private readonly transactional = new Map<string, { producerId: bigint; producerEpoch: number }>();

  /**
   * `file`: where the next block's start is kept (`<data-dir>/kmc-producer-ids.json`), null in
   * memory. A stored value starts the ids there.
   */
  constructor(private readonly file: string | null = null) {
    if (file !== null && fs.existsSync(file)) this.nextId = readNextBlockStart(file);
  }

  /** Ensures later ids are above `producerId` (called with ids found during recovery). */
  observe(producerId: bigint): void {
    if (producerId >= this.nextId) this.nextId = producerId + 1n;
  }

  /** A fresh producer id; a new block is made durable first when the current one is used up (ProducerIdBlockError if it cannot be). */
  generate(): bigint {
    if (this.nextId >= this.blockEnd) {
      const end = this.nextId + PRODUCER_ID_BLOCK_SIZE;
      try {
        if (this.file !== null) writeFileDurablySync(this.file, `${JSON.stringify({ nextBlockStart: end.toString() })}\n`);
      } catch (err) {
        throw new ProducerIdBlockError(`could not store the next producer id block: ${(err as Error).message}`);
      }
      this.blockEnd = end;
    }
    return this.nextId++;
  }

  /**
   * InitProducerId. `transactionalId` null: idempotent producer. Empty string:
   * INVALID_REQUEST (as Kafka's TransactionCoordinator). For a transactional id, a request
   * carrying the producer id/epoch (KIP-360, v3+) that does not match the current one gets
   * PRODUCER_FENCED.
   */
  initProducerId(transactionalId: string | null, producerId = -1n, producerEpoch = -1): ProducerIdAndEpoch {
    if (transactionalId === null) {
      try {
        return { errorCode: ErrorCode.NONE, producerId: this.generate(), producerEpoch: 0 };
      } catch (err) {
        if (err instanceof ProducerIdBlockError) return { errorCode: err.errorCode, producerId: -1n, producerEpoch: -1 };
        throw err;
      }
    }
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

/**
 * The next block's start kept in `file`. The file is only ever replaced whole (written durably
 * via a temp file), so anything else in it is damage: starting anyway could hand out producer ids
 * already used by logs since deleted, so this throws, naming the file (the CLI exits 2 with it).
 */
function readNextBlockStart(file: string): bigint {
  const text = fs.readFileSync(file, 'utf8');
  let stored: unknown;
  try {
    stored = (JSON.parse(text) as { nextBlockStart?: unknown } | null)?.nextBlockStart;
  } catch (err) {
    throw new Error(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof stored !== 'string' || !/^\d+$/.test(stored)) throw new Error(`${file} has no nextBlockStart (a decimal string): it is damaged; restore it or remove it to start ids above those found in the logs`);
  return BigInt(stored);
}
