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
 * either direction whatever the migration policy): returns the tombstones written, or null when
 * the group is not an empty consumer group.
 */
export function removeEmptyGroupForClassicJoin(ctx: ConsumerContext, groupId: string): Promise<void> | null {
  const group = ctx.store.get(groupId);
  if (!group || !group.isEmpty()) return null;
  const records = ctx.store.createGroupTombstoneRecords(group);
  ctx.log.info({ groupId }, 'converted an empty consumer group to a classic group');
  return ctx.writer.append(records);
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
