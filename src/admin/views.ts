/**
 * The shapes of what the admin API answers for groups, the overview and the console's history,
 * with no imports: the server builds them (groups.ts, overview.ts, group-watch.ts) and the web
 * console (console/src) reads them, type-only, from this one file.
 */

/** One group in `GET /groups`. */
export interface GroupSummary {
  groupId: string;
  /** `classic` (JoinGroup/SyncGroup groups and standalone committers), `consumer` (KIP-848 groups) or `share` (KIP-932). */
  type: string;
  state: string;
  protocolType: string;
  members: number;
  /** Partitions with a committed offset. */
  committedPartitions: number;
  /** Consumer groups: the group epoch; null for classic groups. */
  groupEpoch: number | null;
}

/** Ms from the server clock's now until `dueAt` (0 once due), null without one. */
export function expiresIn(broker: { time: { now(): number } }, dueAt: number | undefined): number | null {
  return dueAt === undefined ? null : Math.max(0, dueAt - broker.time.now());
}

export interface GroupMemberView {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /**
   * Classic members, also those inside a consumer group (their JoinGroup's session timeout); null
   * for consumer-protocol members (the session timeout is the group's).
   */
  sessionTimeoutMs: number | null;
  /**
   * How long until the member's session expires unless it heartbeats, on the server clock (ms; a
   * manual clock stands still until advanced); null when no session timer runs for it.
   */
  sessionExpiresInMs: number | null;
  /**
   * Consumer-group members: true when the member uses the consumer protocol (KIP-848), false for a
   * classic member inside a consumer group (Kafka's `MemberDescription.upgraded()`); null in
   * classic groups.
   */
  upgraded: boolean | null;
  rebalanceTimeoutMs: number;
  /**
   * Classic members: the decoded ConsumerProtocol assignment (protocol type `consumer`), null when
   * not readable. Consumer-group members: the partitions the member owns, including those still
   * pending revocation (as ConsumerGroupDescribe reports them).
   */
  assignment: Array<{ topic: string; partitions: number[] }> | null;
  /**
   * Classic members of protocol type `connect` (Kafka Connect workers): the connectors and tasks
   * their leader assigned them, and (incremental cooperative) revoked; null otherwise or before
   * the member's SyncGroup.
   */
  connectAssignment: ConnectAssignmentView | null;
  /**
   * Streams-group members only (KIP-1071): their process, the active and standby tasks they own and
   * those of their target assignment (`<subtopology>_<partition>`); null otherwise.
   */
  streamsTasks: { processId: string; active: string[]; standby: string[]; targetActive: string[]; targetStandby: string[] } | null;
  /** Consumer-group members (null for classic members): the member epoch. */
  memberEpoch: number | null;
  /** Consumer-group members: `stable`, `unrevoked_partitions`, `unreleased_partitions`, `unknown`. */
  memberState: string | null;
  rackId: string | null;
  /** Consumer-group members: subscribed topic names (sorted). */
  subscribedTopicNames: string[] | null;
  /** Consumer-group members: the subscribed regex, or null when subscribed by names. */
  subscribedTopicRegex: string | null;
  /** Consumer-group members: the target assignment the member reconciles towards. */
  targetAssignment: Array<{ topic: string; partitions: number[] }> | null;
}

export interface GroupOffsetView {
  topic: string;
  partition: number;
  committedOffset: number;
  /** Log-end offset of the partition (null when the topic or partition is gone). */
  logEndOffset: number | null;
  /** logEndOffset - committedOffset (null when unknown). */
  lag: number | null;
  leaderEpoch: number;
  metadata: string;
  /** Commit time (ISO 8601, server clock). */
  commitTimestamp: string;
  /** Owner per the current assignment, or null. */
  memberId: string | null;
}

/** An offset sent in a transaction that has no marker yet: invisible to OffsetFetch until the commit. */
export interface PendingOffsetView {
  topic: string;
  partition: number;
  offset: number;
  leaderEpoch: number;
  metadata: string;
  producerId: number;
  /** The transactional id whose producer it is (null when the coordinator no longer knows it). */
  transactionalId: string | null;
}

