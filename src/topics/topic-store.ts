/**
 * The user topics this broker leads (Kafka's `ReplicaManager` + the controller's topic
 * bookkeeping, for one node): create, look up by name or id, delete, auto-create,
 * long-poll for Fetch, and producer ids for InitProducerId.
 *
 * On disk each partition is `<dataDir>/<topic>-<partition>/` holding segment files and
 * Kafka's `partition.metadata` (the topic id). On open, topics are rediscovered from those
 * directories; `__consumer_offsets-*` belongs to the group coordinator and is skipped.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from 'pino';
import type { BrokerConfig } from '../config.js';
import type { Time } from '../util/time.js';
import { ErrorCode } from '../protocol/errors.js';
import { RECORD_BATCH_OVERHEAD, readBatchHeader } from '../records/record-batch.js';
import { PartitionLog, type PartitionLogOptions } from '../storage/partition-log.js';
import type { ClusterConfigs } from '../configs/cluster-configs.js';
import { LogConfigCache, type LogConfig } from '../configs/log-config.js';
import { LOG_START_OFFSET_CHECKPOINT_FILE, readOffsetCheckpoint, writeOffsetCheckpoint } from '../storage/offset-checkpoint.js';
import { AppendWaiters } from './append-waiters.js';
import { Partition } from './partition.js';
import { PRODUCER_ID_BLOCK_FILE, ProducerIdManager } from './producer-ids.js';
import { isControlBatch } from '../records/control-batch.js';
import { Topic } from './topic.js';
import { TopicError } from './topic-error.js';
import { Slicer } from '../util/slices.js';
import { commitCreation, commitCreationDurably, markCreation, markCreationDurably, recoverPendingCreations, undoCreation, type PendingCreation } from './pending-creations.js';
import { loadOrCreateTopicId, newTopicId, readPartitionMetadata, writePartitionMetadata } from './topic-id.js';
import { LeaderEpochCache, type EpochEntry } from './leader-epochs.js';
import { CLUSTER_METADATA_TOPIC_NAME, GROUP_METADATA_TOPIC_NAME, isInternalTopic, isValidTopicName, topicNamesCollide, validateTopicName } from './topic-name.js';
import { logFlushOptions } from '../storage/log-flush-options.js';

export interface TopicStoreOptions {
  /** Root data directory, or null to keep every topic in memory. */
  dataDir: string | null;
  config: BrokerConfig;
  /** Topic configs (segment size and roll time per topic); the static broker config's when absent. */
  configs?: ClusterConfigs;
  /** The broker leading a partition, whose configs apply to it (default `node.id`). */
  leaderOf?: (topic: string, partition: number) => number;
  log: Logger;
  time: Time;
  /** Clock for Fetch long-poll waits (`max_wait_ms`); default `time`. Real time under a manual clock, so polls still end. */
  pollTime?: Time;
}

/** A partition directory name: `<topic>-<partition>` (Kafka's `UnifiedLog.parseTopicPartitionName`). */
const PARTITION_DIR = /^(.+)-(\d+)$/;

/** Partitions `createInSlices` and `addPartitions` open in one turn of the event loop at the most (fewer when they take `SLICE_BUDGET_MS`). */
export const CREATE_SLICE_PARTITIONS = 256;


/** A topic being created (`beginTopic`): its id, the partitions opened so far, and how it ends. */
interface TopicCreation<Committed> {
  id: string;
  parts: Partition[];
  /** Opens partition `p` (in order). */
  open(p: number): void;
  /** Ends the creation once every partition is open (the marker goes). */
  commit(): Committed;
  /** Deletes what was made (partitions, configs) and undoes the marker. */
  discard(): void;
}

/** Partitions whose files one slice of `deleteInSlices` removes before a turn of the event loop at the most (fewer when they take `SLICE_BUDGET_MS`). */
export const DELETE_SLICE_PARTITIONS = 256;

