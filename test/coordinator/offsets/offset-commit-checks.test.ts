/**
 * OffsetCommit's topic checks (coordinator/offsets/offset-commit.ts `TopicChecks`): a small request
 * is checked at once, a large one `ELEMENTS_PER_SLICE` partitions per turn; either way each topic
 * answers once, its partitions in request order, whether a slice ends inside a topic or at a
 * topic's first partition. A group that refuses the commit (a stale member epoch here) answers its
 * error on every partition past the topic checks, nothing written.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { commitOffsets, type OffsetCommitContext } from '../../../src/coordinator/offsets/offset-commit.js';
import type { GroupCoordinators } from '../../../src/coordinator/offsets/commit-validation.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { OffsetCommitRequest } from '../../../src/protocol/messages/OffsetCommitRequest.js';
import { ELEMENTS_PER_SLICE } from '../../../src/protocol/primitives.js';

const TOPICS = new Map([
  ['orders', { name: 'orders', topicId: 'b3JkZXJzb3JkZXJzb3JkZQ', partitionCount: 3 * ELEMENTS_PER_SLICE }],
  ['small', { name: 'small', topicId: 'c21hbGxzbWFsbHNtYWxsMQ', partitionCount: 2 }],
]);

function context(): OffsetCommitContext {
  return {
    groups: { consumer: { hasGroup: () => true, validateOffsetCommit: () => ({ errorCode: ErrorCode.STALE_MEMBER_EPOCH }) }, classic: { group: () => undefined } } as unknown as GroupCoordinators,
    topics: { get: (name) => TOPICS.get(name), getById: () => undefined },
    offsets: {
      commit: () => {
        throw new Error('nothing is written for a commit the group refused');
      },
    },
    maxMetadataSize: 4096,
    maxBatchBytes: 1_048_588,
    now: () => 1_700_000_000_000,
    log: pino({ level: 'silent' }),
  };
}

function request(topics: Array<[string, number]>): OffsetCommitRequest {
  return {
    groupId: 'checks',
    generationIdOrMemberEpoch: 3,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: topics.map(([name, count]) => ({
      name,
      topicId: '',
      partitions: Array.from({ length: count }, (_, i) => ({ partitionIndex: i, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' })),
    })),
  };
}

/** Per topic of the response: its name, its partitions' count, and each distinct error code with its partitions' count. */
function summary(topics: Array<{ name: string; partitions: Array<{ partitionIndex: number; errorCode: number }> }>) {
  return topics.map((t) => {
    const codes = new Map<number, number>();
    for (const p of t.partitions) codes.set(p.errorCode, (codes.get(p.errorCode) ?? 0) + 1);
    return { name: t.name, indexesInOrder: t.partitions.every((p, i) => p.partitionIndex === i), partitions: t.partitions.length, codes: [...codes] };
  });
}

describe('OffsetCommit topic checks', () => {
  it('a small request: known partitions reach the group (its STALE_MEMBER_EPOCH), unknown topics and partitions are refused', async () => {
    const response = await commitOffsets(context(), request([['small', 3], ['missing', 1]]), 8);
    expect(response.topics.map((t) => [t.name, t.partitions])).toEqual([
      ['small', [
        { partitionIndex: 0, errorCode: ErrorCode.STALE_MEMBER_EPOCH },
        { partitionIndex: 1, errorCode: ErrorCode.STALE_MEMBER_EPOCH },
        { partitionIndex: 2, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
      ]],
      ['missing', [{ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }]],
    ]);
  });

  it('a request of exactly one slice and one of more, with slices ending at a topic start and inside a topic: each topic answers once, in order', async () => {
    const exact = await commitOffsets(context(), request([['orders', ELEMENTS_PER_SLICE]]), 8);
    expect(summary(exact.topics)).toEqual([{ name: 'orders', indexesInOrder: true, partitions: ELEMENTS_PER_SLICE, codes: [[ErrorCode.STALE_MEMBER_EPOCH, ELEMENTS_PER_SLICE]] }]);

    // Slices end after 'orders' (the next one starts at 'missing''s first partition) and inside 'missing'.
    const sliced = await commitOffsets(context(), request([['orders', ELEMENTS_PER_SLICE], ['missing', ELEMENTS_PER_SLICE + 2], ['small', 2]]), 8);
    expect(summary(sliced.topics)).toEqual([
      { name: 'orders', indexesInOrder: true, partitions: ELEMENTS_PER_SLICE, codes: [[ErrorCode.STALE_MEMBER_EPOCH, ELEMENTS_PER_SLICE]] },
      { name: 'missing', indexesInOrder: true, partitions: ELEMENTS_PER_SLICE + 2, codes: [[ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ELEMENTS_PER_SLICE + 2]] },
      { name: 'small', indexesInOrder: true, partitions: 2, codes: [[ErrorCode.STALE_MEMBER_EPOCH, 2]] },
    ]);
  });
});
