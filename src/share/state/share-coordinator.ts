/**
 * The share coordinator: the state of every share partition of every share group, kept in
 * `__share_group_state` (Kafka 4.3.1's `ShareCoordinatorShard` behind `ShareCoordinatorService`).
 *
 * - InitializeShareGroupState writes a ShareSnapshot (snapshot epoch +1 over an existing state,
 *   delivery-complete count -1 for start offset -1, else 0).
 * - WriteShareGroupState writes a ShareUpdate holding only the batches written, or, once
 *   `share.coordinator.snapshot.update.records.per.snapshot` updates followed the last snapshot, a
 *   ShareSnapshot with everything combined (snapshot epoch +1).
 * - ReadShareGroupState answers the combined state; a read with a newer leader epoch writes it
 *   (`readStateAndMaybeUpdateLeaderEpoch`).
 * - DeleteShareGroupState writes a tombstone for a known state (a delete of an unknown one answers
 *   NONE and writes nothing).
 * Errors as the shard's: INVALID_REQUEST `Read operation on uninitialized share partition not
 * allowed.` / `Write operation on uninitialized share partition not allowed.`, FENCED_STATE_EPOCH,
 * FENCED_LEADER_EPOCH, UNKNOWN_TOPIC_OR_PARTITION for a topic id or partition the cluster does
 * not have. Operations on one `__share_group_state` partition run one after another (Kafka runs a
 * partition's operations on one coordinator thread); an answer is given once its record is
 * durable, and the state then holds it (a failed append changes nothing and answers the
 * runtime's mapped error, as `CoordinatorOperationExceptionHelper`).
 * Start-up replays the log (`handleShareSnapshot`, `handleShareUpdate`).
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../../protocol/errors.js';
import type { GroupLog } from '../../coordinator/group-log.js';
import { toCoordinatorWriteError } from '../../coordinator/runtime.js';
import type { ShareStateRecord } from '../../records/schemas/record-types.js';
import type { Time } from '../../util/time.js';
import {
  shareCoordinatorKey,
  type PersisterInitializeEntry,
  type PersisterPartitionResult,
  type PersisterSummary,
  type SharePartitionRef,
  type SharePersister,
} from '../persister.js';
import { Slicer } from '../../util/slices.js';
import { combineStateBatches, type StateBatch } from './state-batches.js';

/** Kafka's `ShareGroupOffset`: one share partition's state. */
export interface ShareGroupOffset {
  snapshotEpoch: number;
  stateEpoch: number;
  leaderEpoch: number;
  startOffset: bigint;
  deliveryCompleteCount: number;
  stateBatches: StateBatch[];
  createTimestamp: bigint;
  writeTimestamp: bigint;
}

/** ReadShareGroupState's answer for one partition. */
export interface PersisterReadResult extends PersisterPartitionResult {
  stateEpoch: number;
  startOffset: bigint;
  stateBatches: StateBatch[];
}

/** WriteShareGroupState's data for one partition. */
export interface PersisterWriteEntry extends SharePartitionRef {
  stateEpoch: number;
  leaderEpoch: number;
  startOffset: bigint;
  deliveryCompleteCount: number;
  stateBatches: StateBatch[];
}

export interface ShareCoordinatorOptions {
  log: GroupLog<ShareStateRecord>;
  time: Time;
  logger: Logger;
  /** `share.coordinator.snapshot.update.records.per.snapshot`. */
  updatesPerSnapshot: number;
  /** The partition count of a topic id, or undefined for a topic the cluster does not have. */
  partitionCount(topicId: string): number | undefined;
  /**
   * Called before each operation: Kafka's persister looks the share coordinator up first
   * (FindCoordinator), which creates `__share_group_state`.
   */
  onUse?: () => void;
}

