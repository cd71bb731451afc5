/**
 * The classic coordinator's settings and shared state, without the rebalancer (which works on
 * them; context.ts adds it), so that rebalancer.ts and context.ts do not import each other.
 */
import type { Logger } from 'pino';
import type { Time } from '../../util/time.js';
import type { ClassicGroup, ClassicGroupEnv } from './classic-group.js';
import type { KeyedTimers } from './keyed-timers.js';
import type { CoordinatorWriter } from '../runtime.js';
import type { GroupView } from '../group-map.js';
import type { GroupMetadataRecord } from '../records.js';

/** Kafka's classic group settings (`GroupCoordinatorConfig`), read once from BrokerConfig. */
export interface ClassicSettings {
  /** `group.initial.rebalance.delay.ms` */
  readonly initialRebalanceDelayMs: number;
  /** `group.min.session.timeout.ms` */
  readonly minSessionTimeoutMs: number;
  /** `group.max.session.timeout.ms` */
  readonly maxSessionTimeoutMs: number;
  /** `group.max.size` */
  readonly maxSize: number;
  /**
   * How long a new member's first JoinGroup may stay parked (Kafka's
   * `classicGroupNewMemberJoinTimeoutMs`, 5 minutes, not a broker config).
   */
  readonly newMemberJoinTimeoutMs: number;
}

/** The shared state every classic handler works on, less the rebalancer. */
export interface ClassicState {
  readonly settings: ClassicSettings;
  readonly time: Time;
  readonly log: Logger;
  /** The classic groups of the broker's one group map. */
  readonly groups: GroupView<ClassicGroup>;
  readonly timers: KeyedTimers;
  readonly writer: CoordinatorWriter;
  /**
   * Notes a group put in place by a write still in flight (its GroupMetadata record): if the write
   * fails, the runtime's revert removes the group before any other shard puts back what the same
   * write removed (a consumer group converted for a classic JoinGroup).
   */
  readonly noteInstalled: (record: GroupMetadataRecord, group: ClassicGroup) => void;
  /** What new groups are built with (clock, logger, session refresh hook). */
  readonly groupEnv: ClassicGroupEnv;
}
