import type { Broker } from '../broker.js';
import { ErrorCode } from '../protocol/errors.js';
import type { DescribeConfigsRequest, DescribeConfigsResource } from '../protocol/messages/DescribeConfigsRequest.js';
import {
  defaultDescribeConfigsResponse,
  defaultDescribeConfigsResult,
  type DescribeConfigsResourceResult,
  type DescribeConfigsResponse,
  type DescribeConfigsResult,
} from '../protocol/messages/DescribeConfigsResponse.js';
import { BROKER_CONFIGS, ConfigType, GROUP_CONFIGS, KAFKA_BROKER_CONFIGS, TOPIC_CONFIGS } from '../configs/kafka-config-data.js';
import { ConfigSource, type ResolvedConfig } from '../configs/cluster-configs.js';
import { CLUSTER_DEFAULT } from '../configs/config-store.js';
import { ResourceType } from '../configs/alter-configs.js';
import { renderConfigValue } from '../configs/config-def.js';
import { topicValidateProblem } from '../topics/topic-name.js';
import { brokerIdOf, type ApiDefinition } from './types.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';
import { runSoon, Slicer } from '../util/slices.js';

export { ResourceType, ConfigSource };

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
 * - BROKER "<id>" (the answering broker of the simulated cluster): the broker configs this server
 *   honours (`mock.*` left out) and `broker.id`, plus any config set dynamically, each with its
 *   value, source and synonyms as src/configs/cluster-configs.ts resolves them (dynamic per broker,
 *   cluster default, static, Kafka's default), read-only unless Kafka can change it dynamically,
 *   type (v3+) and documentation (v3+, only when asked; null otherwise). A default of ours that
 *   differs from Kafka's (`group.initial.rebalance.delay.ms`) and `node.id`/`broker.id` answer as
 *   set, as a broker configured that way would. BROKER "" answers the cluster's dynamic defaults
 *   (`min.insync.replicas`, as a Kafka 4.3 controller bootstraps it, and what AlterConfigs set);
 *   another id, or one that is not an integer, INVALID_REQUEST with Kafka's message.
 * - TOPIC: every topic config Kafka reports (`LogConfig`), the topic's own configs first
 *   (TOPIC_CONFIG; `__consumer_offsets`: cleanup.policy=compact, compression.type=producer,
 *   segment.bytes=offsets.topic.segment.bytes), else the broker synonyms', with the synonyms chain;
 *   a missing topic UNKNOWN_TOPIC_OR_PARTITION, an illegal name INVALID_TOPIC_EXCEPTION.
 * - BROKER_LOGGER: the root logger's level; CLIENT_METRICS: no subscriptions; GROUP: every group
 *   config, set for the group (GROUP_CONFIG) or from its broker synonym.
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
  largeAnswers: true,
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
    return runSoon(describeInSlices(ctx.broker, req.resources, opts, ctx.log.level));
  },
};

/**
 * Resources described per turn of the event loop at most (fewer once the turn's slice budget is
 * spent): a topic's entries with synonyms and documentation take ~0.5-1.5 ms, and one request may
 * name thousands of topics (2,000 held the other connections 0.27-1.3 s; adversarial trial 24).
 */
export const DESCRIBE_CONFIGS_RESOURCES_PER_SLICE = 64;

function* describeInSlices(broker: Broker, resources: readonly DescribeConfigsResource[], opts: EntryOptions, logLevel: string): Generator<void, DescribeConfigsResponse> {
  const slicer = new Slicer(DESCRIBE_CONFIGS_RESOURCES_PER_SLICE);
  const results: DescribeConfigsResult[] = [];
  for (const resource of resources) {
    if (slicer.due()) yield;
    results.push(describeResource(broker, resource, opts, logLevel));
  }
  return { throttleTimeMs: 0, results };
}

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
      const topic = broker.topics.get(name);
      if (!topic) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      return topicEntries(broker, topic.name, topic.id, opts);
    }
    case ResourceType.BROKER:
      if (name === '') return clusterDefaultEntries(broker, opts);
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
      return groupEntries(broker, name, opts);
  }
}

const invalidRequest = (message: string): DescribeError => new DescribeError(ErrorCode.INVALID_REQUEST, message);

