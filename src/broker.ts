import { servedFeatures } from './protocol/features.js';
import type { Logger } from 'pino';
import type { BrokerConfig } from './config.js';
import type { Time } from './util/time.js';
import { TopicStore } from './topics/topic-store.js';
import { GroupLog } from './coordinator/group-log.js';
import type { ShareStateRecord } from './records/schemas/record-types.js';
import { ClassicGroupCoordinator } from './coordinator/classic/classic-coordinator.js';
import { ConsumerGroupCoordinator } from './coordinator/consumer/consumer-coordinator.js';
import { OffsetStore } from './coordinator/offsets/offset-store.js';
import { CoordinatorRuntime } from './coordinator/runtime.js';
import { GroupCoordinator } from './coordinator/group-coordinator.js';
import { GroupMap } from './coordinator/group-map.js';
import { classicGroupsOf } from './coordinator/classic/classic-coordinator.js';
import { consumerGroupsOf } from './coordinator/consumer/group-store.js';
import { ShareGroupCoordinator } from './coordinator/share/share-coordinator.js';
import { shareGroupsOf } from './coordinator/share/share-group-store.js';
import { StreamsGroupCoordinator } from './coordinator/streams/streams-coordinator.js';
import { streamsGroupsOf } from './coordinator/streams/streams-group-store.js';
import { InternalTopicCreation } from './topics/internal-topic-creation.js';
import { defaultErrorMessage } from './protocol/error-messages.js';
import { OffsetRetention, classicRetentionSource, type SweepResult } from './coordinator/offsets/retention.js';
import { ClusterState } from './cluster/cluster-state.js';
import { ScramCredentialStore } from './security/scram-store.js';
import { StandardAuthorizer } from './security/acl/authorizer.js';
import { GROUP_METADATA_TOPIC_NAME } from './topics/topic-name.js';
import { ClusterConfigs } from './configs/cluster-configs.js';
import { ConfigStore } from './configs/config-store.js';
import { LogMaintenance } from './topics/log-maintenance.js';
import { TransactionLog } from './transactions/transaction-log.js';
import { TransactionCoordinator } from './transactions/transaction-coordinator.js';
import { TransactionTimers } from './transactions/transaction-timers.js';
import { SHARE_GROUP_STATE_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME } from './topics/topic-name.js';
import { ErrorCode } from './protocol/errors.js';
import { TransactionMarkers } from './topics/transaction-markers.js';
import { openShareStateLog, shareStateTopicCreated } from './share/state/share-state-log.js';
import { ShareCoordinator } from './share/state/share-coordinator.js';
import { SharePartitionManager } from './share/share-partition-manager.js';
import type { SharePersister } from './share/persister.js';

/** Where clients reach this broker (what Metadata and FindCoordinator answer). */
export interface AdvertisedEndpoint {
  host: string;
  port: number;
}

export interface BrokerOptions {
  config: BrokerConfig;
  log: Logger;
  time: Time;
  /** Clock for Fetch long-poll waits; default `time` (a manual clock passes the system clock here). */
  pollTime?: Time;
  /** Data directory, or null for --in-memory. */
  dataDir: string | null;
  clusterId: string;
  /** Simulated brokers sharing this state (ids node.id, node.id+1, ...); default 1. */
  brokers?: number;
}

/**
 * The state one broker serves: user topics, the offsets log and the group coordinator.
 * Handlers in `apis/` reach everything through this object.
 */
