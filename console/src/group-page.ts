/**
 * `#/groups/<id>`: members, partitions (committed offset, log-end offset, lag, last commit), lag
 * chart, timeline, and the group's requests that failed (errors answered, fault rules fired).
 */
import { api, ApiError } from './api.js';
import { fill, h, partitions, requestTable, table, time } from './dom.js';
import { LagChart } from './lag-chart.js';
import type { Assignment, ConnectAssignmentView, ConnectTasksView, Group, GroupHistory, GroupMember, GroupOffsetView, RequestEntry, TimelineEvent, UncommittedPartitionView } from './types.js';
import type { Page } from './page.js';

/** Partitions in `a` that are not in `b` (a member's partitions still to revoke: owned, not in its target). */
function minus(a: Assignment | null, b: Assignment | null): Assignment {
  const keep = new Set((b ?? []).flatMap((t) => t.partitions.map((p) => `${t.topic}\u0000${p}`)));
  return (a ?? []).map((t) => ({ topic: t.topic, partitions: t.partitions.filter((p) => !keep.has(`${t.topic}\u0000${p}`)) })).filter((t) => t.partitions.length > 0);
}

function describeEvent(e: TimelineEvent): string {
  switch (e.kind) {
    case 'seen':
      return `first seen: ${e.state}, generation/epoch ${e.generation}, ${e.members} member(s)${e.clientIds.length ? `: ${e.clientIds.join(', ')}` : ''}`;
    case 'rebalance':
      return `rebalance to generation/epoch ${e.generation} (cause: ${e.cause}${e.detail ? `; ${e.detail}` : ''}), ${e.members} member(s)`;
    case 'member-joined':
      return `member joined: ${e.clientId} (${e.memberId})`;
    case 'member-left':
      return `member left (${e.cause}): ${e.clientId} (${e.memberId})`;
    case 'state':
      return `state ${e.from} -> ${e.to}${e.implied ? ' (between two looks: not seen, implied by the next)' : ''}`;
    case 'coordinator':
      return `coordinator moved from broker ${e.from} to broker ${e.to}`;
    case 'type':
      return `converted from a ${e.from} group to a ${e.to} group`;
    case 'commit':
      if (e.requests === 0) return `committed by a transaction's COMMIT marker: ${e.partitions.join(', ')}`;
      return `${e.requests} commit request(s), last by ${e.clientId}${e.error ? ` (${e.error})` : ''}${e.partitions.length ? `: ${e.partitions.join(', ')}` : ''}`;
    case 'deleted':
      return 'group deleted';
  }
}

/** A Kafka Connect worker's assignment: `conn (connector, tasks 0, 1)`, then what it must revoke. */
function connectWork(a: ConnectAssignmentView): string {
  const list = (entries: ConnectTasksView[]): string =>
    entries.map((e) => `${e.connector} (${[...(e.runsConnector ? ['connector'] : []), ...(e.tasks.length ? [`tasks ${e.tasks.join(', ')}`] : [])].join(', ') || 'nothing'})`).join('; ') || 'nothing';
  return `${list(a.assigned)}${a.revoked && a.revoked.length > 0 ? ` · revoked: ${list(a.revoked)}` : ''}`;
}

/** Failed requests a group's page lists. */
const FAILED_SHOWN = 20;

