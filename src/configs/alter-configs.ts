/**
 * IncrementalAlterConfigs and AlterConfigs for one resource, as Kafka 4.3 checks and applies them
 * (`ConfigAdminManager.preprocess` on the broker, then the controller's
 * `ConfigurationControlManager` with `ControllerConfigurationValidator`: `LogConfig.validate`,
 * `DynamicBrokerConfig.validateConfigs`, `GroupConfig.validate`), with Kafka's errors and messages:
 *
 * - TOPIC: "" is refused (INVALID_REQUEST "Default topic resources are not allowed."), an illegal name
 *   too (INVALID_TOPIC_EXCEPTION "Topic name is invalid: ...", `Topic.validate`), as
 *   `ControllerConfigurationValidator.validate`; the topic must exist (UNKNOWN_TOPIC_OR_PARTITION "The topic 'x' does not exist.");
 *   unknown names (INVALID_CONFIG "Unknown topic config name: x"), values by type and validator
 *   (INVALID_CONFIG "Invalid value ..."), `min.compaction.lag.ms` above `max.compaction.lag.ms`.
 * - BROKER: "" (the cluster default) or the id of the answering broker (INVALID_REQUEST "Unexpected
 *   broker id, expected N, but received M"); configs Kafka cannot change dynamically are refused as a
 *   set (INVALID_REQUEST "Cannot update these configs dynamically: [a, b]", in Java HashSet order), then the SSL configs Kafka changes only per listener ("These security configs can be dynamically updated only per-listener using the listener prefix: [ssl.keystore.password]"),
 *   then values by type and Kafka's validator (INVALID_REQUEST "Invalid value -5 for configuration
 *   message.max.bytes: Value must be at least 0"), then per-broker ones at the default level; the
 *   cluster-level `min.insync.replicas` cannot be removed (INVALID_CONFIG, KIP-966's ELR).
 *   Names Kafka does not know are kept, as Kafka keeps them.
 * - GROUP: unknown names (INVALID_CONFIG "Unknown group config name: x"), values by type and
 *   validator, then the bounds the broker's group configs set ("consumer.session.timeout.ms must be
 *   greater than or equal to group.consumer.min.session.timeout.ms", ...).
 * Every resource: a SET without a value (INVALID_REQUEST "Null value not supported for : x"), a name
 * twice (INVALID_REQUEST "Error due to duplicate config keys"), APPEND/SUBTRACT on a non-list
 * (INVALID_CONFIG "Can't APPEND to key x because its type is not LIST."; a broker's: "Config value
 * append is not allowed for config key: x"), an operation id Kafka does not know (UNKNOWN_SERVER_ERROR,
 * no message).
 */
import { ErrorCode } from '../protocol/errors.js';
import { connectionOverridesProblem } from '../config.js';
import { javaHashSetOrder } from '../util/java-hash.js';
import { ConfigValueError, parseConfigValue, validateConfigValue } from './config-def.js';
import type { ClusterConfigs } from './cluster-configs.js';
import { CLUSTER_DEFAULT } from './config-store.js';
import { topicValidateProblem } from '../topics/topic-name.js';
import { BROKER_CONFIG_VALIDATORS, ConfigType, GROUP_CONFIGS, KAFKA_BROKER_CONFIGS, NON_DYNAMIC_BROKER_CONFIGS, PER_BROKER_CONFIGS, TOPIC_CONFIG_CHECK_ORDER, TOPIC_CONFIGS, type ConfigValidator } from './kafka-config-data.js';

/** `ConfigResource.Type` ids. */
export const ResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, CLIENT_METRICS: 16, GROUP: 32 } as const;

/** `AlterConfigOp.OpType` ids. */
export const AlterOp = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;
const OP_NAMES = ['SET', 'DELETE', 'APPEND', 'SUBTRACT'];

export interface ConfigChange {
  name: string;
  op: number;
  value: string | null;
}

/** A refused change: the error code and message the resource is answered with. */
export class AlterConfigsError extends Error {
  /** `answered`: the message the resource is answered with, when not `message` (null: none). */
  constructor(readonly errorCode: number, message: string, readonly answered: string | null = message) {
    super(message);
  }
}