export class TopicStore {
  readonly producerIds: ProducerIdManager;
  private readonly byName = new Map<string, Topic>();
  private readonly byId = new Map<string, Topic>();
  /** Log start offsets DeleteRecords moves once their checkpoint is durable (`checkpointLogStartOffsets`). */
  private readonly pendingStarts = new Map<Partition, bigint>();
  /** Names of topics `createInSlices` is opening. */
  private readonly creating = new Set<string>();
  /** Topics `deleteInSlices` took out whose partitions' files are still being removed: those partitions, by name. */
  private readonly deleting = new Map<string, Partition[]>();
  /** Topics `addPartitions` is growing, and when it ends. */
  private readonly growing = new Map<string, Promise<void>>();
  private readonly waiters: AppendWaiters;
  private readonly deletedListeners: Array<(topic: Topic) => void> = [];
  private readonly createdListeners: Array<(topic: Topic) => void> = [];
  private readonly partitionsAddedListeners: Array<(topic: Topic) => void> = [];
  /** Log start offsets read from `log-start-offset-checkpoint` at open, by `<topic>-<partition>`. */
  private readonly checkpointedStarts = new Map<string, bigint>();
  /** The last `log-start-offset-checkpoint` write; the next one waits for it. */
  private checkpointWrite: Promise<void> = Promise.resolve();

  /** The LogConfigs resolved, kept until a config changes; null without `configs`. */
  private readonly logConfigCache: LogConfigCache | null;

  private constructor(private readonly options: TopicStoreOptions) {
    this.logConfigCache = options.configs ? new LogConfigCache(options.configs) : null;
    this.producerIds = new ProducerIdManager(options.dataDir === null ? null : path.join(options.dataDir, PRODUCER_ID_BLOCK_FILE));
    this.waiters = new AppendWaiters(options.pollTime ?? options.time);
  }

  /** Opens the store, recovering every topic found under `dataDir`. Synchronous. */
  static open(options: TopicStoreOptions): TopicStore {
    const store = new TopicStore(options);
    if (options.dataDir !== null) {
      fs.mkdirSync(options.dataDir, { recursive: true });
      store.recover(options.dataDir);
    }
    return store;
  }

  get(name: string): Topic | undefined {
    return this.byName.get(name);
  }

  getById(topicId: string): Topic | undefined {
    return this.byId.get(topicId);
  }

