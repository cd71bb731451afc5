/** Request bodies the big-requests tests send with RawClient (CreateTopics v7, OffsetCommit v8, Metadata v12). */

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