/** `ConfigHelper.resourceNameToBrokerId`: Java's `Integer.parseInt`. */
function parseBrokerId(name: string): number {
  const n = /^[+-]?\d+$/.test(name) ? Number(name) : NaN;
  if (!Number.isInteger(n) || n > 2147483647 || n < -2147483648) throw invalidRequest(`Broker id must be an integer, but it is: ${name}`);
  return n;
}

/** Kafka 4.3.1's `Topic.validate` (INVALID_TOPIC_EXCEPTION "Topic name is invalid: ..."). */
function validateTopic(name: string): void {
  const problem = topicValidateProblem(name);
  if (problem !== null) throw new DescribeError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem);
}

// ---- broker configs ---------------------------------------------------------------------

/** An entry of DescribeConfigs from a resolved config (`ConfigHelper.createBrokerConfigEntry` and the others). */
function entry(name: string, resolved: ResolvedConfig, meta: { type: number; readOnly: boolean; documentation: string | null }, opts: EntryOptions): DescribeConfigsResourceResult {
  return {
    name,
    value: resolved.value,
    readOnly: meta.readOnly,
    configSource: resolved.source,
    isSensitive: false,
    synonyms: opts.includeSynonyms ? resolved.synonyms : [],
    configType: meta.type,
    documentation: opts.includeDocumentation ? meta.documentation : null,
  };
}

/**
 * BROKER "<id>": the broker configs we report (those we honour, their synonyms, `broker.id`), then
 * any other config set dynamically for this broker or the cluster (Kafka lists every config it knows).
 */
function brokerEntries(broker: Broker, opts: EntryOptions): DescribeConfigsResourceResult[] {
  const configs = broker.configs;
  const out = Object.entries(BROKER_CONFIGS).map(([key, meta]) =>
    entry(key, configs.brokerConfig(key, opts.brokerId), { type: meta.type, readOnly: !meta.dynamic, documentation: meta.documentation }, opts),
  );
  const dynamic = new Set([...Object.keys(configs.store.brokerConfigs(String(opts.brokerId))), ...Object.keys(configs.store.brokerConfigs(CLUSTER_DEFAULT))]);
  for (const key of dynamic) {
    if (BROKER_CONFIGS[key]) continue;
    const type = KAFKA_BROKER_CONFIGS[key]?.[0] ?? ConfigType.STRING;
    out.push(entry(key, configs.brokerConfig(key, opts.brokerId), { type, readOnly: false, documentation: '' }, opts));
  }
  return out;
}

/** BROKER "": the cluster-wide dynamic defaults, each with itself as its only synonym. */
function clusterDefaultEntries(broker: Broker, opts: EntryOptions): DescribeConfigsResourceResult[] {
  return Object.entries(broker.configs.store.brokerConfigs(CLUSTER_DEFAULT)).map(([key, value]) => {
    const type = BROKER_CONFIGS[key]?.type ?? KAFKA_BROKER_CONFIGS[key]?.[0] ?? ConfigType.STRING;
    const rendered = renderConfigValue(type, value);
    const resolved: ResolvedConfig = { value: rendered, source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, synonyms: [{ name: key, value: rendered, source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG }] };
    return entry(key, resolved, { type, readOnly: false, documentation: BROKER_CONFIGS[key]?.documentation ?? '' }, opts);
  });
}

// ---- topic configs ----------------------------------------------------------------------

function topicEntries(broker: Broker, topicName: string, topicId: string, opts: EntryOptions): DescribeConfigsResourceResult[] {
  const overrides = broker.configs.topicOverrides(topicName, topicId);
  return Object.entries(TOPIC_CONFIGS).map(([name, meta]) =>
    entry(name, broker.configs.topicConfig(name, overrides, opts.brokerId), { type: meta.type, readOnly: false, documentation: meta.documentation }, opts),
  );
}

// ---- group configs and loggers ----------------------------------------------------------

/** GROUP: every group config, the group's own (GROUP_CONFIG) or its broker synonym's (`ConfigHelper.createGroupConfigEntry`). */
function groupEntries(broker: Broker, groupId: string, opts: EntryOptions): DescribeConfigsResourceResult[] {
  return Object.entries(GROUP_CONFIGS).map(([name, meta]) =>
    entry(name, broker.configs.groupConfig(groupId, name, opts.brokerId), { type: meta.type, readOnly: false, documentation: meta.documentation }, opts),
  );
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