/** What the checks need to know about the broker answering and its topics. */
export interface AlterContext {
  readonly configs: ClusterConfigs;
  /** The answering broker's id. */
  readonly brokerId: number;
  /** A topic's id and whether it is internal, or undefined when it does not exist. */
  topic(name: string): { id: string; internal: boolean } | undefined;
  /**
   * With an authorizer: the error (and message) a resource's ALTER_CONFIGS refusal answers, null
   * when allowed. Kafka checks it on the controller, after the broker's preprocessing.
   */
  readonly refusal?: (resourceType: number, resourceName: string) => AlterConfigsError | null;
}

/** A checked change: where it goes and the complete new set of configs there. */
export type PlannedChange =
  | { kind: 'topic'; topicId: string; topicName: string; configs: Record<string, string> }
  | { kind: 'broker'; scope: string; configs: Record<string, string> }
  | { kind: 'group'; groupId: string; configs: Record<string, string> };

const invalidRequest = (message: string) => new AlterConfigsError(ErrorCode.INVALID_REQUEST, message);
const MIN_INSYNC_REPLICAS = 'min.insync.replicas';
const invalidConfig = (message: string) => new AlterConfigsError(ErrorCode.INVALID_CONFIG, message);

/**
 * Checks the changes to one resource and returns the new configs to store; throws AlterConfigsError.
 * `incremental` false is AlterConfigs: `changes` (all SET) replace every config of the resource.
 */
export function planAlterConfigs(ctx: AlterContext, resourceType: number, resourceName: string, changes: readonly ConfigChange[], incremental: boolean): PlannedChange {
  const seen = new Set<string>();
  for (const c of changes) {
    if (seen.has(c.name)) throw invalidRequest('Error due to duplicate config keys');
    seen.add(c.name);
  }
  // `ConfigAdminManager.preprocess`: every value a change needs, named together.
  const nullUpdates = changes.filter((c) => c.op !== AlterOp.DELETE && c.value === null).map((c) => c.name);
  if (nullUpdates.length > 0) throw invalidRequest(`Null value not supported for : ${nullUpdates.join(', ')}`);
  const authorize = (): void => {
    const refused = ctx.refusal?.(resourceType, resourceName);
    if (refused) throw refused;
  };
  switch (resourceType) {
    case ResourceType.TOPIC: {
      authorize();
      if (resourceName === '') throw invalidRequest('Default topic resources are not allowed.');
      const illegal = topicValidateProblem(resourceName);
      if (illegal !== null) throw new AlterConfigsError(ErrorCode.INVALID_TOPIC_EXCEPTION, illegal);
      const topic = ctx.topic(resourceName);
      if (!topic) throw new AlterConfigsError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${resourceName}' does not exist.`);
      if (topic.internal) throw invalidRequest(`Altering the configs of the internal topic ${resourceName} is not supported.`);
      const current = incremental ? ctx.configs.store.topicConfigs(topic.id) : {};
      const next = applyChanges(current, changes, (name) => TOPIC_CONFIGS[name]?.type, (name) => TOPIC_CONFIGS[name]?.kafkaValue ?? null);
      validateTopicConfigs(next);
      return { kind: 'topic', topicId: topic.id, topicName: resourceName, configs: next };
    }
    case ResourceType.BROKER: {
      const scope = brokerScope(resourceName, ctx.brokerId);
      const current = incremental ? ctx.configs.store.brokerConfigs(scope) : {};
      // The broker's own preprocessing (ConfigAdminManager.prepareIncrementalConfigs) words a non-list APPEND/SUBTRACT its way.
      const next = applyChanges(
        current,
        changes,
        (name) => KAFKA_BROKER_CONFIGS[name]?.[0] ?? ConfigType.STRING,
        (name) => KAFKA_BROKER_CONFIGS[name]?.[1] ?? null,
        (op, name) => `Config value ${op.toLowerCase()} is not allowed for config key: ${name}`,
      );
      validateBrokerConfigs(changes.filter((c) => c.op !== AlterOp.DELETE).map((c) => c.name), next, scope === CLUSTER_DEFAULT);
      authorize();
      // KIP-966: with eligible leader replicas (on in a new 4.3 cluster) the cluster-level
      // min.insync.replicas stays: the controller's ConfigurationControlManager refuses a DELETE,
      // or an AlterConfigs that leaves it out (after KafkaApis' authorization).
      if (scope === CLUSTER_DEFAULT && next[MIN_INSYNC_REPLICAS] === undefined && ctx.configs.store.brokerConfigs(CLUSTER_DEFAULT)[MIN_INSYNC_REPLICAS] !== undefined) {
        throw new AlterConfigsError(ErrorCode.INVALID_CONFIG, 'Cluster-level min.insync.replicas cannot be removed while ELR is enabled.');
      }
      return { kind: 'broker', scope, configs: next };
    }
    case ResourceType.GROUP: {
      authorize();
      if (resourceName === '') throw invalidRequest('Group name must not be empty');
      const current = incremental ? ctx.configs.store.groupConfigs(resourceName) : {};
      const next = applyChanges(current, changes, (name) => GROUP_CONFIGS[name]?.type, (name) => GROUP_CONFIGS[name]?.kafkaDefault ?? null);
      validateGroupConfigs(ctx.configs, next);
      return { kind: 'group', groupId: resourceName, configs: next };
    }
    case ResourceType.BROKER_LOGGER:
    case ResourceType.CLIENT_METRICS:
      // Legacy AlterConfigs has no BROKER_LOGGER (its preprocessing refuses the type).
      if (resourceType === ResourceType.BROKER_LOGGER && !incremental) throw invalidRequest(`Unknown resource type ${resourceType}`);
      authorize();
      throw invalidRequest(`Altering ${resourceType === ResourceType.BROKER_LOGGER ? 'broker loggers' : 'client metrics subscriptions'} is not supported by this server.`);
    default:
      throw invalidRequest(`Unknown resource type ${resourceType}`);
  }
}