/** `GET /groups/{groupId}`. */
export interface GroupDescription {
  groupId: string;
  type: string;
  state: string;
  protocolType: string;
  /** Classic groups: the selected protocol; null for consumer groups (see `assignor`). */
  protocol: string | null;
  /** Classic groups: the generation; -1 for consumer groups (see `groupEpoch`). */
  generationId: number;
  leaderId: string | null;
  /** Consumer groups (null for classic groups): the group epoch. */
  groupEpoch: number | null;
  /** Consumer groups: the epoch of the target assignment. */
  assignmentEpoch: number | null;
  /** Consumer groups: the server-side assignor in use. */
  assignor: string | null;
  members: GroupMemberView[];
  offsets: GroupOffsetView[];
  /**
   * The partitions members own without a committed offset, by topic and partition, with their
   * log-end offsets (null: the topic is gone): the rows `kafka-consumer-groups --describe` lists
   * with CURRENT-OFFSET and LAG `-`. Empty for share groups.
   */
  uncommittedPartitions: UncommittedPartitionView[];
  /** Offsets of open transactions (TxnOffsetCommit), pending until their COMMIT marker. */
  pendingTransactionalOffsets: PendingOffsetView[];
  /** Sum of known lags. */
  totalLag: number;
  /** Share groups (null for the others): the share partitions the group has initialized. */
  sharePartitions: SharePartitionView[] | null;
  /**
   * The `__consumer_offsets` partition holding the group's records (Kafka's
   * `GroupCoordinatorService.partitionFor`: the group id's Java hash modulo
   * `offsets.topic.num.partitions`): the segment directory `dump-log` reads for it.
   */
  offsetsTopicPartition: number;
  /** The broker coordinating the group now (FindCoordinator's answer; -1 when every broker is down): 1 without `--brokers`. */
  coordinatorId: number;
}

/** A partition a member owns without a committed offset (`GroupDescription.uncommittedPartitions`). */
export interface UncommittedPartitionView {
  topic: string;
  partition: number;
  logEndOffset: number | null;
  memberId: string;
}

/** What `describeGroup` says of a group besides its offsets (and a share group's share partitions: `sharePartitions` null). */
export type GroupHeader = Omit<GroupDescription, 'offsets' | 'uncommittedPartitions' | 'pendingTransactionalOffsets' | 'totalLag'>;

/** One share partition of a share group: where its records stand. */
export interface SharePartitionView {
  topic: string;
  partition: number;
  /** The share-partition start offset (SPSO); null when its state is gone. */
  startOffset: number | null;
  /** The share-partition end offset (SPEO): the last offset in flight (the start offset when none). */
  endOffset: number | null;
  /** Log-end offset of the partition (null when the topic or partition is gone). */
  logEndOffset: number | null;
  /** Records from the start offset not yet acknowledged or archived (null when unknown). */
  lag: number | null;
  /** Records from the start offset to the end offset, by state. */
  inFlight: { acquired: number; available: number; acknowledged: number; archived: number };
}

/** `GET /transactions`: one transactional id and its transaction. */
export interface TransactionSummary {
  transactionalId: string;
  /** Kafka's state name: Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, PrepareEpochFence. */
  state: string;
  producerId: number;
  producerEpoch: number;
  /** `transaction.timeout.ms` the producer asked for. */
  timeoutMs: number;
  /** When the open (or last) transaction started (ISO 8601, server clock), null before the first. */
  startTime: string | null;
  lastUpdateTime: string;
  /** The broker coordinating the id. */
  coordinator: number;
  /** Partitions of the open transaction, by topic. */
  partitions: Array<{ topic: string; partitions: number[] }>;
}

/** `GET /transactions/{transactionalId}`: with the offsets it sent that await its marker. */
export interface TransactionDescription extends TransactionSummary {
  pendingOffsets: Array<{ groupId: string; topic: string; partition: number; offset: number; metadata: string }>;
}

export interface OverviewTopic {
  name: string;
  topicId: string;
  partitions: Array<{ partition: number; logStartOffset: number; logEndOffset: number; sizeBytes: number; leader: number }>;
  /** Bytes of the topic's segments (in memory with --in-memory). */
  sizeBytes: number;
}

