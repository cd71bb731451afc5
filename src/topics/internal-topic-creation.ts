/**
 * The group coordinator's requests to create internal topics (Kafka 4.3's
 * `AutoTopicCreationManager.createStreamsInternalTopics`): a streams group's missing repartition
 * and changelog topics are created in the background while its heartbeats answer
 * MISSING_INTERNAL_TOPICS. A topic already being created is not asked for again; a failed creation
 * is remembered for a while (`ExpiringErrorCache`: twice the group's heartbeat interval), during
 * which it is not retried and the heartbeats tell why.
 */
import type { Time } from '../util/time.js';

/** A topic to create (`CreatableTopic`): -1 partitions or replication factor take the broker's default. */
export interface InternalTopicRequest {
  readonly name: string;
  readonly numPartitions: number;
  readonly replicationFactor: number;
  readonly configs: ReadonlyArray<{ readonly name: string; readonly value: string }>;
}

/** What creating one topic answered: its error code (0: created) and message (null: the code's default). */
export type CreateTopic = (topic: InternalTopicRequest) => Promise<{ errorCode: number; errorMessage: string | null }>;

/** The most errors remembered (`ExpiringErrorCache`'s capacity in Kafka 4.3). */
const MAX_CACHED_ERRORS = 1000;

export class InternalTopicCreation {
  private readonly inFlight = new Set<string>();
  /** topic -> error message and when it is forgotten (server clock, ms). */
  private readonly errors = new Map<string, { message: string; expiresAt: number }>();

  constructor(
    private readonly time: Time,
    private readonly defaultMessage: (errorCode: number) => string,
  ) {}

  /** Starts creating the topics not being created and without a remembered error; never throws. */
  create(topics: Iterable<InternalTopicRequest>, errorTtlMs: number, createTopic: CreateTopic): void {
    const now = this.time.now();
    for (const t of topics) {
      if (this.hasError(t.name, now) || this.inFlight.has(t.name)) continue;
      this.inFlight.add(t.name);
      void createTopic(t)
        .then(
          (r) => {
            if (r.errorCode !== 0) this.remember(t.name, r.errorMessage || this.defaultMessage(r.errorCode), errorTtlMs);
          },
          (err: unknown) => this.remember(t.name, (err as Error).message, errorTtlMs),
        )
        .finally(() => this.inFlight.delete(t.name));
    }
  }

  /** The remembered errors of these topics, in the order given (`getStreamsInternalTopicCreationErrors`). */
  errorsOf(topics: Iterable<string>): Array<[string, string]> {
    const now = this.time.now();
    const out: Array<[string, string]> = [];
    for (const name of topics) {
      const e = this.errors.get(name);
      if (e && e.expiresAt > now) out.push([name, e.message]);
    }
    return out;
  }

  private hasError(name: string, now: number): boolean {
    const e = this.errors.get(name);
    if (e && e.expiresAt <= now) this.errors.delete(name);
    return e !== undefined && e.expiresAt > now;
  }

  private remember(name: string, message: string, ttlMs: number): void {
    this.errors.delete(name);
    if (this.errors.size >= MAX_CACHED_ERRORS) {
      let earliest: string | undefined;
      for (const [k, v] of this.errors) if (earliest === undefined || v.expiresAt < this.errors.get(earliest)!.expiresAt) earliest = k;
      if (earliest !== undefined) this.errors.delete(earliest);
    }
    this.errors.set(name, { message, expiresAt: this.time.now() + ttlMs });
  }
}
