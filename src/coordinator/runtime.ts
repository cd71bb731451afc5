/**
 * The coordinator runtime: the one way group and offset state changes, from a request or a timer
 * (Kafka 4.3's `CoordinatorRuntime`, `CoordinatorResult` and `GroupCoordinatorShard.replay`).
 *
 * A write operation builds the records it wants written and applies each to the *latest* state,
 * the state later operations decide on, with its shard's replay (the function start-up replay
 * uses). It hands the records to `append`, which writes them to `__consumer_offsets` as one batch
 * per partition and then:
 * - once they are durable (under `mock.flush.policy`), gives them to each shard's *committed*
 *   view, the state reads see (OffsetFetch, DescribeGroups, ConsumerGroupDescribe, ListGroups,
 *   the admin API), as Kafka's reads run at the last committed offset;
 * - when the append fails, reverts each shard's latest state to its committed state with the
 *   writes still in flight replayed over it, so the operation leaves no trace, and rejects with a
 *   `CoordinatorWriteError` carrying the error Kafka's runtime answers
 *   (`CoordinatorOperationExceptionHelper.handleOperationException`).
 * An operation that throws after building records gives them back with `abandon` (Kafka reverts
 * the shard to its snapshot the same way).
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../protocol/errors.js';
import type { CoordinatorRecord, OffsetCommitRecord } from './records.js';

type RecordKind = CoordinatorRecord['kind'];
type RecordOf<K extends RecordKind> = Extract<CoordinatorRecord, { kind: K }>;

/**
 * One family of coordinator state with its two views (latest and committed). The live replay is
 * the shard's own (operations call it as they build records); the runtime drives the rest.
 */
export interface CoordinatorShard<K extends RecordKind = RecordKind> {
  /** The record kinds this shard replays. */
  readonly kinds: readonly K[];
  /** Start-up replay: a stored record, applied to both views. */
  load(record: RecordOf<K>): void;
  /** These records (this shard's part of a write, in order) are durable: the committed view takes them. */
  onDurable(records: readonly RecordOf<K>[]): void;
  /**
   * These records were applied to the latest state but will never be durable: the latest state
   * becomes the committed state with `pending` (this shard's records of the writes still in
   * flight, in append order) replayed over it.
   */
  revert(failed: readonly RecordOf<K>[], pending: readonly RecordOf<K>[]): void;
}

/**
 * A shard holding transactional records (Kafka's `CoordinatorShard.replayEndTransactionMarker`
 * and replay with a producer id): only offset commits are written inside transactions.
 */
export interface TransactionalShard {
  /** A durable record of a transactional batch of `producerId` (start-up replay or live). */
  replayTransactional(record: OffsetCommitRecord, producerId: bigint): void;
  /** A durable COMMIT or ABORT marker of `producerId` on the partition whose groups `inPartition` accepts. */
  replayEndTransaction(producerId: bigint, commit: boolean, inPartition: (groupId: string) => boolean): void;
}

/** The producer of a transactional write (TxnOffsetCommit). */
export interface TransactionalWriter {
  readonly producerId: bigint;
  readonly producerEpoch: number;
}

/** The log the runtime writes to (a `GroupLog`). */
export interface CoordinatorLog {
  /** The `__consumer_offsets` partition of a group. */
  partitionFor(groupId: string): number;
  /** Appends records (in a transactional batch of `txn` when given); resolves once durable, rejects (or throws while encoding) on failure. */
  append(records: readonly CoordinatorRecord[], txn?: TransactionalWriter): Promise<void>;
  /** Appends a COMMIT or ABORT control batch of the producer to `partition`; resolves once durable (test logs may lack it). */
  appendMarker?(partition: number, txn: TransactionalWriter, commit: boolean, coordinatorEpoch: number): Promise<void>;
}

/** A write that did not happen, with the error the client gets. */
export class CoordinatorWriteError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CoordinatorWriteError';
  }
}

