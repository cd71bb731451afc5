import { defaultPartitionResult } from '../protocol/messages/DeleteShareGroupStateResponse.js';
import { shareStateCalls } from '../share/state/share-state-requests.js';
import { shareStateApi } from './shapes/share-state-api.js';

/**
 * DeleteShareGroupState (key 86, v0-0), the share coordinator's API: Kafka 4.3.1's
 * `ShareCoordinatorService.deleteState` over src/share/state/share-coordinator.ts. CLUSTER_ACTION on the
 * cluster, else CLUSTER_AUTHORIZATION_FAILED on every partition.
 */
export const api = shareStateApi({
  apiKey: 86,
  name: 'DeleteShareGroupState',
  minVersion: 0,
  maxVersion: 0,
  defaultPartition: defaultPartitionResult,
  partitionsRequired: false,
  call: (broker, groupId, topicId, p: Parameters<ReturnType<typeof shareStateCalls>['delete']>[2]) => shareStateCalls(broker.shareCoordinator).delete(groupId, topicId, p),
});
