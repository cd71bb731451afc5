import type { Broker } from '../broker.js';
import { decodeAssignment } from '../coordinator/classic/consumer-protocol.js';
import { decodeConnectAssignment } from './connect-protocol.js';
import type { ConsumerGroup } from '../coordinator/consumer/consumer-group.js';
import type { CommittedOffset } from '../coordinator/offsets/offset-store.js';
import { MEMBER_STATE_NAMES } from '../coordinator/consumer/member.js';

import { expiresIn, type GroupDescription, type GroupHeader, type GroupMemberView, type GroupOffsetView, type GroupSummary, type UncommittedPartitionView } from './views.js';
import { pendingOffsetsOfGroup } from './transactions.js';
import { describeShareGroup, shareGroupHeader, shareGroupSummary } from './share-groups.js';
import { streamsGroupHeader, streamsGroupSummary } from './streams-groups.js';
import { nextTurn, Slicer } from '../util/slices.js';

export type { GroupDescription, GroupMemberView, GroupOffsetView, GroupSummary } from './views.js';

/** Group ids gathered or sorted per turn of the event loop at most (plus `SLICE_BUDGET_MS`), and the budget looked at every `IDS_PER_BUDGET_LOOK`. */
const IDS_PER_SLICE = 1_000;
const IDS_PER_BUDGET_LOOK = 256;

/**
 * The ids of every group `GET /groups` lists: consumer (KIP-848), classic and share (KIP-932)
 * groups and groups known only by committed offsets, sorted, gathered in slices. Issue #16: with
 * 100,000 groups, copying the coordinators' groups into maps to build this held the event loop
 * 55-75 ms, once a second (the console's group watch) and per listing; now each group is looked up
 * when it is summarized. A group created while it gathers may or may not be listed.
 */
async function groupIdsInSlices(broker: Broker, gone: () => boolean): Promise<readonly string[]> {
  let gate = gates.get(broker);
  if (gate === undefined) gates.set(broker, (gate = { running: 0, waiting: [] }));
  if (gate.running < GATHERINGS_AT_ONCE) gate.running++;
  else await new Promise<void>((resolve) => gate.waiting.push(resolve));
  try {
    return gone() ? [] : await gatherGroupIds(broker, gone);
  } finally {
    // The slot goes to the next waiting, if any.
    const next = gate.waiting.shift();
    if (next) next();
    else gate.running--;
  }
}

/**
 * Gatherings of group ids under way at once per broker, at most; the others wait, in order: 300
 * `GET /groups` asked at once each held its 100,000 ids at the same time (1.3 GB of RSS;
 * adversarial trial 27). Each gathering begins after its request, so a group a client made before
 * asking is listed.
 */
const GATHERINGS_AT_ONCE = 2;
const gates = new WeakMap<Broker, { running: number; waiting: Array<() => void> }>();

/** The ids, sorted; none once `gone` says the asker went. */
async function gatherGroupIds(broker: Broker, gone: () => boolean): Promise<readonly string[]> {
  const ids = new Set<string>();
  const slicer = new Slicer(IDS_PER_SLICE, IDS_PER_BUDGET_LOOK);
  for (const source of [broker.consumer.groupIds(), broker.classic.groupIds(), broker.share.groupIds(), broker.streams.groupIds(), broker.offsets.groupIds()]) {
    for (const groupId of source) {
      if (slicer.due()) {
        await nextTurn();
        if (gone()) return [];
      }
      ids.add(groupId);
    }
  }
  // Sorting 100,000 ids takes 4-14 ms: one turn.
  if (slicer.due()) await nextTurn();
  return [...ids].sort();
}

/** One group's summary; null for a group no longer known or a classic group that is Dead. */
function summarize(broker: Broker, groupId: string): GroupSummary | null {
  const sg = broker.share.committedGroup(groupId);
  if (sg) return shareGroupSummary(sg);
  const streamsGroup = broker.streams.committedGroup(groupId);
  if (streamsGroup) return streamsGroupSummary(streamsGroup, broker.offsets.committedCount(groupId));
  // A count, not a read of the offsets: GET /metrics summarizes every group and reads its offsets once, elsewhere.
  const committedPartitions = broker.offsets.committedCount(groupId);
  const cg = broker.consumer.committedGroup(groupId);
  if (cg) {
    return { groupId, type: 'consumer', state: cg.state, protocolType: 'consumer', members: cg.numMembers, committedPartitions, groupEpoch: cg.groupEpoch };
  }
  const g = broker.classic.existingGroup(groupId);
  if (g ? g.state === 'Dead' : committedPartitions === 0) return null;
  return { groupId, type: 'classic', state: g?.state ?? 'Empty', protocolType: g?.protocolType ?? '', members: g?.numMembers ?? 0, committedPartitions, groupEpoch: null };
}

