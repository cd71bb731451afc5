/**
 * The partition leader's side of transactions, as the transaction coordinator sees it:
 *   - `TransactionMarkers.write`: end-transaction markers (COMMIT/ABORT control batches) for one
 *     producer to a set of partitions, answering each partition's error as Kafka's
 *     `KafkaApis.handleWriteTxnMarkersRequest` does (the WriteTxnMarkers API and the coordinator's
 *     in-process EndTxn / timeout abort both call it);
 *   - `TransactionVerifier`: what the Produce path asks before appending a transactional batch
 *     (KIP-890 verification, and the implicit add of partitions under transaction version 2),
 *     standing in for Kafka's `AddPartitionsToTxnManager`. The default accepts everything, so the
 *     log side works without a transaction coordinator.
 *
 * `__consumer_offsets` partitions are the group coordinator's: Kafka's new group coordinator writes
 * their markers itself (`GroupCoordinator.completeTransaction`, which also makes the producer's
 * pending transactional offsets visible or drops them). Whoever owns transactional offsets
 * registers that with `setOffsetsCompletion`; until then their markers are appended like any other
 * partition's.
 */
import { ErrorCode } from '../protocol/errors.js';
import { GROUP_METADATA_TOPIC_NAME } from './topic-name.js';
import type { TopicStore } from './topic-store.js';
import type { Time } from '../util/time.js';
import { Slicer } from '../util/slices.js';
import { AppendWindow, APPENDS_IN_FLIGHT } from './append-window.js';

/** Markers one turn of the event loop appends at most (fewer once the turn's slice budget is spent). */
const MARKERS_PER_SLICE = 1000;

/** One partition of a marker or verification request. */
export interface TopicPartitionRef {
  topic: string;
  partition: number;
}

/** An end-transaction marker for one producer (a `WritableTxnMarker` of WriteTxnMarkers). */
export interface TxnMarkerSpec {
  producerId: bigint;
  /** The producer epoch the marker is written with (under TV2 the coordinator's bumped epoch). */
  producerEpoch: number;
  /** The `__transaction_state` partition's coordinator epoch; an older one than a partition saw is fenced. */
  coordinatorEpoch: number;
  /** true = COMMIT, false = ABORT (WriteTxnMarkers' `TransactionResult`). */
  commit: boolean;
  /**
   * 0/1: legacy, the marker's epoch must be >= the partition's; 2 (TV2): strictly greater, except a
   * retry of a marker already written (KAFKA-19999). WriteTxnMarkers v1 carries none: 0.
   */
  transactionVersion: number;
}

/** A partition's outcome (`WritableTxnMarkerPartitionResult`). */
export interface MarkerPartitionResult extends TopicPartitionRef {
  errorCode: number;
}

/**
 * Completes a transaction in one `__consumer_offsets` partition (the group coordinator's
 * `completeTransaction`): writes the marker there and applies it to the producer's pending
 * transactional offsets. Resolves to the partition's error code (NONE once durable).
 */
export type OffsetsTxnCompletion = (partition: number, marker: TxnMarkerSpec) => Promise<number>;

/** What a transactional Produce asks the transaction coordinator (Kafka's `AddPartitionsToTxnManager.addOrVerifyTransaction`). */
export interface TxnVerificationRequest {
  transactionalId: string;
  producerId: bigint;
  producerEpoch: number;
  /** The partitions of the request that carry a transactional batch of this producer. */
  partitions: readonly TopicPartitionRef[];
  /**
   * true under transaction version 2 (Produce v12+, KIP-890 part 2): add the partitions to the
   * ongoing transaction (starting it if needed); false: only verify they were added by AddPartitionsToTxn.
   */
  implicitAdd: boolean;
}

/** Kafka's `AddPartitionsToTxnManager` as the Produce path sees it. */
export interface TransactionVerifier {
  /**
   * Resolves to one error code per entry of `request.partitions` (same order): NONE to append,
   * otherwise the error the Produce answers for that partition (Kafka maps the coordinator's
   * errors for produce: e.g. INVALID_TXN_STATE for a partition not in the transaction,
   * INVALID_PRODUCER_EPOCH for a fenced epoch, NOT_ENOUGH_REPLICAS for a retriable coordinator
   * error under old clients). Never rejects.
   */
  verify(request: TxnVerificationRequest): Promise<number[]>;
}

/** The verifier used until a transaction coordinator registers one: every partition is accepted. */
export const ACCEPT_ALL_VERIFIER: TransactionVerifier = {
  verify: (request) => Promise.resolve(request.partitions.map(() => ErrorCode.NONE)),
};

