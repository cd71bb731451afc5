/**
 * A topic: its name, its stable topic id (base64url UUID) and its partitions. `internal` marks
 * Kafka's internal topics (`__consumer_offsets`), whose partitions are the group coordinator's
 * logs: clients may read them but not produce to them (Kafka's `Topic.isInternal`).
 */
import type { Partition } from './partition.js';

export class Topic {
  constructor(
    readonly name: string,
    readonly id: string,
    readonly partitions: readonly Partition[],
    readonly internal = false,
  ) {}

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
}