export class Broker {
  readonly config: BrokerConfig;
  readonly log: Logger;
  readonly time: Time;
  /** The clock long polls (Fetch, ShareFetch) wait on. */
  readonly pollTime: Time;
  readonly nodeId: number;
  readonly clusterId: string;
  readonly dataDir: string | null;
  /** The simulated brokers: who leads which partition, who coordinates which group (src/cluster). */
  readonly cluster: ClusterState;
  /**
   * What ApiVersions advertises: the APIs served, each with its version range, after
   * `--kafka-version` / `--api-versions` capping (set by `startServer` before the listeners open).
   */
  advertisedApiKeys: ReadonlyArray<{ apiKey: number; minVersion: number; maxVersion: number }> = [];
  /** Where clients reach broker `node.id` (the first broker); set by the server once its listener is bound (port 0 resolves then). */
  get advertised(): AdvertisedEndpoint {
    return this.cluster.endpoint(this.nodeId);
  }

  set advertised(endpoint: AdvertisedEndpoint) {
    this.cluster.setEndpoint(this.nodeId, endpoint);
  }

  /** Every config value with its source: static, dynamic broker, topic and group configs (src/configs). */
  readonly configs: ClusterConfigs;
  readonly topics: TopicStore;
  /** End-transaction markers and the Produce path's transaction verifier (topics/transaction-markers.ts). */
  readonly txnMarkers: TransactionMarkers;
  readonly groupLog: GroupLog;
  /** Every group and offset change goes through it (runtime.ts). */
  readonly runtime: CoordinatorRuntime;
  readonly offsets: OffsetStore;
  readonly classic: ClassicGroupCoordinator;
  /** KIP-848 consumer groups (ConsumerGroupHeartbeat, ConsumerGroupDescribe). */
  readonly consumer: ConsumerGroupCoordinator;
  /** Share groups (KIP-932: ShareGroupHeartbeat, ShareGroupDescribe). */
  readonly share: ShareGroupCoordinator;
  /** Streams groups (KIP-1071). */
  readonly streams: StreamsGroupCoordinator;
  /** The group coordinator's requests to create streams groups' internal topics (`AutoTopicCreationManager`). */
  readonly internalTopicCreation: InternalTopicCreation;
  /** Every group API and the offset APIs, routed by group type (group-coordinator.ts). */
  readonly groups: GroupCoordinator;
  /** The offsets retention sweep (`offsets.retention.minutes`, `offsets.retention.check.interval.ms`). */
  readonly retention: OffsetRetention;
  /** SCRAM credentials (AlterUserScramCredentials), persisted in the data directory. */
  readonly scram: ScramCredentialStore;
  /** ACLs and their checks when `authorizer.class.name` names Kafka's StandardAuthorizer; null: every request is allowed. */
  readonly authorizer: StandardAuthorizer | null;
  /** Retention and compaction of user topics by their configs (`log.retention.check.interval.ms`, `log.cleaner.backoff.ms`). */
  readonly logMaintenance: LogMaintenance;
  /** `__transaction_state` (created on first use, as Kafka's). */
  readonly transactionLog: TransactionLog;
  /** Transactional ids, their transactions and markers (src/transactions). */
  readonly transactions: TransactionCoordinator;
  private readonly transactionTimers: TransactionTimers;
  /** The share coordinator: share-partition state in `__share_group_state` (src/share/state/). */
  readonly shareCoordinator: ShareCoordinator;
  /** What the share group coordinator calls to initialize, summarize and delete share-partition state. */
  get sharePersister(): SharePersister {
    return this.shareCoordinator;
  }
  /** Share partitions and share sessions: ShareFetch and ShareAcknowledge (src/share/). */
  readonly shares: SharePartitionManager;
  private readonly shareStateLog: GroupLog<ShareStateRecord>;

  /**
   * Lists `__share_group_state` (internal, `share.coordinator.state.topic.num.partitions`
   * partitions) from now on, creating its partition directories, as Kafka creates it on the first
   * share-coordinator lookup.
   */
  ensureShareStateTopic(): void {
    if (this.topics.get(SHARE_GROUP_STATE_TOPIC_NAME) !== undefined) return;
    const topic = this.topics.registerInternal(SHARE_GROUP_STATE_TOPIC_NAME, this.shareStateLog.ensureOpen());
    this.shareStateLog.stampLeaderEpochsFrom((p) => topic.stampEpochOf(p));
  }