/**
 * `CoordinatorOperationExceptionHelper.handleOperationException` (Kafka 4.3): the error a client
 * gets for a coordinator write that failed with `errorCode`.
 */
const OPERATION_ERRORS: ReadonlyMap<number, number> = new Map([
  [ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.NOT_COORDINATOR],
  [ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.NOT_COORDINATOR],
  [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.COORDINATOR_NOT_AVAILABLE],
  [ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.COORDINATOR_NOT_AVAILABLE],
  [ErrorCode.REQUEST_TIMED_OUT, ErrorCode.COORDINATOR_NOT_AVAILABLE],
  [ErrorCode.NETWORK_EXCEPTION, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS],
  [ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.UNKNOWN_SERVER_ERROR],
  [ErrorCode.RECORD_LIST_TOO_LARGE, ErrorCode.UNKNOWN_SERVER_ERROR],
  [ErrorCode.INVALID_FETCH_SIZE, ErrorCode.UNKNOWN_SERVER_ERROR],
]);

/**
 * The Kafka error an append failure is: a failed file operation (a Node system error: ENOSPC,
 * EIO, EROFS, ...) is Kafka's KAFKA_STORAGE_ERROR; an error carrying a Kafka `errorCode` keeps
 * it; anything else (a record that cannot be encoded) is UNKNOWN_SERVER_ERROR.
 */
function appendErrorCode(err: unknown): number {
  if (err instanceof CoordinatorWriteError) return err.errorCode;
  const e = err as { errorCode?: unknown; code?: unknown; syscall?: unknown } | null;
  if (typeof e?.errorCode === 'number') return e.errorCode;
  if (typeof e?.code === 'string' && (typeof e.syscall === 'string' || /^E[A-Z]+$/.test(e.code))) return ErrorCode.KAFKA_STORAGE_ERROR;
  return ErrorCode.UNKNOWN_SERVER_ERROR;
}

/** The `CoordinatorWriteError` a client sees for an append that failed with `err`. */
export function toCoordinatorWriteError(err: unknown): CoordinatorWriteError {
  if (err instanceof CoordinatorWriteError) return err;
  const code = appendErrorCode(err);
  const errorCode = OPERATION_ERRORS.get(code) ?? code;
  const message = err instanceof Error ? err.message : String(err);
  return new CoordinatorWriteError(errorCode, message, { cause: err });
}

/** Whether every record goes to the partition of the first (the usual write: one group's records). */
function onePartition(records: readonly CoordinatorRecord[], log: CoordinatorLog): boolean {
  const groupId = records[0]!.groupId;
  let partition = -1;
  for (const r of records) {
    if (r.groupId === groupId) continue;
    if (partition === -1) partition = log.partitionFor(groupId);
    if (log.partitionFor(r.groupId) !== partition) return false;
  }
  return true;
}

/**
 * Writes appended to one partition in one turn: the log answers them with one promise (its turn's
 * write), so they settle together, in append order, through one reaction. A write is its records.
 */
class WriteBatch {
  readonly writes: Array<readonly CoordinatorRecord[]> = [];
  /** The writes before this index are committed or reverted; the rest are still in flight. */
  settledCount = 0;
  /** What each write's caller gets: resolves once all are committed, rejects once all are reverted. */
  readonly done: Promise<void>;

  constructor(
    readonly durable: Promise<void>,
    onDurable: (batch: WriteBatch) => void,
    onFailed: (batch: WriteBatch, err: unknown) => never,
  ) {
    this.done = durable.then(
      () => onDurable(this),
      (err: unknown) => onFailed(this, err),
    );
  }
}

export class CoordinatorRuntime {
  private readonly shards = new Map<RecordKind, CoordinatorShard>();
  /**
   * Batches with writes not yet durable, in append order (their writes from `settledCount` on):
   * one Set entry per batch, not one per write (issue #16: a Set add and delete per commit).
   */
  private readonly inFlight = new Set<WriteBatch>();
  /** Writes appended and not yet committed or reverted, and who waits for that count to reach 0. */
  private unsettled = 0;
  private flushWaiters: Array<() => void> = [];
  /** The writes `capture` is collecting, innermost last. */
  private readonly captures: Array<Array<Promise<void>>> = [];
  private transactional: TransactionalShard | null = null;
  /** The batch the next write joins when the log gives it the same promise (see `appendToPartition`). */
  private openBatch: WriteBatch | null = null;

