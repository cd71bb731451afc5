/**
 * What every streams-group operation works on (the streams-group part of Kafka 4.3's
 * `GroupMetadataManager` fields, `GroupCoordinatorConfig` and `GroupConfigManager`).
 */
import type { Logger } from 'pino';
import type { Time } from '../../util/time.js';
import type { CoordinatorWriter } from '../runtime.js';
import type { CoordinatorRecord } from '../records.js';
import type { TaskAssignor } from './assignor/types.js';
import type { StreamsGroupStore } from './streams-group-store.js';

/** Topics as the streams coordinator sees them (a `TopicStore` fits). */
export interface StreamsTopicSource {
  get(name: string): { name: string; topicId: string; partitionCount: number } | undefined;
  getById(topicId: string): { name: string; topicId: string; partitionCount: number } | undefined;
}

/** The streams-group settings: a group's own `streams.*` config, else the broker's `group.streams.*`. */
export interface StreamsSettings {
  sessionTimeoutMs(groupId: string): number;
  heartbeatIntervalMs(groupId: string): number;
  numStandbyReplicas(groupId: string): number;
  initialRebalanceDelayMs(groupId: string): number;
  assignmentIntervalMs(groupId: string): number;
  /** `group.streams.max.size` */
  readonly maxSize: number;
}

/** Session, rebalance and initial-delay timers (streams-coordinator.ts), as operations use them. */
export interface StreamsTimers {
  scheduleSession(groupId: string, memberId: string, extraMs?: number): void;
  scheduleRebalance(groupId: string, memberId: string, memberEpoch: number, rebalanceTimeoutMs: number): void;
  cancelRebalance(groupId: string, memberId: string): void;
  /** Both of a member's timers (`cancelTimers`). */
  cancelMember(groupId: string, memberId: string): void;
  cancelGroup(groupId: string): void;
  isInitialDelayScheduled(groupId: string): boolean;
  scheduleInitialDelayIfAbsent(groupId: string, delayMs: number): void;
}

/** The classic coordinator, as far as a streams group taking over an empty classic group needs it. */
export interface StreamsClassicBridge {
  classicGroupStatus(groupId: string): 'none' | 'empty' | 'non-empty';
  removeEmptyClassicGroup(groupId: string): CoordinatorRecord[];
}

export interface StreamsContext {
  readonly settings: StreamsSettings;
  readonly time: Time;
  readonly log: Logger;
  readonly store: StreamsGroupStore;
  readonly writer: CoordinatorWriter;
  readonly topics: StreamsTopicSource;
  readonly timers: StreamsTimers;
  readonly assignor: TaskAssignor;
  readonly classic: StreamsClassicBridge | undefined;
  /** Whether a group of another type (consumer or share) holds the id. */
  readonly otherTypeHolds: (groupId: string) => boolean;
}
