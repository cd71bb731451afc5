/**
 * The `__transaction_state` topic (Kafka 4.3's `TransactionStateManager` log side and
 * `TransactionLog`): `transaction.state.log.num.partitions` partition logs under
 * `<data-dir>/__transaction_state-<p>/`, a transactional id's records going to
 * `Utils.abs(transactionalId.hashCode()) % partitions`. Each write is one batch holding one
 * record: key TransactionLogKey (type 0), value TransactionLogValue v1, or null (a tombstone, when
 * an id expires). Compacted by the cleaner as `__consumer_offsets` is.
 *
 * As Kafka creates the topic on the first FindCoordinator for a transactional id, the partitions
 * are created by `ensureCreated` (a data directory that already has them opens them at start).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BrokerConfig } from '../config.js';
import type { Time, Timer } from '../util/time.js';
import { PartitionLog } from '../storage/partition-log.js';
import { LogCleaner } from '../storage/log-cleaner.js';
import { encodeRecordBatch, decodeRecords } from '../records/record-batch.js';
import { isControlBatch } from '../records/control-batch.js';
import { decodeRegistryRecord, encodeRecordKey, encodeRecordValue } from '../records/coordinator-record.js';
import type { TransactionLogValue } from '../records/schemas/TransactionLogValue.js';
import { offsetsPartitionFor } from '../util/java-hash.js';
import { TRANSACTION_STATE_TOPIC_NAME } from '../topics/topic-name.js';
import { undecodableRecord } from '../records/undecodable-record.js';
import { logFlushOptions } from '../storage/log-flush-options.js';

/** TransactionLogValue version Kafka 4.3 writes (flexible, with the tagged fields of KIP-890). */
const VALUE_VERSION = 1;

export interface TransactionLogOptions {
  dataDir: string | null;
  config: BrokerConfig;
  log: Logger;
  time: Time;
}

export class TransactionLog {
  readonly partitionCount: number;
  private partitions: PartitionLog[] | null = null;
  private readonly cleaner: LogCleaner;
  private readonly cleanerEnabled: boolean;
  private readonly cleanerBackoffMs: number;
  private cleanerTimer: Timer | null = null;
  private closed = false;
  private readonly createdListeners: Array<(logs: readonly PartitionLog[]) => void> = [];
  /** Each partition's current leader epoch, stamped on every batch (as `GroupLog`'s); 0 until bound. */
  private leaderEpochOf: (partition: number) => number = () => 0;

  constructor(private readonly options: TransactionLogOptions) {
    const { config } = options;
    this.partitionCount = config.int('transaction.state.log.num.partitions');
    this.cleaner = new LogCleaner({
      time: options.time,
      log: options.log,
      deleteRetentionMs: Number(config.long('log.cleaner.delete.retention.ms')),
      minCleanableRatio: config.double('log.cleaner.min.cleanable.ratio'),
      maxSegmentBytes: config.int('transaction.state.log.segment.bytes'),
    });
    this.cleanerEnabled = config.bool('log.cleaner.enable');
    this.cleanerBackoffMs = Number(config.long('log.cleaner.backoff.ms'));
    if (options.dataDir !== null && existsSync(join(options.dataDir, `${TRANSACTION_STATE_TOPIC_NAME}-0`))) this.ensureCreated();
  }

  /** Whether the topic exists (created now or found in the data directory). */
  get created(): boolean {
    return this.partitions !== null;
  }

  /** Runs `listener` with the partition logs once the topic exists (at once if it does). */
  onCreated(listener: (logs: readonly PartitionLog[]) => void): void {
    if (this.partitions) listener(this.partitions);
    else this.createdListeners.push(listener);
  }

