import { defaultPartitionResult } from '../protocol/messages/ReadShareGroupStateResponse.js';
import { shareStateCalls } from '../share/state/share-state-requests.js';
import { shareStateApi } from './shapes/share-state-api.js';

/**
 * ReadShareGroupState (key 84, v0-0), the share coordinator's API: Kafka 4.3.1's
 * `ShareCoordinatorService.readState` over src/share/state/share-coordinator.ts. CLUSTER_ACTION on the
 * cluster, else CLUSTER_AUTHORIZATION_FAILED on every partition.
 */
export const api = shareStateApi({
  apiKey: 84,
  name: 'ReadShareGroupState',
  minVersion: 0,
  maxVersion: 0,
  defaultPartition: defaultPartitionResult,
  partitionsRequired: true,
  call: (broker, groupId, topicId, p: Parameters<ReturnType<typeof shareStateCalls>['read']>[2]) => shareStateCalls(broker.shareCoordinator).read(groupId, topicId, p),
});