/**
 * The groups known now, ids sorted as `GET /groups` lists them (gathered in slices), and each
 * one's summary when asked (null: a group gone since, or a classic group Dead since): a view that
 * several passes over the groups can share. No ids once `gone` says the asker went (an HTTP
 * client that closed its connection while it waited).
 */
export async function groupsKnownNow(broker: Broker, gone: () => boolean = () => false): Promise<{ ids: readonly string[]; summary: (groupId: string) => GroupSummary | null }> {
  return { ids: await groupIdsInSlices(broker, gone), summary: (groupId) => summarize(broker, groupId) };
}

/** Groups summarized per turn of the event loop at most (plus `SLICE_BUDGET_MS`) by `eachGroupInSlices`. */
const GROUPS_PER_SLICE = 500;

/**
 * Calls `fn` with each group's summary, in `GET /groups` order, yielding a turn of the event loop
 * between slices (issue #16: ten thousand groups held the Kafka port 200 ms per listing). The
 * groups are those known when it begins, each summarized when its slice comes.
 */
export async function eachGroupInSlices(broker: Broker, fn: (group: GroupSummary) => void): Promise<void> {
  const ids = await groupIdsInSlices(broker, () => false);
  const slicer = new Slicer(GROUPS_PER_SLICE);
  for (const groupId of ids) {
    await slicer.next();
    const summary = summarize(broker, groupId);
    if (summary) fn(summary);
  }
}

function assignmentOf(buffer: Buffer, protocolType: string | null): GroupMemberView['assignment'] {
  if (protocolType !== 'consumer') return null;
  const decoded = decodeAssignment(buffer);
  if (!decoded) return buffer.length === 0 ? [] : null;
  return decoded.assignedPartitions.map((tp) => ({ topic: tp.topic, partitions: [...tp.partitions] }));
}

/** ConsumerGroupDescribe's assignment (topic names, sorted partitions), topics sorted by name. */
function namedAssignment(a: { topicPartitions: Array<{ topicName: string; partitions: number[] }> }): Array<{ topic: string; partitions: number[] }> {
  return a.topicPartitions
    .map((tp) => ({ topic: tp.topicName, partitions: [...tp.partitions].sort((x, y) => x - y) }))
    .sort((x, y) => (x.topic < y.topic ? -1 : x.topic > y.topic ? 1 : 0));
}

/** A consumer group's header fields and members, from the coordinator's ConsumerGroupDescribe view. */
function consumerGroupView(broker: Broker, group: ConsumerGroup): Pick<GroupDescription, 'state' | 'groupEpoch' | 'assignmentEpoch' | 'assignor' | 'members'> {
  const d = broker.consumer.describe(group.groupId, false, 0);
  return {
    state: d.groupState,
    groupEpoch: d.groupEpoch,
    assignmentEpoch: d.assignmentEpoch,
    assignor: d.assignorName,
    members: d.members.map((m) => {
      const stored = group.members.get(m.memberId);
      return {
        memberId: m.memberId,
        groupInstanceId: m.instanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        sessionTimeoutMs: stored?.classicMemberMetadata?.sessionTimeoutMs ?? null,
        sessionExpiresInMs: expiresIn(broker, broker.consumer.sessionDueAt(group.groupId, m.memberId)),
        upgraded: stored ? stored.classicMemberMetadata === null : null,
        rebalanceTimeoutMs: stored?.rebalanceTimeoutMs ?? -1,
        assignment: namedAssignment(m.assignment),
        memberEpoch: m.memberEpoch,
        memberState: stored ? (MEMBER_STATE_NAMES[stored.state] ?? 'unknown') : null,
        rackId: m.rackId,
        subscribedTopicNames: [...m.subscribedTopicNames],
        subscribedTopicRegex: m.subscribedTopicRegex === null || m.subscribedTopicRegex === '' ? null : m.subscribedTopicRegex,
        targetAssignment: namedAssignment(m.targetAssignment),
        connectAssignment: null,
        streamsTasks: null,
      };
    }),
  };
}

export type { GroupHeader } from './views.js';

