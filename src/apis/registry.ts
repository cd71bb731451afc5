import type { ApiDefinition } from './types.js';
import { api as produce } from './00-produce.js';
import { api as fetch } from './01-fetch.js';
import { api as listOffsets } from './02-list-offsets.js';
import { api as metadata } from './03-metadata.js';
import { api as offsetCommit } from './08-offset-commit.js';
import { api as offsetFetch } from './09-offset-fetch.js';
import { api as findCoordinator } from './10-find-coordinator.js';
import { api as joinGroup } from './11-join-group.js';
import { api as heartbeat } from './12-heartbeat.js';
import { api as leaveGroup } from './13-leave-group.js';
import { api as syncGroup } from './14-sync-group.js';
import { api as describeGroups } from './15-describe-groups.js';
import { api as listGroups } from './16-list-groups.js';
import { api as saslHandshake } from './17-sasl-handshake.js';
import { api as apiVersions } from './18-api-versions.js';
import { api as createTopics } from './19-create-topics.js';
import { api as deleteTopics } from './20-delete-topics.js';
import { api as deleteRecords } from './21-delete-records.js';
import { api as initProducerId } from './22-init-producer-id.js';
import { api as offsetForLeaderEpoch } from './23-offset-for-leader-epoch.js';
import { api as addPartitionsToTxn } from './24-add-partitions-to-txn.js';
import { api as addOffsetsToTxn } from './25-add-offsets-to-txn.js';
import { api as endTxn } from './26-end-txn.js';
import { api as txnOffsetCommit } from './28-txn-offset-commit.js';
import { api as writeTxnMarkers } from './27-write-txn-markers.js';
import { api as describeAcls } from './29-describe-acls.js';
import { api as createAcls } from './30-create-acls.js';
import { api as deleteAcls } from './31-delete-acls.js';
import { api as describeConfigs } from './32-describe-configs.js';
import { api as alterConfigs } from './33-alter-configs.js';
import { api as describeLogDirs } from './35-describe-log-dirs.js';
import { api as saslAuthenticate } from './36-sasl-authenticate.js';
import { api as createPartitions } from './37-create-partitions.js';
import { api as deleteGroups } from './42-delete-groups.js';
import { api as electLeaders } from './43-elect-leaders.js';
import { api as incrementalAlterConfigs } from './44-incremental-alter-configs.js';
import { api as offsetDelete } from './47-offset-delete.js';
import { api as describeClientQuotas } from './48-describe-client-quotas.js';
import { api as describeUserScramCredentials } from './50-describe-user-scram-credentials.js';
import { api as alterUserScramCredentials } from './51-alter-user-scram-credentials.js';
import { api as describeCluster } from './60-describe-cluster.js';
import { api as describeProducers } from './61-describe-producers.js';
import { api as describeTransactions } from './65-describe-transactions.js';
import { api as listTransactions } from './66-list-transactions.js';
import { api as consumerGroupHeartbeat } from './68-consumer-group-heartbeat.js';
import { api as consumerGroupDescribe } from './69-consumer-group-describe.js';
import { api as listConfigResources } from './74-list-config-resources.js';
import { api as describeTopicPartitions } from './75-describe-topic-partitions.js';
import { api as shareGroupHeartbeat } from './76-share-group-heartbeat.js';
import { api as shareGroupDescribe } from './77-share-group-describe.js';
import { api as streamsGroupHeartbeat } from './88-streams-group-heartbeat.js';
import { api as streamsGroupDescribe } from './89-streams-group-describe.js';
import { api as describeShareGroupOffsets } from './90-describe-share-group-offsets.js';
import { api as alterShareGroupOffsets } from './91-alter-share-group-offsets.js';
import { api as deleteShareGroupOffsets } from './92-delete-share-group-offsets.js';
import { api as shareFetch } from './78-share-fetch.js';
import { api as shareAcknowledge } from './79-share-acknowledge.js';
import { api as initializeShareGroupState } from './83-initialize-share-group-state.js';
import { api as readShareGroupState } from './84-read-share-group-state.js';
import { api as writeShareGroupState } from './85-write-share-group-state.js';
import { api as deleteShareGroupState } from './86-delete-share-group-state.js';
import { api as readShareGroupStateSummary } from './87-read-share-group-state-summary.js';

const ALL: ApiDefinition[] = [
  produce, fetch, listOffsets, metadata, offsetCommit, offsetFetch, findCoordinator,
  joinGroup, heartbeat, leaveGroup, syncGroup, describeGroups, listGroups, apiVersions,
  createTopics, deleteTopics, deleteRecords, initProducerId, offsetForLeaderEpoch, deleteGroups, electLeaders,
  describeConfigs, alterConfigs, describeLogDirs, createPartitions, incrementalAlterConfigs, offsetDelete, describeCluster,
  consumerGroupHeartbeat, consumerGroupDescribe, listConfigResources, describeTopicPartitions,
  shareGroupHeartbeat, shareGroupDescribe, streamsGroupHeartbeat, streamsGroupDescribe, describeShareGroupOffsets, alterShareGroupOffsets, deleteShareGroupOffsets,
  saslHandshake, saslAuthenticate, describeUserScramCredentials, alterUserScramCredentials,
  describeAcls, createAcls, deleteAcls, describeClientQuotas,
  addPartitionsToTxn, addOffsetsToTxn, endTxn, txnOffsetCommit, describeTransactions, listTransactions,
  writeTxnMarkers, describeProducers,
  shareFetch, shareAcknowledge,
  initializeShareGroupState, readShareGroupState, writeShareGroupState, deleteShareGroupState, readShareGroupStateSummary,
];

/** The APIs this broker serves, by API key. ApiVersions advertises exactly these. */
export const API_HANDLERS: ReadonlyMap<number, ApiDefinition> = new Map(ALL.map((a) => [a.apiKey, a]));
