/**
 * What the modern group stores (consumer and share groups) share: the revert of their latest view
 * after a failed write (Kafka's `SnapshotRegistry.revertToSnapshot` of the timeline groups) and
 * their ListGroups entries.
 */
import type { ListedGroup } from '../protocol/messages/ListGroupsResponse.js';
import type { GroupView } from './group-map.js';
import { javaStringHashCode, offsetsPartitionFor } from '../util/java-hash.js';
import { JavaHashMap } from './share/java-collections.js';
import { GROUP_METADATA_TOPIC_NAME } from '../topics/topic-name.js';
import { nextTurn, Slicer } from '../util/slices.js';

/**
 * A failed write's groups go back to their committed state with the writes still in flight
 * (`pending`, in append order) replayed over them; a group that was never committed is forgotten.
 * An id another group type took meanwhile (a classic JoinGroup converting an empty group) keeps it.
 */
export function revertGroups<G extends { groupId: string; clone(): G }, R extends { groupId: string }>(
  latest: GroupView<G>,
  committed: ReadonlyMap<string, G>,
  failed: readonly R[],
  pending: readonly R[],
  hooks: { apply(record: R): void; onDeleted(groupId: string): void; onReverted(group: G): void },
): void {
  const touched = new Set(failed.map((r) => r.groupId));
  for (const groupId of touched) {
    if (latest.taken(groupId) && !latest.has(groupId)) {
      touched.delete(groupId);
      continue;
    }
    const group = committed.get(groupId);
    if (group) latest.set(groupId, group.clone());
    else if (latest.delete(groupId)) hooks.onDeleted(groupId);
  }
  for (const r of pending) if (touched.has(r.groupId)) hooks.apply(r);
  for (const groupId of touched) {
    const group = latest.get(groupId);
    if (group) hooks.onReverted(group);
  }
}

/** Groups a ListGroups listing looks at per turn of the event loop at most (or until the turn's `SLICE_BUDGET_MS`). */
export const LIST_GROUPS_PER_SLICE = 2_000;

/**
 * ListGroups entries of one group type passing the state (case-insensitive) and type filters
 * (`GroupMetadataManager.listGroups`; an empty filter passes everything, an unknown name matches
 * nothing), `slicer` yielding a turn of the event loop between slices (issue #16: 100,000 groups
 * held every connection 200-500 ms). `groups` may be a live view: a group added while it runs may
 * be listed, one removed before its slice is not.
 */
export async function listedGroupsInSlices<G extends { groupId: string; state: string }>(
  groups: Iterable<G>,
  statesFilter: readonly string[],
  typesFilter: readonly string[],
  groupType: string,
  entry: (group: G) => ListedGroup,
  slicer = new Slicer(LIST_GROUPS_PER_SLICE),
): Promise<ListedGroup[]> {
  const states = new Set(statesFilter.map((s) => s.trim().toLowerCase()));
  const types = new Set(typesFilter.map((t) => t.trim().toLowerCase()));
  if (types.size > 0 && !types.has(groupType)) return [];
  const listed: ListedGroup[] = [];
  for (const group of groups) {
    if (slicer.due()) await nextTurn();
    if (states.size === 0 || states.has(group.state.toLowerCase())) listed.push(entry(group));
  }
  return listed;
}

/** A consumer or share group's ListGroups entry: its type's protocol type. */
export function modernListedGroup(groupType: string, protocolType: string): (group: { groupId: string; state: string }) => ListedGroup {
  return (group) => ({ groupId: group.groupId, protocolType, groupState: group.state, groupType });
}

/**
 * Group ids in the order Kafka's `GroupCoordinatorService` answers a batch it splits by
 * `__consumer_offsets` partition: the partitions as a `HashMap<TopicPartition, List<String>>`
 * iterates them (`TopicPartition.hashCode`: `31 * (31 + partition) + topic.hashCode()`), the ids of
 * one partition in request order.
 */
export function groupsByOffsetsPartition(groupIds: readonly string[], partitions: number): string[] {
  const topicHash = javaStringHashCode(GROUP_METADATA_TOPIC_NAME);
  const byPartition = new JavaHashMap<number, string[]>((p) => (Math.imul(31, 31 + p) + topicHash) | 0, (p) => p);
  for (const id of groupIds) byPartition.computeIfAbsent(offsetsPartitionFor(id, partitions), () => []).push(id);
  return [...byPartition.entries()].flatMap(([, ids]) => ids);
}
