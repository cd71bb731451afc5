/** A user topic: its name, its stable topic id (base64url UUID) and its partitions. */
import type { Partition } from './partition.js';

export class Topic {
  constructor(
    readonly name: string,
    readonly id: string,
    readonly partitions: readonly Partition[],
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
