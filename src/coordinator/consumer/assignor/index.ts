/**
 * Server-side assignors for KIP-848 consumer groups, with the same output as Kafka's
 * `UniformAssignor` and `RangeAssignor` for the same input. Each module's header names the
 * Kafka class it follows; `order.ts` / `java-order.ts` explain the iteration orders used.
 */
import { rangeAssignor } from './range.js';
import type { ConsumerGroupPartitionAssignor } from './types.js';
import { uniformAssignor } from './uniform.js';

export * from './types.js';
export { uniformAssignor } from './uniform.js';
export { rangeAssignor } from './range.js';

const BY_NAME = new Map<string, ConsumerGroupPartitionAssignor>([
  ['uniform', uniformAssignor],
  ['org.apache.kafka.coordinator.group.assignor.UniformAssignor', uniformAssignor],
  ['range', rangeAssignor],
  ['org.apache.kafka.coordinator.group.assignor.RangeAssignor', rangeAssignor],
]);

/**
 * Resolves `group.consumer.assignors`: each entry is a built-in name (`uniform`, `range`) or
 * the fully-qualified Kafka class name of one; surrounding whitespace and empty entries are
 * ignored. The first assignor is the group default. Throws on an unknown name or an empty list.
 */
export function assignorsFromConfig(names: string[]): ConsumerGroupPartitionAssignor[] {
  const result: ConsumerGroupPartitionAssignor[] = [];
  for (const raw of names) {
    const name = raw.trim();
    if (name === '') continue;
    const assignor = BY_NAME.get(name);
    if (assignor === undefined) {
      throw new Error(
        `Unknown consumer group assignor '${name}' in group.consumer.assignors ` +
          `(supported: uniform, range, or their Kafka class names)`,
      );
    }
    result.push(assignor);
  }
  if (result.length === 0) throw new Error('group.consumer.assignors must name at least one assignor');
  return result;
}
