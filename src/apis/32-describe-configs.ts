import type { Broker } from '../broker.js';
import { CONFIG_SPECS, type ConfigKey } from '../config.js';
import { ErrorCode } from '../protocol/errors.js';
import type { DescribeConfigsRequest, DescribeConfigsResource } from '../protocol/messages/DescribeConfigsRequest.js';
import {
  defaultDescribeConfigsResponse,
  defaultDescribeConfigsResult,
  type DescribeConfigsResourceResult,
  type DescribeConfigsResponse,
  type DescribeConfigsResult,
  type DescribeConfigsSynonym,
} from '../protocol/messages/DescribeConfigsResponse.js';
import { GROUP_METADATA_TOPIC_NAME } from '../topics/topic-name.js';
import { BROKER_CONFIGS, ConfigType, TOPIC_CONFIGS } from './32-describe-configs-data.js';
import { brokerIdOf, type ApiDefinition } from './types.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';

/** `ConfigResource.Type` ids. */
export const ResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, CLIENT_METRICS: 16, GROUP: 32 } as const;

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

/** `Errors.INVALID_REQUEST.message()`, what a request failing as a whole carries per resource. */
const INVALID_REQUEST_MESSAGE =
  'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.';

class DescribeError extends Error {
  constructor(readonly errorCode: number, message: string) {
    super(message);
  }
}

/**
 * DescribeConfigs (key 32, v1-4), as Kafka 4.3's `ConfigHelper.handleDescribeConfigsRequest` and
 * `describeConfigs` with no authorizer:
 * - BROKER "<node id>": the broker configs this server honours (`mock.*` left out), each with its
 *   value, source (STATIC_BROKER_CONFIG when set, else DEFAULT_CONFIG), synonyms (v1+, when asked:
 *   the set value then Kafka's default, from `brokerConfigSynonyms`), read-only unless Kafka can
 *   change it dynamically, type (v3+) and documentation (v3+, only when asked; null otherwise).
 *   A default of ours that differs from Kafka's (`group.initial.rebalance.delay.ms`) and `node.id`
 *   answer as set, as a broker configured that way would. BROKER "" answers the cluster's dynamic
 *   defaults (none); another id, or one that is not an integer, INVALID_REQUEST with Kafka's message.
 * - TOPIC: every topic config Kafka reports (`LogConfig`), values from the topic's own configs
 *   (`__consumer_offsets`: cleanup.policy=compact, compression.type=producer,
 *   segment.bytes=offsets.topic.segment.bytes, source TOPIC_CONFIG), else from the broker config
 *   that supplies the default; a missing topic UNKNOWN_TOPIC_OR_PARTITION, an illegal name
 *   INVALID_TOPIC_EXCEPTION.
 * - BROKER_LOGGER: the root logger's level; CLIENT_METRICS: no subscriptions; GROUP: the group
 *   configs Kafka derives from the broker's (`consumer.session.timeout.ms`, ...).
 * - Any other resource type fails the whole request: INVALID_REQUEST for every resource.
 * `configurationKeys` (null or empty = all) filters each resource's entries.
 */
export const api: ApiDefinition<DescribeConfigsRequest, DescribeConfigsResponse> = {
  apiKey: 32,
  name: 'DescribeConfigs',
  minVersion: 1,
  maxVersion: 4,
  // DescribeConfigsRequest.getErrorResponse: the error on every resource (Kafka adds the error's
  // default message; there is no message table here).
  errorResponse: (req, _version, errorCode) => ({
    ...defaultDescribeConfigsResponse(),
    results: req.resources.map((r) => ({ ...defaultDescribeConfigsResult(), errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName })),
  }),
  names: namesNothing,
  routing: ANY_BROKER,
  handle(req, ctx) {
    const known = new Set<number>(Object.values(ResourceType));
    if (req.resources.some((r) => !known.has(r.resourceType))) {
      return {
        throttleTimeMs: 0,
        results: req.resources.map((r) => ({
          errorCode: ErrorCode.INVALID_REQUEST,
          errorMessage: INVALID_REQUEST_MESSAGE,
          resourceType: r.resourceType,
          resourceName: r.resourceName,
          configs: [],
        })),
      };
    }
    const opts: EntryOptions = {
      includeSynonyms: ctx.apiVersion >= 1 && req.includeSynonyms,
      includeDocumentation: ctx.apiVersion >= 3 && req.includeDocumentation,
      brokerId: brokerIdOf(ctx),
    };
    return { throttleTimeMs: 0, results: req.resources.map((r) => describeResource(ctx.broker, r, opts, ctx.log.level)) };
  },
};

