/**
 * The configs set at run time, which a KRaft cluster keeps in its metadata log as ConfigRecords:
 * topic overrides (by topic id, so a re-created topic starts clean), dynamic broker configs (per
 * broker id, and the cluster default under ""), and group configs. Kept in `<data-dir>/kmc-configs.json`
 * (ours: this server has no metadata log), replaced durably on every change (temporary file,
 * fdatasync, rename, directory fsync); a change whose write fails is undone in memory too;
 * nothing is written in memory mode.
 *
 * A new store holds the cluster-level `min.insync.replicas` that a Kafka 4.3 controller writes when
 * it bootstraps with eligible leader replicas enabled (so DescribeConfigs and the tools show it as
 * Kafka's do), from the static `min.insync.replicas`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigValueError, parseConfigValue } from './config-def.js';
import { GROUP_CONFIGS, KAFKA_BROKER_CONFIGS, TOPIC_CONFIGS } from './kafka-config-data.js';
import { writeFileDurably, writeFileDurablySync } from '../storage/file-io.js';

/** The file, in the data directory. */
export const CONFIG_STORE_FILE = 'kmc-configs.json';

/** The broker scope of the cluster-wide defaults (Kafka's empty broker resource name). */
export const CLUSTER_DEFAULT = '';

type Configs = Record<string, string>;

interface StoredState {
  version: 1;
  /** Topic id -> its name (for people reading the file) and its overrides. */
  topics: Record<string, { name: string; configs: Configs }>;
  /** Broker id ("" = cluster default) -> dynamic configs. */
  brokers: Record<string, Configs>;
  groups: Record<string, Configs>;
}

/** A config file this server cannot read. */
export class ConfigStoreError extends Error {}

export class ConfigStore {
  /** What is seen: the durable state plus the changes whose writes are pending. */
  private state: StoredState;
  /** What the file holds. */
  private durable: StoredState;
  /** Changes whose writes have not completed, oldest first. */
  private pending: Array<{ mutate: (state: StoredState) => void }> = [];
  private writing: Promise<void> = Promise.resolve();
  /** Bumped at every change of what is seen (a change applied, or undone by a failed write): readers that cache resolved configs (LogConfigCache) look again when it moved. */
  #generation = 0;
  /** Told after the broker configs seen changed (a change applied, or undone by a failed write). */
  private readonly brokerListeners = new Set<() => void>();

  private constructor(private readonly file: string | null, state: StoredState) {
    this.state = state;
    this.durable = structuredClone(state);
  }

