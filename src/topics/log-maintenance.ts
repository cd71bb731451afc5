/**
 * Background work on user topics' logs by their configs, as Kafka's `LogManager` schedules it on the
 * broker's clock (so `--clock manual` drives it):
 *
 * - Retention, every `log.retention.check.interval.ms` (`LogManager.cleanupLogs`): partitions of
 *   topics whose `cleanup.policy` includes `delete` lose the segments `retention.ms` and
 *   `retention.bytes` let go (`PartitionLog.deleteRetentionBreachedSegments`); the log start offset
 *   follows. Kafka waits `log.initial.task.delay.ms` (30 s) before the first pass; here the first
 *   comes after one interval.
 * - Compaction, every `log.cleaner.backoff.ms` when `log.cleaner.enable` (the cleaner threads'
 *   `tryCleanFilthiestLog`): partitions of topics whose `cleanup.policy` includes `compact` are
 *   cleaned by the log cleaner of src/storage (the one `__consumer_offsets` uses) once their dirty
 *   ratio reaches `min.cleanable.dirty.ratio` or a tombstone's `delete.retention.ms` has passed,
 *   leaving segments within `min.compaction.lag.ms` alone.
 * - Producer expiration, every `producer.id.expiration.check.interval.ms` (the partitions'
 *   `PeriodicProducerExpirationCheck`, `UnifiedLog.removeExpiredProducers`): every partition forgets
 *   the producers idle for `producer.id.expiration.ms` (read at each pass: a dynamic config in Kafka)
 *   with no transaction open there (`ProducerStateTable.removeExpiredProducers`). Kafka also drops
 *   them when it loads a producer snapshot at start; a producer rebuilt from the log here is
 *   forgotten at the first check after the start.
 *
 * `retentionPass()`, `cleanerPass()` and `producerExpirationPass()` run one at once (tests, the admin API).
 */
import type { Logger } from 'pino';
import type { Time, Timer } from '../util/time.js';
import { LogCleaner, CleanerAbortedError, CompressedBatchError } from '../storage/log-cleaner.js';
import type { LogConfig } from '../configs/log-config.js';
import type { TopicStore } from './topic-store.js';
import { nextTurn } from '../util/slices.js';

/**
 * Partitions a pass looks at per turn of the event loop: a server holding 200,000 partitions would
 * otherwise hold every connection for the whole pass, every `log.cleaner.backoff.ms` (issue #16).
 */
export const MAINTENANCE_SLICE_PARTITIONS = 4096;

export interface LogMaintenanceOptions {
  topics: TopicStore;
  time: Time;
  log: Logger;
  /** `log.retention.check.interval.ms`. */
  retentionCheckIntervalMs: number;
  /** `log.cleaner.enable` and `log.cleaner.backoff.ms`. */
  cleanerEnabled: boolean;
  cleanerBackoffMs: number;
  /** `producer.id.expiration.check.interval.ms`. */
  producerIdExpirationCheckIntervalMs: number;
  /** `producer.id.expiration.ms` as the broker has it now (a dynamic config). */
  producerIdExpirationMs: () => number;
}

export interface RetentionPassResult {
  /** Partitions that lost segments, as `<topic>-<partition>`. */
  partitions: string[];
  segmentsDeleted: number;
}

export class LogMaintenance {
  /** The fixed-rate passes' next timers, by pass (see `atFixedRate`). */
  private readonly passTimers = new Map<string, Timer>();
  private cleanerTimer: Timer | null = null;
  /** One cleaner per set of cleaning settings (its per-log state is kept across passes). */
  private readonly cleaners = new Map<string, LogCleaner>();
  private cleaning: Promise<void> | null = null;
  private cleanerBusy = false;
  private stopped = false;

  constructor(private readonly options: LogMaintenanceOptions) {}

  start(): void {
    this.atFixedRate('retention pass', this.options.retentionCheckIntervalMs, () => this.retentionPass());
    this.atFixedRate('producer expiration pass', this.options.producerIdExpirationCheckIntervalMs, () => this.producerExpirationPass());
    if (this.options.cleanerEnabled) this.scheduleCleaner();
  }

  stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.passTimers.values()) timer.cancel();
    this.cleanerTimer?.cancel();
    for (const c of this.cleaners.values()) c.shutdown();
    return (this.cleaning ?? Promise.resolve()).catch(() => {});
  }

  /** One retention pass over every user topic with `delete` in its `cleanup.policy`. */
  async retentionPass(): Promise<RetentionPassResult> {
    const { topics, time } = this.options;
    const result: RetentionPassResult = { partitions: [], segmentsDeleted: 0 };
    const now = time.now();
    const logConfig = topics.logConfigs();
    let looked = 0;
    for (const topic of topics.list()) {
      if (topic.internal) continue;
      for (const p of topic.partitions) {
        if (++looked % MAINTENANCE_SLICE_PARTITIONS === 0) await nextTurn();
        const config = logConfig(topic, p.index);
        if (!config?.deletePolicy || p.log.isClosed) continue;
        const deleted = p.log.deleteRetentionBreachedSegments(config.retentionMs, config.retentionBytes, now);
        if (deleted === 0) continue;
        p.onLogStartOffsetMoved();
        result.partitions.push(p.name);
        result.segmentsDeleted += deleted;
        this.options.log.info({ partition: p.name, segments: deleted, logStartOffset: String(p.logStartOffset) }, 'deleted log segments by retention');
      }
    }
    if (result.segmentsDeleted > 0) await topics.checkpointLogStartOffsets();
    return result;
  }

  /**
   * One producer expiration pass over every partition (internal topics too, as Kafka runs it on
   * every log): returns how many producers were forgotten.
   */
  async producerExpirationPass(): Promise<number> {
    const { topics, time } = this.options;
    const now = BigInt(time.now());
    const expirationMs = BigInt(this.options.producerIdExpirationMs());
    let expired = 0;
    let looked = 0;
    for (const topic of topics.list()) {
      for (const p of topic.partitions) {
        if (++looked % MAINTENANCE_SLICE_PARTITIONS === 0) await nextTurn();
        const removed = p.producers.removeExpiredProducers(now, expirationMs);
        if (removed === 0) continue;
        expired += removed;
        this.options.log.debug({ partition: p.name, producers: removed }, 'expired idle producers (producer.id.expiration.ms)');
      }
    }
    return expired;
  }

  /** One cleaner pass: cleans every compacted partition that needs it (`force`: whatever its dirty ratio). */
  cleanerPass(force = false): Promise<void> {
    const run = (this.cleaning ?? Promise.resolve()).catch(() => {}).then(() => this.clean(force));
    this.cleaning = run;
    return run;
  }

  private async clean(force: boolean): Promise<void> {
    const { topics } = this.options;
    const logConfig = topics.logConfigs();
    let looked = 0;
    for (const topic of topics.list()) {
      if (topic.internal) continue;
      for (const p of topic.partitions) {
        if (++looked % MAINTENANCE_SLICE_PARTITIONS === 0) await nextTurn();
        const config = logConfig(topic, p.index);
        if (!config?.compactPolicy || p.log.isClosed || this.stopped) continue;
        const cleaner = this.cleanerFor(config);
        if (!force && !cleaner.needsCleaning(p.log)) continue;
        try {
          // Each producer's last batch stays, as its partition's producer state has it now.
          await cleaner.clean(p.log, () => p.producers.lastRecordsOfActiveProducers());
        } catch (err) {
          // The cleaner has said why (CompressedBatchError: a warning of its own).
          if (!(err instanceof CleanerAbortedError) && !(err instanceof CompressedBatchError)) this.options.log.warn({ err, partition: p.name }, 'could not clean a compacted partition');
        }
      }
    }
  }

  private cleanerFor(config: LogConfig): LogCleaner {
    const key = `${config.deleteRetentionMs}:${config.minCleanableDirtyRatio}:${config.segmentBytes}:${config.minCompactionLagMs}`;
    let cleaner = this.cleaners.get(key);
    if (!cleaner) {
      cleaner = new LogCleaner({
        time: this.options.time,
        log: this.options.log,
        deleteRetentionMs: Number(config.deleteRetentionMs),
        minCleanableRatio: config.minCleanableDirtyRatio,
        maxSegmentBytes: config.segmentBytes,
        minCompactionLagMs: Number(config.minCompactionLagMs),
      });
      this.cleaners.set(key, cleaner);
    }
    return cleaner;
  }

  /**
   * Runs `pass` every `intervalMs` at a fixed rate, as Kafka's scheduler runs these tasks: the next
   * pass is scheduled before this one runs. A pass's work happens when its timer fires (only its
   * file writes are awaited), `MAINTENANCE_SLICE_PARTITIONS` partitions per turn of the event loop
   * on a server with more. Coalescing: Kafka's scheduler runs on a monotonic clock that never
   * jumps, so a manual clock jumping years ahead runs one pass per stretch (before the next session
   * or rebalance timeout, or at the end of the advance), not one per interval (issue #16). A pass
   * that fails is logged as `<name> failed`.
   */
  private atFixedRate(name: string, intervalMs: number, pass: () => Promise<unknown>): void {
    if (this.stopped) return;
    this.passTimers.set(name, this.options.time.schedule(intervalMs, () => {
      this.atFixedRate(name, intervalMs, pass);
      void pass().catch((err: unknown) => this.options.log.error({ err }, `${name} failed`));
    }, { coalesce: true }));
  }

  /**
   * Every `log.cleaner.backoff.ms`; a pass still running when the next is due makes that one a no-op.
   * Coalescing (Kafka's CleanerThread pauses the backoff after a pass: a fixed delay): a manual
   * clock jumping years ahead runs it once per stretch, not once per 15 s (issue #16).
   */
  private scheduleCleaner(): void {
    if (this.stopped) return;
    this.cleanerTimer = this.options.time.schedule(this.options.cleanerBackoffMs, () => {
      this.scheduleCleaner();
      if (this.cleanerBusy) return;
      this.cleanerBusy = true;
      void this.cleanerPass()
        .catch((err: unknown) => this.options.log.error({ err }, 'cleaner pass failed'))
        .finally(() => (this.cleanerBusy = false));
    }, { coalesce: true });
  }
}