export function groupPage(root: HTMLElement, groupId: string): Page {
  // The query form: a path cannot name the groups `.` and `..` (URL parsing folds dot segments).
  const query = `?groupId=${encodeURIComponent(groupId)}`;
  const body = h('div');
  const chartBox = h('div', { id: 'lag-chart', class: 'chart' });
  const timeline = h('div');
  const failures = h('div', { class: 'scroll' });
  // Under a stream of commits their events would push the rebalances off the list: they can be hidden.
  let lastHistory: GroupHistory | null = null;
  const showCommits = h('input', { type: 'checkbox', id: 'timeline-commits', checked: true, onchange: () => {
      if (lastHistory) drawTimeline(lastHistory);
    },
  });
  const drawTimeline = (history: GroupHistory): void => {
    const events = history.events.filter((e) => showCommits.checked || e.kind !== 'commit').reverse();
    fill(timeline, h('ol', { id: 'timeline', class: 'timeline' }, events.map((e) => h('li', { class: e.kind }, h('time', {}, time(e.at)), ' ', describeEvent(e)))));
  };
  fill(
    root,
    h('h1', {}, 'Group ', h('span', { id: 'group-id' }, groupId)),
    body,
    h('h2', {}, 'Lag over time'),
    chartBox,
    h('h2', {}, 'Timeline'),
    h('p', { class: 'filters' }, h('label', {}, showCommits, ' commits')),
    timeline,
    h('h2', {}, `Failed requests (newest ${FAILED_SHOWN})`),
    h('p', { class: 'meta' }, 'Requests naming this group answered with an error, or on which a fault rule fired, or closed without an answer (the request log keeps the last 1000 failures).'),
    failures,
  );
  const chart = new LagChart(chartBox);
  return {
    // A fault rule firing on the group's requests changes no group state: the faults notice too; an
    // advance of a manual clock moves every member's time to session expiry.
    wants: (notice) => notice.groups.includes(groupId) || notice.faults || notice.clock,
    async refresh() {
      let group: Group;
      let history: GroupHistory | null;
      let failed: RequestEntry[] | null;
      try {
        [group, history, failed] = await Promise.all([
          api.get<Group>(`/group${query}`),
          api.get<GroupHistory>(`/group/history${query}`).catch(() => null),
          api.get<{ requests: RequestEntry[] }>(`/requests?${new URLSearchParams({ group: groupId, failed: 'true', limit: String(FAILED_SHOWN) })}`).then((r) => r.requests, () => null),
        ]);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) {
          fill(body, h('p', { class: 'empty' }, `No group "${groupId}" (yet).`));
          return;
        }
        throw err;
      }
      const consumer = group.type === 'consumer';
      const share = group.type === 'share';
      const streams = group.type === 'streams';
      const clientOf = new Map(group.members.map((m) => [m.memberId, m.clientId]));
      const committer = (key: string, owner: string | null): string => {
        const id = history?.lastCommitBy[key] ?? owner;
        return id ? `${clientOf.get(id) ?? '(gone)'} ${id}` : '-';
      };
      fill(
        body,
        h('p', { class: 'meta', id: 'group-meta' },
          `${group.type} group · state ${group.state} · `,
          consumer || share || streams ? `group epoch ${group.groupEpoch} · assignment epoch ${group.assignmentEpoch} · assignor ${group.assignor ?? '-'}` : `generation ${group.generationId} · protocol type ${group.protocolType || '-'} · protocol ${group.protocol ?? '-'} · leader ${group.leaderId ?? '-'}`,
          ` · total lag ${group.totalLag} · records in __consumer_offsets-${group.offsetsTopicPartition}`),
        h('h2', {}, `Members (${group.members.length})`),
        share
          ? shareMembersTable(group)
          : streams
          ? streamsMembersTable(group)
          : table(
              'members',
              consumer
                ? ['member id', 'instance id', 'client id', 'host', 'protocol', 'epoch', 'session expires in', 'assigned', 'pending revocation', 'target']
                : ['member id', 'instance id', 'client id', 'host', 'generation', 'session expires in', 'assigned'],
              group.members.map((m) =>
                consumer
                  ? [m.memberId, m.groupInstanceId ?? '-', m.clientId, m.clientHost, protocolOf(m), m.memberEpoch ?? '-', expiresIn(m), partitions(m.assignment), partitions(minus(m.assignment, m.targetAssignment)), partitions(m.targetAssignment)]
                  : [m.memberId, m.groupInstanceId ?? '-', m.clientId, m.clientHost, group.generationId, expiresIn(m), m.connectAssignment ? connectWork(m.connectAssignment) : partitions(m.assignment)],
              ),
              'no members',
            ),
        h('h2', {}, share ? 'Share partitions' : 'Partitions'),
        share
          ? sharePartitionsTable(group)
          : table(
              'partitions',
              ['topic', 'partition', 'committed offset', 'log-end offset', 'lag', 'last commit', 'committing member'],
              partitionRows(group).map((o) =>
                'committedOffset' in o
                  ? [o.topic, o.partition, o.committedOffset, o.logEndOffset ?? '-', o.lag ?? '-', time(o.commitTimestamp), committer(`${o.topic}-${o.partition}`, o.memberId)]
                  : [o.topic, o.partition, '-', o.logEndOffset ?? '-', '-', '-', committer(`${o.topic}-${o.partition}`, o.memberId)],
              ),
              'no committed offsets or assigned partitions',
            ),
        // Offsets sent inside open transactions (TxnOffsetCommit): committed only by their COMMIT marker.
        group.pendingTransactionalOffsets.length > 0 && h('h2', {}, 'Pending transactional offsets'),
        group.pendingTransactionalOffsets.length > 0 &&
          table(
            'pending-offsets',
            ['topic', 'partition', 'offset', 'transactional id', 'producer id'],
            group.pendingTransactionalOffsets.map((o) => [o.topic, o.partition, o.offset, o.transactionalId ?? '-', o.producerId]),
          ),
      );
      fill(failures, failed === null ? h('p', { class: 'empty' }, 'The request log could not be read.') : requestTable('group-failures', failed, 'none'));
      if (history) {
        chart.update(history.lag, share ? 'A share group commits no offsets: its lag is per share partition, above.' : 'No lag sample yet: the chart starts at the group\'s first committed offset.');
        lastHistory = history;
        drawTimeline(history);
      }
    },
    dispose: () => chart.dispose(),
  };
}