  /**
   * Opens the store of `dataDir` (null: in memory). A missing file starts a new cluster's state
   * (the cluster-level `min.insync.replicas` = `minInsyncReplicas`); an unreadable one throws.
   */
  static open(dataDir: string | null, minInsyncReplicas: string): ConfigStore {
    const fresh = (): StoredState => ({ version: 1, topics: {}, brokers: { [CLUSTER_DEFAULT]: { 'min.insync.replicas': minInsyncReplicas } }, groups: {} });
    if (dataDir === null) return new ConfigStore(null, fresh());
    const file = path.join(dataDir, CONFIG_STORE_FILE);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      const store = new ConfigStore(file, fresh());
      store.writeSync();
      return store;
    }
    let state: StoredState;
    try {
      state = JSON.parse(text) as StoredState;
    } catch (err) {
      throw new ConfigStoreError(`${file} is not valid JSON: ${(err as Error).message}`);
    }
    if (state?.version !== 1 || typeof state.topics !== 'object' || typeof state.brokers !== 'object' || typeof state.groups !== 'object') {
      throw new ConfigStoreError(`${file} is not a config store of this server (version 1 with topics, brokers and groups)`);
    }
    checkStoredValues(file, state);
    return new ConfigStore(file, state);
  }

  /** A number that changes whenever the configs seen change (none of them changed while it stays). */
  get generation(): number {
    return this.#generation;
  }

  /** The overrides of a topic (empty when none). */
  topicConfigs(topicId: string): Readonly<Configs> {
    return this.state.topics[topicId]?.configs ?? {};
  }

  /** Dynamic configs of broker `scope` (a broker id, or CLUSTER_DEFAULT). */
  brokerConfigs(scope: string): Readonly<Configs> {
    return this.state.brokers[scope] ?? {};
  }

  groupConfigs(groupId: string): Readonly<Configs> {
    return this.state.groups[groupId] ?? {};
  }

  /** The groups that have configs of their own. */
  groupsWithConfigs(): string[] {
    return Object.keys(this.state.groups);
  }

  /**
   * Replaces a topic's overrides; resolves once durable. Every change is seen at once (reads, the
   * next change's planning); a failed write rejects and undoes it (the later changes still pending
   * stay), so a change the client is told failed is gone in memory as on disk.
   */
  setTopicConfigs(topicId: string, name: string, configs: Configs): Promise<void> {
    return this.change((s) => {
      if (Object.keys(configs).length === 0) delete s.topics[topicId];
      else s.topics[topicId] = { name, configs: { ...configs } };
    });
  }

  /** Forgets a deleted topic's overrides. */
  deleteTopic(topicId: string): Promise<void> {
    if (!(topicId in this.state.topics)) return Promise.resolve();
    return this.change((s) => void delete s.topics[topicId]);
  }

  setBrokerConfigs(scope: string, configs: Configs): Promise<void> {
    const written = this.change((s) => {
      if (Object.keys(configs).length === 0) delete s.brokers[scope];
      else s.brokers[scope] = { ...configs };
    });
    this.brokerConfigsChanged();
    return written.catch((err: unknown) => {
      this.brokerConfigsChanged();
      throw err;
    });
  }

  /** Calls `listener` after each change of the broker configs seen (what reads them at a time, e.g. connection limits, looks again); returns its removal. */
  onBrokerConfigsChanged(listener: () => void): () => void {
    this.brokerListeners.add(listener);
    return () => this.brokerListeners.delete(listener);
  }

  private brokerConfigsChanged(): void {
    for (const listener of this.brokerListeners) listener();
  }

  setGroupConfigs(groupId: string, configs: Configs): Promise<void> {
    return this.change((s) => {
      if (Object.keys(configs).length === 0) delete s.groups[groupId];
      else s.groups[groupId] = { ...configs };
    });
  }

  /**
   * A topic's overrides written durably before this returns (topic creation: the configs are on
   * disk before the topic can be seen); throws when the write fails, leaving the store unchanged.
   */
  setTopicConfigsSync(topicId: string, name: string, configs: Configs): void {
    if (Object.keys(configs).length === 0 || this.file === null) {
      if (Object.keys(configs).length > 0) this.state.topics[topicId] = { name, configs: { ...configs } };
      this.#generation++;
      return;
    }
    const next = structuredClone(this.durable);
    next.topics[topicId] = { name, configs: { ...configs } };
    writeFileDurablySync(this.file, JSON.stringify(next, null, 2) + '\n');
    this.durable = next;
    this.state.topics[topicId] = { name, configs: { ...configs } };
    this.#generation++;
  }

  /** Forgets a topic's overrides durably at once (a creation undone); throws when the write fails. */
  deleteTopicSync(topicId: string): void {
    delete this.state.topics[topicId];
    this.#generation++;
    if (this.file === null || !(topicId in this.durable.topics)) return;
    const next = structuredClone(this.durable);
    delete next.topics[topicId];
    writeFileDurablySync(this.file, JSON.stringify(next, null, 2) + '\n');
    this.durable = next;
  }

  /** Resolves once every change made so far is durable (rejects if the last write failed). */
  whenWritten(): Promise<void> {
    return this.writing;
  }

  /** Applies `mutate` now and queues its durable write: the durable state plus `mutate`, at its turn. */
  private change(mutate: (state: StoredState) => void): Promise<void> {
    mutate(this.state);
    this.#generation++;
    const file = this.file;
    if (file === null) return Promise.resolve();
    const pending = { mutate };
    this.pending.push(pending);
    const write = this.writing.catch(() => {}).then(async () => {
      const next = structuredClone(this.durable);
      mutate(next);
      try {
        await writeFileDurably(file, JSON.stringify(next, null, 2) + '\n');
      } catch (err) {
        this.pending.splice(this.pending.indexOf(pending), 1);
        // What is seen again: the durable state plus the changes still waiting for their write.
        this.state = structuredClone(this.durable);
        for (const p of this.pending) p.mutate(this.state);
        this.#generation++;
        throw err;
      }
      this.durable = next;
      this.pending.splice(this.pending.indexOf(pending), 1);
    });
    this.writing = write;
    return write;
  }

  private writeSync(): void {
    const file = this.file!;
    const tmp = `${file}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.state, null, 2) + '\n');
    fs.renameSync(tmp, file);
  }
}

/**
 * Every stored value is a string its config's type parses (ConfigDef.parseType), so that nothing
 * reading the configs later meets one it cannot use; throws ConfigStoreError naming the file, the
 * resource and the key.
 */
function checkStoredValues(file: string, state: StoredState): void {
  const check = (where: string, configs: unknown, typeOf: (key: string) => number | undefined): void => {
    if (typeof configs !== 'object' || configs === null) throw new ConfigStoreError(`${file}: ${where} has no configs object`);
    for (const [key, value] of Object.entries(configs)) {
      if (typeof value !== 'string') throw new ConfigStoreError(`${file}: ${where}, config ${key}: the value is not a string`);
      const type = typeOf(key);
      if (type === undefined) continue;
      try {
        parseConfigValue(key, type, value);
      } catch (err) {
        if (err instanceof ConfigValueError) throw new ConfigStoreError(`${file}: ${where}, config ${key}: ${err.message}`);
        throw err;
      }
    }
  };
  for (const [id, topic] of Object.entries(state.topics)) check(`topic ${topic?.name} (id ${id})`, topic?.configs, (k) => TOPIC_CONFIGS[k]?.type);
  for (const [scope, configs] of Object.entries(state.brokers)) check(scope === CLUSTER_DEFAULT ? 'the cluster default broker configs' : `broker ${scope}`, configs, (k) => KAFKA_BROKER_CONFIGS[k]?.[0]);
  for (const [group, configs] of Object.entries(state.groups)) check(`group ${group}`, configs, (k) => GROUP_CONFIGS[k]?.type);
}
