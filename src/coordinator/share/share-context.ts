/**
 * What every share-group operation works on (the share-group part of Kafka 4.3's
 * `GroupMetadataManager` fields, `GroupCoordinatorConfig` and `GroupConfigManager`).
 */
import type { Logger } from 'pino';
import type { Time } from '../../util/time.js';
import type { CoordinatorWriter } from '../runtime.js';
import type { SharePersister } from '../../share/persister.js';
import type { ShareGroupStore } from './share-group-store.js';

/** Topics as the share coordinator sees them (a `TopicStore` fits). */
export interface ShareTopicSource {
  get(name: string): { name: string; topicId: string; partitionCount: number } | undefined;
  getById(topicId: string): { name: string; topicId: string; partitionCount: number } | undefined;
}

/** The share-group settings: broker `group.share.*` values, per group where Kafka has a group config. */
export interface ShareSettings {
  /** `share.session.timeout.ms` of the group (default `group.share.session.timeout.ms`). */
  sessionTimeoutMs(groupId: string): number;
  /** `share.heartbeat.interval.ms` of the group (default `group.share.heartbeat.interval.ms`). */
  heartbeatIntervalMs(groupId: string): number;
  /** `share.assignment.interval.ms` of the group (default `group.share.assignment.interval.ms`). */
  assignmentIntervalMs(groupId: string): number;
  /** `group.share.max.size` */
  readonly maxSize: number;
  /** `group.share.initialize.retry.interval.ms` */
  readonly initializeRetryIntervalMs: number;
}

/** The session timers (share-timers.ts), as operations use them. */
export interface ShareTimers {
  /** Arms the member's session timer: the group's session timeout, plus `extraMs` (a simulated load). */
  scheduleSession(groupId: string, memberId: string, extraMs?: number): void;
  cancelSession(groupId: string, memberId: string): void;
  cancelGroup(groupId: string): void;
}

export interface ShareContext {
  readonly settings: ShareSettings;
  readonly time: Time;
  readonly log: Logger;
  readonly store: ShareGroupStore;
  readonly writer: CoordinatorWriter;
  readonly topics: ShareTopicSource;
  readonly persister: SharePersister;
  readonly timers: ShareTimers;
}

/** An error answered to a share-group request (Kafka's `ApiException` subclasses), with its message. */
export class ShareGroupError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
}