interface EntryOptions {
  includeSynonyms: boolean;
  includeDocumentation: boolean;
  /** The simulated broker answering (`node.id`, `broker.id`; BROKER resources must name it). */
  brokerId: number;
}

function describeResource(broker: Broker, resource: DescribeConfigsResource, opts: EntryOptions, logLevel: string): DescribeConfigsResult {
  const base = { resourceType: resource.resourceType, resourceName: resource.resourceName };
  try {
    const entries = entriesOf(broker, resource, opts, logLevel);
    if (typeof entries === 'number') return { ...base, errorCode: entries, errorMessage: '', configs: [] };
    const keys = resource.configurationKeys;
    const filtered = keys === null || keys.length === 0 ? entries : entries.filter((e) => keys.includes(e.name));
    return { ...base, errorCode: ErrorCode.NONE, errorMessage: '', configs: filtered };
  } catch (err) {
    if (!(err instanceof DescribeError)) throw err;
    return { ...base, errorCode: err.errorCode, errorMessage: err.message, configs: [] };
  }
}

/** The resource's entries, an error code answered without a message, or a thrown DescribeError. */
function entriesOf(broker: Broker, resource: DescribeConfigsResource, opts: EntryOptions, logLevel: string): DescribeConfigsResourceResult[] | number {
  const name = resource.resourceName;
  switch (resource.resourceType) {
    case ResourceType.TOPIC: {
      validateTopic(name);
      const overrides = topicOverrides(broker, name);
      if (!overrides) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      return Object.keys(TOPIC_CONFIGS).map((configName) => topicEntry(broker, configName, overrides, opts));
    }
    case ResourceType.BROKER:
      if (name === '') return [];
      if (parseBrokerId(name) !== opts.brokerId) {
        throw invalidRequest(`Unexpected broker id, expected ${opts.brokerId} or empty string, but received ${name}`);
      }
      return brokerEntries(broker, opts);
    case ResourceType.BROKER_LOGGER:
      if (name === '') throw invalidRequest('Broker id must not be empty');
      if (parseBrokerId(name) !== opts.brokerId) throw invalidRequest(`Unexpected broker id, expected ${opts.brokerId} but received ${name}`);
      return [{
        name: 'root',
        value: log4jLevel(logLevel),
        readOnly: false,
        configSource: ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG,
        isSensitive: false,
        synonyms: [],
        configType: ConfigType.UNKNOWN,
        documentation: '',
      }];
    case ResourceType.CLIENT_METRICS:
      if (name === '') throw invalidRequest('Client metrics subscription name must not be empty');
      return [];
    default: // GROUP
      if (name === '') throw invalidRequest('Group name must not be empty');
      return groupEntries(broker, opts);
  }
}

const invalidRequest = (message: string): DescribeError => new DescribeError(ErrorCode.INVALID_REQUEST, message);

/** `ConfigHelper.resourceNameToBrokerId`: Java's `Integer.parseInt`. */
function parseBrokerId(name: string): number {
  const n = /^[+-]?\d+$/.test(name) ? Number(name) : NaN;
  if (!Number.isInteger(n) || n > 2147483647 || n < -2147483648) throw invalidRequest(`Broker id must be an integer, but it is: ${name}`);
  return n;
}

/** Kafka 4.3.1's `Topic.validate` messages. */
function validateTopic(name: string): void {
  const invalid = (why: string): DescribeError => new DescribeError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic name is invalid: ${why}`);
  if (name.length === 0) throw invalid('the empty string is not allowed');
  if (name === '.' || name === '..') throw invalid(`'${name}' is not allowed`);
  if (name.length > 249) throw invalid(`the length of '${name}' is longer than the max allowed length 249`);
  if (!/^[a-zA-Z0-9._-]+$/.test(name)) throw invalid(`'${name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`);
}

// ---- broker configs ---------------------------------------------------------------------

/** Java's `Double.toString`. */
export function javaDouble(n: number): string {
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(n);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(n);
    return s.includes('.') ? s : `${s}.0`;
  }
  let [mantissa, exp] = n.toExponential().split('e') as [string, string];
  if (!mantissa.includes('.')) mantissa += '.0';
  return `${mantissa}E${exp.startsWith('+') ? exp.slice(1) : exp}`;
}