/** A streams group's members (KIP-1071): process, epoch and state, active and standby tasks (`<subtopology>_<partition>`). */
function streamsMembersTable(group: Group): HTMLElement {
  return table(
    'members',
    ['member id', 'client id', 'host', 'process', 'epoch', 'state', 'session expires in', 'active tasks', 'standby tasks'],
    group.members.map((m) => [
      m.memberId,
      m.clientId,
      m.clientHost,
      m.streamsTasks?.processId ?? '-',
      m.memberEpoch ?? '-',
      m.memberState ?? '-',
      expiresIn(m),
      m.streamsTasks?.active.join(' ') || '-',
      m.streamsTasks?.standby.join(' ') || '-',
    ]),
    'no members',
  );
}

/**
 * How long until the member's session expires unless it heartbeats, as of the page's last look
 * (server clock: a manual clock's stands still until advanced); `-` without a session timer.
 */
function expiresIn(m: GroupMember): string {
  return m.sessionExpiresInMs === null ? '-' : `${(m.sessionExpiresInMs / 1000).toFixed(1)} s`;
}

/**
 * A consumer group member's protocol: `consumer` (KIP-848 heartbeats) or `classic` (a member still
 * joining with JoinGroup/SyncGroup inside the group, KIP-848's upgrade path; Kafka's
 * `MemberDescription.upgraded()` false, the CLI's UPGRADED column).
 */
function protocolOf(m: GroupMember): string {
  return m.upgraded === false ? 'classic' : 'consumer';
}

/** A share group's members: subscriptions and the partitions they share. */
function shareMembersTable(group: Group): HTMLElement {
  return table(
    'members',
    ['member id', 'client id', 'host', 'epoch', 'session expires in', 'subscribed', 'assigned'],
    group.members.map((m) => [m.memberId, m.clientId, m.clientHost, m.memberEpoch ?? '-', expiresIn(m), (m.subscribedTopicNames ?? []).join(', ') || '-', partitions(m.assignment)]),
    'no members',
  );
}

/**
 * The committed offsets, and the partitions members own without one (as `kafka-consumer-groups
 * --describe` lists them: committed offset and lag `-`), by topic and partition.
 */
function partitionRows(group: Group): Array<GroupOffsetView | UncommittedPartitionView> {
  return [...group.offsets, ...group.uncommittedPartitions].sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
}

/** A share group's share partitions: start and end offsets, lag and in-flight records by state. */
function sharePartitionsTable(group: Group): HTMLElement {
  return table(
    'partitions',
    ['topic', 'partition', 'start offset', 'end offset', 'log-end offset', 'lag', 'acquired', 'available', 'acknowledged', 'archived'],
    (group.sharePartitions ?? []).map((p) => [p.topic, p.partition, p.startOffset ?? '-', p.endOffset ?? '-', p.logEndOffset ?? '-', p.lag ?? '-', p.inFlight.acquired, p.inFlight.available, p.inFlight.acknowledged, p.inFlight.archived]),
    'no initialized share partitions',
  );
}