  /**
   * Creates `__consumer_offsets` (`offsets.topic.num.partitions` partitions, internal, listed from
   * now on) unless it exists: Kafka's `KafkaApis.getCoordinator` creates it at the first group
   * coordinator lookup. Throws when its directories cannot be made (a full disk).
   */
  ensureOffsetsTopic(): void {
    this.groupLog.ensureOpen();
  }

  private constructor(options: BrokerOptions) {
    this.config = options.config;
    this.log = options.log;
    this.time = options.time;
    this.pollTime = options.pollTime ?? options.time;
    this.nodeId = options.config.int('node.id');
    this.clusterId = options.clusterId;
    this.dataDir = options.dataDir;
    this.scram = new ScramCredentialStore(options.dataDir);
    this.authorizer = StandardAuthorizer.fromConfig(options.config, options.dataDir);
    this.configs = new ClusterConfigs(options.config, ConfigStore.open(options.dataDir, options.config.raw('min.insync.replicas')));
    this.topics = TopicStore.open({
      dataDir: options.dataDir,
      config: options.config,
      configs: this.configs,
      // Topics recovered at open come before the cluster exists: their configs are the first broker's.
      leaderOf: (topic, partition) => {
        const leader = (this.cluster as ClusterState | undefined)?.leaderOf(topic, partition) ?? -1;
        return leader >= 0 ? leader : this.nodeId;
      },
      log: options.log,
      time: options.time,
      pollTime: options.pollTime,
    });
    this.txnMarkers = new TransactionMarkers(this.topics, options.time);
    // `__consumer_offsets` is created (its directories made, the topic listed) at the first group
    // coordinator lookup or write, as Kafka creates it at the first FindCoordinator; a data
    // directory that has it opens it now.
    this.groupLog = GroupLog.open({ dataDir: options.dataDir, config: options.config, log: options.log, time: options.time, createOnFirstUse: true });
    this.groupLog.onOpened((logs) => {
      // As clients see it: listed by Metadata (internal), readable, not writable.
      const offsetsTopic = this.topics.registerInternal(GROUP_METADATA_TOPIC_NAME, logs);
      // Its batches carry the partition's leader epoch, which the cluster simulation bumps (a coordinator move).
      this.groupLog.stampLeaderEpochsFrom((p) => offsetsTopic.stampEpochOf(p));
    });
    this.cluster = new ClusterState({
      firstId: this.nodeId,
      count: options.brokers ?? 1,
      offsetsPartitions: this.groupLog.partitionCount,
      transactionPartitions: options.config.int('transaction.state.log.num.partitions'),
      partitionCount: (topic) => this.topics.get(topic)?.partitionCount,
    });
    // A partition whose leader is not the one of its latest epoch (leader moves are not kept across
    // restarts) gets a new epoch before anything is served: every leader change raises it.
    for (const topic of this.topics.list()) {
      for (const p of topic.partitions) p.epochs.reconcileLeaderSync(this.cluster.leaderOf(topic.name, p.index), p.logEndOffset);
    }
    this.runtime = new CoordinatorRuntime(this.groupLog, options.log);
    // Every group of every type under its id (GroupMetadataManager.groups); each coordinator holds a view of its type.
    const groupMap = new GroupMap();
    this.offsets = new OffsetStore({ runtime: this.runtime, time: options.time });
    this.classic = new ClassicGroupCoordinator({
      config: options.config,
      log: options.log,
      time: options.time,
      writer: this.runtime,
      offsets: this.offsets,
      groups: classicGroupsOf(groupMap),
    });
    this.consumer = new ConsumerGroupCoordinator({
      config: options.config,
      log: options.log,
      time: options.time,
      writer: this.runtime,
      groups: consumerGroupsOf(groupMap),
      topics: this.topics,
      offsets: this.offsets,
      classic: this.classic,
      groupConfigs: (groupId) => this.configs.store.groupConfigs(groupId),
    });
    this.share = new ShareGroupCoordinator({
      config: options.config,
      groupConfig: (groupId, name) => this.configs.groupConfig(groupId, name, this.nodeId).value ?? '',
      log: options.log,
      time: options.time,
      writer: this.runtime,
      topics: this.topics,
      // The share coordinator is built further down: calls reach it through the broker.
      persister: {
        initializeState: (groupId, partitions) => this.sharePersister.initializeState(groupId, partitions),
        readStateSummary: (groupId, partitions) => this.sharePersister.readStateSummary(groupId, partitions),
        deleteState: (groupId, partitions) => this.sharePersister.deleteState(groupId, partitions),
      },
      groups: shareGroupsOf(groupMap),
      // A group known only by its committed offsets is a classic group to Kafka (an OffsetCommit of
      // generation -1 creates an Empty one in its group map): not a share group's to take.
      groupTaken: (groupId) => groupMap.get(groupId) !== undefined || this.offsets.hasOffsets(groupId),
    });
    const consumerGroups = consumerGroupsOf(groupMap);
    const shareGroups = shareGroupsOf(groupMap);
    this.streams = new StreamsGroupCoordinator({
      config: options.config,
      groupConfig: (groupId, name) => this.configs.groupConfig(groupId, name, this.nodeId).value ?? '',
      log: options.log,
      time: options.time,
      writer: this.runtime,
      topics: this.topics,
      groups: streamsGroupsOf(groupMap),
      classic: this.classic,
      otherTypeHolds: (groupId) => consumerGroups.has(groupId) || shareGroups.has(groupId),
      offsets: this.offsets,
    });
    this.internalTopicCreation = new InternalTopicCreation(options.time, (code) => defaultErrorMessage(code) ?? String(code));
    for (const on of ['onTopicCreated', 'onTopicDeleted', 'onPartitionsAdded'] as const) this.topics[on]((topic) => this.streams.onTopicChanged(topic.name));
    // Kafka 4.x deletes the committed offsets of a deleted topic (GroupCoordinator.onPartitionsDeleted).
    this.topics.onTopicDeleted((topic) => {
      void this.offsets.deleteTopicOffsets(topic.name).catch((err: unknown) => this.log.error({ err, topic: topic.name }, 'could not delete offsets of a deleted topic'));
    });
    // The consumer groups' view of topic changes (GroupMetadataManager.onMetadataUpdate).
    this.topics.onTopicCreated((topic) => this.consumer.onTopicCreated(topic.name));
    this.topics.onTopicDeleted((topic) => this.consumer.onTopicDeleted(topic.name));
    this.topics.onTopicDeleted((topic) => {
      void this.configs.store.deleteTopic(topic.id).catch((err: unknown) => this.log.error({ err, topic: topic.name }, 'could not forget the configs of a deleted topic'));
    });
    this.topics.onPartitionsAdded((topic) => this.consumer.onPartitionsAdded(topic.name));
    for (const on of ['onTopicCreated', 'onTopicDeleted', 'onPartitionsAdded'] as const) this.topics[on]((topic) => this.share.onTopicChanged(topic.name));
    this.groups = new GroupCoordinator({
      classic: this.classic,
      consumer: this.consumer,
      share: this.share,
      streams: this.streams,
      offsets: this.offsets,
      topics: this.topics,
      offsetsPartitions: this.groupLog.partitionCount,
      maxMetadataSize: options.config.int('offset.metadata.max.bytes'),
      maxBatchBytes: options.config.int('message.max.bytes'),
      time: options.time,
      log: options.log,
    });
    this.runtime.register(this.offsets);
    this.runtime.register(this.classic);
    this.runtime.register(this.consumer.shard);
    this.runtime.registerTransactional(this.offsets);
    this.runtime.register(this.share.shard);
    this.runtime.register(this.streams.shard);
    this.groupLog.replay((record) => this.runtime.load(record), {
      transactional: (record, producerId) => this.runtime.loadTransactional(record, producerId),
      endTransaction: (partition, producerId, commit) => this.runtime.loadEndTransaction(partition, producerId, commit),
    });
    this.consumer.onLoaded();
    this.share.onLoaded();
    this.streams.onLoaded();
    this.retention = new OffsetRetention({
      config: options.config,
      log: options.log,
      time: options.time,
      offsets: this.offsets,
      sources: [classicRetentionSource(this.classic), this.consumer.retentionSource(), this.streams.retentionSource()],
    });
    // Kafka schedules the first cleanup when a coordinator partition is loaded.
    this.retention.start();
    this.logMaintenance = new LogMaintenance({
      topics: this.topics,
      time: options.time,
      log: options.log,
      retentionCheckIntervalMs: Number(options.config.long('log.retention.check.interval.ms')),
      cleanerEnabled: options.config.bool('log.cleaner.enable'),
      cleanerBackoffMs: Number(options.config.long('log.cleaner.backoff.ms')),
      producerIdExpirationCheckIntervalMs: options.config.int('producer.id.expiration.check.interval.ms'),
      producerIdExpirationMs: () => Number(this.configs.brokerValue('producer.id.expiration.ms', this.nodeId)),
    });
    this.logMaintenance.start();
    this.transactionLog = new TransactionLog({ dataDir: options.dataDir, config: options.config, log: options.log, time: options.time });
    this.transactionLog.onCreated((logs) => {
      const topic = this.topics.registerInternal(TRANSACTION_STATE_TOPIC_NAME, logs);
      this.transactionLog.stampLeaderEpochsFrom((p) => topic.stampEpochOf(p));
    });
    this.transactions = new TransactionCoordinator({
      log: this.transactionLog,
      producerIds: this.topics.producerIds,
      writeMarkers: (marker, partitions) => this.txnMarkers.write(marker, partitions),
      time: options.time,
      logger: options.log,
      maxTimeoutMs: options.config.int('transaction.max.timeout.ms'),
      idExpirationMs: options.config.int('transactional.id.expiration.ms'),
      retryTime: this.pollTime,
      // 2 while the advertised APIs serve it (EndTxn v5, Produce v12), as the ApiVersions features say.
      transactionVersionLevel: () => (this.advertisedApiKeys.length === 0 || servedFeatures(this.advertisedApiKeys).some((f) => f.name === 'transaction.version') ? 2 : 0),
    });
    // `__consumer_offsets` markers complete the group coordinator's pending transactional offsets;
    // the Produce path verifies transactional batches with the coordinator (KIP-890).
    this.txnMarkers.setOffsetsCompletion((partition, marker) =>
      partition < 0 || partition >= this.groupLog.partitionCount ? Promise.resolve(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) : this.runtime.completeTransaction(partition, marker, marker.commit, marker.coordinatorEpoch).then(
        () => ErrorCode.NONE,
        (err: unknown) => (err as { errorCode?: number }).errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR,
      ),
    );
    this.txnMarkers.setVerifier(this.transactions);
    this.transactions.load();
    this.transactionTimers = new TransactionTimers({
      coordinator: this.transactions,
      time: options.time,
      log: options.log,
      abortIntervalMs: options.config.int('transaction.abort.timed.out.transaction.cleanup.interval.ms'),
      expireIntervalMs: options.config.int('transaction.remove.expired.transaction.cleanup.interval.ms'),
    });
    this.transactionTimers.start();
    this.shareStateLog = openShareStateLog({ dataDir: options.dataDir, config: options.config, log: options.log, time: options.time });
    this.shareCoordinator = new ShareCoordinator({
      log: this.shareStateLog,
      time: options.time,
      logger: options.log,
      updatesPerSnapshot: options.config.int('share.coordinator.snapshot.update.records.per.snapshot'),
      partitionCount: (topicId) => this.topics.getById(topicId)?.partitionCount,
      onUse: () => this.ensureShareStateTopic(),
    });
    if (shareStateTopicCreated(this.shareStateLog)) this.ensureShareStateTopic();
    this.shareCoordinator.load();
    this.shares = new SharePartitionManager({
      topics: this.topics,
      configs: this.configs,
      coordinator: this.shareCoordinator,
      time: options.time,
      log: options.log,
      nodeId: this.nodeId,
      maxSessions: 2000,
    });
    // Kafka's coordinators write batches of at most their topic's `max.message.bytes`, which follows
    // a dynamic `message.max.bytes` (CoordinatorRuntime reads the partition's LogConfig per write).
    const applyMaxBatchBytes = (): void => {
      const bytes = Number(this.configs.topicValue(GROUP_METADATA_TOPIC_NAME, '', 'max.message.bytes', this.nodeId));
      this.groupLog.setMaxBatchBytes(bytes);
      this.shareStateLog.setMaxBatchBytes(bytes);
      this.groups.setMaxBatchBytes(bytes);
    };
    applyMaxBatchBytes();
    this.configs.store.onBrokerConfigsChanged(applyMaxBatchBytes);
  }