/** The errors the group coordinator answers that the transaction coordinator does not expect (mapped as Kafka does). */
const NOT_READY_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.NOT_COORDINATOR,
]);

export class TransactionMarkers {
  private offsetsCompletion: OffsetsTxnCompletion | null = null;
  private currentVerifier: TransactionVerifier = ACCEPT_ALL_VERIFIER;

  /** `time` stamps the markers (Kafka writes the broker's clock into them). */
  constructor(
    private readonly topics: TopicStore,
    private readonly time: Time,
  ) {}

  /** The verifier the Produce path consults for transactional batches. */
  get verifier(): TransactionVerifier {
    return this.currentVerifier;
  }

  /** Installs the transaction coordinator's verifier (null: back to accepting everything). */
  setVerifier(verifier: TransactionVerifier | null): void {
    this.currentVerifier = verifier ?? ACCEPT_ALL_VERIFIER;
  }

  /** Installs the group coordinator's completion of `__consumer_offsets` partitions (null: plain appends). */
  setOffsetsCompletion(completion: OffsetsTxnCompletion | null): void {
    this.offsetsCompletion = completion;
  }

  /**
   * Writes `marker` to every partition of `partitions` and resolves, once each is durable or
   * failed, to one result per partition in the given order (never rejects):
   *   UNKNOWN_TOPIC_OR_PARTITION   the partition does not exist here
   *   INVALID_PRODUCER_EPOCH       the marker's epoch is older than the partition's (TV2: not newer)
   *   TRANSACTION_COORDINATOR_FENCED  the coordinator epoch is older than the partition's for the producer
   *   NOT_LEADER_OR_FOLLOWER       a `__consumer_offsets` partition whose coordinator is not ready
   *   KAFKA_STORAGE_ERROR          the write failed
   * Kafka's `ReplicaManager.appendRecords` with `AppendOrigin.COORDINATOR`, acks -1.
   */
  async write(marker: TxnMarkerSpec, partitions: readonly TopicPartitionRef[]): Promise<MarkerPartitionResult[]> {
    // Appended a slice at a time (issue #16: the markers of a transaction over 9,000 partitions
    // held every other connection ~100 ms), the partitions' writes settling together after.
    // At most APPENDS_IN_FLIGHT of them wait for their write at once (append-window.ts).
    const slicer = new Slicer(MARKERS_PER_SLICE);
    const window = new AppendWindow(APPENDS_IN_FLIGHT);
    const results: Array<Promise<MarkerPartitionResult>> = new Array(partitions.length);
    for (let i = 0; i < partitions.length; i++) {
      if (i > 0) await slicer.next();
      const tp = partitions[i]!;
      results[i] = this.writeOne(marker, tp).then((errorCode) => ({ ...tp, errorCode }));
      window.track(results[i]!);
      const room = window.room();
      if (room !== null) await room;
    }
    return Promise.all(results);
  }

  private async writeOne(marker: TxnMarkerSpec, tp: TopicPartitionRef): Promise<number> {
    // The group coordinator writes `__consumer_offsets` markers itself (creating the topic if no
    // group used it yet: AddOffsetsToTxn adds its partition without a group lookup).
    if (tp.topic === GROUP_METADATA_TOPIC_NAME && this.offsetsCompletion !== null) {
      try {
        const error = await this.offsetsCompletion(tp.partition, marker);
        return NOT_READY_ERRORS.has(error) ? ErrorCode.NOT_LEADER_OR_FOLLOWER : error;
      } catch {
        return ErrorCode.UNKNOWN_SERVER_ERROR;
      }
    }
    const partition = this.topics.get(tp.topic)?.partition(tp.partition);
    if (partition === undefined) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    try {
      const outcome = partition.appendEndTxnMarker(marker, BigInt(this.time.now()));
      if (!('durable' in outcome)) return outcome.errorCode;
      await outcome.durable;
      return ErrorCode.NONE;
    } catch {
      return ErrorCode.KAFKA_STORAGE_ERROR;
    }
  }
}

/**
 * Convenience for callers holding the broker's `TransactionMarkers`: writes one marker and gives the
 * per-partition error codes (same as `markers.write`).
 */
export function writeTxnMarkers(
  markers: TransactionMarkers,
  marker: TxnMarkerSpec,
  partitions: readonly TopicPartitionRef[],
): Promise<MarkerPartitionResult[]> {
  return markers.write(marker, partitions);
}