/**
 * A group's type, state, generation or epochs and members, as `describeGroup` has them, without
 * reading its committed offsets (the console's group watch looks at every group each second; a
 * group's offsets can be tens of thousands) nor a share group's share partitions; null when
 * `describeGroup` would be.
 */
export function describeGroupHeader(broker: Broker, groupId: string): GroupHeader | null {
  const shareGroup = shareGroupHeader(broker, groupId) ?? streamsGroupHeader(broker, groupId);
  if (shareGroup) return shareGroup;
  const cg = broker.consumer.committedGroup(groupId);
  const g = cg ? undefined : broker.classic.existingGroup(groupId);
  if (!cg && (!g || g.state === 'Dead') && broker.offsets.committedCount(groupId) === 0 && broker.offsets.pendingOffsetsOf(groupId).length === 0) return null;
  const place = { offsetsTopicPartition: broker.groupLog.partitionFor(groupId), coordinatorId: broker.cluster.coordinatorOf(groupId) };
  if (cg) {
    const view = consumerGroupView(broker, cg);
    return { groupId, type: 'consumer', state: view.state, protocolType: 'consumer', protocol: null, generationId: -1, leaderId: null, groupEpoch: view.groupEpoch, assignmentEpoch: view.assignmentEpoch, assignor: view.assignor, members: view.members, sharePartitions: null, ...place };
  }
  const members: GroupMemberView[] = (g?.allMembers() ?? []).map((m) => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    sessionTimeoutMs: m.sessionTimeoutMs,
    sessionExpiresInMs: expiresIn(broker, broker.classic.sessionDueAt(groupId, m.memberId)),
    upgraded: null,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    assignment: assignmentOf(m.assignment, g?.protocolType ?? null),
    connectAssignment: g?.protocolType === 'connect' ? decodeConnectAssignment(m.assignment) : null,
    streamsTasks: null,
    memberEpoch: null,
    memberState: null,
    rackId: null,
    subscribedTopicNames: null,
    subscribedTopicRegex: null,
    targetAssignment: null,
  }));
  return {
    groupId,
    type: 'classic',
    state: g?.state ?? 'Empty',
    protocolType: g?.protocolType ?? '',
    protocol: g?.protocolName ?? null,
    // A group known only by its offsets is, to Kafka, the simple group of generation 0 its replay creates.
    generationId: g?.generationId ?? 0,
    leaderId: g?.leaderId ?? null,
    groupEpoch: null,
    assignmentEpoch: null,
    assignor: null,
    members,
    sharePartitions: null,
    ...place,
  };
}

/** The member each assigned partition belongs to: `ownerOf(topic, partition)`, null for none. */
export function partitionOwners(members: readonly GroupMemberView[]): (topic: string, partition: number) => string | null {
  const byTopic = new Map<string, Map<number, string>>();
  for (const m of members) {
    for (const a of m.assignment ?? []) {
      let owners = byTopic.get(a.topic);
      if (!owners) byTopic.set(a.topic, (owners = new Map()));
      for (const p of a.partitions) owners.set(p, m.memberId);
    }
  }
  return (topic, partition) => byTopic.get(topic)?.get(partition) ?? null;
}

/** A group with members, assignments, committed offsets, log-end offsets and lag; null when unknown. */
export function describeGroup(broker: Broker, groupId: string): GroupDescription | null {
  const header = describeGroupHeader(broker, groupId);
  if (!header) return null;
  if (header.type === 'share') return describeShareGroup(broker, groupId);
  const views = new OffsetViews(broker, header.members);
  return views.description(broker, header, broker.offsets.offsetsOf(groupId).map((o) => views.of(o)));
}

/** The group's total lag (`describeGroup`'s `totalLag`) without formatting its offsets. */
export function totalLagOf(broker: Broker, groupId: string): number {
  const shareGroup = describeShareGroup(broker, groupId);
  if (shareGroup) return shareGroup.totalLag;
  const logEnds = new LogEndOffsets(broker);
  let total = 0;
  for (const { topic, partition, offset } of broker.offsets.offsetsOf(groupId)) {
    const logEnd = logEnds.of(topic, partition);
    if (logEnd !== null) total += Math.max(0, logEnd - Number(offset.committedOffset));
  }
  return total;
}

/** Offsets formatted per turn of the event loop at most (plus `SLICE_BUDGET_MS`) by `describeGroupInSlices`. */
const OFFSETS_PER_SLICE = 2000;

