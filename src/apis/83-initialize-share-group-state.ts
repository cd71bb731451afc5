import { defaultPartitionResult } from '../protocol/messages/InitializeShareGroupStateResponse.js';
import { shareStateCalls } from '../share/state/share-state-requests.js';
import { shareStateApi } from './shapes/share-state-api.js';

/**
 * InitializeShareGroupState (key 83, v0-0), the share coordinator's API: Kafka 4.3.1's
 * `ShareCoordinatorService.initializeState` over src/share/state/share-coordinator.ts. CLUSTER_ACTION on the
 * cluster, else CLUSTER_AUTHORIZATION_FAILED on every partition.
 */
export const api = shareStateApi({
  apiKey: 83,
  name: 'InitializeShareGroupState',
  minVersion: 0,
  maxVersion: 0,
  defaultPartition: defaultPartitionResult,
  partitionsRequired: false,
  call: (broker, groupId, topicId, p: Parameters<ReturnType<typeof shareStateCalls>['initialize']>[2]) => shareStateCalls(broker.shareCoordinator).initialize(groupId, topicId, p),
});
