/**
 * Record 15 (`ShareGroupStatePartitionMetadata`) bookkeeping of share-partition initialization, as
 * Kafka 4.3's `GroupMetadataManager.maybeCreateInitializeShareGroupStateRequest`,
 * `subscribedTopicsChangeMap`, `addInitializingTopicsRecords`, `initializeShareGroupState` and
 * `uninitializeShareGroupState`: a heartbeat puts the subscribed partitions that are neither
 * initialized nor being initialized (recently: `group.share.initialize.retry.interval.ms`) into
 * the initializing set; once the persister has initialized them (InitializeShareGroupState, start
 * offset -1 so the share partition starts at `share.auto.offset.reset`), a second write moves them
 * to the initialized set (and the next heartbeat assigns them); on failure they leave the
 * initializing set and a later heartbeat tries again.
 */
import type { PersisterInitializeEntry } from '../../share/persister.js';
import type { ShareEmit } from './share-group-store.js';
import { combineInitMaps, stateMetadataValue, type InitTopic, type ShareGroup, type StatePartitionMetadata } from './share-group.js';
import type { ShareContext } from './share-context.js';

/** What to initialize: the group, the state epoch (the group epoch) and topicId -> partitions. */
export interface InitializeRequest {
  groupId: string;
  groupEpoch: number;
  partitions: Map<string, Set<number>>;
}

/** The persister's entries of a request (start offset -1: from `share.auto.offset.reset`). */
export function persisterEntries(req: InitializeRequest): PersisterInitializeEntry[] {
  return [...req.partitions].flatMap(([topicId, parts]) =>
    [...parts].sort((a, b) => a - b).map((partition) => ({ topicId, partition, stateEpoch: req.groupEpoch, startOffset: -1n })),
  );
}

/** The topic names of record 15's deleting set, as Kafka's `attachTopicName` ("<UNKNOWN>" for a topic gone). */
export function deletingNames(ctx: ShareContext, deleting: Iterable<string>): Map<string, string> {
  return new Map([...deleting].map((topicId) => [topicId, ctx.topics.getById(topicId)?.name ?? '<UNKNOWN>']));
}

/**
 * `maybeCreateInitializeShareGroupStateRequest`: emits record 15 with the new initializing
 * partitions and returns them, or returns null when every subscribed partition is covered.
 */
export function initializingPartitions(ctx: ShareContext, group: ShareGroup, groupEpoch: number, subscribed: readonly string[], now: number, emit: ShareEmit): InitializeRequest | null {
  if (subscribed.length === 0) return null;
  const info = group.stateMetadata;
  const recent = new Map([...(info?.initializing ?? [])].filter(([, t]) => now - t.timestamp < ctx.settings.initializeRetryIntervalMs));
  const covered = combineInitMaps(info?.initialized ?? new Map(), recent);
  const change = new Map<string, InitTopic>();
  for (const name of subscribed) {
    const topic = ctx.topics.get(name);
    if (!topic) continue;
    const done = covered.get(topic.topicId)?.partitions ?? new Set<number>();
    if (done.size > 0 && done.size >= topic.partitionCount) continue;
    const partitions = new Set<number>();
    for (let p = 0; p < topic.partitionCount; p++) if (!done.has(p)) partitions.add(p);
    change.set(topic.topicId, { name: topic.name, partitions, timestamp: now });
  }
  if (change.size === 0) return null;
  const { groupId } = group;
  addInitializingTopicsRecords(ctx, groupId, info, change, emit);
  return { groupId, groupEpoch, partitions: new Map([...change].map(([topicId, t]) => [topicId, new Set(t.partitions)])) };
}

/**
 * `addInitializingTopicsRecords`: record 15 with `change` added to the initializing set (and those
 * topics taken out of the deleting set); `info` is the group's record 15, null when it has none.
 */
export function addInitializingTopicsRecords(ctx: ShareContext, groupId: string, info: StatePartitionMetadata | null, change: ReadonlyMap<string, InitTopic>, emit: ShareEmit): void {
  if (change.size === 0) return;
  if (!info) {
    emit({ kind: 'share-group-state-partition-metadata', groupId, value: stateMetadataValue(change, new Map(), new Map()) });
    return;
  }
  const initializing = combineInitMaps(info.initializing, change);
  const deleting = new Set(info.deleting);
  for (const topicId of initializing.keys()) {
    if (deleting.delete(topicId)) ctx.log.warn({ groupId, topicId }, 'initializing topic found in deleting state as well, removing from deleting');
  }
  emit({ kind: 'share-group-state-partition-metadata', groupId, value: stateMetadataValue(initializing, info.initialized, deletingNames(ctx, deleting)) });
}

/** `initializeShareGroupState`: the partitions move from initializing to initialized (record 15). */
export function markInitialized(ctx: ShareContext, group: ShareGroup, partitions: ReadonlyMap<string, ReadonlySet<number>>, emit: ShareEmit): void {
  if (partitions.size === 0) return;
  const now = ctx.time.now();
  const done = new Map<string, InitTopic>(
    [...partitions].map(([topicId, parts]) => [topicId, { name: ctx.topics.getById(topicId)?.name ?? '<UNKNOWN>', partitions: new Set(parts), timestamp: now }]),
  );
  const info = group.stateMetadata;
  if (!info) {
    emit({ kind: 'share-group-state-partition-metadata', groupId: group.groupId, value: stateMetadataValue(new Map(), done, new Map()) });
    return;
  }
  const initializing = withoutPartitions(info.initializing, partitions);
  emit({
    kind: 'share-group-state-partition-metadata',
    groupId: group.groupId,
    value: stateMetadataValue(initializing, combineInitMaps(info.initialized, done), deletingNames(ctx, info.deleting)),
  });
}

/** `uninitializeShareGroupState`: the partitions leave the initializing set (a later heartbeat retries). */
export function markUninitialized(ctx: ShareContext, group: ShareGroup, partitions: ReadonlyMap<string, ReadonlySet<number>>, emit: ShareEmit): void {
  const info = group.stateMetadata;
  if (!info || info.initializing.size === 0 || partitions.size === 0) return;
  emit({
    kind: 'share-group-state-partition-metadata',
    groupId: group.groupId,
    value: stateMetadataValue(withoutPartitions(info.initializing, partitions), info.initialized, deletingNames(ctx, info.deleting)),
  });
}

function withoutPartitions(topics: ReadonlyMap<string, InitTopic>, remove: ReadonlyMap<string, ReadonlySet<number>>): Map<string, InitTopic> {
  const out = new Map<string, InitTopic>();
  for (const [topicId, t] of topics) {
    const gone = remove.get(topicId);
    if (!gone) {
      out.set(topicId, t);
      continue;
    }
    const left = new Set([...t.partitions].filter((p) => !gone.has(p)));
    if (left.size > 0) out.set(topicId, { ...t, partitions: left });
  }
  return out;
}