/**
 * `describeGroup` for the admin API's answers: the offsets (read when it begins) formatted in
 * slices, with the log-end offsets as each slice finds them. A group of 36,000 offsets held the
 * Kafka port 60-110 ms per `GET /groups/{id}`, and the console asks again after each change
 * (adversarial trial, session 21).
 */
export async function describeGroupInSlices(broker: Broker, groupId: string): Promise<GroupDescription | null> {
  const header = describeGroupHeader(broker, groupId);
  if (!header) return null;
  if (header.type === 'share') return describeShareGroup(broker, groupId);
  const committed = broker.offsets.offsetsOf(groupId);
  const views = new OffsetViews(broker, header.members);
  const offsets: GroupOffsetView[] = new Array<GroupOffsetView>(committed.length);
  const slicer = new Slicer(OFFSETS_PER_SLICE);
  for (let i = 0; i < committed.length; i++) {
    await slicer.next();
    offsets[i] = views.of(committed[i]!);
  }
  return views.description(broker, header, offsets);
}

function byTopicPartition(a: { topic: string; partition: number }, b: { topic: string; partition: number }): number {
  return a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1;
}

/** Formats a group's committed offsets: log-end offset, lag, commit time, owner; the total lag. */
class OffsetViews {
  private readonly ownerOf: (topic: string, partition: number) => string | null;
  private readonly logEnds: LogEndOffsets;
  private readonly isoOf = new IsoTimes();
  private totalLag = 0;

  constructor(broker: Broker, members: readonly GroupMemberView[]) {
    this.ownerOf = partitionOwners(members);
    this.logEnds = new LogEndOffsets(broker);
  }

  of({ topic, partition, offset }: { topic: string; partition: number; offset: CommittedOffset }): GroupOffsetView {
    const logEndOffset = this.logEnds.of(topic, partition);
    const lag = logEndOffset === null ? null : Math.max(0, logEndOffset - Number(offset.committedOffset));
    if (lag !== null) this.totalLag += lag;
    return {
      topic,
      partition,
      committedOffset: Number(offset.committedOffset),
      logEndOffset,
      lag,
      leaderEpoch: offset.leaderEpoch,
      metadata: offset.metadata,
      commitTimestamp: this.isoOf.of(offset.commitTimestamp),
      memberId: this.ownerOf(topic, partition),
    };
  }

  /**
   * The description: `header`, the offsets and the partitions members own without one sorted by
   * topic and partition, the pending transactional offsets.
   */
  description(broker: Broker, header: GroupHeader, offsets: GroupOffsetView[]): GroupDescription {
    offsets.sort(byTopicPartition);
    const committed = new Set(offsets.map((o) => `${o.topic}\u0000${o.partition}`));
    const uncommittedPartitions: UncommittedPartitionView[] = header.members
      .flatMap((m) => (m.assignment ?? []).flatMap((a) => a.partitions.map((partition) => ({ topic: a.topic, partition, memberId: m.memberId }))))
      .filter((p) => !committed.has(`${p.topic}\u0000${p.partition}`))
      .map((p) => ({ topic: p.topic, partition: p.partition, logEndOffset: this.logEnds.of(p.topic, p.partition), memberId: p.memberId }))
      .sort(byTopicPartition);
    const { offsetsTopicPartition, coordinatorId, sharePartitions, ...rest } = header;
    return { ...rest, offsets, uncommittedPartitions, pendingTransactionalOffsets: pendingOffsetsOfGroup(broker, header.groupId), totalLag: this.totalLag, sharePartitions, offsetsTopicPartition, coordinatorId };
  }
}

/** Log-end offsets of partitions (null: topic or partition gone), the topic looked up once per run of offsets of one topic. */
export class LogEndOffsets {
  private topic: string | null = null;
  private partitions: ReadonlyArray<{ logEndOffset: bigint }> = [];

  constructor(private readonly broker: Broker) {}

  of(topic: string, partition: number): number | null {
    if (topic !== this.topic) {
      this.topic = topic;
      this.partitions = this.broker.topics.get(topic)?.partitions ?? [];
    }
    const p = this.partitions[partition];
    return p === undefined ? null : Number(p.logEndOffset);
  }
}

/** ISO 8601 texts of ms timestamps, the last one kept: the offsets of one commit share theirs. */
class IsoTimes {
  private ms = -1n;
  private text = '';

  of(ms: bigint): string {
    if (ms !== this.ms) {
      this.ms = ms;
      this.text = new Date(Number(ms)).toISOString();
    }
    return this.text;
  }
}