  /** A client connection closed: the share session it opened ends (its member's records are released). */
  connectionClosed(connectionId: string): void {
    this.shares.onDisconnect(connectionId);
  }

  static open(options: BrokerOptions): Broker {
    return new Broker(options);
  }

  /**
   * Runs the offsets retention sweep now (it also runs every `offsets.retention.check.interval.ms`):
   * expired offsets are tombstoned and groups left with no members and no offsets are deleted.
   * The changes are visible as soon as this is called; it resolves once they are durable.
   */
  sweepExpiredOffsets(): Promise<SweepResult> {
    return this.retention.sweep();
  }

  /**
   * Expires one member's session now, as if it had stopped heartbeating for its session timeout
   * (what the coordinator does then: a classic member removed and its group rebalanced unless it
   * waits in a JoinGroup or SyncGroup, a KIP-848, share or streams member fenced), leaving the other members
   * alone, which a clock advance cannot. Returns the group's type, or null when the member has
   * no session timer (no such group or member).
   */
  expireMemberSession(groupId: string, memberId: string): 'classic' | 'consumer' | 'share' | 'streams' | null {
    if (this.share.hasGroup(groupId)) return this.share.expireSessionNow(groupId, memberId) ? 'share' : null;
    if (this.streams.hasGroup(groupId)) return this.streams.expireSessionNow(groupId, memberId) ? 'streams' : null;
    if (this.consumer.hasGroup(groupId)) return this.consumer.expireSessionNow(groupId, memberId) ? 'consumer' : null;
    return this.classic.expireSessionNow(groupId, memberId) ? 'classic' : null;
  }

  /** After a topic's configs changed (AlterConfigs): its partitions follow the new segment limits. */
  refreshTopicConfigs(topicName: string): void {
    const topic = this.topics.get(topicName);
    if (topic) this.topics.refreshLogSettings(topic);
  }

  /** True once `close` began. */
  get isClosed(): boolean {
    return this.closed;
  }
  private closed = false;

  /** Stops timers and waits until every appended record is durable. */
  async close(): Promise<void> {
    this.closed = true;
    this.transactionTimers.stop();
    this.transactions.shutdown();
    await this.transactions.flush();
    this.retention.stop();
    await this.logMaintenance.stop();
    this.classic.shutdown();
    this.consumer.shutdown();
    this.share.shutdown();
    this.streams.shutdown();
    this.shares.shutdown();
    await this.groupLog.close();
    await this.transactionLog.close();
    await this.shareCoordinator.close();
    await this.topics.close();
  }
}