  /** All topics, sorted by name. */
  list(): Topic[] {
    return [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Whether `createInSlices` is opening topic `name`'s partitions now (not visible yet). */
  isBeingCreated(name: string): boolean {
    return this.creating.has(name);
  }

  /** `num.partitions`: partitions of a topic created without a count. */
  get defaultPartitions(): number {
    return this.options.config.int('num.partitions');
  }

  /**
   * Throws the TopicError a CreateTopics of `name` with `partitions` partitions would get:
   * INVALID_TOPIC_EXCEPTION (bad name, or colliding with an existing name once '.' = '_'),
   * INVALID_REQUEST (`__cluster_metadata`), TOPIC_ALREADY_EXISTS, INVALID_PARTITIONS (< 1).
   */
  checkCreate(name: string, partitions: number): void {
    validateTopicName(name);
    if (name === CLUSTER_METADATA_TOPIC_NAME) throw new TopicError(ErrorCode.INVALID_REQUEST, `Creation of internal topic ${name} is prohibited.`);
    // A topic still being created (createInSlices) exists already for a second CreateTopics.
    if (this.byName.has(name) || this.creating.has(name) || name === GROUP_METADATA_TOPIC_NAME) {
      throw new TopicError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
    }
    for (const existing of [...this.byName.keys(), ...this.creating]) {
      if (topicNamesCollide(existing, name)) {
        throw new TopicError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${name}' collides with existing topic: ${existing}`);
      }
    }
    if (!Number.isInteger(partitions) || partitions < 1) {
      throw new TopicError(ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.');
    }
  }

  /**
   * Creates a topic with a new topic id (see checkCreate for the errors thrown) and its own configs
   * (already validated; durable before its partitions open, so their segment settings follow them).
   * All or nothing, also across a crash (pending-creations.ts): a failure (EMFILE, ENOSPC) removes
   * what it made, configs included, and throws.
   */
  create(name: string, partitions: number, topicConfigs: Readonly<Record<string, string>> = {}): Topic {
    this.checkCreate(name, partitions);
    this.finishDeletion(name);
    const creation = this.beginTopic(name, partitions, topicConfigs);
    try {
      for (let p = 0; p < partitions; p++) creation.open(p);
      creation.commit();
    } catch (err) {
      creation.discard();
      throw err;
    }
    return this.added(name, creation.id, creation.parts);
  }

  /**
   * As `create`, for CreateTopics: the partitions open in slices of `CREATE_SLICE_PARTITIONS` (or
   * fewer: `SLICE_BUDGET_MS` of work, src/util/slices.ts), with
   * a turn of the event loop between two slices, so that a topic of thousands of partitions does
   * not keep other connections' requests waiting (issue #16). The name counts as taken from the
   * first slice on (a second CreateTopics of it gets TOPIC_ALREADY_EXISTS); the topic is visible
   * (Metadata, Produce) once every partition is open, as a topic appears at once on a Kafka broker
   * when its metadata arrives. On a failure the partitions opened are deleted and the name freed.
   * `slices`: a request's Slicer shared across its topics (the caller calls `next()` between two), so
   * topics of one partition each are sliced too (their markers and files are synchronous writes).
   */
  async createInSlices(name: string, partitions: number, topicConfigs: Readonly<Record<string, string>> = {}, slices = new Slicer(CREATE_SLICE_PARTITIONS)): Promise<Topic> {
    this.checkCreate(name, partitions);
    this.creating.add(name);
    try {
      await this.finishDeletionInSlices(name, slices);
      const creation = await this.beginTopicDurably(name, partitions, topicConfigs);
      try {
        for (let p = 0; p < partitions; p++) {
          if (p > 0) await slices.next();
          creation.open(p);
        }
        await creation.commit();
      } catch (err) {
        creation.discard();
        throw err;
      }
      return this.added(name, creation.id, creation.parts);
    } finally {
      this.creating.delete(name);
    }
  }

  /**
   * A new topic id, its creation marked (pending-creations.ts) and its configs stored durably;
   * `open(p)` opens partition p, `commit()` ends the creation once every partition is open,
   * `discard()` deletes what was made (partitions, configs) and undoes the marker.
   */
  private beginTopic(name: string, partitions: number, topicConfigs: Readonly<Record<string, string>>): TopicCreation<void> {
    const creation = this.newCreation(name);
    const marker = this.options.dataDir === null ? null : markCreation(this.options.dataDir, creation);
    const made = this.creationOf(creation, partitions, marker);
    try {
      if (Object.keys(topicConfigs).length > 0) this.options.configs?.store.setTopicConfigsSync(creation.topicId, name, { ...topicConfigs });
    } catch (err) {
      made.discard();
      throw err;
    }
    return {
      ...made,
      commit: () => {
        if (marker !== null) commitCreation(marker);
      },
    };
  }

  /**
   * `beginTopic` for CreateTopics: the marker's and the configs' syncs (and the commit's) run on the
   * thread pool, so a busy disk does not hold other connections' requests (issue #16).
   */
  private async beginTopicDurably(name: string, partitions: number, topicConfigs: Readonly<Record<string, string>>): Promise<TopicCreation<Promise<void>>> {
    const creation = this.newCreation(name);
    const marker = this.options.dataDir === null ? null : await markCreationDurably(this.options.dataDir, creation);
    const made = this.creationOf(creation, partitions, marker);
    try {
      if (Object.keys(topicConfigs).length > 0) await this.options.configs?.store.setTopicConfigs(creation.topicId, name, { ...topicConfigs });
    } catch (err) {
      made.discard();
      throw err;
    }
    return {
      ...made,
      commit: async () => {
        if (marker !== null) await commitCreationDurably(marker);
      },
    };
  }

  /** The pending creation of a new topic `name`: a topic id no topic has. */
  private newCreation(name: string): PendingCreation {
    let id = newTopicId();
    while (this.byId.has(id)) id = newTopicId();
    return { topicId: id, topic: name, from: 0 };
  }

  /** What `beginTopic` and `beginTopicDurably` share: the partitions opened, and the discard of all it made. */
  private creationOf(creation: PendingCreation, partitions: number, marker: string | null): Omit<TopicCreation<unknown>, 'commit'> {
    const { topicId: id, topic: name } = creation;
    const parts: Partition[] = [];
    const discard = (): void => {
      for (const part of parts) part.log.deleteFiles();
      try {
        this.options.configs?.store.deleteTopicSync(id);
      } catch {
        // left for the next start, which undoes the creation the marker names
      }
      if (marker !== null) undoCreation(marker, creation, partitions, this.options.log);
    };
    return { id, parts, open: (p) => void parts.push(this.openPartition(name, p, id, true)), discard };
  }

  private added(name: string, id: string, parts: Partition[]): Topic {
    const topic = new Topic(name, id, parts);
    this.add(topic);
    this.options.log.info({ topic: name, topicId: id, partitions: parts.length }, 'created topic');
    for (const listener of this.createdListeners) listener(topic);
    return topic;
  }

  /**
   * Adds partitions `topic.partitionCount` .. `count - 1` (CreatePartitions, already validated:
   * see create-partitions.ts), each a new directory with the topic's `partition.metadata`, in
   * slices of `CREATE_SLICE_PARTITIONS` (or `SLICE_BUDGET_MS` of work) with a turn of the event loop between two (issue #16); the
   * new partitions become visible together once all are open, then the `onPartitionsAdded`
   * listeners are told. Growths of one topic run one after the other (`whileGrowing`). An I/O
   * failure, or the topic deleted meanwhile, removes what it created and throws (the latter
   * TopicError UNKNOWN_TOPIC_OR_PARTITION). `slices`: shared across a request's topics, as `createInSlices`.
   */
  async addPartitions(topic: Topic, count: number, slices = new Slicer(CREATE_SLICE_PARTITIONS)): Promise<void> {
    const from = topic.partitionCount;
    const creation = { topicId: topic.id, topic: topic.name, from };
    let done!: () => void;
    this.growing.set(topic.name, new Promise<void>((resolve) => (done = resolve)));
    let marker: string | null = null;
    const added: Partition[] = [];
    try {
      if (this.options.dataDir !== null) marker = await markCreationDurably(this.options.dataDir, creation);
      for (let p = from; p < count; p++) {
        if (p > from) await slices.next();
        added.push(this.openPartition(topic.name, p, topic.id, true));
      }
      if (this.byId.get(topic.id) !== topic) throw new TopicError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null);
      if (marker !== null) await commitCreationDurably(marker);
    } catch (err) {
      for (const part of added) part.log.deleteFiles();
      if (marker !== null) undoCreation(marker, creation, count, this.options.log);
      throw err;
    } finally {
      this.growing.delete(topic.name);
      done();
    }
    topic.addPartitions(added);
    this.options.log.info({ topic: topic.name, topicId: topic.id, from, to: count }, 'added partitions');
    for (const listener of this.partitionsAddedListeners) listener(topic);
  }

  /** Whether `addPartitions` is opening new partitions of topic `name` now (not visible yet). */
  isGrowing(name: string): boolean {
    return this.growing.has(name);
  }

  /** Resolves once no `addPartitions` of topic `name` is under way (a CreatePartitions checks the topic after). */
  async whileGrowing(name: string): Promise<void> {
    for (let growth = this.growing.get(name); growth; growth = this.growing.get(name)) await growth;
  }

  /**
   * For Metadata: the topic, auto-created with `num.partitions` when absent and
   * `auto.create.topics.enable` is true (and the request allows it). Returns undefined if
   * absent and not created; throws TopicError(INVALID_TOPIC_EXCEPTION) for a bad name.
   */
  getOrAutoCreate(name: string, allowAutoCreation = true): Topic | undefined {
    const existing = this.byName.get(name);
    if (existing || !allowAutoCreation || !this.options.config.bool('auto.create.topics.enable')) return existing;
    if (isInternalTopic(name)) return undefined;
    return this.create(name, this.defaultPartitions);
  }

  /**
   * As `getOrAutoCreate`, for a Metadata request naming many absent topics: the topic is created with
   * `createInSlices` on the request's shared `slices`. A topic another request is creating now
   * answers LEADER_NOT_AVAILABLE (a TopicError), as Kafka's `AutoTopicCreationManager` answers a
   * topic whose creation is in flight; the client asks again.
   */
  async getOrAutoCreateInSlices(name: string, allowAutoCreation: boolean, slices: Slicer): Promise<Topic | undefined> {
    if (!this.wouldAutoCreate(name, allowAutoCreation)) return this.getOrAutoCreate(name, allowAutoCreation);
    if (this.creating.has(name)) throw new TopicError(ErrorCode.LEADER_NOT_AVAILABLE, null);
    return this.createInSlices(name, this.defaultPartitions, {}, slices);
  }

  /** Whether `getOrAutoCreate(name, allowAutoCreation)` would create topic `name` now. */
  wouldAutoCreate(name: string, allowAutoCreation: boolean): boolean {
    return !this.byName.has(name) && allowAutoCreation && this.options.config.bool('auto.create.topics.enable') && !isInternalTopic(name);
  }

  /**
   * Deletes a topic and its files; fetches waiting on it wake up. Throws
   * TopicError(UNKNOWN_TOPIC_OR_PARTITION) if absent, TOPIC_DELETION_DISABLED when
   * `delete.topic.enable` is false.
   */
  delete(name: string): Topic {
    const topic = this.detach(name);
    for (const p of topic.partitions) p.log.deleteFiles();
    this.options.log.info({ topic: name, topicId: topic.id }, 'deleted topic');
    return topic;
  }

  /**
   * As `delete`, for DeleteTopics (issue #16): the topic is gone at once (lookups, Metadata, fetches
   * waiting on it), its partitions' files are removed in slices of `DELETE_SLICE_PARTITIONS` (or
   * `SLICE_BUDGET_MS` of work) with a turn of the event loop between two, so a topic of thousands
   * of partitions does not keep other connections' requests waiting; resolves once every file is
   * gone. A topic of the same name created meanwhile first removes what is left, in slices too
   * (`finishDeletionInSlices`), as its directories are the same.
   * A marker (pending-creations.ts, `from` 0) written durably first makes the next start finish a
   * deletion a crash interrupted, so no partial topic comes back. `slices`: shared across a
   * request's topics (the caller calls `next()` between two), so topics of one partition each are sliced too.
   */
  async deleteInSlices(name: string, slices = new Slicer(DELETE_SLICE_PARTITIONS)): Promise<Topic> {
    const dataDir = this.options.dataDir;
    const marker = dataDir === null ? null : markCreation(dataDir, { topicId: this.deletable(name).id, topic: name, from: 0 });
    const topic = this.detach(name);
    // Last partition first in the array: each slice pops from its end. `finishDeletion` may empty it between slices.
    const remaining = [...topic.partitions].reverse();
    this.deleting.set(name, remaining);
    // A partition's files take far longer to remove on a loaded disk than their count suggests (the Slicer's time budget).
    while (remaining.length > 0) {
      remaining.pop()!.log.deleteFiles();
      if (remaining.length > 0) await slices.next();
    }
    if (this.deleting.get(name) === remaining) this.deleting.delete(name);
    if (marker !== null) commitCreation(marker);
    this.options.log.info({ topic: name, topicId: topic.id }, 'deleted topic');
    return topic;
  }

  /** Whether `deleteInSlices` is removing files of a topic named `name` now. */
  isBeingDeleted(name: string): boolean {
    return this.deleting.has(name);
  }

  /**
   * Removes the files `deleteInSlices` has yet to remove for topic `name` (a topic of that name is
   * being created: its directories are the same), in slices of the creation's `slices`, beside the
   * deletion's own; resolves once none is left. At once, 3,000 partitions' files held every
   * connection 1.5-4 s (adversarial trial, session 20).
   */
  private async finishDeletionInSlices(name: string, slices: Slicer): Promise<void> {
    const remaining = this.deleting.get(name);
    if (remaining === undefined) return;
    while (remaining.length > 0) {
      remaining.pop()!.log.deleteFiles();
      if (remaining.length > 0) await slices.next();
    }
    if (this.deleting.get(name) === remaining) this.deleting.delete(name);
  }

  /** Removes at once the files `deleteInSlices` has yet to remove for topic `name`, if any (`create`, in-process). */
  private finishDeletion(name: string): void {
    const remaining = this.deleting.get(name);
    if (remaining === undefined) return;
    this.deleting.delete(name);
    for (const p of remaining.splice(0)) p.log.deleteFiles();
  }

  /** The topic a deletion of `name` takes out; throws as `delete` documents. */
  private deletable(name: string): Topic {
    if (!this.options.config.bool('delete.topic.enable')) {
      throw new TopicError(ErrorCode.TOPIC_DELETION_DISABLED, 'Topic deletion is disabled.');
    }
    const topic = this.byName.get(name);
    if (!topic) throw new TopicError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.');
    if (topic.internal) throw new TopicError(ErrorCode.INVALID_REQUEST, `Deleting the internal topic ${name} is not supported.`);
    return topic;
  }

  /**
   * Takes topic `name` out of the store (its files stay): waiting fetches wake up, the
   * `onTopicDeleted` listeners run. Throws as `delete` documents.
   */
  private detach(name: string): Topic {
    const topic = this.deletable(name);
    this.byName.delete(name);
    this.byId.delete(topic.id);
    for (const p of topic.partitions) this.waiters.notify(p);
    for (const listener of this.deletedListeners) listener(topic);
    return topic;
  }

  /**
   * Adds an internal topic whose partition logs belong to someone else (`__consumer_offsets`: the
   * group coordinator's `GroupLog`): it is listed, described, read by Fetch and ListOffsets, and
   * refused to Produce, DeleteRecords and deletion. Its topic id lives in the logs'
   * `partition.metadata` files, as Kafka keeps it. The store never closes these logs.
   */
  registerInternal(name: string, logs: readonly PartitionLog[]): Topic {
    const id = loadOrCreateTopicId(logs.map((l) => l.dir));
    const parts = logs.map((log, index) => new Partition(name, index, log, (p) => this.waiters.notify(p)));
    const topic = new Topic(name, id, parts, true);
    this.add(topic);
    return topic;
  }

  /** Registers a callback run after a topic is created (not for topics recovered at open). */
  onTopicCreated(listener: (topic: Topic) => void): void {
    this.createdListeners.push(listener);
  }

  /**
   * Writes `<dataDir>/log-start-offset-checkpoint` (Kafka's file and format) with every partition
   * whose log start offset DeleteRecords moved past its first segment; resolves once durable. Writes
   * run one after another, each with the state at its turn. Nothing to do in memory.
   */
  checkpointLogStartOffsets(pending?: ReadonlyMap<Partition, bigint>): Promise<void> {
    const dataDir = this.options.dataDir;
    if (dataDir === null) return Promise.resolve();
    for (const [p, offset] of pending ?? []) this.pendingStarts.set(p, offset);
    const write = this.checkpointWrite.catch(() => {}).then(() => {
      const entries = [...this.byName.values()]
        .filter((t) => !t.internal)
        .flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.index, offset: this.startToCheckpoint(p) })))
        .filter((e): e is { topic: string; partition: number; offset: bigint } => e.offset !== null);
      return writeOffsetCheckpoint(path.join(dataDir, LOG_START_OFFSET_CHECKPOINT_FILE), entries);
    });
    this.checkpointWrite = write;
    const done = (): void => {
      for (const [p, offset] of pending ?? []) if (this.pendingStarts.get(p) === offset) this.pendingStarts.delete(p);
    };
    void write.then(done, done);
    return write;
  }

  /** A partition's checkpointed log start offset, counting one a DeleteRecords waits to write (or null). */
  private startToCheckpoint(p: Partition): bigint | null {
    const current = p.log.checkpointLogStartOffset;
    const pending = this.pendingStarts.get(p);
    if (pending === undefined || pending <= (current ?? p.log.logStartOffset)) return current;
    return pending;
  }

  /** Registers a callback run after CreatePartitions added partitions to a topic. */
  onPartitionsAdded(listener: (topic: Topic) => void): void {
    this.partitionsAddedListeners.push(listener);
  }

  /** Registers a callback run after a topic is deleted (e.g. to drop its committed offsets). */
  onTopicDeleted(listener: (topic: Topic) => void): void {
    this.deletedListeners.push(listener);
  }

  /**
   * Fetch long-poll: resolves when any of `partitions` gets an append (or is deleted), or
   * after `timeoutMs` (ms): true when woken by an append, false on timeout. The caller
   * rebuilds its response and decides whether to wait again.
   */
  waitForAppend(partitions: readonly Partition[], timeoutMs: number): Promise<boolean> {
    return this.waiters.wait(partitions, timeoutMs);
  }

  /** Wakes the fetches waiting on `partition` as an append would (share partitions whose records became available again). */
  wakeFetches(partition: Partition): void {
    this.waiters.notify(partition);
  }

  /**
   * Wakes waiting fetches, then waits until every partition's appends and leader-epoch checkpoint
   * writes are durable and closes the logs (nothing writes into a partition directory afterwards).
   */
  async close(): Promise<void> {
    this.waiters.notifyAll();
    const partitions = [...this.byName.values()].filter((t) => !t.internal).flatMap((t) => t.partitions);
    await Promise.all(partitions.flatMap((p) => [p.log.close(), p.epochs.settled()]));
  }

  private add(topic: Topic): void {
    this.byName.set(topic.name, topic);
    this.byId.set(topic.id, topic);
  }

  /**
   * The topic configs of a partition as its leader sees them (Kafka's `LogConfig`); null without
   * `configs` (a store opened on its own, as unit tests do).
   */
  logConfig(topic: Topic, partition = 0): LogConfig | null {
    return this.logConfigByName(topic.name, topic.id, partition);
  }

  /**
   * A LogConfig lookup for one request or one maintenance pass (the cache behind `logConfig` makes
   * every lookup cheap now; kept as the callers' shape).
   */
  logConfigs(): (topic: Topic, partition: number) => LogConfig | null {
    return (topic, partition) => this.logConfig(topic, partition);
  }

  private logConfigByName(name: string, topicId: string, partition: number): LogConfig | null {
    const { leaderOf, config } = this.options;
    return this.logConfigCache?.get(name, topicId, leaderOf?.(name, partition) ?? config.int('node.id')) ?? null;
  }

  /** After a topic's configs changed: its partitions roll segments by the new `segment.bytes` / `segment.ms`. */
  refreshLogSettings(topic: Topic): void {
    for (const p of topic.partitions) {
      const lc = this.logConfig(topic, p.index);
      if (lc) p.log.setSegmentLimits(lc.segmentBytes, lc.segmentMs);
    }
  }

  private logOptions(dir: string | null, topic: string, topicId: string, partition: number): PartitionLogOptions {
    const config = this.options.config;
    const lc = this.logConfigByName(topic, topicId, partition);
    return {
      dir,
      segmentBytes: lc?.segmentBytes ?? config.int('log.segment.bytes'),
      rollMs: lc?.segmentMs ?? config.logRollMs(),
      ...logFlushOptions(config),
      log: this.options.log,
      time: this.options.time,
    };
  }

  /**
   * Opens (or creates) one partition; its producer state, open transactions and aborted index are rebuilt from the recovered batches.
   * `onDiskTopicId`: the id its `partition.metadata` already holds (recovery read it), so a restart
   * writes the file only where it is missing or disagrees, as Kafka's `PartitionMetadataFile` does
   * (a restart on a full disk must not fail on rewriting what is already there).
   */
  private openPartition(topic: string, index: number, topicId: string, fresh: boolean, onDiskTopicId: string | null = null): Partition {
    const dataDir = this.options.dataDir;
    const dir = dataDir === null ? null : path.join(dataDir, `${topic}-${index}`);
    if (dir !== null && fresh && fs.existsSync(dir)) fs.rmSync(dir, { recursive: true, force: true });
    const recovered: Buffer[] = [];
    const epochs: EpochEntry[] = [];
    const checkpointed = fresh ? undefined : this.checkpointedStarts.get(`${topic}-${index}`);
    const log = PartitionLog.open({
      ...this.logOptions(dir, topic, topicId, index),
      ...(checkpointed !== undefined ? { logStartOffset: checkpointed } : {}),
      onRecoveredBatch: (batch) => {
        const header = readBatchHeader(batch);
        // The epoch cache rebuilt from the batches, for a directory without leader-epoch-checkpoint.
        if (header.partitionLeaderEpoch >= 0 && header.partitionLeaderEpoch > (epochs[epochs.length - 1]?.epoch ?? -1)) {
          epochs.push({ epoch: header.partitionLeaderEpoch, startOffset: header.baseOffset });
        }
        if (header.producerId < 0n) return;
        this.producerIds.observe(header.producerId);
        // The listener's view is transient: keep a header copy (a control batch whole: its marker is read).
        recovered.push(Buffer.from(isControlBatch(batch) ? batch : batch.subarray(0, RECORD_BATCH_OVERHEAD)));
      },
    });
    if (dir !== null && onDiskTopicId !== topicId) writePartitionMetadata(dir, topicId);
    const partition = new Partition(topic, index, log, (p) => this.waiters.notify(p), LeaderEpochCache.open(dir, epochs, log.logEndOffset, true, fresh));
    partition.replayBatches(recovered);
    return partition;
  }

  /** Rediscovers topics from `<dataDir>/<topic>-<p>/` directories. */
  private recover(dataDir: string): void {
    recoverPendingCreations(dataDir, (topicId) => this.options.configs?.store.deleteTopicSync(topicId), this.options.log);
    for (const e of readOffsetCheckpoint(path.join(dataDir, LOG_START_OFFSET_CHECKPOINT_FILE))) this.checkpointedStarts.set(`${e.topic}-${e.partition}`, e.offset);
    const found = new Map<string, { partitions: Set<number>; ids: Map<number, string | null> }>();
    for (const entry of fs.readdirSync(dataDir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const m = PARTITION_DIR.exec(entry.name);
      if (!m) continue;
      const topic = m[1]!;
      const index = Number(m[2]);
      // Internal topics belong to their coordinators (GroupLog, TransactionLog, the share-state log).
      // `__cluster_metadata-0` is a KRaft broker's metadata log (metadata.log.dir defaults to its
      // first log dir), not a topic: Kafka's LogManager leaves it to the raft manager, and so do we
      // (a copy of a Kafka 4.3.1 data directory listed it as a topic: new-user trial, session 31).
      if (isInternalTopic(topic) || topic === CLUSTER_METADATA_TOPIC_NAME || !isValidTopicName(topic)) continue;
      let t = found.get(topic);
      if (!t) found.set(topic, (t = { partitions: new Set(), ids: new Map() }));
      t.partitions.add(index);
      t.ids.set(index, readPartitionMetadata(path.join(dataDir, entry.name)));
    }
    for (const [name, t] of found) {
      const ids = [...new Set([...t.ids.values()].filter((id): id is string => id !== null))];
      let id = ids[0] ?? newTopicId();
      if (ids.length > 1) this.options.log.warn({ topic: name, topicIds: ids }, `partitions of topic ${name} disagree on the topic id; using ${id}`);
      while (this.byId.has(id)) id = newTopicId();
      const count = Math.max(...t.partitions) + 1;
      if (t.partitions.size !== count) {
        this.options.log.warn({ topic: name, found: [...t.partitions].sort((a, b) => a - b) }, `topic ${name} is missing partition directories; recreating them empty`);
      }
      const parts: Partition[] = [];
      for (let p = 0; p < count; p++) parts.push(this.openPartition(name, p, id, false, t.ids.get(p) ?? null));
      this.add(new Topic(name, id, parts));
      this.options.log.info({ topic: name, topicId: id, partitions: count }, 'loaded topic');
    }
  }
}
