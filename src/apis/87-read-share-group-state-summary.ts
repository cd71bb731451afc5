import { defaultPartitionResult } from '../protocol/messages/ReadShareGroupStateSummaryResponse.js';
import { shareStateCalls } from '../share/state/share-state-requests.js';
import { shareStateApi } from './shapes/share-state-api.js';

/**
 * ReadShareGroupStateSummary (key 87, v0-1), the share coordinator's API: Kafka 4.3.1's
 * `ShareCoordinatorService.readStateSummary` over src/share/state/share-coordinator.ts. CLUSTER_ACTION on the
 * cluster, else CLUSTER_AUTHORIZATION_FAILED on every partition.
 */
export const api = shareStateApi({
  apiKey: 87,
  name: 'ReadShareGroupStateSummary',
  minVersion: 0,
  maxVersion: 1,
  defaultPartition: defaultPartitionResult,
  partitionsRequired: true,
  call: (broker, groupId, topicId, p: Parameters<ReturnType<typeof shareStateCalls>['summary']>[2]) => shareStateCalls(broker.shareCoordinator).summary(groupId, topicId, p),
});