const READ_UNINITIALIZED = 'Read operation on uninitialized share partition not allowed.';
const WRITE_UNINITIALIZED = 'Write operation on uninitialized share partition not allowed.';
const UNKNOWN_TOPIC_MESSAGE = 'This server does not host this topic-partition.';
const FENCED_STATE_EPOCH_MESSAGE = 'The share coordinator rejected the request because the share-group state epoch did not match.';
const FENCED_LEADER_EPOCH_MESSAGE = 'The leader epoch in the request is older than the epoch on the broker.';
const NEGATIVE_PARTITION = 'The partition id cannot be a negative number.';

type Failure = { errorCode: number; errorMessage: string };
type OperationResult = Failure | { errorCode: 0; errorMessage: null };

/** An operation waiting for its `__share_group_state` partition's next drain. */
interface QueuedOperation {
  groupId: string;
  /** Its share partition's coordinator key. */
  key: string;
  decide: () => Failure | ShareStateRecord | null;
  resolve: (result: OperationResult) => void;
  reject: (err: unknown) => void;
}
const NONE = { errorCode: 0, errorMessage: null } as const;

/** Share partitions `operateAll` decides per turn of the event loop at most (or SLICE_BUDGET_MS). */
export const DECIDE_PER_SLICE = 1000;
/** Records per `__share_group_state` batch `operateAll` appends at most (~100 bytes each). */
export const RECORDS_PER_APPEND = 1000;

export class ShareCoordinator implements SharePersister {
  private readonly states = new Map<string, ShareGroupOffset>();
  private readonly leaderEpochs = new Map<string, number>();
  private readonly stateEpochs = new Map<string, number>();
  private readonly updateCounts = new Map<string, number>();
  /** The tail of each `__share_group_state` partition's operation chain. */
  private readonly chains = new Map<number, Promise<unknown>>();
  /** Operations waiting for their partition's next drain (`operate`). */
  private readonly queued = new Map<number, QueuedOperation[]>();
  /** Told when a share partition's state is deleted (the share partitions drop their cache). */
  private readonly deleteListeners: Array<(groupId: string, topicId: string, partition: number) => void> = [];

  constructor(private readonly options: ShareCoordinatorOptions) {}

  /** Resolves once no operation is queued or running (every write asked for so far has ended). */
  async settled(): Promise<void> {
    while (this.chains.size > 0) await Promise.all([...this.chains.values()]);
  }

  /** Waits for the writes in flight and closes `__share_group_state`. */
  async close(): Promise<void> {
    await Promise.all([...this.chains.values()]);
    await this.options.log.close();
  }

  /** Start-up: replays `__share_group_state`. */
  load(): void {
    this.options.log.replay((record) => this.replay(record));
  }

  onStateDeleted(listener: (groupId: string, topicId: string, partition: number) => void): void {
    this.deleteListeners.push(listener);
  }

  /** The state of a share partition (a copy), or undefined; for views and tests. */
  stateOf(groupId: string, topicId: string, partition: number): ShareGroupOffset | undefined {
    const s = this.states.get(shareCoordinatorKey(groupId, topicId, partition));
    return s === undefined ? undefined : { ...s, stateBatches: s.stateBatches.map((b) => ({ ...b })) };
  }

  // ---- replay (ShareCoordinatorShard.replay) ------------------------------------------------