/** `ConfigAdminManager.validateResourceNameIsCurrentNodeId`: "" or the answering broker's id. */
function brokerScope(name: string, brokerId: number): string {
  if (name === '') return CLUSTER_DEFAULT;
  const n = /^[+-]?\d+$/.test(name) ? Number(name) : NaN;
  if (!Number.isInteger(n) || n > 2147483647 || n < -2147483648) throw invalidRequest(`Node id must be an integer, but it is: ${name}`);
  if (n !== brokerId) throw invalidRequest(`Unexpected broker id, expected ${brokerId}, but received ${name}`);
  return String(n);
}

/**
 * The configs after `changes`: SET replaces, DELETE removes, APPEND/SUBTRACT edit a LIST config,
 * starting from Kafka's default when the resource has no value of its own (`getParts`).
 */
function applyChanges(
  current: Readonly<Record<string, string>>,
  changes: readonly ConfigChange[],
  typeOf: (name: string) => number | undefined,
  defaultOf: (name: string) => string | null,
  notList: (op: string, name: string) => string = (op, name) => `Can't ${op} to key ${name} because its type is not LIST.`,
): Record<string, string> {
  const next: Record<string, string> = { ...current };
  for (const c of changes) {
    switch (c.op) {
      case AlterOp.SET:
        next[c.name] = c.value!;
        break;
      case AlterOp.DELETE:
        delete next[c.name];
        break;
      case AlterOp.APPEND:
      case AlterOp.SUBTRACT: {
        if (typeOf(c.name) !== ConfigType.LIST) throw invalidConfig(notList(OP_NAMES[c.op]!, c.name));
        const have = (next[c.name] ?? defaultOf(c.name) ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
        const items = c.value!.split(',').map((s) => s.trim()).filter((s) => s !== '');
        const result = c.op === AlterOp.APPEND ? [...have, ...items.filter((i) => !have.includes(i))] : have.filter((h) => !items.includes(h));
        next[c.name] = result.join(',');
        break;
      }
      default:
        // AlterConfigOp.OpType.forId knows no such id: Kafka fails the resource with UNKNOWN_SERVER_ERROR and no message.
        throw new AlterConfigsError(ErrorCode.UNKNOWN_SERVER_ERROR, `Unknown operation type ${c.op}`, null);
    }
  }
  return next;
}

/**
 * Unknown names first ("Unknown topic config name: x"), then each value by its type and validator
 * (INVALID_CONFIG), in `order` (Kafka's definition order, which `ConfigDef.parse` follows).
 */
function checkNamesAndValues(configs: Readonly<Record<string, string>>, defs: Readonly<Record<string, { type: number; validator: ConfigValidator }>>, kind: string, order: readonly string[]): void {
  for (const name of Object.keys(configs)) if (!defs[name]) throw invalidConfig(`Unknown ${kind} config name: ${name}`);
  for (const name of order) {
    const value = configs[name];
    if (value === undefined) continue;
    const meta = defs[name]!;
    try {
      validateConfigValue(name, value, parseConfigValue(name, meta.type, value), meta.validator);
    } catch (err) {
      if (err instanceof ConfigValueError) throw invalidConfig(err.message);
      throw err;
    }
  }
}

/**
 * `LogConfig.validate`: names, then values, then the compaction lag bounds, then tiered storage,
 * which this server does not have (`remote.log.storage.system.enable` false): `remote.storage.enable`
 * true is refused.
 */
export function validateTopicConfigs(configs: Readonly<Record<string, string>>): void {
  checkNamesAndValues(configs, TOPIC_CONFIGS, 'topic', TOPIC_CONFIG_CHECK_ORDER);
  const minLag = configs['min.compaction.lag.ms'];
  const maxLag = configs['max.compaction.lag.ms'];
  if (minLag !== undefined && maxLag !== undefined && BigInt(minLag.trim()) > BigInt(maxLag.trim())) {
    throw invalidConfig(`conflict topic config setting min.compaction.lag.ms (${minLag.trim()}) > max.compaction.lag.ms (${maxLag.trim()})`);
  }
  if (configs['remote.storage.enable']?.trim().toLowerCase() === 'true') {
    throw invalidConfig('Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.');
  }
}

/**
 * Checks a KafkaConfig (`KafkaConfig.validateValues`) makes of a dynamic value beyond its validator,
 * with the message Kafka answers: null when the value passes.
 */
const BROKER_VALUE_REQUIREMENTS: Readonly<Record<string, (parsed: string) => string | null>> = {
  'log.roll.ms': (v) => (BigInt(v) < 1n ? 'requirement failed: log.roll.ms must be greater than or equal to 1' : null),
  // The log cleaner's reconfiguration divides its throttle by the thread count.
  'log.cleaner.threads': (v) => (v === '0' ? '/ by zero' : null),
  // Stored unchecked, a bad count threw at every later connection's admission.
  'max.connections.per.ip.overrides': connectionOverridesProblem,
};

/**
 * `DynamicBrokerConfig.validate`: dynamic ones only, then the values changed, each by type (in
 * request order) and then by Kafka's validator in `KafkaConfig`'s definition order (the new
 * KafkaConfig a dynamic change builds checks them so), then per-broker ones only per broker, then
 * `KafkaConfig`'s own requirements (the order checked against Kafka 4.3.1 in
 * test/conformance/config-values.conformance.test.ts). All refusals are INVALID_REQUEST with Kafka's message
 * (`ConfigAdminManager.validateBrokerConfigChange`).
 */
/**
 * Kafka 4.3.1's `DynamicBrokerConfig.DYNAMIC_SECURITY_CONFIGS` (`SslConfigs.RECONFIGURABLE_CONFIGS`):
 * changed at run time only per listener (`listener.name.<l>.ssl.keystore.password`), at any level.
 */
const DYNAMIC_SECURITY_CONFIGS: ReadonlySet<string> = new Set([
  'ssl.keystore.type', 'ssl.keystore.location', 'ssl.keystore.password', 'ssl.key.password', 'ssl.truststore.type',
  'ssl.truststore.location', 'ssl.truststore.password', 'ssl.keystore.certificate.chain', 'ssl.keystore.key', 'ssl.truststore.certificates',
]);

function validateBrokerConfigs(changed: readonly string[], configs: Readonly<Record<string, string>>, clusterDefault: boolean): void {
  const names = Object.keys(configs);
  // Ours (`mock.*`) are read at start-up only: refused as Kafka refuses its own non-dynamic ones.
  const nonDynamic = names.filter((n) => NON_DYNAMIC_BROKER_CONFIGS.has(n) || n.startsWith('mock.'));
  if (nonDynamic.length > 0) throw invalidRequest(`Cannot update these configs dynamically: [${javaHashSetOrder(names, nonDynamic).join(', ')}]`);
  const security = names.filter((n) => DYNAMIC_SECURITY_CONFIGS.has(n));
  if (security.length > 0) throw invalidRequest(`These security configs can be dynamically updated only per-listener using the listener prefix: [${javaHashSetOrder(names, security).join(', ')}]`);
  const parsed = new Map<string, string | string[]>();
  try {
    for (const name of changed) {
      const type = KAFKA_BROKER_CONFIGS[name]?.[0];
      if (type === undefined || configs[name] === undefined) continue;
      parsed.set(name, parseConfigValue(name, type, configs[name]!));
    }
    for (const [name, validator] of Object.entries(BROKER_CONFIG_VALIDATORS)) {
      if (parsed.has(name)) validateConfigValue(name, configs[name]!, parsed.get(name)!, validator);
    }
  } catch (err) {
    if (err instanceof ConfigValueError) throw invalidRequest(err.message);
    throw err;
  }
  // After the values' types and validators (`validateConfigTypes` comes first in `validateConfigs`).
  if (clusterDefault) {
    const perBroker = names.filter((n) => PER_BROKER_CONFIGS.has(n));
    if (perBroker.length > 0) throw invalidRequest(`Cannot update these configs at default cluster level, broker id must be specified: [${javaHashSetOrder(names, perBroker).join(', ')}]`);
  }
  for (const [name, value] of parsed) {
    const refusal = BROKER_VALUE_REQUIREMENTS[name]?.(value as string);
    if (refusal) throw invalidRequest(refusal);
  }
}

/** `GroupConfig.validate`: names, values by type and validator, then the broker's bounds. */
function validateGroupConfigs(configs: ClusterConfigs, values: Readonly<Record<string, string>>): void {
  checkNamesAndValues(values, GROUP_CONFIGS, 'group', Object.keys(GROUP_CONFIGS));
  const broker = (key: string): number => Number(configs.brokerValue(key, -1) ?? configs.kafkaDefault(key));
  const value = (name: string): number => Number(values[name] ?? GROUP_CONFIGS[name]!.kafkaDefault);
  const bounded = (name: string, lo: string | null, hi: string | null): void => {
    if (values[name] === undefined) return;
    if (lo !== null && value(name) < broker(lo)) throw invalidConfig(`${name} must be greater than or equal to ${lo}`);
    if (hi !== null && value(name) > broker(hi)) throw invalidConfig(`${name} must be less than or equal to ${hi}`);
  };
  for (const kind of ['consumer', 'share', 'streams']) {
    bounded(`${kind}.session.timeout.ms`, `group.${kind}.min.session.timeout.ms`, `group.${kind}.max.session.timeout.ms`);
    bounded(`${kind}.heartbeat.interval.ms`, `group.${kind}.min.heartbeat.interval.ms`, `group.${kind}.max.heartbeat.interval.ms`);
    bounded(`${kind}.assignment.interval.ms`, `group.${kind}.min.assignment.interval.ms`, `group.${kind}.max.assignment.interval.ms`);
  }
  bounded('share.record.lock.duration.ms', 'group.share.min.record.lock.duration.ms', 'group.share.max.record.lock.duration.ms');
  bounded('share.delivery.count.limit', 'group.share.min.delivery.count.limit', 'group.share.max.delivery.count.limit');
  bounded('share.partition.max.record.locks', 'group.share.min.partition.max.record.locks', 'group.share.max.partition.max.record.locks');
  bounded('streams.num.standby.replicas', null, 'group.streams.max.standby.replicas');
  for (const kind of ['consumer', 'share', 'streams']) {
    const session = `${kind}.session.timeout.ms`;
    const heartbeat = `${kind}.heartbeat.interval.ms`;
    if ((values[session] !== undefined || values[heartbeat] !== undefined) && groupValue(configs, values, session) <= groupValue(configs, values, heartbeat)) {
      throw invalidConfig(`${session} must be greater than ${heartbeat}`);
    }
  }
}

/** A group config's value: the new value, else the broker synonym's (what the group would get). */
function groupValue(configs: ClusterConfigs, values: Readonly<Record<string, string>>, name: string): number {
  if (values[name] !== undefined) return Number(values[name]);
  const synonym = GROUP_CONFIGS[name]!.brokerSynonym;
  return Number((synonym !== null ? configs.brokerValue(synonym, -1) : null) ?? GROUP_CONFIGS[name]!.kafkaDefault);
}

/** One resource of an AlterConfigs / IncrementalAlterConfigs request, in the shape both share. */
export interface AlterResource {
  resourceType: number;
  resourceName: string;
  changes: ConfigChange[];
}

export interface AlterResult {
  errorCode: number;
  errorMessage: string | null;
  resourceType: number;
  resourceName: string;
}

/**
 * Checks every resource (a resource named twice: INVALID_REQUEST "Each resource must appear at most
 * once." on each) and, unless `validateOnly`, stores the accepted ones; `onTopicChanged` runs for
 * each topic whose configs changed, once durable. Resolves once the stored changes are durable; a
 * resource whose write failed answers UNKNOWN_SERVER_ERROR and is left unchanged.
 */
export async function alterConfigs(
  ctx: AlterContext,
  resources: readonly AlterResource[],
  incremental: boolean,
  validateOnly: boolean,
  onTopicChanged: (topicName: string) => void,
): Promise<AlterResult[]> {
  const key = (r: AlterResource) => `${r.resourceType}\u0000${r.resourceName}`;
  const counts = new Map<string, number>();
  for (const r of resources) counts.set(key(r), (counts.get(key(r)) ?? 0) + 1);
  // Every resource is checked before anything is stored: a store never holds a change whose
  // request did not validate, whatever a later resource's check throws.
  const plans: Array<{ index: number; plan: PlannedChange }> = [];
  const results = resources.map((r, index): AlterResult => {
    const base = { resourceType: r.resourceType, resourceName: r.resourceName };
    if (counts.get(key(r))! > 1) return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Each resource must appear at most once.' };
    try {
      plans.push({ index, plan: planAlterConfigs(ctx, r.resourceType, r.resourceName, r.changes, incremental) });
      return { ...base, errorCode: ErrorCode.NONE, errorMessage: null };
    } catch (err) {
      if (!(err instanceof AlterConfigsError)) throw err;
      return { ...base, errorCode: err.errorCode, errorMessage: err.answered };
    }
  });
  const writes: Array<{ index: number; write: Promise<void>; topicName: string | null }> = [];
  if (!validateOnly) {
    const store = ctx.configs.store;
    for (const { index, plan } of plans) {
      if (plan.kind === 'topic') writes.push({ index, write: store.setTopicConfigs(plan.topicId, plan.topicName, plan.configs), topicName: plan.topicName });
      else if (plan.kind === 'broker') writes.push({ index, write: store.setBrokerConfigs(plan.scope, plan.configs), topicName: null });
      else writes.push({ index, write: store.setGroupConfigs(plan.groupId, plan.configs), topicName: null });
    }
  }
  // A resource whose write failed (a full disk) was undone by the store: UNKNOWN_SERVER_ERROR, as
  // Kafka's controller answers a change it could not commit. The logs follow only a durable change.
  const outcomes = await Promise.allSettled(writes.map((w) => w.write));
  outcomes.forEach((outcome, i) => {
    const { index, topicName } = writes[i]!;
    if (outcome.status === 'fulfilled') {
      if (topicName !== null) onTopicChanged(topicName);
      return;
    }
    const reason = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
    results[index] = { ...results[index]!, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: `The configs could not be written: ${reason}` };
  });
  return results;
}
