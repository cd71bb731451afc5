/**
 * Deleting consumer groups: DeleteGroups (Kafka 4.3's `GroupCoordinatorShard.deleteGroups` for a
 * consumer group), the offsets retention sweep's `GroupMetadataManager.maybeDeleteGroup`, and the
 * conversion of an empty consumer group for a classic JoinGroup. Each writes
 * `ConsumerGroup.createGroupTombstoneRecords`.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { COMMIT_TIMESTAMP_EXPIRATION } from '../offsets/expiration-condition.js';
import type { RetentionGroupSource } from '../offsets/retention.js';
import type { ConsumerContext } from './context.js';
import type { CoordinatorRecord } from '../records.js';
import { writeErrorCode } from '../runtime.js';
import { subscribedTopicNames } from './subscriptions.js';

/** DeleteGroups for a consumer group: NON_EMPTY_GROUP unless Empty; else offsets and group tombstoned. */
export async function deleteConsumerGroup(ctx: ConsumerContext, groupId: string): Promise<number> {
  const group = ctx.store.get(groupId);
  if (!group) return ErrorCode.GROUP_ID_NOT_FOUND;
  if (!group.isEmpty()) return ErrorCode.NON_EMPTY_GROUP;
  const records = [...ctx.offsets.tombstoneGroup(groupId), ...ctx.store.createGroupTombstoneRecords(group)];
  try {
    await ctx.writer.append(records);
  } catch (err) {
    ctx.log.error({ err, groupId }, 'failed to write consumer group deletion');
    return writeErrorCode(err);
  }
  ctx.log.info({ groupId }, 'consumer group deleted');
  return ErrorCode.NONE;
}

/**
 * Converts an empty consumer group for a classic JoinGroup (Kafka converts an empty group in
 * either direction whatever the migration policy): the group's tombstones, applied, for the
 * caller to write with the classic group's first record as one write; null when the group is not
 * an empty consumer group.
 */
export function takeEmptyGroupForClassicJoin(ctx: ConsumerContext, groupId: string): CoordinatorRecord[] | null {
  const group = ctx.store.get(groupId);
  if (!group || !group.isEmpty()) return null;
  ctx.log.info({ groupId }, 'converting an empty consumer group to a classic group');
  return ctx.store.createGroupTombstoneRecords(group);
}

/** The offsets retention sweep's view of consumer groups. */
export function consumerRetentionSource(ctx: ConsumerContext): RetentionGroupSource {
  return {
    groupIds: () => ctx.store.ids(),
    group: (groupId) => {
      const group = ctx.store.get(groupId);
      if (!group) return undefined;
      return {
        offsetExpirationCondition: () => COMMIT_TIMESTAMP_EXPIRATION,
        isSubscribedToTopic: (topic: string) => subscribedTopicNames(group).has(topic),
      };
    },
    deleteGroupIfEmpty: (groupId) => {
      const group = ctx.store.get(groupId);
      if (!group || !group.isEmpty() || ctx.offsets.hasOffsets(groupId)) return null;
      return ctx.writer.append(ctx.store.createGroupTombstoneRecords(group));
    },
  };
}
