/** Request bodies the big-requests tests send with RawClient (CreateTopics v7, OffsetCommit v8, Metadata v12). */
import type { RawClient } from './raw-client.js';

export const topic = (name: string, numPartitions: number) => ({ name, numPartitions, replicationFactor: -1, assignments: [], configs: [] });

export const createTopics = (topics: ReturnType<typeof topic>[]) => ({ topics, timeoutMs: 60000, validateOnly: false });

export interface CommittedPartition {
  partitionIndex: number;
  committedOffset: bigint;
  committedLeaderEpoch: number;
  committedMetadata: string;
}

/** A simple group's commit (generation -1, no member) of `topics` named by name. */
export const offsetCommit = (groupId: string, topics: Array<{ name: string; partitions: CommittedPartition[] }>) => ({
  groupId,
  generationIdOrMemberEpoch: -1,
  memberId: '',
  groupInstanceId: null,
  retentionTimeMs: -1n,
  topics: topics.map((t) => ({ ...t, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' })),
});

export const metadata = (names: string[]) => ({ topics: names.map((name) => ({ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name })), allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });

/** The next turn of the event loop (after the poll phase has read the sockets). */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Watches `target[method]` from outside (the call itself runs unchanged): whether it has been
 * called (how often), and whether its answer has settled. A handler in slices is called and not yet settled.
 */
export function watchCall<T extends object>(target: T, method: keyof T & string): { called: boolean; settled: boolean; calls: number } {
  const state = { called: false, settled: false, calls: 0 };
  const original = (target[method] as (...args: unknown[]) => unknown).bind(target);
  (target as Record<string, unknown>)[method] = (...args: unknown[]) => {
    state.called = true;
    state.calls++;
    const answer = original(...args);
    void Promise.resolve(answer).then(() => (state.settled = true));
    return answer;
  };
  return state;
}

/** OffsetFetch v8 of every offset (topics null) of `groupId`. */
export const fetchWholeGroup = (groupId: string) => ({ groups: [{ groupId, memberId: null, memberEpoch: -1, topics: null }], groupId: '', topics: [], requireStable: false });

/**
 * Creates topics `names` of `perTopic` partitions each (CreateTopics v7) and commits partition i of
 * each at offset i, leader epoch 2 (OffsetCommit v8) for `groupId`; returns the error codes answered, once each.
 */
export async function commitWholeGroup(client: RawClient, groupId: string, names: string[], perTopic: number): Promise<number[]> {
  const codes = new Set<number>();
  for (const name of names) for (const t of (await client.send(19, 7, createTopics([topic(name, perTopic)]))).topics) codes.add(t.errorCode);
  const partitions = Array.from({ length: perTopic }, (_, i) => ({ partitionIndex: i, committedOffset: BigInt(i), committedLeaderEpoch: 2, committedMetadata: '' }));
  const committed = await client.send(8, 8, offsetCommit(groupId, names.map((name) => ({ name, partitions }))));
  for (const t of committed.topics) for (const p of t.partitions) codes.add(p.errorCode);
  return [...codes];
}
