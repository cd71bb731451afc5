/**
 * `__share_group_state`, the share coordinator's log (Kafka's `ShareCoordinatorService`):
 * `share.coordinator.state.topic.num.partitions` partitions under
 * `<data-dir>/__share_group_state-<p>/`, a share partition's records going to the partition of its
 * coordinator key `groupId:topicId:partition` (`shareStatePartitionFor`); records are Kafka's
 * ShareSnapshot (type 0) and ShareUpdate (type 1) at value version 0
 * (`ShareCoordinatorRecordHelpers`), compacted by the log cleaner as the other coordinator logs.
 */
import type { BrokerConfig } from '../../config.js';
import { GroupLog, type CoordinatorLogLayout, type GroupLogOptions } from '../../coordinator/group-log.js';
import { decodeRegistryRecord, encodeRecordKey, encodeRecordValue } from '../../records/coordinator-record.js';
import type { ShareStateRecord } from '../../records/schemas/record-types.js';
import { shareCoordinatorKey, shareStatePartitionFor } from '../persister.js';
import { SHARE_GROUP_STATE_TOPIC_NAME } from '../../topics/topic-name.js';
import { readPartitionMetadata } from '../../topics/topic-id.js';

export const SHARE_STATE_TOPIC = SHARE_GROUP_STATE_TOPIC_NAME;

function shareStateLayout(config: BrokerConfig): CoordinatorLogLayout<ShareStateRecord> {
  const partitionCount = config.int('share.coordinator.state.topic.num.partitions');
  return {
    topic: SHARE_STATE_TOPIC,
    partitionCount,
    segmentBytes: config.int('share.coordinator.state.topic.segment.bytes'),
    partitionOf: (r) => shareStatePartitionFor(shareCoordinatorKey(r.groupId, r.topicId, r.partition), partitionCount),
    encodeKey: (r) => encodeRecordKey(r),
    encodeValue: (r) => encodeRecordValue(r, 0),
    decode: (key, value) => {
      const decoded = decodeRegistryRecord(SHARE_STATE_TOPIC, key, value);
      return decoded.entry === undefined ? null : (decoded.record as ShareStateRecord);
    },
  };
}

/**
 * Whether `__share_group_state` was created before this start: a partition has its topic id
 * (`partition.metadata`, written when it was first listed) or records (a data directory from before
 * the topic was listed).
 */
export function shareStateTopicCreated(log: GroupLog<ShareStateRecord>): boolean {
  return log.partitionLogs().some((l) => l.logEndOffset > 0n || (l.dir !== null && readPartitionMetadata(l.dir) !== null));
}

/**
 * Opens `__share_group_state` (its cleaner scheduled as the offsets log's). Its partition
 * directories are created at the first share-state write or lookup (`ensureOpen`), as Kafka creates
 * the topic then; a data directory that has them opens them at start.
 */
export function openShareStateLog(options: Omit<GroupLogOptions<ShareStateRecord>, 'layout' | 'createOnFirstUse'>): GroupLog<ShareStateRecord> {
  return GroupLog.open<ShareStateRecord>({ ...options, layout: shareStateLayout(options.config), createOnFirstUse: true });
}