  /** Creates (or opens) the partitions; a no-op once they exist. */
  ensureCreated(): readonly PartitionLog[] {
    if (this.partitions) return this.partitions;
    const { config, dataDir } = this.options;
    const partitions: PartitionLog[] = [];
    try {
      for (let p = 0; p < this.partitionCount; p++) {
        partitions.push(
          PartitionLog.open({
            dir: dataDir === null ? null : join(dataDir, `${TRANSACTION_STATE_TOPIC_NAME}-${p}`),
            segmentBytes: config.int('transaction.state.log.segment.bytes'),
            rollMs: config.logRollMs(),
            ...logFlushOptions(config),
            prepareSpace: true, // every commit waits for a sync under always: zeros ahead spare the journal (prepared-space.ts)
            log: this.options.log,
            time: this.options.time,
          }),
        );
      }
    } catch (err) {
      // A partition that could not be created (a full disk): the ones opened are closed, and the
      // next lookup tries again (their directories are opened as they are).
      for (const opened of partitions) void opened.close().catch(() => undefined);
      throw err;
    }
    // The topic is registered (its partition.metadata written) before it counts as created: when
    // that fails (a full disk) the next lookup tries again, instead of a log that serves but that
    // Metadata never lists (adversarial trial 17).
    try {
      for (const l of this.createdListeners) l(partitions);
    } catch (err) {
      for (const opened of partitions) void opened.close().catch(() => undefined);
      throw err;
    }
    this.createdListeners.length = 0;
    this.partitions = partitions;
    this.scheduleCleaner();
    return partitions;
  }

  /** Where each partition's current leader epoch comes from (the broker binds the internal topic's). */
  stampLeaderEpochsFrom(leaderEpochOf: (partition: number) => number): void {
    this.leaderEpochOf = leaderEpochOf;
  }

  /** `TransactionStateManager.partitionFor`. */
  partitionFor(transactionalId: string): number {
    return offsetsPartitionFor(transactionalId, this.partitionCount);
  }

  /** Appends one id's record (null value: tombstone); resolves once durable. */
  append(transactionalId: string, value: TransactionLogValue | null): Promise<void> {
    const partitions = this.ensureCreated();
    const record = { kind: 'transaction-log', transactionalId, value };
    const partition = this.partitionFor(transactionalId);
    const batch = encodeRecordBatch({
      baseOffset: 0n,
      // Kafka's leader log stamps its epoch on append (`UnifiedLog.appendAsLeader`): 0 on one broker, not -1.
      partitionLeaderEpoch: this.leaderEpochOf(partition),
      timestamp: BigInt(this.options.time.now()),
      records: [{ key: encodeRecordKey(record), value: encodeRecordValue(record, VALUE_VERSION) }],
    });
    return partitions[partition]!.append([batch]).durable;
  }

  /**
   * Replays every stored record in log order, partition by partition (`loadTransactionMetadata`).
   * Control batches are not the coordinator's records and are skipped: a WriteTxnMarkers naming a
   * `__transaction_state` partition appends one (Kafka 4.3.1 accepts it too, and starts again
   * after it; adversarial trial 26 found it stopping our next start). A record whose bytes cannot
   * be decoded throws an UndecodableCoordinatorRecordError naming its partition, offset, segment
   * file and type (start-up stops with it).
   */
  replay(apply: (transactionalId: string, value: TransactionLogValue | null) => void): void {
    (this.partitions ?? []).forEach((partition, index) => {
      for (const batch of partition.batches()) {
        if (isControlBatch(batch)) continue;
        for (const r of decodeRecords(batch)) {
          if (r.key === null) continue;
          let decoded: ReturnType<typeof decodeRegistryRecord>;
          try {
            decoded = decodeRegistryRecord(TRANSACTION_STATE_TOPIC_NAME, r.key, r.value);
          } catch (err) {
            throw undecodableRecord(TRANSACTION_STATE_TOPIC_NAME, index, r.offset, partition.segmentFileOf(r.offset), r.key, err);
          }
          if (decoded.entry === undefined) continue;
          const record = decoded.record as unknown as { transactionalId: string; value: TransactionLogValue | null };
          apply(record.transactionalId, record.value);
        }
      }
    });
  }

  private scheduleCleaner(): void {
    if (!this.cleanerEnabled || this.closed || this.partitions === null) return;
    this.cleanerTimer = this.options.time.schedule(this.cleanerBackoffMs, () => {
      this.cleanerTimer = null;
      void this.cleanDue().finally(() => this.scheduleCleaner());
    });
  }

  private async cleanDue(): Promise<void> {
    for (const p of this.partitions ?? []) {
      if (this.closed) return;
      if (!this.cleaner.needsCleaning(p)) continue;
      await this.cleaner.clean(p).catch(() => undefined /* logged by the cleaner */);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cleanerTimer?.cancel();
    this.cleaner.shutdown();
    await Promise.all((this.partitions ?? []).map((p) => p.close()));
  }
}
