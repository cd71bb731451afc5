/**
 * Share groups (KIP-932) as the admin API shows them: the group from the share group coordinator
 * (ShareGroupDescribe's view: epochs, the `simple` assignor, members with subscriptions and
 * assignments) and, per share partition the group has initialized, where its records stand: the
 * share-partition start and end offsets and the in-flight records by state. A share partition
 * loaded by a share fetch answers from memory (acquired records included); one not loaded since the
 * start answers from its persisted state in `__share_group_state` (nothing acquired).
 */
import type { Broker } from '../broker.js';
import type { ShareGroup } from '../coordinator/share/share-group.js';
import { RecordState } from '../share/state/state-batches.js';
import { expiresIn, type GroupDescription, type GroupHeader, type GroupSummary, type SharePartitionView } from './views.js';

/** A share group's `GET /groups` entry. */
export function shareGroupSummary(group: ShareGroup): GroupSummary {
  return { groupId: group.groupId, type: 'share', state: group.state, protocolType: 'share', members: group.members.size, committedPartitions: 0, groupEpoch: group.groupEpoch };
}

/**
 * A share group as `describeGroupHeader` has groups: type, state, epochs and members, without its
 * share partitions (`sharePartitions` null): the console's group watch looks at every group each
 * second, and a share group's 9,000 share partitions took it ~20-30 ms per look. Null when
 * `groupId` is no share group.
 */
export function shareGroupHeader(broker: Broker, groupId: string): GroupHeader | null {
  const group = broker.share.committedGroup(groupId);
  if (!group) return null;
  const d = broker.share.describe(groupId, false, 0);
  return {
    groupId,
    type: 'share',
    state: d.groupState,
    protocolType: 'share',
    protocol: null,
    generationId: -1,
    leaderId: null,
    groupEpoch: d.groupEpoch,
    assignmentEpoch: d.assignmentEpoch,
    assignor: d.assignorName,
    members: d.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: null,
      clientId: m.clientId,
      clientHost: m.clientHost,
      sessionTimeoutMs: null,
      sessionExpiresInMs: expiresIn(broker, broker.share.sessionDueAt(groupId, m.memberId)),
      upgraded: null,
      rebalanceTimeoutMs: -1,
      assignment: m.assignment.topicPartitions
        .map((tp) => ({ topic: tp.topicName, partitions: [...tp.partitions].sort((a, b) => a - b) }))
        .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0)),
      memberEpoch: m.memberEpoch,
      memberState: null,
      rackId: m.rackId,
      subscribedTopicNames: [...m.subscribedTopicNames].sort(),
      subscribedTopicRegex: null,
      targetAssignment: null,
      connectAssignment: null,
        streamsTasks: null,
    })),
    sharePartitions: null,
    offsetsTopicPartition: broker.groupLog.partitionFor(groupId),
    coordinatorId: broker.cluster.coordinatorOf(groupId),
  };
}

/** `GET /groups/{id}` of a share group: its header with its share partitions and their lag; null when `groupId` is no share group. */
export function describeShareGroup(broker: Broker, groupId: string): GroupDescription | null {
  const header = shareGroupHeader(broker, groupId);
  if (!header) return null;
  const sharePartitions = sharePartitionViews(broker, groupId);
  return {
    ...header,
    // Share groups take no offset commits, transactional or not.
    offsets: [],
    uncommittedPartitions: [],
    pendingTransactionalOffsets: [],
    totalLag: sharePartitions.reduce((sum, p) => sum + (p.lag ?? 0), 0),
    sharePartitions,
  };
}

/** The group's initialized share partitions, by topic name and partition. */
function sharePartitionViews(broker: Broker, groupId: string): SharePartitionView[] {
  const initialized = broker.share.committedGroup(groupId)?.stateMetadata?.initialized ?? new Map();
  const views: SharePartitionView[] = [];
  for (const [topicId, init] of initialized) {
    for (const partition of [...init.partitions].sort((a, b) => a - b)) {
      const logEnd = broker.topics.getById(topicId)?.partition(partition)?.logEndOffset;
      const logEndOffset = logEnd === undefined ? null : Number(logEnd);
      const live = broker.shares.get(groupId, topicId, partition);
      let view: Omit<SharePartitionView, 'topic' | 'partition' | 'logEndOffset' | 'lag'>;
      if (live) {
        view = { startOffset: Number(live.spso), endOffset: Number(live.speo), inFlight: live.counts() };
      } else {
        const state = broker.shareCoordinator.stateOf(groupId, topicId, partition);
        const inFlight = { acquired: 0, available: 0, acknowledged: 0, archived: 0 };
        let end = state === undefined || state.startOffset < 0n ? null : Number(state.startOffset);
        for (const b of state?.stateBatches ?? []) {
          const from = b.firstOffset > state!.startOffset ? b.firstOffset : state!.startOffset;
          if (b.lastOffset < from) continue;
          const n = Number(b.lastOffset - from + 1n);
          if (b.deliveryState === RecordState.ACKNOWLEDGED) inFlight.acknowledged += n;
          else if (b.deliveryState === RecordState.ARCHIVED) inFlight.archived += n;
          else inFlight.available += n;
          end = Math.max(end ?? 0, Number(b.lastOffset));
        }
        view = { startOffset: state === undefined ? null : Number(state.startOffset), endOffset: end, inFlight };
      }
      // Records not yet delivered, or delivered and not done with (`DescribeShareGroupOffsets` v1's lag).
      const done = view.inFlight.acknowledged + view.inFlight.archived;
      const lag = logEndOffset === null || view.startOffset === null || view.startOffset < 0 ? null : Math.max(0, logEndOffset - view.startOffset - done);
      views.push({ topic: init.name, partition, logEndOffset, lag, ...view });
    }
  }
  return views.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
}
