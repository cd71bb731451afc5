/**
 * Every config value as a Kafka 4.3 broker resolves it, with where it comes from (Kafka's
 * `DynamicBrokerConfig`, `KafkaConfig.extractLogConfigMap`, `LogConfig`, `GroupConfigManager`):
 *
 * - A broker config of broker B: its dynamic value for B (DYNAMIC_BROKER_CONFIG), else the cluster
 *   default (DYNAMIC_DEFAULT_BROKER_CONFIG), else the value set at start (STATIC_BROKER_CONFIG: given
 *   explicitly, or a default of ours that differs from Kafka's, or `node.id`/`broker.id`), else
 *   Kafka's default (DEFAULT_CONFIG).
 * - A topic config: the topic's own value (TOPIC_CONFIG), else the first of its broker synonyms that
 *   has a value (`log.retention.ms`, `log.retention.minutes`, `log.retention.hours` for
 *   `retention.ms`, converted to the topic config's unit), else Kafka's value.
 * - A group config: the group's own value (GROUP_CONFIG), else its broker synonym's.
 *
 * `synonyms` lists the candidates as DescribeConfigs reports them (`ConfigHelper.configSynonyms`):
 * every dynamic per-broker value of the synonym names, then the cluster defaults, the static values
 * and Kafka's defaults.
 */
import { CONFIG_SPECS, type BrokerConfig } from '../config.js';
import { GROUP_METADATA_TOPIC_NAME } from '../topics/topic-name.js';
import { BROKER_CONFIGS, GROUP_CONFIGS, KAFKA_BROKER_CONFIGS, TOPIC_CONFIGS } from './kafka-config-data.js';
import { CLUSTER_DEFAULT, type ConfigStore } from './config-store.js';
import { renderConfigValue } from './config-def.js';

/** `DescribeConfigsResponse.ConfigSource` ids. */
export const ConfigSource = {
  UNKNOWN: 0,
  TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
  CLIENT_METRICS_CONFIG: 7,
  GROUP_CONFIG: 8,
} as const;

export interface ConfigSynonym {
  name: string;
  value: string | null;
  source: number;
}

/** A resolved config: its value (null: none), its source, and the candidates it was chosen from. */
export interface ResolvedConfig {
  value: string | null;
  source: number;
  synonyms: ConfigSynonym[];
}

/** Broker synonyms in another unit than their topic config (`KafkaConfig.logRetentionTimeMillis`, `logRollTimeMillis`, ...). */
const UNIT_MS: Readonly<Record<string, bigint>> = {
  'log.retention.minutes': 60_000n,
  'log.retention.hours': 3_600_000n,
  'log.roll.hours': 3_600_000n,
  'log.roll.jitter.hours': 3_600_000n,
};

/** The configs `__consumer_offsets` is created with (`GroupCoordinatorService.groupMetadataTopicConfigs`). */
function internalTopicConfigs(config: BrokerConfig): Record<string, string> {
  return { 'cleanup.policy': 'compact', 'compression.type': 'producer', 'segment.bytes': String(config.int('offsets.topic.segment.bytes')) };
}

export class ClusterConfigs {
  constructor(
    readonly staticConfig: BrokerConfig,
    readonly store: ConfigStore,
  ) {}

  // ---- broker configs -------------------------------------------------------------------

  /**
   * The value broker config `key` had at start, as DescribeConfigs reports it (STATIC_BROKER_CONFIG):
   * given explicitly, the answering broker's id for `node.id`/`broker.id`, or a default of ours that
   * differs from Kafka's. Undefined otherwise (Kafka's default applies).
   */
  staticValue(key: string, brokerId: number): string | undefined {
    if (key === 'node.id' || key === 'broker.id') return String(brokerId);
    if (!Object.hasOwn(CONFIG_SPECS, key)) return undefined;
    const entry = this.staticConfig.entries().find(([k]) => k === key)!;
    const [, raw, isDefault] = entry;
    if (!isDefault) return raw;
    const meta = BROKER_CONFIGS[key];
    if (meta && meta.kafkaDefault !== null && renderConfigValue(meta.type, raw) !== meta.kafkaDefault) return raw;
    return undefined;
  }

  /** Kafka's default of a broker config (null: none, or not a Kafka config). */
  kafkaDefault(key: string): string | null {
    return KAFKA_BROKER_CONFIGS[key]?.[1] ?? null;
  }

  /** `ConfigHelper.configSynonyms`: the candidates of broker configs `names` (precedence order) at broker `brokerId`, tier by tier. */
  brokerSynonyms(names: readonly string[], brokerId: number): ConfigSynonym[] {
    const out: ConfigSynonym[] = [];
    const perBroker = this.store.brokerConfigs(String(brokerId));
    const clusterDefault = this.store.brokerConfigs(CLUSTER_DEFAULT);
    for (const n of names) if (perBroker[n] !== undefined) out.push({ name: n, value: perBroker[n]!, source: ConfigSource.DYNAMIC_BROKER_CONFIG });
    for (const n of names) if (clusterDefault[n] !== undefined) out.push({ name: n, value: clusterDefault[n]!, source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG });
    for (const n of names) {
      const value = this.staticValue(n, brokerId);
      if (value !== undefined) out.push({ name: n, value, source: ConfigSource.STATIC_BROKER_CONFIG });
    }
    for (const n of names) {
      const value = this.kafkaDefault(n);
      if (value !== null) out.push({ name: n, value, source: ConfigSource.DEFAULT_CONFIG });
    }
    return out;
  }