  constructor(
    private readonly groupLog: CoordinatorLog,
    private readonly log: Logger,
  ) {}

  /** Adds a shard; each record kind belongs to exactly one. */
  register<K extends RecordKind>(shard: CoordinatorShard<K>): void {
    for (const kind of shard.kinds) {
      if (this.shards.has(kind)) throw new Error(`record kind ${kind} has two shards`);
      this.shards.set(kind, shard as unknown as CoordinatorShard);
    }
  }

  /** Start-up replay of one stored record (both views). */
  load(record: CoordinatorRecord): void {
    this.shardOf(record).load(record);
  }

  /** Adds the shard that holds transactional offsets (the `OffsetStore`). */
  registerTransactional(shard: TransactionalShard): void {
    this.transactional = shard;
  }

  /** Start-up replay of a record of a transactional batch of `producerId`. */
  loadTransactional(record: CoordinatorRecord, producerId: bigint): void {
    if (record.kind !== 'offset-commit') throw new Error(`a ${record.kind} record in a transactional batch`);
    this.transactionalShard().replayTransactional(record, producerId);
  }

  /** Start-up replay of a COMMIT or ABORT marker of `producerId` on `__consumer_offsets` partition `partition`. */
  loadEndTransaction(partition: number, producerId: bigint, commit: boolean): void {
    this.transactionalShard().replayEndTransaction(producerId, commit, (groupId) => this.groupLog.partitionFor(groupId) === partition);
  }

