import { defaultPartitionResult } from '../protocol/messages/WriteShareGroupStateResponse.js';
import { shareStateCalls } from '../share/state/share-state-requests.js';
import { shareStateApi } from './shapes/share-state-api.js';

/**
 * WriteShareGroupState (key 85, v0-1), the share coordinator's API: Kafka 4.3.1's
 * `ShareCoordinatorService.writeState` over src/share/state/share-coordinator.ts. CLUSTER_ACTION on the
 * cluster, else CLUSTER_AUTHORIZATION_FAILED on every partition.
 */
export const api = shareStateApi({
  apiKey: 85,
  name: 'WriteShareGroupState',
  minVersion: 0,
  maxVersion: 1,
  defaultPartition: defaultPartitionResult,
  partitionsRequired: true,
  call: (broker, groupId, topicId, p: Parameters<ReturnType<typeof shareStateCalls>['write']>[2]) => shareStateCalls(broker.shareCoordinator).write(groupId, topicId, p),
});
