/**
 * The shared state every KIP-848 consumer group handler works on (the consumer-group part of
 * Kafka 4.3's `GroupMetadataManager` fields and `GroupCoordinatorConfig`), and the interfaces
 * the consumer coordinator is built from.
 */
import type { Logger } from 'pino';
import type { Time } from '../../util/time.js';
import type { CoordinatorRecord } from '../records.js';
import type { OffsetStore } from '../offsets/offset-store.js';
import type { ClassicUpgradeView } from '../classic/classic-coordinator.js';
import type { ClassicDowngradePlan, PreparedDowngrade } from '../classic/from-consumer-group.js';
import type { CoordinatorWriter } from '../runtime.js';
import type { AssignorSet } from './assignors.js';
import type { ConsumerGroupStore } from './group-store.js';
import type { ConsumerGroup } from './consumer-group.js';
import type { ConsumerGroupMember } from './member.js';
import type { RegexUpdateStatus } from './regex-status.js';
import type { Emit } from './group-store.js';

/** What the coordinator needs to know about topics (a `TopicStore` fits). */
export interface ConsumerTopicSource {
  get(name: string): { name: string; topicId: string; partitionCount: number } | undefined;
  getById(topicId: string): { name: string; topicId: string; partitionCount: number } | undefined;
  list(): Array<{ name: string; topicId: string; partitionCount: number }>;
}

/** The classic coordinator, as far as group type conversion needs it. */
export interface ClassicGroupBridge {
  /** 'none' (no classic group), 'empty' (convertible whatever the policy) or 'non-empty'. */
  classicGroupStatus(groupId: string): 'none' | 'empty' | 'non-empty';
  /** Forgets an empty classic group and returns the records that delete it (its GroupMetadata tombstone). */
  removeEmptyClassicGroup(groupId: string): CoordinatorRecord[];
  /** A non-empty classic group as the online upgrade reads it (absent: no online upgrade). */
  upgradeView?(groupId: string): ClassicUpgradeView | null;
  /** Answers the group's parked JoinGroup and SyncGroup requests with REBALANCE_IN_PROGRESS (the group stays). */
  answerParkedForUpgrade?(groupId: string): void;
  /** Completes parked requests with REBALANCE_IN_PROGRESS, forgets the group, returns its tombstone. */
  takeGroupForUpgrade?(groupId: string): CoordinatorRecord[];
  /** `group.max.size` (absent: no online downgrade). */
  classicGroupMaxSize?(): number;
  /**
   * Online downgrade: builds the classic group a consumer group becomes, changing nothing yet
   * (throws `DowngradeError` when it cannot); its `install` puts it in place (absent: no online downgrade).
   */
  prepareDowngrade?(plan: ClassicDowngradePlan): PreparedDowngrade;
}

/** The offsets the coordinator consults: whether a group holds any, and deleting them with the group. */
export type ConsumerOffsets = Pick<OffsetStore, 'hasOffsets' | 'tombstoneGroup'>;

export interface ConsumerRequestContext {
  readonly apiVersion: number;
  readonly clientId: string;
  readonly clientHost: string;
  /** With an authorizer, whether the request's principal may do an `AclOperation` on a topic (`RequestContext.authorizeTopic`). */
  readonly authorizeTopic?: (operation: number, topic: string) => boolean;
}

/** Kafka's consumer group settings (`GroupCoordinatorConfig`), read once from BrokerConfig. */
export interface ConsumerSettings {
  /** `group.consumer.session.timeout.ms` */
  readonly sessionTimeoutMs: number;
  /** `group.consumer.heartbeat.interval.ms` */
  readonly heartbeatIntervalMs: number;
  /** `group.consumer.assignment.interval.ms` (KIP-1263) */
  readonly assignmentIntervalMs: number;
  /** `group.consumer.max.size` */
  readonly maxSize: number;
  /** `group.consumer.migration.policy`: disabled, upgrade, downgrade or bidirectional. */
  readonly migrationPolicy: string;
  /** `group.consumer.regex.refresh.interval.ms` (Kafka internal config) */
  readonly regexRefreshIntervalMs: number;
}

export type { Emit } from './group-store.js';

/**
 * The member timers (member-timers.ts: session, rebalance, join and sync timeouts), as the
 * handlers use them; an interface here so that the timers and the context do not import each other.
 */
export interface ConsumerTimers {
  scheduleSession(groupId: string, memberId: string, timeoutMs?: number): void;
  /** When the member's session timer is due (server clock, ms); undefined when none is armed. */
  sessionDueAt(groupId: string, memberId: string): number | undefined;
  /** Expires the member's session now, as if its timeout had passed; false when none runs. */
  expireSessionNow(groupId: string, memberId: string): boolean;
  scheduleRebalance(groupId: string, memberId: string, memberEpoch: number, rebalanceTimeoutMs: number): void;
  scheduleJoinIfAbsent(groupId: string, memberId: string, rebalanceTimeoutMs: number): void;
  cancelJoin(groupId: string, memberId: string): void;
  scheduleSync(groupId: string, memberId: string, rebalanceTimeoutMs: number): void;
  cancelSync(groupId: string, memberId: string): void;
  cancelRebalance(groupId: string, memberId: string): void;
  cancelMember(groupId: string, memberId: string): void;
  cancelGroup(groupId: string): void;
  cancelAll(): void;
  onLoaded(): void;
  restartGroup(group: ConsumerGroup, extraMs?: number): void;
  holdGroup(group: ConsumerGroup): void;
}

/** Regex subscriptions (regex-refresh.ts), as the handlers use them. */
export interface RegexSubscriptions {
  onLoaded(maxReplayedVersion: bigint): void;
  onTopicCreated(): void;
  isScheduled(groupId: string): boolean;
  cancelAll(): void;
  maybeUpdateRegularExpressions(group: ConsumerGroup, member: ConsumerGroupMember, updated: ConsumerGroupMember, emit: Emit, client?: ConsumerRequestContext): RegexUpdateStatus;
}

/**
 * The settings a group's own configs (GROUP resources: `consumer.session.timeout.ms`,
 * `consumer.heartbeat.interval.ms`, `consumer.assignment.interval.ms`) can override, as
 * `GroupMetadataManager.consumerGroupSessionTimeoutMs(groupId)` and its siblings read them.
 */
export interface ConsumerGroupSettings {
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly assignmentIntervalMs: number;
}

/** The shared state every consumer group handler works on; one per coordinator. */
export interface ConsumerContext {
  readonly settings: ConsumerSettings;
  /** `settings`, with the group's own configs where it has them. */
  groupSettings(groupId: string): ConsumerGroupSettings;
  readonly time: Time;
  readonly log: Logger;
  readonly store: ConsumerGroupStore;
  readonly timers: ConsumerTimers;
  /** Regex subscriptions: resolved off the heartbeat, at most every 10 s per group (`regex-refresh.ts`). */
  readonly regexes: RegexSubscriptions;
  readonly writer: CoordinatorWriter;
  readonly topics: ConsumerTopicSource;
  readonly offsets: ConsumerOffsets;
  readonly classic: ClassicGroupBridge | undefined;
  /** The server assignors of `group.consumer.assignors` (the first is the default). */
  readonly assignors: AssignorSet;
}
