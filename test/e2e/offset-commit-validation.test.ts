import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { defaultCreateTopicsRequest, defaultCreatableTopic } from '../../src/protocol/messages/CreateTopicsRequest.js';
import { defaultJoinGroupRequest } from '../../src/protocol/messages/JoinGroupRequest.js';
import { defaultSyncGroupRequest } from '../../src/protocol/messages/SyncGroupRequest.js';
import { defaultOffsetCommitRequest, type OffsetCommitRequest } from '../../src/protocol/messages/OffsetCommitRequest.js';

const TOPIC = 'validation-topic';

function commit(groupId: string, generation: number, memberId: string, partitions: Array<[number, bigint, string?]>): OffsetCommitRequest {
  return {
    ...defaultOffsetCommitRequest(),
    groupId,
    generationIdOrMemberEpoch: generation,
    memberId,
    topics: [{
      name: TOPIC,
      topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
      partitions: partitions.map(([partitionIndex, committedOffset, metadata]) => ({
        partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: metadata ?? '',
      })),
    }],
  };
}

async function join(client: RawClient, groupId: string, memberId = ''): Promise<{ memberId: string; generationId: number; errorCode: number }> {
  const req = {
    ...defaultJoinGroupRequest(),
    groupId, sessionTimeoutMs: 30000, rebalanceTimeoutMs: 60000, memberId, protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) }],
  };
  const first = await client.send(11, 5, req);
  if (first.errorCode !== ErrorCode.MEMBER_ID_REQUIRED) return first;
  return client.send(11, 5, { ...req, memberId: first.memberId });
}

describe('OffsetCommit validation (test 6)', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let client: RawClient;
  beforeAll(async () => {
    server = await startTestServer();
    client = await RawClient.connect(server.port);
    const created = await client.send(19, 4, {
      ...defaultCreateTopicsRequest(),
      topics: [{ ...defaultCreatableTopic(), name: TOPIC, numPartitions: 3, replicationFactor: 1 }],
      timeoutMs: 5000,
    });
    expect(created.topics[0]!.errorCode).toBe(ErrorCode.NONE);
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('answers ILLEGAL_GENERATION to a stale generation and UNKNOWN_MEMBER_ID to an unknown member', async () => {
    const groupId = 'validation-stable';
    const joined = await join(client, groupId);
    expect(joined.errorCode).toBe(ErrorCode.NONE);
    expect(joined.generationId).toBe(1);
    const synced = await client.send(14, 3, {
      ...defaultSyncGroupRequest(), groupId, generationId: 1, memberId: joined.memberId,
      assignments: [{ memberId: joined.memberId, assignment: Buffer.alloc(0) }],
    });
    expect(synced.errorCode).toBe(ErrorCode.NONE);

    const stale = await client.send(8, 5, commit(groupId, 0, joined.memberId, [[0, 5n]]));
    expect(stale.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    const unknown = await client.send(8, 5, commit(groupId, 1, 'nobody-1234', [[0, 5n]]));
    expect(unknown.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const ok = await client.send(8, 5, commit(groupId, 1, joined.memberId, [[0, 5n]]));
    expect(ok.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
  });

  it('answers REBALANCE_IN_PROGRESS to a commit while the group is CompletingRebalance', async () => {
    const groupId = 'validation-completing';
    const joined = await join(client, groupId);
    expect(joined.errorCode).toBe(ErrorCode.NONE);
    // No SyncGroup yet: the group waits in CompletingRebalance for the leader's assignment.
    const res = await client.send(8, 5, commit(groupId, joined.generationId, joined.memberId, [[1, 3n]]));
    expect(res.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('answers ILLEGAL_GENERATION (v8) and GROUP_ID_NOT_FOUND (v9) to a missing group with generation 3', async () => {
    const v8 = await client.send(8, 8, commit('validation-missing', 3, 'm', [[0, 1n]]));
    expect(v8.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    const v9 = await client.send(8, 9, commit('validation-missing', 3, 'm', [[0, 1n]]));
    expect(v9.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });

  it('answers OFFSET_METADATA_TOO_LARGE for 4,097 characters on that partition while the others commit', async () => {
    const groupId = 'validation-metadata';
    const res = await client.send(8, 5, commit(groupId, -1, '', [[0, 7n, 'x'.repeat(4097)], [1, 8n, 'y'.repeat(4096)], [2, 9n]]));
    expect(res.topics[0]!.partitions.map((p) => p.errorCode)).toEqual([
      ErrorCode.OFFSET_METADATA_TOO_LARGE, ErrorCode.NONE, ErrorCode.NONE,
    ]);
    const fetched = await client.send(9, 5, { groupId, topics: [{ name: TOPIC, partitionIndexes: [0, 1, 2] }], groups: [], requireStable: false });
    expect(fetched.topics[0]!.partitions.map((p) => p.committedOffset)).toEqual([-1n, 8n, 9n]);
    expect(fetched.topics[0]!.partitions[1]!.metadata).toBe('y'.repeat(4096));
  });

  it('answers UNKNOWN_TOPIC_OR_PARTITION for a missing topic and a partition out of range', async () => {
    const req = commit('validation-topic-check', -1, '', [[3, 1n]]);
    req.topics.push({ name: 'no-such-topic', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] });
    const res = await client.send(8, 5, req);
    expect(res.topics.map((t) => t.partitions[0]!.errorCode)).toEqual([ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
  });
});
