/**
 * A topic: its name, its stable topic id (base64url UUID) and its partitions. `internal` marks
 * Kafka's internal topics (`__consumer_offsets`), whose partitions are the group coordinator's
 * logs: clients may read them but not produce to them (Kafka's `Topic.isInternal`).
 */
import type { Partition } from './partition.js';

export class Topic {
  private readonly parts: Partition[];

  constructor(
    readonly name: string,
    readonly id: string,
    partitions: readonly Partition[],
    readonly internal = false,
  ) {
    this.parts = [...partitions];
  }

  /** The partitions, by index; CreatePartitions adds to the end (`TopicStore.addPartitions`). */
  get partitions(): readonly Partition[] {
    return this.parts;
  }

  /** Appends new partitions (the next indexes); only the TopicStore calls this. */
  addPartitions(added: readonly Partition[]): void {
    this.parts.push(...added);
  }

  /** Same as `id` (the name Kafka's messages use). */
  get topicId(): string {
    return this.id;
  }

  get partitionCount(): number {
    return this.partitions.length;
  }

  /** The partition with this index, or undefined when out of range. */
  partition(index: number): Partition | undefined {
    return Number.isInteger(index) && index >= 0 ? this.partitions[index] : undefined;
  }

  /**
   * The leader epoch a batch appended to partition `index` now carries (Kafka's
   * `UnifiedLog.appendAsLeader(records, leaderEpoch)`): for the logs an internal topic's owner
   * writes (`__consumer_offsets`, `__transaction_state`, `__share_group_state`). 0 when out of range.
   */
  stampEpochOf(index: number): number {
    return this.partition(index)?.epochs.stampEpoch ?? 0;
  }
}
