/**
 * The server assignors of `group.consumer.assignors` (first = default), by name. The assignors
 * themselves live in `./assignor/` (Kafka's `UniformAssignor` and `RangeAssignor`).
 */
import * as assignorModule from './assignor/index.js';
import type { ConsumerGroupPartitionAssignor } from './assignor/types.js';

export type { ConsumerGroupPartitionAssignor, GroupSpec, AssignmentMemberSpec, SubscribedTopicDescriber } from './assignor/types.js';

export interface AssignorSet {
  readonly byName: ReadonlyMap<string, ConsumerGroupPartitionAssignor>;
  readonly defaultAssignor: ConsumerGroupPartitionAssignor;
}

/** Names as `group.consumer.assignors` lists them (comma separated, trimmed, non-empty). */
export function parseAssignorNames(value: string): string[] {
  const classNames: Record<string, string> = {
    'org.apache.kafka.coordinator.group.assignor.UniformAssignor': 'uniform',
    'org.apache.kafka.coordinator.group.assignor.RangeAssignor': 'range',
  };
  return value.split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => classNames[s] ?? s);
}

export function loadAssignors(names: readonly string[]): AssignorSet {
  const built = assignorModule.assignorsFromConfig([...names]) as unknown;
  const list: ConsumerGroupPartitionAssignor[] =
    built instanceof Map ? [...(built as Map<string, ConsumerGroupPartitionAssignor>).values()] : [...(built as Iterable<ConsumerGroupPartitionAssignor>)];
  const byName = new Map(list.map((a) => [a.name, a]));
  const first = list[0];
  if (!first) throw new Error('group.consumer.assignors is empty');
  return { byName, defaultAssignor: first };
}
