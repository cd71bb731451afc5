/**
 * The console's lag chart of a group (src/admin/group-watch.ts keeps one per group it follows):
 * per partition, the log-end offset minus the committed offset, sampled as the watch looks. Lags
 * are computed again only when the group's offsets changed or a partition of their topics moved
 * (`TopicMoves`), so an idle group of 36,000 partitions costs a sum per topic per look.
 */
import type { Broker } from '../broker.js';
import type { CommittedOffset } from '../coordinator/offsets/offset-store.js';
import { LogEndOffsets } from './groups.js';

/** A group's committed offsets as the offset store lists them. */
export type CommittedEntry = { topic: string; partition: number; offset: CommittedOffset };

/**
 * Series per group: one per partition for the first ones seen, then one more for the sum of all
 * others (a group of 36,000 partitions would otherwise keep 36,000 numbers per sample).
 */
export const MAX_LAG_SERIES = 100;
export const OTHER_PARTITIONS = 'other partitions';
const MAX_LAG_SAMPLES = 300;
const MIN_LAG_SAMPLES = 10;
/** A sample is kept when a lag changed, or at least this often while none does. */
const LAG_KEEPALIVE_MS = 10_000;
/**
 * A sample is kept at most this often: a change sooner replaces the last sample's lags (a look at
 * every group follows each admin change: a test adding and removing fault rules in a loop filled
 * 300 samples in 10 s; adversarial trial, session 21).
 */
const LAG_MIN_INTERVAL_MS = 1000;
/**
 * Lags kept for all groups together at most: each group keeps as many samples as its share of
 * this allows (MIN_LAG_SAMPLES to MAX_LAG_SAMPLES), so 2,000 groups of 100 partitions keep ~16 MB
 * of lags, not the 1.2 GB of RSS they reached.
 */
export const LAG_NUMBERS_BUDGET = 2_000_000;

/**
 * Per topic, the sum of its partitions' `offsetMoves` (how often a log start or end offset moved),
 * each topic summed once per look: the counts only grow, so a changed sum is a partition whose
 * offsets moved (the overview's and a group's lag's cue to look closer), and an unchanged one
 * saves reading thousands of partitions' offsets. -1: no such topic.
 */
export class TopicMoves {
  private readonly sums = new Map<string, number>();

  constructor(private readonly broker: Broker) {}

  of(topic: string): number {
    let sum = this.sums.get(topic);
    if (sum === undefined) {
      const partitions = this.broker.topics.get(topic)?.partitions;
      sum = partitions ? 0 : -1;
      for (const p of partitions ?? []) sum += p.log.offsetMoves;
      this.sums.set(topic, sum);
    }
    return sum;
  }
}

/** The series of every group together: what each group's share of LAG_NUMBERS_BUDGET is taken from. */
export class LagBudget {
  private series = 0;

  /** Samples a group keeps now. */
  get samplesPerGroup(): number {
    return Math.max(MIN_LAG_SAMPLES, Math.min(MAX_LAG_SAMPLES, Math.floor(LAG_NUMBERS_BUDGET / Math.max(1, this.series))));
  }

  add(series: number): void {
    this.series += series;
  }
}

export interface LagSample {
  /** Wall-clock ms. */
  t: number;
  lag: Array<number | null>;
}

/** One group's lag series and samples. */
export class GroupLag {
  /** The series' labels: `topic-partition`, then `OTHER_PARTITIONS` once there are more than MAX_LAG_SERIES. */
  readonly keys: string[] = [];
  readonly samples: LagSample[] = [];
  /** Per topic, by partition: the partition's series in `keys`. */
  private readonly index = new Map<string, number[]>();
  /** The topics of the group's offsets and their `TopicMoves` when the lags were last computed. */
  private topics: string[] = [];
  private moved: number[] = [];

  constructor(private readonly budget: LagBudget) {}

  /**
   * A sample at `t` when a lag changed, or LAG_KEEPALIVE_MS after the last: `offsets` the group's
   * offsets when they changed since the last call (null: unchanged; `read` gives them if a topic
   * moved). Returns whether the lags changed.
   */
  sample(broker: Broker, t: number, offsets: readonly CommittedEntry[] | null, read: () => readonly CommittedEntry[], moves: TopicMoves): boolean {
    const last = this.samples[this.samples.length - 1];
    if (offsets === null && this.topics.every((topic, i) => moves.of(topic) === this.moved[i])) {
      if (last !== undefined && t - last.t >= LAG_KEEPALIVE_MS) this.keep({ t, lag: last.lag });
      return false;
    }
    const lag = this.compute(broker, offsets ?? read(), moves);
    if (this.keys.length === 0) return false;
    const same = last !== undefined && last.lag.length === lag.length && last.lag.every((v, i) => v === lag[i]);
    if (same && t - last.t < LAG_KEEPALIVE_MS) return false;
    if (!same && last !== undefined && t - last.t < LAG_MIN_INTERVAL_MS) {
      last.lag = lag;
      return true;
    }
    this.keep({ t, lag });
    return !same;
  }

  /** Forgets the group's series (the group is gone): its share goes back to the others. */
  release(): void {
    this.budget.add(-this.keys.length);
  }

  /** The lags now, one per series (null: no log-end offset known), noting the topics' moves. */
  private compute(broker: Broker, entries: readonly CommittedEntry[], moves: TopicMoves): Array<number | null> {
    const lag: Array<number | null> = new Array<number | null>(this.keys.length).fill(null);
    const logEnds = new LogEndOffsets(broker);
    const topics = new Set<string>();
    let current = '';
    let index: number[] = [];
    for (const { topic, partition, offset } of entries) {
      if (topic !== current) {
        current = topic;
        topics.add(topic);
        index = this.index.get(topic) ?? [];
        if (!this.index.has(topic)) this.index.set(topic, index);
      }
      let i = index[partition];
      if (i === undefined) {
        index[partition] = i = this.seriesFor(`${topic}-${partition}`);
        while (lag.length < this.keys.length) lag.push(null);
      }
      const logEnd = logEnds.of(topic, partition);
      if (logEnd === null) continue;
      lag[i] = (lag[i] ?? 0) + Math.max(0, logEnd - Number(offset.committedOffset));
    }
    this.topics = [...topics];
    this.moved = this.topics.map((topic) => moves.of(topic));
    return lag;
  }

  /** Adds a sample, dropping the oldest beyond the group's share of LAG_NUMBERS_BUDGET. */
  private keep(sample: LagSample): void {
    this.samples.push(sample);
    const kept = this.budget.samplesPerGroup;
    if (this.samples.length > kept) this.samples.splice(0, this.samples.length - kept);
  }

  /** The series of a partition first seen: its own while there are fewer than MAX_LAG_SERIES, else the others' sum. */
  private seriesFor(key: string): number {
    if (this.keys.length < MAX_LAG_SERIES) {
      this.budget.add(1);
      return this.keys.push(key) - 1;
    }
    if (this.keys.length === MAX_LAG_SERIES) {
      this.budget.add(1);
      this.keys.push(OTHER_PARTITIONS);
    }
    return MAX_LAG_SERIES;
  }
}