  private replay(record: ShareStateRecord): void {
    const key = shareCoordinatorKey(record.groupId, record.topicId, record.partition);
    if (record.kind === 'share-snapshot') {
      const value = record.value;
      if (value === null) {
        this.states.delete(key);
        this.leaderEpochs.delete(key);
        this.stateEpochs.delete(key);
        this.updateCounts.delete(key);
        return;
      }
      this.raise(this.leaderEpochs, key, value.leaderEpoch);
      this.raise(this.stateEpochs, key, value.stateEpoch);
      this.states.set(key, { ...value, stateBatches: value.stateBatches.map((b) => ({ ...b })) });
      if ((this.updateCounts.get(key) ?? 0) >= this.options.updatesPerSnapshot) this.updateCounts.set(key, 0);
      return;
    }
    const value = record.value;
    if (value === null) return;
    this.raise(this.leaderEpochs, key, value.leaderEpoch);
    const soFar = this.states.get(key);
    if (soFar === undefined) {
      this.states.set(key, { snapshotEpoch: value.snapshotEpoch, stateEpoch: 0, leaderEpoch: value.leaderEpoch, startOffset: value.startOffset, deliveryCompleteCount: value.deliveryCompleteCount, stateBatches: value.stateBatches.map((b) => ({ ...b })), createTimestamp: 0n, writeTimestamp: 0n });
    } else {
      const startOffset = value.startOffset === -1n ? soFar.startOffset : value.startOffset;
      this.states.set(key, {
        ...soFar,
        startOffset,
        deliveryCompleteCount: value.deliveryCompleteCount,
        leaderEpoch: value.leaderEpoch === -1 ? soFar.leaderEpoch : value.leaderEpoch,
        stateBatches: combineStateBatches(soFar.stateBatches, value.stateBatches, startOffset),
      });
    }
    this.updateCounts.set(key, (this.updateCounts.get(key) ?? 0) + 1);
  }

  private raise(map: Map<string, number>, key: string, epoch: number): void {
    const current = map.get(key);
    if (current === undefined || current < epoch) map.set(key, epoch);
  }

  // ---- the persister's calls -------------------------------------------------------------

