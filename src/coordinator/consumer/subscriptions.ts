/**
 * What a consumer group subscribes to: the members' topic names and resolved regexes, the
 * subscription metadata hash of record 3 (Kafka 4.3 `ModernGroup.computeMetadataHash`, KIP-1101)
 * and the regex resolutions of record 16 (`GroupMetadataManager.maybeUpdateRegularExpressions`
 * and the refresh it schedules).
 */
import type { ConsumerGroup } from './consumer-group.js';
import type { ConsumerContext, Emit } from './context.js';
import type { ConsumerGroupMember } from './member.js';
import { computeMetadataHash } from './metadata-hash.js';
import { resolveRegex } from './regex.js';

/** The topic names a member subscribes to: its names plus what its regex resolved to. */
export function effectiveTopics(group: ConsumerGroup, m: ConsumerGroupMember): string[] {
  if (m.subscribedTopicRegex === '') return [...m.subscribedTopicNames];
  const resolved = group.resolvedRegexes.get(m.subscribedTopicRegex)?.topics ?? [];
  return [...new Set([...m.subscribedTopicNames, ...resolved])];
}

/** Kafka's `ConsumerGroupMember.subscribedTopicIds()`: the ids of the member's topics that exist. */
export function subscribedTopicIds(ctx: ConsumerContext, group: ConsumerGroup, m: ConsumerGroupMember): Set<string> {
  const ids = new Set<string>();
  for (const name of effectiveTopics(group, m)) {
    const t = ctx.topics.get(name);
    if (t) ids.add(t.topicId);
  }
  return ids;
}

export function subscribedTopicNames(group: ConsumerGroup): Set<string> {
  const names = new Set<string>();
  for (const m of group.members.values()) for (const t of effectiveTopics(group, m)) names.add(t);
  return names;
}

export function subscriptionMetadataHash(ctx: ConsumerContext, group: ConsumerGroup): bigint {
  const topics = [...subscribedTopicNames(group)].flatMap((name) => {
    const t = ctx.topics.get(name);
    return t ? [{ name: t.name, topicId: t.topicId, partitionCount: t.partitionCount }] : [];
  });
  return computeMetadataHash(topics);
}

/**
 * Resolves a member's new regex (record 16), tombstones a regex nobody uses any more, and refreshes
 * every resolution when the set of topics changed (Kafka does this asynchronously; here it is
 * done within the heartbeat). Returns true when a resolution changed (the group epoch bumps).
 */
export function maybeUpdateRegexes(ctx: ConsumerContext, group: ConsumerGroup, oldRegex: string, newRegex: string, emit: Emit): boolean {
  const { groupId } = group;
  const topicNames = ctx.topics.list().map((t) => t.name).filter((n) => !n.startsWith('__')).sort();
  const signature = topicNames.join('\u0000');
  let changed = false;
  const resolve = (regex: string) => {
    const topics = resolveRegex(regex, topicNames);
    const prev = group.resolvedRegexes.get(regex);
    if (prev && prev.topics.length === topics.length && prev.topics.every((t, i) => t === topics[i])) return;
    const version = ctx.store.nextRegexVersion();
    emit({ kind: 'cg-regex', groupId, regex, value: { topics, version, timestamp: BigInt(ctx.time.now()) } });
    changed = true;
  };
  if (newRegex !== '' && !group.resolvedRegexes.has(newRegex)) resolve(newRegex);
  if (oldRegex !== '' && oldRegex !== newRegex && group.resolvedRegexes.has(oldRegex)) {
    const stillUsed = [...group.members.values()].some((m) => m.subscribedTopicRegex === oldRegex);
    if (!stillUsed) {
      emit({ kind: 'cg-regex', groupId, regex: oldRegex, value: null });
      changed = true;
    }
  }
  if (ctx.store.updateRegexTopicSignature(groupId, signature)) {
    for (const regex of [...group.resolvedRegexes.keys()]) resolve(regex);
  }
  return changed;
}
