/**
 * A share-state persister that records nothing and accepts every call: what the share-group
 * coordinator uses until the share coordinator (`__share_group_state`, branch issue-14-records)
 * is wired in its place. Initialization and deletion succeed at once; a summary reports every
 * partition as never initialized (start offset -1).
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { SharePersister } from '../../share/persister.js';

export const acceptingPersister: SharePersister = {
  initializeState: (_groupId, partitions) => Promise.resolve(partitions.map(({ topicId, partition }) => ({ topicId, partition, errorCode: ErrorCode.NONE, errorMessage: null }))),
  readStateSummary: (_groupId, partitions) =>
    Promise.resolve(
      partitions.map(({ topicId, partition, leaderEpoch }) => ({ topicId, partition, errorCode: ErrorCode.NONE, errorMessage: null, startOffset: -1n, deliveryCompleteCount: -1, leaderEpoch, stateEpoch: 0 })),
    ),
  deleteState: (_groupId, partitions) => Promise.resolve(partitions.map(({ topicId, partition }) => ({ topicId, partition, errorCode: ErrorCode.NONE, errorMessage: null }))),
};