/** A value as Kafka renders the parsed config (`ConfigDef.convertToString`). */
function render(type: number, raw: string): string {
  switch (type) {
    case ConfigType.INT:
    case ConfigType.LONG:
    case ConfigType.SHORT:
      return BigInt(raw.trim()).toString();
    case ConfigType.DOUBLE:
      return javaDouble(Number(raw));
    case ConfigType.LIST:
      return raw.split(',').map((s) => s.trim()).filter((s) => s !== '').join(',');
    case ConfigType.BOOLEAN:
      return raw.trim().toLowerCase();
    default:
      return raw.trim();
  }
}

/**
 * Whether a broker config answers as set in server.properties (STATIC_BROKER_CONFIG): given
 * explicitly, `node.id` and `broker.id` (the answering broker's id: a KRaft broker's server.properties
 * sets node.id, and broker.id follows it), or a default of ours that differs from Kafka's.
 */
function staticValue(broker: Broker, key: string, brokerId: number): string | undefined {
  if (key === 'node.id' || key === 'broker.id') return String(brokerId);
  if (!Object.hasOwn(CONFIG_SPECS, key)) return undefined;
  const meta = BROKER_CONFIGS[key];
  const [, raw, isDefault] = broker.config.entries().find(([k]) => k === key)!;
  if (!isDefault) return raw;
  if (meta && meta.kafkaDefault !== null && render(meta.type, raw) !== meta.kafkaDefault) return raw;
  return undefined;
}

/** `ConfigHelper.configSynonyms`: set values, then Kafka's defaults, from `name` on. */
function configSynonyms(broker: Broker, name: string, synonyms: ReadonlyArray<readonly [string, string | null]>, brokerId: number): DescribeConfigsSynonym[] {
  const all: DescribeConfigsSynonym[] = [];
  for (const [syn] of synonyms) {
    const value = staticValue(broker, syn, brokerId);
    if (value !== undefined) all.push({ name: syn, value, source: ConfigSource.STATIC_BROKER_CONFIG });
  }
  for (const [syn, kafkaDefault] of synonyms) {
    if (kafkaDefault !== null) all.push({ name: syn, value: kafkaDefault, source: ConfigSource.DEFAULT_CONFIG });
  }
  const from = all.findIndex((s) => s.name === name);
  return from < 0 ? [] : all.slice(from);
}

function brokerSynonymDefaults(names: readonly string[]): Array<readonly [string, string | null]> {
  return names.map((n) => [n, BROKER_CONFIGS[n]?.kafkaDefault ?? null] as const);
}

function brokerEntries(broker: Broker, opts: EntryOptions): DescribeConfigsResourceResult[] {
  const out: DescribeConfigsResourceResult[] = [];
  for (const [key, meta] of Object.entries(BROKER_CONFIGS)) {
    const set = staticValue(broker, key, opts.brokerId);
    const value = set !== undefined ? render(meta.type, set) : meta.kafkaDefault;
    const synonyms = configSynonyms(broker, key, brokerSynonymDefaults(meta.synonyms), opts.brokerId);
    out.push({
      name: key,
      value,
      readOnly: !meta.dynamic,
      configSource: synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG,
      isSensitive: false,
      synonyms: opts.includeSynonyms ? synonyms : [],
      configType: meta.type,
      documentation: opts.includeDocumentation ? meta.documentation : null,
    });
  }
  return out;
}

// ---- topic configs ----------------------------------------------------------------------

/** The topic's own configs, or undefined when the topic does not exist. */
function topicOverrides(broker: Broker, name: string): Map<string, string> | undefined {
  if (name === GROUP_METADATA_TOPIC_NAME) {
    // GroupCoordinatorService.groupMetadataTopicConfigs
    return new Map([
      ['cleanup.policy', 'compact'],
      ['compression.type', 'producer'],
      ['segment.bytes', String(broker.config.int('offsets.topic.segment.bytes'))],
    ]);
  }
  // CreateTopics accepts and ignores topic configs: a user topic has none of its own.
  return broker.topics.get(name) ? new Map() : undefined;
}

/** A topic config's value from the broker configs we honour (`KafkaConfig.extractLogConfigMap`), if one supplies it. */
function brokerSuppliedValue(broker: Broker, configName: string, brokerSynonym: string | null): string | undefined {
  const c = broker.config;
  switch (brokerSynonym) {
    case 'log.roll.ms':
      return String(c.logRollMs());
    case 'log.flush.interval.ms':
      return staticValue(broker, 'log.flush.interval.ms', broker.nodeId);
    case 'log.cleaner.min.cleanable.ratio':
      return javaDouble(c.double('log.cleaner.min.cleanable.ratio'));
    case 'message.max.bytes':
    case 'log.segment.bytes':
    case 'log.cleaner.delete.retention.ms':
    case 'log.flush.interval.messages':
      return render(TOPIC_CONFIGS[configName]!.type, c.raw(brokerSynonym));
    default:
      return undefined;
  }
}

