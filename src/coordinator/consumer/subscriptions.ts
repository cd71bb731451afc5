/**
 * What a consumer group subscribes to: the members' topic names and resolved regexes (record 16,
 * written by `regex-refresh.ts`) and the subscription metadata hash of record 3 (Kafka 4.3
 * `ModernGroup.computeMetadataHash`, KIP-1101).
 */
import type { ConsumerGroup } from './consumer-group.js';
import type { ConsumerContext } from './context.js';
import type { ConsumerGroupMember } from './member.js';
import { computeMetadataHash } from './metadata-hash.js';

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