  /** A broker config of broker `brokerId` as DescribeConfigs reports it (synonyms from its own name on). */
  brokerConfig(key: string, brokerId: number): ResolvedConfig {
    const names = BROKER_CONFIGS[key]?.synonyms ?? [key];
    const all = this.brokerSynonyms(names, brokerId);
    const from = all.findIndex((s) => s.name === key);
    const synonyms = from < 0 ? [] : all.slice(from);
    const type = BROKER_CONFIGS[key]?.type ?? KAFKA_BROKER_CONFIGS[key]?.[0];
    const first = synonyms[0];
    return {
      value: first ? (type === undefined ? first.value : renderConfigValue(type, first.value!)) : null,
      source: first?.source ?? ConfigSource.DEFAULT_CONFIG,
      synonyms,
    };
  }

  /** The effective value of broker config `key` at `brokerId` (dynamic, static or Kafka's default), or null. */
  brokerValue(key: string, brokerId: number): string | null {
    return this.brokerConfig(key, brokerId).value;
  }

  // ---- topic configs ----------------------------------------------------------------------

  /** A topic's own configs (`__consumer_offsets`: those it is created with). */
  topicOverrides(topicName: string, topicId: string): Readonly<Record<string, string>> {
    if (topicName === GROUP_METADATA_TOPIC_NAME) return internalTopicConfigs(this.staticConfig);
    return this.store.topicConfigs(topicId);
  }

  /** Topic config `name` of a topic with `overrides`, at broker `brokerId` (`ConfigHelper.createTopicConfigEntry`). */
  topicConfig(name: string, overrides: Readonly<Record<string, string>>, brokerId: number): ResolvedConfig {
    const meta = TOPIC_CONFIGS[name];
    if (!meta) throw new Error(`unknown topic config ${name}`);
    const candidates = meta.brokerSynonym === null ? [] : this.brokerSynonyms(meta.brokerSynonyms.map(([n]) => n), brokerId);
    // Reported from the broker synonym's own name on (ConfigHelper.configSynonyms' dropWhile): with
    // log.retention.ms unset, retention.ms lists no synonyms although log.retention.hours supplies it.
    const from = candidates.findIndex((c) => c.name === meta.brokerSynonym);
    const synonyms = from < 0 ? [] : candidates.slice(from);
    const own = overrides[name];
    if (own !== undefined) {
      const value = renderConfigValue(meta.type, own);
      return { value, source: ConfigSource.TOPIC_CONFIG, synonyms: [{ name, value, source: ConfigSource.TOPIC_CONFIG }, ...synonyms] };
    }
    const source = synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG;
    // The value comes from the first synonym name holding one (extractLogConfigMap), whatever tier.
    for (const [synonym] of meta.brokerSynonyms) {
      const found = candidates.find((c) => c.name === synonym);
      if (!found || found.value === null) continue;
      const unit = UNIT_MS[synonym];
      const value = unit === undefined ? renderConfigValue(meta.type, found.value) : String(BigInt(found.value.trim()) * unit);
      return { value, source, synonyms };
    }
    return { value: meta.kafkaValue, source, synonyms };
  }

  /** The effective value of topic config `name` (a string as DescribeConfigs shows it). */
  topicValue(topicName: string, topicId: string, name: string, brokerId: number): string {
    return this.topicConfig(name, this.topicOverrides(topicName, topicId), brokerId).value ?? '';
  }

  // ---- group configs ----------------------------------------------------------------------

  /** Group config `name` of `groupId` (`ConfigHelper.createGroupConfigEntry`). */
  groupConfig(groupId: string, name: string, brokerId: number): ResolvedConfig {
    const meta = GROUP_CONFIGS[name];
    if (!meta) throw new Error(`unknown group config ${name}`);
    const synonyms = meta.brokerSynonym === null ? [] : this.brokerSynonyms([meta.brokerSynonym], brokerId);
    const own = this.store.groupConfigs(groupId)[name];
    if (own !== undefined) {
      const value = renderConfigValue(meta.type, own);
      return { value, source: ConfigSource.GROUP_CONFIG, synonyms: [{ name, value, source: ConfigSource.GROUP_CONFIG }, ...synonyms] };
    }
    const first = synonyms[0];
    return { value: first ? renderConfigValue(meta.type, first.value!) : meta.kafkaDefault, source: first?.source ?? ConfigSource.DEFAULT_CONFIG, synonyms };
  }
}
