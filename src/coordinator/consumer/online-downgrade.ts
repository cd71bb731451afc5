/**
 * Online downgrade of a non-empty consumer group to a classic group (KIP-848): Kafka 4.3's
 * `GroupMetadataManager.validateOnlineDowngradeWithFencedMembers`,
 * `validateOnlineDowngradeWithReplacedMember` and `convertToClassicGroup`. The classic half
 * (`ClassicGroup.fromConsumerGroup`) is the classic coordinator's `prepareDowngrade`.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { CoordinatorRecord } from '../records.js';
import { DowngradeError, type ClassicDowngradeMember, type PreparedDowngrade } from '../classic/from-consumer-group.js';
import { toConsumerProtocolPartitions, type Assignment } from './assignment.js';
import type { ConsumerGroup } from './consumer-group.js';
import type { ConsumerContext } from './context.js';
import { ConsumerGroupError } from './errors.js';
import { useClassicProtocol, type ConsumerGroupMember } from './member.js';

/** `ConsumerGroupMigrationPolicy.isDowngradeEnabled`. */
function isDowngradeEnabled(ctx: ConsumerContext): boolean {
  const policy = ctx.settings.migrationPolicy;
  return policy === 'bidirectional' || policy === 'downgrade';
}

/** `group.max.size`, or null when the classic coordinator cannot take a downgraded group. */
function classicGroupMaxSize(ctx: ConsumerContext): number | null {
  const classic = ctx.classic;
  return classic?.prepareDowngrade && classic.classicGroupMaxSize ? classic.classicGroupMaxSize() : null;
}

/** Whether the online downgrade is on and a group of `size` members fits a classic group (the last checks of both validations). */
function downgradeAllowed(ctx: ConsumerContext, group: ConsumerGroup, size: number, maxSize: number): boolean {
  if (!isDowngradeEnabled(ctx)) {
    ctx.log.info({ groupId: group.groupId }, 'cannot downgrade the consumer group to a classic group because the online downgrade is disabled');
    return false;
  }
  if (size > maxSize) {
    ctx.log.info({ groupId: group.groupId, size, maxSize }, 'cannot downgrade the consumer group to a classic group because its size is greater than the classic group max size');
    return false;
  }
  return true;
}

/**
 * `validateOnlineDowngradeWithFencedMembers`: once `fenced` are gone, every remaining member uses
 * the classic protocol (`allMembersUseClassicProtocolExcept(Set)`), at least one remains, the
 * migration policy allows downgrades and the rest fits in `group.max.size`.
 */
export function validateOnlineDowngradeWithFencedMembers(ctx: ConsumerContext, group: ConsumerGroup, fenced: readonly ConsumerGroupMember[]): boolean {
  const maxSize = classicGroupMaxSize(ctx);
  if (maxSize === null) return false;
  const fencedIds = new Set(fenced.map((m) => m.memberId));
  for (const m of group.members.values()) if (!fencedIds.has(m.memberId) && !useClassicProtocol(m)) return false;
  const remaining = group.numMembers - fenced.length;
  if (remaining <= 0) {
    ctx.log.debug({ groupId: group.groupId }, "skip downgrading the consumer group to a classic group because it's empty");
    return false;
  }
  return downgradeAllowed(ctx, group, remaining, maxSize);
}

/**
 * `validateOnlineDowngradeWithReplacedMember`: `replaced` is the only member not using the
 * classic protocol (`allMembersUseClassicProtocolExcept(member)`), the migration policy allows
 * downgrades and the group fits in `group.max.size`.
 */
export function validateOnlineDowngradeWithReplacedMember(ctx: ConsumerContext, group: ConsumerGroup, replaced: ConsumerGroupMember): boolean {
  const maxSize = classicGroupMaxSize(ctx);
  if (maxSize === null) return false;
  const classicMembers = [...group.members.values()].filter(useClassicProtocol).length;
  if (classicMembers !== group.numMembers - 1 || useClassicProtocol(replaced)) return false;
  return downgradeAllowed(ctx, group, group.numMembers, maxSize);
}

/**
 * The first half of `convertToClassicGroup` (`ClassicGroup.fromConsumerGroup`), with nothing
 * changed yet: the classic group keeps every member but `leaving` and but the static member
 * `joining` replaces, then `joining` with that member's target; generation = the group epoch.
 * A member's unreadable ConsumerProtocol version is GROUP_ID_NOT_FOUND ("Cannot downgrade the
 * classic group ..."), members sharing no protocol an unexpected error, as in Kafka.
 */
export function prepareDowngrade(ctx: ConsumerContext, group: ConsumerGroup, leaving: ReadonlySet<string>, joining: ConsumerGroupMember | null): PreparedDowngrade {
  const { groupId } = group;
  const members: ClassicDowngradeMember[] = [];
  for (const m of group.members.values()) {
    if (leaving.has(m.memberId) || (joining?.instanceId != null && m.instanceId === joining.instanceId)) continue;
    members.push(downgradeMember(ctx, m, group.targetOf(m.memberId)));
  }
  if (joining) {
    const replaced = joining.instanceId === null ? undefined : group.staticMember(joining.instanceId);
    if (!replaced) throw new Error('joiningMember must be a static member when not null.');
    members.push(downgradeMember(ctx, joining, group.targetOf(replaced.memberId)));
  }
  try {
    return ctx.classic!.prepareDowngrade!({ groupId, generationId: group.groupEpoch, members });
  } catch (err) {
    if (!(err instanceof DowngradeError)) throw err;
    if (err.schema) {
      ctx.log.warn({ groupId, err: err.message }, 'cannot downgrade the consumer group: fail to parse the consumer protocol');
      throw new ConsumerGroupError(ErrorCode.GROUP_ID_NOT_FOUND, `Cannot downgrade the classic group ${groupId}: ${err.message}.`);
    }
    ctx.log.error({ groupId, err: err.message }, 'cannot downgrade the consumer group');
    throw new ConsumerGroupError(ErrorCode.UNKNOWN_SERVER_ERROR, err.message);
  }
}

function downgradeMember(ctx: ConsumerContext, m: ConsumerGroupMember, target: Assignment): ClassicDowngradeMember {
  const classic = m.classicMemberMetadata;
  if (classic === null) throw new Error(`member ${m.memberId} does not use the classic protocol`);
  return {
    memberId: m.memberId,
    groupInstanceId: m.instanceId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    sessionTimeoutMs: classic.sessionTimeoutMs,
    supportedProtocols: classic.supportedProtocols.map((p) => ({ name: p.name, metadata: p.metadata })),
    targetAssignment: toConsumerProtocolPartitions(target, (id) => ctx.topics.getById(id)?.name),
  };
}

/**
 * The second half of `convertToClassicGroup`: the consumer group's tombstones
 * (`createGroupTombstoneRecords`; applying record 3's tombstone stops the group's timers), then
 * the classic group's GroupMetadata record; the classic group is installed (sessions started,
 * `prepareRebalance` when a reason is given). The records replay at start into the classic group.
 */
export function convertToClassicGroup(
  ctx: ConsumerContext,
  group: ConsumerGroup,
  prepared: PreparedDowngrade,
  prepareRebalanceReason: string | null,
  records: CoordinatorRecord[],
): void {
  records.push(...ctx.store.createGroupTombstoneRecords(group));
  records.push(prepared.record);
  prepared.install(prepareRebalanceReason);
}