export interface OverviewGroup {
  groupId: string;
  /** `classic` or `consumer` (KIP-848). */
  type: string;
  state: string;
  /** Classic groups: the protocol chosen (the assignor, e.g. `range`); consumer groups: the server-side assignor. */
  protocolOrAssignor: string | null;
  members: number;
  /** Sum of the known lags of the committed partitions. */
  totalLag: number;
}

export interface Overview {
  clusterId: string;
  bootstrap: string;
  clock: { mode: string; now: string };
  brokers: Array<{ id: number; host: string; port: number; up: boolean }>;
  topics: OverviewTopic[];
  groups: OverviewGroup[];
}

export type RebalanceCause = 'join' | 'leave' | 'session timeout' | 'subscription change' | 'coordinator move' | 'rejoin' | 'metadata change';

/**
 * One entry of a group's timeline (`at`: the server clock, ISO 8601). Ids and client ids longer
 * than 256 characters are cut (ending in `…`); `clientIds` and `partitions` list the first 50,
 * then `+N more`.
 */
/** A connector and the tasks of it a worker holds; `runsConnector`: whether it runs the connector itself (task id -1 on the wire). */
export interface ConnectTasksView {
  connector: string;
  runsConnector: boolean;
  tasks: number[];
}

/** A Connect worker's assignment as `GET /groups/{id}` shows it. */
export interface ConnectAssignmentView {
  version: number;
  /** Connect's assignment error: 0 none, 1 the leader's config is behind (`CONFIG_MISMATCH`). */
  error: number;
  leader: string;
  leaderUrl: string;
  configOffset: number;
  assigned: ConnectTasksView[];
  /** From version 1 (incremental cooperative): what the worker must stop; null before. */
  revoked: ConnectTasksView[] | null;
  /** From version 1: the delay (ms) before the leader rebalances again to place lost work; null before. */
  delayMs: number | null;
}

export type TimelineEvent =
  | { at: string; kind: 'seen'; state: string; generation: number; members: number; clientIds: string[] }
  | { at: string; kind: 'rebalance'; generation: number; cause: RebalanceCause; members: number; detail: string }
  | { at: string; kind: 'member-joined'; memberId: string; clientId: string }
  | { at: string; kind: 'member-left'; memberId: string; clientId: string; cause: 'leave' | 'session timeout' }
  /** `implied`: a classic group's state between two looks that neither saw, which Kafka's transitions require (`from` -> it -> the next). */
  | { at: string; kind: 'state'; from: string; to: string; implied?: true }
  | { at: string; kind: 'coordinator'; from: number; to: number }
  /** The group changed type: a classic group upgraded to a consumer group by a KIP-848 member's join, or back when the last one left (KIP-848's online migration). */
  | { at: string; kind: 'type'; from: string; to: string }
  /**
   * Offsets committed since the last look: `requests` OffsetCommit requests answered (`error`: the
   * first error of the last one, which may have committed other partitions), the last one's member
   * and client; `partitions` the `topic-partition@offset` that moved. `requests` 0: offsets moved
   * with no OffsetCommit, by a transaction's COMMIT marker (TxnOffsetCommit's offsets count only then).
   */
  | { at: string; kind: 'commit'; requests: number; memberId: string | null; clientId: string; partitions: string[]; error: string | null }
  | { at: string; kind: 'deleted' };

/** `GET /groups/{id}/history`. */
export interface GroupHistory {
  groupId: string;
  /** Oldest first; the newest 200 non-commit events and the newest 100 commit events. */
  events: TimelineEvent[];
  /** `topic-partition` -> the member that made the partition's last commit seen (null: none known, e.g. a standalone commit). */
  lastCommitBy: Record<string, string | null>;
  /**
   * Lag samples, oldest first: `t` is wall-clock ms; `lag[i]` belongs to `partitions[i]` (null: no
   * lag known then). `partitions` are `topic-partition` for the first 100 partitions seen, then
   * `other partitions`, the sum of the others' lags.
   */
  lag: { partitions: string[]; samples: Array<{ t: number; lag: Array<number | null> }> };
}

/** What changed since the last notification: the console refetches what it shows. */
export interface ChangeNotice {
  groups: string[];
  overview: boolean;
  faults: boolean;
  clock: boolean;
  /** A transactional id's metadata changed (`GET /transactions`: begun, ended, fenced, expired), or the offsets a transaction sent (TxnOffsetCommit). */
  transactions: boolean;
}