  /**
   * Writes offset commits inside the transaction of `txn` (Kafka's
   * `scheduleTransactionalWriteOperation`): one transactional batch on the group's partition; the
   * records are pending (invisible to reads) once durable, until `completeTransaction`. Rejects with
   * a `CoordinatorWriteError`; nothing is applied before the write is durable, so a failure leaves
   * nothing to undo.
   */
  appendTransactional(records: readonly OffsetCommitRecord[], producerId: bigint, producerEpoch: number): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    const shard = this.transactionalShard();
    let durable: Promise<void>;
    try {
      durable = this.groupLog.append(records, { producerId, producerEpoch });
    } catch (err) {
      durable = Promise.reject(err);
    }
    // Replayed in the same turn as an OffsetCommit appended after it would be (one hop from its
    // `durable`, as `appendToPartition`): records are applied in log order, which decides what a
    // COMMIT marker materializes (`OffsetStore.replayEndTransaction`).
    this.unsettled++;
    const done = durable.then(
      () => {
        this.settled();
        for (const r of records) shard.replayTransactional(r, producerId);
      },
      (err: unknown) => {
        this.settled();
        throw toCoordinatorWriteError(err);
      },
    );
    for (const c of this.captures) c.push(done);
    return done;
  }

  /**
   * Ends the transaction of `txn` on one `__consumer_offsets` partition (Kafka's
   * `scheduleTransactionCompletion`, from WriteTxnMarkers): a COMMIT or ABORT control batch, then
   * the pending offsets of that partition's groups become committed or are dropped.
   */
  completeTransaction(partition: number, txn: TransactionalWriter, commit: boolean, coordinatorEpoch = 0): Promise<void> {
    const shard = this.transactionalShard();
    let durable: Promise<void>;
    try {
      if (!this.groupLog.appendMarker) throw new Error('this log writes no transaction markers');
      durable = this.groupLog.appendMarker(partition, txn, commit, coordinatorEpoch);
    } catch (err) {
      durable = Promise.reject(err);
    }
    return this.track(durable).then(
      () => shard.replayEndTransaction(txn.producerId, commit, (groupId) => this.groupLog.partitionFor(groupId) === partition),
      (err: unknown) => {
        throw toCoordinatorWriteError(err);
      },
    );
  }

  /** Counts a write in `flush` until it settles. */
  private track(durable: Promise<void>): Promise<void> {
    this.unsettled++;
    return durable.finally(() => this.settled());
  }

  private transactionalShard(): TransactionalShard {
    if (!this.transactional) throw new Error('no coordinator shard holds transactional offsets');
    return this.transactional;
  }

  /**
   * Writes records an operation built and applied to the latest state. Resolves once they are
   * durable and committed; rejects with a `CoordinatorWriteError` (state reverted) otherwise.
   * Records of groups on different `__consumer_offsets` partitions are separate writes (Kafka's
   * shards are partitions): each commits or reverts on its own, and the promise rejects if any fails.
   */
  append(records: readonly CoordinatorRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    if (onePartition(records, this.groupLog)) return this.appendToPartition(records);
    const parts = new Map<number, CoordinatorRecord[]>();
    for (const r of records) {
      const p = this.groupLog.partitionFor(r.groupId);
      const list = parts.get(p);
      if (list) list.push(r);
      else parts.set(p, [r]);
    }
    const writes = [...parts.values()].map((list) => this.appendToPartition(list));
    return Promise.allSettled(writes).then((results) => {
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    });
  }

  private appendToPartition(records: readonly CoordinatorRecord[]): Promise<void> {
    let durable: Promise<void>;
    try {
      durable = this.groupLog.append(records);
    } catch (err) {
      // A record that cannot be encoded throws while the batch is built: nothing was written.
      durable = Promise.reject(err);
    }
    this.unsettled++;
    // The writes of one turn to one partition get the log's one promise: they settle together, so
    // they share one reaction and one promise (issue #16: not one of each per commit).
    let batch = this.openBatch;
    if (batch === null || batch.durable !== durable) {
      batch = new WriteBatch(durable, this.settleBatch, this.failBatch);
      this.openBatch = batch;
      this.inFlight.add(batch);
    }
    batch.writes.push(records);
    for (const c of this.captures) c.push(batch.done);
    return batch.done;
  }

  /** The writes of a batch are durable: each is committed, in append order. */
  private readonly settleBatch = (batch: WriteBatch): void => {
    if (this.openBatch === batch) this.openBatch = null;
    const { writes } = batch;
    for (let i = 0; i < writes.length; i++) {
      const records = writes[i]!;
      batch.settledCount = i + 1;
      this.settled();
      const only = this.onlyShard(records);
      if (only) only.onDurable(records);
      else for (const [shard, list] of this.byShard(records)) shard.onDurable(list);
    }
    this.inFlight.delete(batch);
  };

  /** The writes of a batch failed: each is reverted, in append order (each seeing the later ones still in flight). */
  private readonly failBatch = (batch: WriteBatch, err: unknown): never => {
    if (this.openBatch === batch) this.openBatch = null;
    const { writes } = batch;
    for (let i = 0; i < writes.length; i++) {
      batch.settledCount = i + 1;
      this.settled();
      this.revert(writes[i]!);
    }
    this.inFlight.delete(batch);
    throw toCoordinatorWriteError(err);
  };

  private settled(): void {
    if (--this.unsettled > 0) return;
    const waiters = this.flushWaiters;
    this.flushWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * Runs `fn` and returns its result with the writes appended while it ran, however deep in the
   * helpers it calls (a classic LeaveGroup's rebalance writes the Empty group's record): the
   * operation's `CoordinatorResult` records, whose failure is the request's.
   */
  capture<T>(fn: () => T): { result: T; writes: Array<Promise<void>> } {
    const writes: Array<Promise<void>> = [];
    this.captures.push(writes);
    try {
      return { result: fn(), writes };
    } finally {
      this.captures.pop();
    }
  }

  /** The error of the first of `writes` that failed (see `writeErrorCode`), or null when all succeeded. */
  static async firstFailure(writes: ReadonlyArray<Promise<void>>): Promise<CoordinatorWriteError | null> {
    for (const r of await Promise.allSettled(writes)) if (r.status === 'rejected') return toCoordinatorWriteError(r.reason);
    return null;
  }

  /**
   * `append` for writes no caller can act on (timers, background work): a failure is reverted
   * all the same and logged, as Kafka logs a failed timer operation.
   */
  appendLogged(records: readonly CoordinatorRecord[], what: string): void {
    this.append(records).catch((err: unknown) => {
      this.log.warn({ err, groupIds: [...new Set(records.map((r) => r.groupId))] }, `failed to write ${what}`);
    });
  }

  /** Gives back records an operation applied but will not write (it failed after building them). */
  abandon(records: readonly CoordinatorRecord[]): void {
    if (records.length > 0) this.revert(records);
  }

  /**
   * Resolves once no write is in flight: every write appended so far (and any appended meanwhile)
   * has been committed or reverted.
   */
  flush(): Promise<void> {
    if (this.unsettled === 0) return Promise.resolve();
    return new Promise((resolve) => this.flushWaiters.push(resolve));
  }

  /**
   * Undoes a write shard by shard, the shard of the last records first: an operation that removed
   * a group of one type and put one of another under the same id (a conversion) is undone by
   * removing the new group before the old one comes back.
   */
  private revert(failed: readonly CoordinatorRecord[]): void {
    const pending: CoordinatorRecord[] = [];
    for (const batch of this.inFlight) for (let i = batch.settledCount; i < batch.writes.length; i++) pending.push(...batch.writes[i]!);
    const pendingByShard = this.byShard(pending);
    for (const [shard, list] of [...this.byShard(failed)].reverse()) shard.revert(list, pendingByShard.get(shard) ?? []);
  }

  private shardOf(record: CoordinatorRecord): CoordinatorShard {
    const shard = this.shards.get(record.kind);
    if (!shard) throw new Error(`no coordinator shard replays ${record.kind} records`);
    return shard;
  }

  /** The shard of every record when they all have one kind (the usual write), else null. */
  private onlyShard(records: readonly CoordinatorRecord[]): CoordinatorShard | null {
    const kind = records[0]!.kind;
    for (let i = 1; i < records.length; i++) if (records[i]!.kind !== kind) return null;
    return this.shardOf(records[0]!);
  }

  /** The records by shard, each list in the original order. */
  private byShard(records: readonly CoordinatorRecord[]): Map<CoordinatorShard, readonly CoordinatorRecord[]> {
    if (records.length === 0) return new Map();
    const kind = records[0]!.kind;
    if (records.every((r) => r.kind === kind)) return new Map([[this.shardOf(records[0]!), records]]);
    const out = new Map<CoordinatorShard, CoordinatorRecord[]>();
    for (const r of records) {
      const shard = this.shardOf(r);
      const list = out.get(shard);
      if (list) list.push(r);
      else out.set(shard, [r]);
    }
    return out;
  }
}

/** The error code a client gets for a write that failed with `err` (see `toCoordinatorWriteError`). */
export function writeErrorCode(err: unknown): number {
  return toCoordinatorWriteError(err).errorCode;
}

/** Errors `CoordinatorOperationExceptionHelper.handleOperationException` answers without a message. */
const UNEXPLAINED_OPERATION_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.UNKNOWN_SERVER_ERROR,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
]);

/**
 * The error message a group operation's response carries with `errorCode` (Kafka 4.3's
 * `CoordinatorOperationExceptionHelper`): none for the codes it maps (UNKNOWN_SERVER_ERROR,
 * COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR), else `message`.
 */
export function operationErrorMessage(errorCode: number, message: string | null): string | null {
  return UNEXPLAINED_OPERATION_ERRORS.has(errorCode) ? null : message;
}

/** What the coordinators write through: the runtime, less start-up replay and registration. */
export type CoordinatorWriter = Pick<CoordinatorRuntime, 'append' | 'appendLogged' | 'abandon' | 'flush' | 'capture'>;