  initializeState(groupId: string, partitions: readonly PersisterInitializeEntry[]): Promise<PersisterPartitionResult[]> {
    return this.operateAll(groupId, partitions, (p) => {
      const key = shareCoordinatorKey(groupId, p.topicId, p.partition);
      // maybeGetInitializeStateError: a negative partition before the state epoch and the metadata.
      if (p.partition < 0) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: NEGATIVE_PARTITION };
      const metadata = this.metadataError(p);
      if (metadata) return metadata;
      const recorded = this.stateEpochs.get(key);
      if (p.stateEpoch !== -1 && recorded !== undefined && recorded > p.stateEpoch) {
        return { errorCode: ErrorCode.FENCED_STATE_EPOCH, errorMessage: FENCED_STATE_EPOCH_MESSAGE };
      }
      const existing = this.states.get(key);
      const now = BigInt(this.options.time.now());
      return this.snapshotRecord(groupId, p, {
        snapshotEpoch: existing === undefined ? 0 : existing.snapshotEpoch + 1,
        stateEpoch: p.stateEpoch,
        leaderEpoch: 0,
        startOffset: p.startOffset,
        deliveryCompleteCount: p.startOffset === -1n ? -1 : 0,
        stateBatches: [],
        createTimestamp: now,
        writeTimestamp: now,
      });
    }).then((results) => results.map((r, i) => ({ topicId: partitions[i]!.topicId, partition: partitions[i]!.partition, errorCode: r.errorCode, errorMessage: r.errorMessage })));
  }

  /** ReadShareGroupState for one partition (`readStateAndMaybeUpdateLeaderEpoch`). */
  readState(groupId: string, p: SharePartitionRef & { leaderEpoch: number }): Promise<PersisterReadResult> {
    let answer: PersisterReadResult | null = null;
    return this.operate(groupId, p, () => {
      const key = shareCoordinatorKey(groupId, p.topicId, p.partition);
      if (p.partition < 0) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: NEGATIVE_PARTITION };
      const state = this.states.get(key);
      if (state === undefined) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: READ_UNINITIALIZED };
      const recorded = this.leaderEpochs.get(key);
      if (p.leaderEpoch !== -1 && recorded !== undefined && recorded > p.leaderEpoch) {
        return { errorCode: ErrorCode.FENCED_LEADER_EPOCH, errorMessage: FENCED_LEADER_EPOCH_MESSAGE };
      }
      const metadata = this.metadataError(p);
      if (metadata) return metadata;
      answer = { ...p, errorCode: ErrorCode.NONE, errorMessage: null, stateEpoch: state.stateEpoch, startOffset: state.startOffset, stateBatches: state.stateBatches.map((b) => ({ ...b })) };
      if (p.leaderEpoch === -1 || recorded === p.leaderEpoch) return null;
      return this.stateRecord(groupId, { ...p, stateEpoch: state.stateEpoch, startOffset: state.startOffset, deliveryCompleteCount: state.deliveryCompleteCount, stateBatches: [] }, true);
    }).then((r) => (r.errorCode === ErrorCode.NONE && answer !== null ? answer : { ...p, ...r, stateEpoch: 0, startOffset: -1n, stateBatches: [] }));
  }

  /** WriteShareGroupState for one partition. */
  writeState(groupId: string, p: PersisterWriteEntry): Promise<PersisterPartitionResult> {
    return this.operate(groupId, p, () => {
      const key = shareCoordinatorKey(groupId, p.topicId, p.partition);
      if (p.partition < 0) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: NEGATIVE_PARTITION };
      if (!this.states.has(key)) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: WRITE_UNINITIALIZED };
      const leader = this.leaderEpochs.get(key);
      if (p.leaderEpoch !== -1 && leader !== undefined && leader > p.leaderEpoch) {
        return { errorCode: ErrorCode.FENCED_LEADER_EPOCH, errorMessage: FENCED_LEADER_EPOCH_MESSAGE };
      }
      const stateEpoch = this.stateEpochs.get(key);
      if (p.stateEpoch !== -1 && stateEpoch !== undefined && stateEpoch > p.stateEpoch) {
        return { errorCode: ErrorCode.FENCED_STATE_EPOCH, errorMessage: FENCED_STATE_EPOCH_MESSAGE };
      }
      const metadata = this.metadataError(p);
      if (metadata) return metadata;
      return this.stateRecord(groupId, p, false);
    }).then((r) => ({ topicId: p.topicId, partition: p.partition, ...r }));
  }

  readStateSummary(groupId: string, partitions: ReadonlyArray<SharePartitionRef & { leaderEpoch: number }>): Promise<PersisterSummary[]> {
    const summaries: Array<PersisterSummary | null> = new Array(partitions.length).fill(null);
    return this.operateAll(groupId, partitions, (p, i) => {
      if (p.partition < 0) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: NEGATIVE_PARTITION };
      const metadata = this.metadataError(p);
      if (metadata) return metadata;
      const state = this.states.get(shareCoordinatorKey(groupId, p.topicId, p.partition));
      summaries[i] = state === undefined
        ? { topicId: p.topicId, partition: p.partition, errorCode: ErrorCode.NONE, errorMessage: null, startOffset: -1n, deliveryCompleteCount: -1, leaderEpoch: 0, stateEpoch: 0 }
        : { topicId: p.topicId, partition: p.partition, errorCode: ErrorCode.NONE, errorMessage: null, startOffset: state.startOffset, deliveryCompleteCount: state.deliveryCompleteCount, leaderEpoch: state.leaderEpoch, stateEpoch: state.stateEpoch };
      return null;
    }).then((results) =>
      results.map((r, i) => summaries[i] ?? { topicId: partitions[i]!.topicId, partition: partitions[i]!.partition, ...r, startOffset: -1n, deliveryCompleteCount: 0, leaderEpoch: 0, stateEpoch: 0 }),
    );
  }

  deleteState(groupId: string, partitions: readonly SharePartitionRef[]): Promise<PersisterPartitionResult[]> {
    return this.operateAll(groupId, partitions, (p) => {
      if (p.partition < 0) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: NEGATIVE_PARTITION };
      const metadata = this.metadataError(p);
      if (metadata) return metadata;
      if (!this.states.has(shareCoordinatorKey(groupId, p.topicId, p.partition))) return null;
      return { kind: 'share-snapshot', groupId, topicId: p.topicId, partition: p.partition, value: null } satisfies ShareStateRecord;
    }).then((results) =>
      results.map((r, i) => {
        const p = partitions[i]!;
        if (r.errorCode === ErrorCode.NONE) for (const l of this.deleteListeners) l(groupId, p.topicId, p.partition);
        return { topicId: p.topicId, partition: p.partition, ...r };
      }),
    );
  }

  /** Tombstones every share state of a deleted topic (`maybeCleanupShareState`). */
  async deleteTopic(topicId: string): Promise<void> {
    const byGroup = new Map<string, SharePartitionRef[]>();
    for (const key of this.states.keys()) {
      const parts = key.split(':');
      const partition = Number(parts.pop());
      if (parts.pop() !== topicId) continue;
      const groupId = parts.join(':');
      let list = byGroup.get(groupId);
      if (!list) byGroup.set(groupId, (list = []));
      list.push({ topicId, partition });
    }
    await Promise.all(
      [...byGroup].map(([groupId, refs]) => this.operateAll(groupId, refs, (p) => ({ kind: 'share-snapshot', groupId, topicId, partition: p.partition, value: null }) satisfies ShareStateRecord)),
    );
  }

  // ---- records --------------------------------------------------------------------------

  private snapshotRecord(groupId: string, p: SharePartitionRef, value: ShareGroupOffset): ShareStateRecord {
    return { kind: 'share-snapshot', groupId, topicId: p.topicId, partition: p.partition, value };
  }

  /** `generateShareStateRecord`: an update, or a snapshot once enough updates followed the last one. */
  private stateRecord(groupId: string, p: PersisterWriteEntry, updateLeaderEpoch: boolean): ShareStateRecord {
    const key = shareCoordinatorKey(groupId, p.topicId, p.partition);
    const current = this.states.get(key)!;
    const leaderEpoch = updateLeaderEpoch && p.leaderEpoch !== -1 ? p.leaderEpoch : current.leaderEpoch;
    if ((this.updateCounts.get(key) ?? 0) >= this.options.updatesPerSnapshot) {
      const startOffset = p.startOffset === -1n ? current.startOffset : p.startOffset;
      const now = BigInt(this.options.time.now());
      return this.snapshotRecord(groupId, p, {
        snapshotEpoch: current.snapshotEpoch + 1,
        stateEpoch: current.stateEpoch,
        leaderEpoch,
        startOffset,
        deliveryCompleteCount: p.deliveryCompleteCount,
        stateBatches: combineStateBatches(current.stateBatches, p.stateBatches, startOffset),
        createTimestamp: now,
        writeTimestamp: now,
      });
    }
    return {
      kind: 'share-update',
      groupId,
      topicId: p.topicId,
      partition: p.partition,
      value: { snapshotEpoch: current.snapshotEpoch, leaderEpoch, startOffset: p.startOffset, deliveryCompleteCount: p.deliveryCompleteCount, stateBatches: combineStateBatches([], p.stateBatches, p.startOffset) },
    };
  }

  private metadataError(p: SharePartitionRef): Failure | null {
    const count = this.options.partitionCount(p.topicId);
    if (count === undefined || p.partition >= count) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: UNKNOWN_TOPIC_MESSAGE };
    return null;
  }

  /**
   * `decide` for many share partitions of one group (the persister's Initialize, Delete and
   * ReadSummary calls name thousands), each an operation (`operate`): those of one
   * `__share_group_state` partition are decided and written together. Answers in the entries' order.
   */
  private operateAll<E extends SharePartitionRef>(groupId: string, entries: readonly E[], decide: (entry: E, index: number) => Failure | ShareStateRecord | null): Promise<OperationResult[]> {
    return Promise.all(entries.map((p, i) => this.operate(groupId, p, () => decide(p, i))));
  }

  /** Appends `records` (one batch); null once durable, else the runtime's mapped error. */
  private async appendOrFailure(groupId: string, records: ShareStateRecord[]): Promise<Failure | null> {
    try {
      await this.options.log.append(records);
      return null;
    } catch (err) {
      const e = toCoordinatorWriteError(err);
      this.options.logger.warn({ err, groupId }, 'share-state write failed');
      return { errorCode: e.errorCode, errorMessage: e.message };
    }
  }

  /** Runs `work` after the operations before it on `__share_group_state` partition `partition`. */
  private chain<T>(partition: number, work: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(partition) ?? Promise.resolve();
    const run = previous.then(work);
    const tail = run.catch(() => undefined);
    this.chains.set(partition, tail);
    void tail.then(() => {
      if (this.chains.get(partition) === tail) this.chains.delete(partition);
    });
    return run;
  }

  /**
   * Runs `decide` after the operations before it on the same `__share_group_state` partition: it
   * returns a failure (answered as is), null (nothing to write) or a record, which is appended;
   * once durable the state replays it and the operation answers NONE.
   *
   * The operations queued on a partition while the one before runs are decided together,
   * DECIDE_PER_SLICE per turn of the event loop, and their records appended RECORDS_PER_APPEND per
   * batch, as Kafka's `CoordinatorRuntime` gathers the records of the write operations queued on a
   * partition into one batch: one operation and one batch per share partition made a
   * ShareAcknowledge, or a closed session's release, over 9,000 partitions one long run of
   * microtasks (0.05-1 s; initializing a 9,000-partition topic ~180 ms; adversarial trials, session
   * 22-23). A batch whose append fails answers its operations with the runtime's mapped error and
   * changes no state; a share partition decided twice in one batch is decided again once its first
   * record is replayed.
   */
  private operate(groupId: string, p: SharePartitionRef, decide: () => Failure | ShareStateRecord | null): Promise<OperationResult> {
    this.options.onUse?.();
    const partition = this.options.log.layout.partitionOf({ kind: 'share-update', groupId, topicId: p.topicId, partition: p.partition, value: null });
    return new Promise<OperationResult>((resolve, reject) => {
      let queue = this.queued.get(partition);
      if (queue === undefined) {
        this.queued.set(partition, (queue = []));
        void this.chain(partition, () => this.drain(partition)).catch(() => undefined);
      }
      queue.push({ groupId, key: shareCoordinatorKey(groupId, p.topicId, p.partition), decide, resolve, reject });
    });
  }

  /** Decides and writes the operations queued on `partition` (see `operate`). */
  private async drain(partition: number): Promise<void> {
    const ops = this.queued.get(partition) ?? [];
    // Operations queued from now on wait for the next drain, after this one.
    this.queued.delete(partition);
    const slicer = new Slicer(DECIDE_PER_SLICE);
    let records: ShareStateRecord[] = [];
    let owners: QueuedOperation[] = [];
    let keys = new Set<string>();
    const write = async (): Promise<void> => {
      const [batch, of] = [records, owners];
      [records, owners, keys] = [[], [], new Set()];
      const failure = await this.appendOrFailure(of[0]!.groupId, batch);
      if (failure === null) for (const record of batch) this.replay(record);
      for (const op of of) op.resolve(failure ?? NONE);
    };
    for (const [n, op] of ops.entries()) {
      if (n > 0) await slicer.next();
      if (keys.has(op.key) || records.length >= RECORDS_PER_APPEND) await write();
      let decided: Failure | ShareStateRecord | null;
      try {
        decided = op.decide();
      } catch (err) {
        op.reject(err);
        continue;
      }
      if (decided === null) op.resolve(NONE);
      else if ('errorCode' in decided) op.resolve(decided);
      else {
        records.push(decided);
        owners.push(op);
        keys.add(op.key);
      }
    }
    if (records.length > 0) await write();
  }

}