function topicEntry(broker: Broker, configName: string, overrides: Map<string, string>, opts: EntryOptions): DescribeConfigsResourceResult {
  const meta = TOPIC_CONFIGS[configName]!;
  const own = overrides.get(configName);
  const value = own !== undefined ? render(meta.type, own) : (brokerSuppliedValue(broker, configName, meta.brokerSynonym) ?? meta.kafkaValue);
  // ConfigHelper.createTopicConfigEntry
  const synonyms = meta.brokerSynonym === null ? [] : configSynonyms(broker, meta.brokerSynonym, meta.brokerSynonyms, opts.brokerId);
  if (own !== undefined) synonyms.unshift({ name: configName, value, source: ConfigSource.TOPIC_CONFIG });
  return {
    name: configName,
    value,
    readOnly: false,
    configSource: synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG,
    isSensitive: false,
    synonyms: opts.includeSynonyms ? synonyms : [],
    configType: meta.type,
    documentation: opts.includeDocumentation ? meta.documentation : null,
  };
}

// ---- group configs and loggers ----------------------------------------------------------

/**
 * Group configs (`GroupConfig`, Kafka 4.3.1) for a group without overrides: the consumer ones take
 * the broker configs this server honours, the share and streams ones Kafka's defaults. Source
 * DEFAULT_CONFIG with the config itself as its synonym (`ConfigHelper.createGroupConfigEntry`).
 */
const GROUP_CONFIGS: ReadonlyArray<readonly [name: string, type: number, value: ConfigKey | string]> = [
  ['consumer.assignment.interval.ms', ConfigType.INT, 'group.consumer.assignment.interval.ms'],
  ['consumer.heartbeat.interval.ms', ConfigType.INT, 'group.consumer.heartbeat.interval.ms'],
  ['consumer.session.timeout.ms', ConfigType.INT, 'group.consumer.session.timeout.ms'],
  ['share.assignment.interval.ms', ConfigType.INT, '1000'],
  ['share.auto.offset.reset', ConfigType.STRING, 'latest'],
  ['share.delivery.count.limit', ConfigType.INT, '5'],
  ['share.heartbeat.interval.ms', ConfigType.INT, '5000'],
  ['share.isolation.level', ConfigType.STRING, 'read_uncommitted'],
  ['share.partition.max.record.locks', ConfigType.INT, '2000'],
  ['share.record.lock.duration.ms', ConfigType.INT, '30000'],
  ['share.renew.acknowledge.enable', ConfigType.BOOLEAN, 'true'],
  ['share.session.timeout.ms', ConfigType.INT, '45000'],
  ['streams.assignment.interval.ms', ConfigType.INT, '1000'],
  ['streams.heartbeat.interval.ms', ConfigType.INT, '5000'],
  ['streams.initial.rebalance.delay.ms', ConfigType.INT, '3000'],
  ['streams.num.standby.replicas', ConfigType.INT, '0'],
  ['streams.session.timeout.ms', ConfigType.INT, '45000'],
];

function groupEntries(broker: Broker, opts: EntryOptions): DescribeConfigsResourceResult[] {
  return GROUP_CONFIGS.map(([name, type, from]) => {
    const value = Object.hasOwn(CONFIG_SPECS, from) ? String(broker.config.int(from as ConfigKey)) : from;
    return {
      name,
      value,
      readOnly: false,
      configSource: ConfigSource.DEFAULT_CONFIG,
      isSensitive: false,
      synonyms: opts.includeSynonyms ? [{ name, value, source: ConfigSource.DEFAULT_CONFIG }] : [],
      configType: type,
      // Group config documentation is not carried here.
      documentation: opts.includeDocumentation ? '' : null,
    };
  });
}

/** pino level -> log4j level name. */
function log4jLevel(level: string): string {
  switch (level) {
    case 'fatal':
      return 'FATAL';
    case 'error':
      return 'ERROR';
    case 'warn':
      return 'WARN';
    case 'debug':
      return 'DEBUG';
    case 'trace':
      return 'TRACE';
    case 'silent':
      return 'OFF';
    default:
      return 'INFO';
  }
}
