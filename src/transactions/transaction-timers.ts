/**
 * The transaction coordinator's two periodic tasks, on the injected clock (Kafka's
 * `TransactionCoordinator.startup` schedules): aborting timed-out transactions every
 * `transaction.abort.timed.out.transaction.cleanup.interval.ms` and removing expired transactional
 * ids every `transaction.remove.expired.transaction.cleanup.interval.ms`.
 */
import type { Logger } from 'pino';
import type { Time, Timer } from '../util/time.js';
import type { TransactionCoordinator } from './transaction-coordinator.js';

export interface TransactionTimersOptions {
  coordinator: TransactionCoordinator;
  time: Time;
  log: Logger;
  abortIntervalMs: number;
  expireIntervalMs: number;
}

export class TransactionTimers {
  private abortTimer: Timer | null = null;
  private expireTimer: Timer | null = null;
  private stopped = false;

  constructor(private readonly o: TransactionTimersOptions) {}

  start(): void {
    this.scheduleAbort();
    this.scheduleExpire();
  }

  stop(): void {
    this.stopped = true;
    this.abortTimer?.cancel();
    this.expireTimer?.cancel();
  }

  private scheduleAbort(): void {
    if (this.stopped) return;
    this.abortTimer = this.o.time.schedule(this.o.abortIntervalMs, () => {
      void this.o.coordinator.abortTimedOutTransactions().catch((err: unknown) => this.o.log.error({ err }, 'aborting timed-out transactions failed'));
      this.scheduleAbort();
      // A periodic check: a manual clock jumping far ahead runs it once per stretch (issue #16).
    }, { coalesce: true });
  }

  private scheduleExpire(): void {
    if (this.stopped) return;
    this.expireTimer = this.o.time.schedule(this.o.expireIntervalMs, () => {
      void this.o.coordinator
        .removeExpiredTransactionalIds()
        .catch((err: unknown) => this.o.log.error({ err }, 'removing expired transactional ids failed'))
        .finally(() => this.scheduleExpire());
    }, { coalesce: true });
  }
}
