/**
 * Broker configuration: Kafka's config keys with Kafka 4.3's defaults (from `KafkaConfig`,
 * `GroupCoordinatorConfig`, `ServerLogConfigs`), plus settings of our own under `mock.*`.
 * Values arrive as strings (flags, `KAFKA_*` environment, files) and are validated here;
 * an invalid value throws a ConfigError naming the key.
 */
import { JAVA_INTEGER, isJavaInt, parseJavaDouble } from './configs/config-def.js';

export class ConfigError extends Error {
  constructor(readonly key: string, message: string) {
    super(`invalid config ${key}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Kind = 'int' | 'long' | 'double' | 'bool' | 'string' | 'enum' | 'list';

interface Spec {
  kind: Kind;
  default: string;
  min?: number;
  max?: number;
  values?: readonly string[];
  /** A 'double' that must be a finite number (ours: NaN and Infinity are refused; Kafka's Range lets NaN through). */
  finite?: boolean;
  /** Where we differ from Kafka's default on purpose (see README "Design notes"). */
  kafkaDefault?: string;
}

const INT_MAX = 2147483647;

/** A host name or an IPv4/IPv6 address, as Kafka's `Utils.validHostPattern` checks the overrides' keys. */
const VALID_HOST = /^[0-9a-zA-Z\-%._:]*$/;

/**
 * Kafka's `CoreUtils.parseCsvMap` of `max.connections.per.ip.overrides`: host (or IP) to count,
 * each count read as `KafkaConfig` reads it (`v.toInt`: `Integer.parseInt`); throws its
 * NumberFormatException message on a count that is not an int.
 */
export function parseConnectionOverrides(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of text.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    const colon = entry.lastIndexOf(':');
    const host = colon < 0 ? entry : entry.slice(0, colon).trim();
    const count = colon < 0 ? '' : entry.slice(colon + 1).trim();
    if (!isJavaInt(count)) throw new Error(`For input string: "${count}"`);
    out.set(host, Number(count));
  }
  return out;
}

/**
 * What `KafkaConfig.validateValues` says of a `max.connections.per.ip.overrides` value, null when
 * it passes: a count that is not an int (Integer.parseInt's message), then hosts that fail
 * `Utils.validHostPattern`.
 */
export function connectionOverridesProblem(text: string): string | null {
  let overrides: Map<string, number>;
  try {
    overrides = parseConnectionOverrides(text);
  } catch (err) {
    return (err as Error).message;
  }
  const invalid = [...overrides.keys()].filter((host) => !VALID_HOST.test(host));
  return invalid.length > 0 ? `max.connections.per.ip.overrides contains invalid addresses : ${invalid.join(',')}` : null;
}

/** Kafka's `SecurityProtocol` names. */
export const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;
export type SecurityProtocol = (typeof SECURITY_PROTOCOLS)[number];

/** Per-listener overrides, as Kafka's `ListenerName.configPrefix()`: `listener.name.<name in lower case>.`. */
export const LISTENER_PREFIX = 'listener.name.';

/** Every key we honour. Keys not listed are accepted with a warning, as Kafka does for unknown keys. */
export const CONFIG_SPECS = {
  'node.id': { kind: 'int', default: '1', min: 0 },
  'listeners': { kind: 'string', default: 'PLAINTEXT://:9092' },
  'advertised.listeners': { kind: 'string', default: '' },
  'log.dirs': { kind: 'string', default: './data' },
  'socket.request.max.bytes': { kind: 'int', default: '104857600', min: 1 },
  'connections.max.idle.ms': { kind: 'long', default: '600000' },
  'queued.max.request.bytes': { kind: 'long', default: '-1' },
  'max.connections': { kind: 'int', default: '2147483647', min: 0 },
  'max.connections.per.ip': { kind: 'int', default: '2147483647', min: 0 },
  'max.connections.per.ip.overrides': { kind: 'string', default: '' },
  'socket.listen.backlog.size': { kind: 'int', default: '50', min: 1 },
  'message.max.bytes': { kind: 'int', default: '1048588', min: 0 },
  'auto.create.topics.enable': { kind: 'bool', default: 'true' },
  'num.partitions': { kind: 'int', default: '1', min: 1 },
  'delete.topic.enable': { kind: 'bool', default: 'true' },
  'log.segment.bytes': { kind: 'int', default: '1073741824', min: 1 },
  'log.roll.hours': { kind: 'int', default: '168', min: 1 },
  'log.roll.ms': { kind: 'long', default: '-1' },
  'log.cleaner.enable': { kind: 'bool', default: 'true' },
  'log.cleaner.delete.retention.ms': { kind: 'long', default: '86400000', min: 0 },
  'log.cleaner.min.cleanable.ratio': { kind: 'double', default: '0.5', min: 0, max: 1 },
  'log.cleaner.backoff.ms': { kind: 'long', default: '15000', min: 0 },
  // Topic config defaults (issue 15): an empty default is Kafka's "not set" (a lower-precedence synonym applies).
  'log.retention.hours': { kind: 'int', default: '168' },
  'log.retention.minutes': { kind: 'int', default: '' },
  'log.retention.ms': { kind: 'long', default: '' },
  'log.retention.bytes': { kind: 'long', default: '-1' },
  'log.retention.check.interval.ms': { kind: 'long', default: '300000', min: 1 },
  'log.cleanup.policy': { kind: 'list', default: 'delete', values: ['compact', 'delete'] },
  'log.cleaner.min.compaction.lag.ms': { kind: 'long', default: '0', min: 0 },
  'log.message.timestamp.type': { kind: 'enum', default: 'CreateTime', values: ['CreateTime', 'LogAppendTime'] },
  'log.message.timestamp.before.max.ms': { kind: 'long', default: '9223372036854775807', min: 0 },
  'log.message.timestamp.after.max.ms': { kind: 'long', default: '3600000', min: 0 },
  'min.insync.replicas': { kind: 'int', default: '1', min: 1 },
  'log.flush.interval.messages': { kind: 'long', default: '9223372036854775807', min: 1 },
  'log.flush.interval.ms': { kind: 'long', default: '-1' },
  'offsets.topic.num.partitions': { kind: 'int', default: '50', min: 1 },
  'offsets.topic.segment.bytes': { kind: 'int', default: '104857600', min: 1 },
  // The transaction coordinator (Kafka's `TransactionStateManagerConfig`, `TransactionLogConfig`).
  'transaction.state.log.num.partitions': { kind: 'int', default: '50', min: 1 },
  'transaction.state.log.segment.bytes': { kind: 'int', default: '104857600', min: 1 },
  'transaction.max.timeout.ms': { kind: 'int', default: '900000', min: 1 },
  // A transactional Produce v12+ (transactions v2) asks the coordinator again after this while it answers CONCURRENT_TRANSACTIONS, for at most the max (and request.timeout.ms).
  'add.partitions.to.txn.retry.backoff.ms': { kind: 'int', default: '20', min: 1 },
  'add.partitions.to.txn.retry.backoff.max.ms': { kind: 'int', default: '100', min: 0 },
  'request.timeout.ms': { kind: 'int', default: '30000', min: 0 },
  'transactional.id.expiration.ms': { kind: 'int', default: '604800000', min: 1 },
  'transaction.abort.timed.out.transaction.cleanup.interval.ms': { kind: 'int', default: '10000', min: 1 },
  'transaction.remove.expired.transaction.cleanup.interval.ms': { kind: 'int', default: '3600000', min: 1 },
  // The partition leaders' producer state (Kafka's `ProducerStateManagerConfig`).
  'producer.id.expiration.ms': { kind: 'int', default: '86400000', min: 1 },
  'producer.id.expiration.check.interval.ms': { kind: 'int', default: '600000', min: 1 },
  'offsets.retention.minutes': { kind: 'int', default: '10080', min: 1 },
  'offsets.retention.check.interval.ms': { kind: 'long', default: '600000', min: 1 },
  'offset.metadata.max.bytes': { kind: 'int', default: '4096', min: 0 },
  'group.initial.rebalance.delay.ms': { kind: 'int', default: '0', min: 0, kafkaDefault: '3000' },
  'group.min.session.timeout.ms': { kind: 'int', default: '6000', min: 0 },
  'group.max.session.timeout.ms': { kind: 'int', default: '1800000', min: 0 },
  'group.max.size': { kind: 'int', default: String(INT_MAX), min: 1 },
  'group.consumer.session.timeout.ms': { kind: 'int', default: '45000', min: 1 },
  'group.consumer.min.session.timeout.ms': { kind: 'int', default: '45000', min: 1 },
  'group.consumer.max.session.timeout.ms': { kind: 'int', default: '60000', min: 1 },
  'group.consumer.heartbeat.interval.ms': { kind: 'int', default: '5000', min: 1 },
  'group.consumer.min.heartbeat.interval.ms': { kind: 'int', default: '5000', min: 1 },
  'group.consumer.max.heartbeat.interval.ms': { kind: 'int', default: '15000', min: 1 },
  'group.consumer.assignors': { kind: 'string', default: 'uniform,range' },
  'group.consumer.assignment.interval.ms': { kind: 'int', default: '1000', min: 0, max: 15000 },
  'group.consumer.max.size': { kind: 'int', default: String(INT_MAX), min: 1 },
  'group.consumer.migration.policy': { kind: 'enum', default: 'bidirectional', values: ['bidirectional', 'upgrade', 'downgrade', 'disabled'] },
  // Kafka internal config (`GroupCoordinatorConfig.CONSUMER_GROUP_REGEX_REFRESH_INTERVAL_MS_CONFIG`, atLeast 10000).
  'group.consumer.regex.refresh.interval.ms': { kind: 'int', default: '600000', min: 10000 },
  // Streams groups (KIP-1071): Kafka 4.3's `GroupCoordinatorConfig` group.streams.* keys (ranges as Kafka's).
  'group.streams.session.timeout.ms': { kind: 'int', default: '45000', min: 1 },
  'group.streams.min.session.timeout.ms': { kind: 'int', default: '45000', min: 1 },
  'group.streams.max.session.timeout.ms': { kind: 'int', default: '60000', min: 1 },
  'group.streams.heartbeat.interval.ms': { kind: 'int', default: '5000', min: 1 },
  'group.streams.min.heartbeat.interval.ms': { kind: 'int', default: '5000', min: 1 },
  'group.streams.max.heartbeat.interval.ms': { kind: 'int', default: '15000', min: 1 },
  'group.streams.max.size': { kind: 'int', default: '2147483647', min: 1 },
  'group.streams.num.standby.replicas': { kind: 'int', default: '0', min: 0 },
  'group.streams.max.standby.replicas': { kind: 'int', default: '2', min: 0 },
  'group.streams.initial.rebalance.delay.ms': { kind: 'int', default: '3000', min: 0 },
  'group.streams.assignment.interval.ms': { kind: 'int', default: '1000', min: 0 },
  'group.streams.min.assignment.interval.ms': { kind: 'int', default: '0', min: 0 },
  'group.streams.max.assignment.interval.ms': { kind: 'int', default: '15000', min: 0 },
  // Share groups (KIP-932): Kafka 4.3's `GroupCoordinatorConfig` group.share.* keys and `ShareGroupConfig` (ranges as Kafka's).
  'group.share.session.timeout.ms': { kind: 'int', default: '45000', min: 1 },
  'group.share.min.session.timeout.ms': { kind: 'int', default: '45000', min: 1 },
  'group.share.max.session.timeout.ms': { kind: 'int', default: '60000', min: 1 },
  'group.share.heartbeat.interval.ms': { kind: 'int', default: '5000', min: 1 },
  'group.share.min.heartbeat.interval.ms': { kind: 'int', default: '5000', min: 1 },
  'group.share.max.heartbeat.interval.ms': { kind: 'int', default: '15000', min: 1 },
  'group.share.max.size': { kind: 'int', default: '200', min: 1 },
  'group.share.assignors': { kind: 'string', default: 'simple' },
  'group.share.assignment.interval.ms': { kind: 'int', default: '1000', min: 0 },
  'group.share.min.assignment.interval.ms': { kind: 'int', default: '0', min: 0 },
  'group.share.max.assignment.interval.ms': { kind: 'int', default: '15000', min: 0 },
  'group.share.initialize.retry.interval.ms': { kind: 'int', default: '30000', min: 1 },
  'group.share.delivery.count.limit': { kind: 'int', default: '5', min: 2, max: 10 },
  'group.share.min.delivery.count.limit': { kind: 'int', default: '2', min: 2, max: 5 },
  'group.share.max.delivery.count.limit': { kind: 'int', default: '10', min: 5, max: 25 },
  'group.share.record.lock.duration.ms': { kind: 'int', default: '30000', min: 1000, max: 3600000 },
  'group.share.min.record.lock.duration.ms': { kind: 'int', default: '15000', min: 1000, max: 30000 },
  'group.share.max.record.lock.duration.ms': { kind: 'int', default: '60000', min: 30000, max: 3600000 },
  'group.share.partition.max.record.locks': { kind: 'int', default: '2000', min: 100, max: 10000 },
  'group.share.min.partition.max.record.locks': { kind: 'int', default: '100', min: 100, max: 2000 },
  'group.share.max.partition.max.record.locks': { kind: 'int', default: '4000', min: 2000, max: 10000 },
  'group.share.max.share.sessions': { kind: 'int', default: '2000', min: 1 },
  // Listeners (src/server/listeners.ts). `inter.broker.listener.name` and the inter-broker settings are
  // accepted and unused: one node has no other broker to talk to.
  'listener.security.protocol.map': { kind: 'string', default: 'SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT' },
  'controller.listener.names': { kind: 'string', default: '' },
  'inter.broker.listener.name': { kind: 'string', default: '' },
  'security.inter.broker.protocol': { kind: 'enum', default: 'PLAINTEXT', values: SECURITY_PROTOCOLS },
  'sasl.mechanism.inter.broker.protocol': { kind: 'string', default: 'GSSAPI' },
  // SASL (src/security/sasl/); each may also be set per listener as `listener.name.<listener>.<key>`.
  'sasl.enabled.mechanisms': { kind: 'string', default: 'GSSAPI' },
  'connections.max.reauth.ms': { kind: 'long', default: '0' },
  'connection.failed.authentication.delay.ms': { kind: 'int', default: '100', min: 0 },
  'sasl.server.max.receive.size': { kind: 'int', default: '524288', min: 1 },
  // TLS (src/security/tls.ts): PEM and PKCS12 key and trust stores.
  'ssl.keystore.type': { kind: 'string', default: 'JKS' },
  'ssl.keystore.location': { kind: 'string', default: '' },
  'ssl.keystore.password': { kind: 'string', default: '' },
  'ssl.key.password': { kind: 'string', default: '' },
  'ssl.keystore.key': { kind: 'string', default: '' },
  'ssl.keystore.certificate.chain': { kind: 'string', default: '' },
  'ssl.truststore.type': { kind: 'string', default: 'JKS' },
  'ssl.truststore.location': { kind: 'string', default: '' },
  'ssl.truststore.password': { kind: 'string', default: '' },
  'ssl.truststore.certificates': { kind: 'string', default: '' },
  'ssl.client.auth': { kind: 'enum', default: 'none', values: ['required', 'requested', 'none'] },
  'ssl.principal.mapping.rules': { kind: 'string', default: 'DEFAULT' },
  'ssl.enabled.protocols': { kind: 'string', default: 'TLSv1.2,TLSv1.3' },
  'ssl.cipher.suites': { kind: 'string', default: '' },
  // Authorization (src/security/acl/): StandardAuthorizer or none.
  'authorizer.class.name': { kind: 'string', default: '' },
  'super.users': { kind: 'string', default: '' },
  'allow.everyone.if.no.acl.found': { kind: 'bool', default: 'false' },
  // The share coordinator's `__share_group_state` (Kafka's ShareCoordinatorConfig; src/share/state/).
  'share.coordinator.state.topic.num.partitions': { kind: 'int', default: '50', min: 1 },
  'share.coordinator.state.topic.segment.bytes': { kind: 'int', default: '104857600', min: 1 },
  'share.coordinator.snapshot.update.records.per.snapshot': { kind: 'int', default: '500', min: 0, max: 500 },
  'mock.flush.policy': { kind: 'enum', default: 'always', values: ['always', 'interval', 'never'] },
  // Under 'always', fdatasync on the event-loop thread unless one took longer than this (ms) in the last second; 0: always on the thread pool (src/storage/inline-sync-gate.ts).
  'mock.flush.inline.sync.max.ms': { kind: 'double', default: '2', min: 0, finite: true },
  // Under 'always', how long (ms) an inline fdatasync first waits for the clients its partition's last one answered to send their next request; 0: no wait (src/util/returning-clients.ts). At most a minute.
  'mock.flush.inline.sync.wait.ms': { kind: 'double', default: '0.25', min: 0, max: 60000, finite: true },
  'mock.cluster.id': { kind: 'string', default: '' },
  // Open segment files at most (src/storage/fd-cache.ts); 0: half the process's open-files limit.
  'mock.max.open.files': { kind: 'int', default: '0', min: 0 },
} satisfies Record<string, Spec>;

export type ConfigKey = keyof typeof CONFIG_SPECS;

const SPECS: Record<string, Spec> = CONFIG_SPECS;

export function isKnownConfig(key: string): boolean {
  return Object.hasOwn(SPECS, key) || key.startsWith(LISTENER_PREFIX);
}

/**
 * The spec a `listener.name.<listener>.[<mechanism>.]<key>` override is checked against: the
 * spec of `<key>` when we know it (the listener name cannot hold a dot, a mechanism name can hold
 * dashes but no dot), else none (a `<mechanism>.sasl.jaas.config` is free text).
 */
function listenerOverrideSpec(key: string): Spec | undefined {
  const rest = key.slice(LISTENER_PREFIX.length);
  const afterListener = rest.slice(rest.indexOf('.') + 1);
  const afterMechanism = afterListener.slice(afterListener.indexOf('.') + 1);
  return SPECS[afterListener] ?? SPECS[afterMechanism];
}

function checkValue(key: string, spec: Spec, raw: string): void {
  const text = raw.trim();
  switch (spec.kind) {
    case 'bool':
      // ConfigDef.parseType: either case.
      if (text.toLowerCase() !== 'true' && text.toLowerCase() !== 'false') throw new ConfigError(key, `expected true or false, got "${raw}"`);
      return;
    case 'int':
    case 'long': {
      // ConfigDef.parseType: Integer.parseInt / Long.parseLong of the trimmed text, which take a leading '+'.
      if (!JAVA_INTEGER.test(text)) throw new ConfigError(key, `expected an integer, got "${raw}"`);
      const n = BigInt(text);
      const hi = spec.kind === 'int' ? BigInt(INT_MAX) : 9223372036854775807n;
      if (n > hi || n < -hi - 1n) throw new ConfigError(key, `"${raw}" is out of range`);
      if (spec.min !== undefined && n < BigInt(spec.min)) throw new ConfigError(key, `must be at least ${spec.min}, got ${raw}`);
      if (spec.max !== undefined && n > BigInt(spec.max)) throw new ConfigError(key, `must be at most ${spec.max}, got ${raw}`);
      return;
    }
    case 'double': {
      // Java's Double.parseDouble (0.5d, 0x1p-1, NaN); NaN passes Kafka's Range, as it does here.
      const n = parseJavaDouble(text);
      if (n === null || (spec.finite && !Number.isFinite(n))) throw new ConfigError(key, `expected a ${spec.finite ? 'finite ' : ''}number, got "${raw}"`);
      if (spec.min !== undefined && n < spec.min) throw new ConfigError(key, `must be at least ${spec.min}, got ${raw}`);
      if (spec.max !== undefined && n > spec.max) throw new ConfigError(key, `must be at most ${spec.max}, got ${raw}`);
      return;
    }
    case 'enum':
      if (!spec.values!.includes(text)) throw new ConfigError(key, `expected one of ${spec.values!.join(', ')}, got "${raw}"`);
      return;
    case 'list': {
      // ConfigDef.ValidList: each item one of the values (case-sensitive); an empty list is allowed,
      // an empty item is not, a duplicate is dropped.
      if (text === '') return;
      for (const item of text.split(/\s*,\s*/)) {
        if (item === '') throw new ConfigError(key, `values must not be empty, got "${raw}"`);
        if (!spec.values!.includes(item)) throw new ConfigError(key, `expected a list of ${spec.values!.join(', ')}, got "${raw}"`);
      }
      return;
    }
    case 'string':
      return;
  }
}

/** A validated, immutable set of config values. */
export class BrokerConfig {
  private readonly values: Map<string, string>;
  /** `listener.name.*` overrides, by their full key (listener and mechanism in lower case). */
  private readonly listenerValues = new Map<string, string>();
  /** Keys given that we do not know (accepted and ignored, as Kafka warns and ignores them). */
  readonly unknownKeys: readonly string[];

  constructor(overrides: Readonly<Record<string, string | number | boolean>> = {}) {
    this.values = new Map();
    const unknown: string[] = [];
    for (const [key, value] of Object.entries(overrides)) {
      const text = String(value);
      if (key.startsWith(LISTENER_PREFIX)) {
        const spec = listenerOverrideSpec(key);
        if (spec) checkValue(key, spec, text);
        this.listenerValues.set(key.toLowerCase(), spec ? text.trim() : text);
        continue;
      }
      const spec = SPECS[key];
      if (!spec) {
        unknown.push(key);
        continue;
      }
      checkValue(key, spec, text);
      this.values.set(key, text.trim());
    }
    this.unknownKeys = unknown;
    const minSession = this.int('group.min.session.timeout.ms');
    const maxSession = this.int('group.max.session.timeout.ms');
    if (maxSession < minSession) {
      throw new ConfigError('group.max.session.timeout.ms', `must be at least group.min.session.timeout.ms (${minSession})`);
    }
    this.validateConsumerGroupConfig();
    this.validateShareGroupConfig();
    parseListenerList('listeners', this.string('listeners'));
    if (this.string('advertised.listeners') !== '') parseListenerList('advertised.listeners', this.string('advertised.listeners'));
  }

  /**
   * A setting as one listener sees it (Kafka's listener-prefixed configs): `listener.name.<listener>.<key>`
   * when set, else `<key>`. With `mechanism`, `listener.name.<listener>.<mechanism>.<key>` comes first
   * (`connections.max.reauth.ms`, `sasl.jaas.config`).
   */
  forListener(listener: string, key: string, mechanism?: string): string | undefined {
    const prefix = `${LISTENER_PREFIX}${listener.toLowerCase()}.`;
    if (mechanism !== undefined) {
      const own = this.listenerValues.get(`${prefix}${mechanism.toLowerCase()}.${key}`);
      if (own !== undefined) return own;
    }
    const value = this.listenerValues.get(`${prefix}${key}`);
    if (value !== undefined) return value;
    return Object.hasOwn(SPECS, key) ? this.raw(key as ConfigKey) : undefined;
  }

  /** A `listener.name.<listener>.[<mechanism>.]<key>` value exactly as given (no fallback), or undefined. */
  listenerSetting(listener: string, key: string, mechanism?: string): string | undefined {
    const mech = mechanism === undefined ? '' : `${mechanism.toLowerCase()}.`;
    return this.listenerValues.get(`${LISTENER_PREFIX}${listener.toLowerCase()}.${mech}${key}`);
  }

  /** Whether `key` was given (not its default), for the listener when one is named. */
  isSet(key: ConfigKey, listener?: string): boolean {
    if (listener !== undefined && this.listenerValues.has(`${LISTENER_PREFIX}${listener.toLowerCase()}.${key}`)) return true;
    return this.values.has(key);
  }

  /**
   * The KIP-848 timeouts and assignors, checked as Kafka's `GroupCoordinatorConfig` does: each max
   * at least its min, the session timeout and heartbeat interval within their bounds, the
   * heartbeat interval below the session timeout, and assignors Kafka ships (uniform, range).
   */
  private validateConsumerGroupConfig(): void {
    const min = (k: ConfigKey, lo: ConfigKey) => {
      if (this.int(k) < this.int(lo)) throw new ConfigError(k, `must be at least ${lo} (${this.int(lo)}), got ${this.int(k)}`);
    };
    const max = (k: ConfigKey, hi: ConfigKey) => {
      if (this.int(k) > this.int(hi)) throw new ConfigError(k, `must be at most ${hi} (${this.int(hi)}), got ${this.int(k)}`);
    };
    // KafkaConfig.validateValues.
    const queuedMaxBytes = this.long('queued.max.request.bytes');
    if (queuedMaxBytes > 0n && queuedMaxBytes < BigInt(this.int('socket.request.max.bytes'))) {
      throw new ConfigError('queued.max.request.bytes', 'must be larger or equal to socket.request.max.bytes');
    }
    const overridesText = this.string('max.connections.per.ip.overrides');
    const overridesProblem = connectionOverridesProblem(overridesText);
    if (overridesProblem !== null) throw new ConfigError('max.connections.per.ip.overrides', overridesProblem);
    if (this.int('max.connections.per.ip') === 0 && parseConnectionOverrides(overridesText).size === 0) {
      throw new ConfigError('max.connections.per.ip', 'max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides property is set.');
    }
    min('group.consumer.max.session.timeout.ms', 'group.consumer.min.session.timeout.ms');
    min('group.consumer.max.heartbeat.interval.ms', 'group.consumer.min.heartbeat.interval.ms');
    min('group.consumer.session.timeout.ms', 'group.consumer.min.session.timeout.ms');
    max('group.consumer.session.timeout.ms', 'group.consumer.max.session.timeout.ms');
    min('group.consumer.heartbeat.interval.ms', 'group.consumer.min.heartbeat.interval.ms');
    max('group.consumer.heartbeat.interval.ms', 'group.consumer.max.heartbeat.interval.ms');
    if (this.int('group.consumer.heartbeat.interval.ms') >= this.int('group.consumer.session.timeout.ms')) {
      throw new ConfigError('group.consumer.heartbeat.interval.ms', `must be less than group.consumer.session.timeout.ms (${this.int('group.consumer.session.timeout.ms')})`);
    }
    const assignors = this.string('group.consumer.assignors').split(',').map((a) => a.trim()).filter((a) => a !== '');
    if (assignors.length === 0) throw new ConfigError('group.consumer.assignors', 'must name at least one assignor');
    const known = ['uniform', 'range', 'org.apache.kafka.coordinator.group.assignor.UniformAssignor', 'org.apache.kafka.coordinator.group.assignor.RangeAssignor'];
    for (const a of assignors) if (!known.includes(a)) throw new ConfigError('group.consumer.assignors', `unknown assignor "${a}" (known: uniform, range)`);
    if (new Set(assignors).size !== assignors.length) throw new ConfigError('group.consumer.assignors', 'lists an assignor twice');
  }

  /**
   * The share-group keys, checked as Kafka's `GroupCoordinatorConfig` and `ShareGroupConfig` do:
   * each timeout and interval within its min and max, the heartbeat below the session timeout,
   * each limit within its group-config bounds, the `simple` assignor, and as many share sessions
   * as members.
   */
  private validateShareGroupConfig(): void {
    const atLeast = (k: ConfigKey, lo: ConfigKey) => {
      if (this.int(k) < this.int(lo)) throw new ConfigError(k, `must be greater than or equal to ${lo} (${this.int(lo)}), got ${this.int(k)}`);
    };
    atLeast('group.share.max.session.timeout.ms', 'group.share.min.session.timeout.ms');
    atLeast('group.share.max.heartbeat.interval.ms', 'group.share.min.heartbeat.interval.ms');
    atLeast('group.share.session.timeout.ms', 'group.share.min.session.timeout.ms');
    atLeast('group.share.max.session.timeout.ms', 'group.share.session.timeout.ms');
    atLeast('group.share.heartbeat.interval.ms', 'group.share.min.heartbeat.interval.ms');
    atLeast('group.share.max.heartbeat.interval.ms', 'group.share.heartbeat.interval.ms');
    atLeast('group.share.assignment.interval.ms', 'group.share.min.assignment.interval.ms');
    atLeast('group.share.max.assignment.interval.ms', 'group.share.assignment.interval.ms');
    if (this.int('group.share.heartbeat.interval.ms') >= this.int('group.share.session.timeout.ms')) {
      throw new ConfigError('group.share.heartbeat.interval.ms', `must be less than group.share.session.timeout.ms (${this.int('group.share.session.timeout.ms')})`);
    }
    atLeast('group.share.max.delivery.count.limit', 'group.share.delivery.count.limit');
    atLeast('group.share.delivery.count.limit', 'group.share.min.delivery.count.limit');
    atLeast('group.share.max.partition.max.record.locks', 'group.share.partition.max.record.locks');
    atLeast('group.share.partition.max.record.locks', 'group.share.min.partition.max.record.locks');
    atLeast('group.share.record.lock.duration.ms', 'group.share.min.record.lock.duration.ms');
    atLeast('group.share.max.record.lock.duration.ms', 'group.share.record.lock.duration.ms');
    atLeast('group.share.max.share.sessions', 'group.share.max.size');
    const assignors = this.string('group.share.assignors').split(',').map((a) => a.trim()).filter((a) => a !== '');
    const known = ['simple', 'org.apache.kafka.coordinator.group.assignor.SimpleAssignor'];
    if (assignors.length !== 1 || !known.includes(assignors[0]!)) throw new ConfigError('group.share.assignors', 'must name exactly one assignor: simple');
  }

  raw(key: ConfigKey): string {
    return this.values.get(key) ?? SPECS[key]!.default;
  }

  double(key: ConfigKey): number {
    return parseJavaDouble(this.raw(key)) ?? NaN;
  }

  /** `log.roll.ms` when set, else `log.roll.hours` (Kafka's `LogConfig` precedence), in ms. */
  logRollMs(): number {
    const ms = this.long('log.roll.ms');
    return ms > 0n ? Number(ms) : this.int('log.roll.hours') * 3_600_000;
  }

  int(key: ConfigKey): number {
    return Number(this.raw(key));
  }

  long(key: ConfigKey): bigint {
    return BigInt(this.raw(key));
  }

  bool(key: ConfigKey): boolean {
    return this.raw(key).toLowerCase() === 'true';
  }

  string(key: ConfigKey): string {
    return this.raw(key);
  }

  /** Every known key with its effective value (for DescribeConfigs and logs). */
  entries(): Array<[ConfigKey, string, boolean]> {
    return (Object.keys(SPECS) as ConfigKey[]).map((k) => [k, this.raw(k), !this.values.has(k)]);
  }
}

export interface Listener {
  /** The listener name, in upper case as Kafka's `ListenerName.normalised`. */
  name: string;
  /** An empty host means all interfaces when binding. */
  host: string;
  port: number;
}

/**
 * Parses a Kafka listener list (`PLAINTEXT://host:port,SASL_SSL://[::1]:9093`), as Kafka's
 * `SocketServerConfigs.listenerListToEndPoints`: names normalised to upper case, an IPv6 host in
 * brackets, an empty host for every interface. Names must differ ("Each listener must have a
 * different name"); the checks across names (ports, security protocols) are the listeners' own
 * (src/server/listeners.ts).
 */
export function parseListenerList(key: string, text: string): Listener[] {
  const out: Listener[] = [];
  for (const entry of text.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    const m = /^([A-Za-z0-9_.-]+):\/\/(\[[^\]]*\]|[^:/\s]*):(\d+)$/.exec(entry);
    if (!m) throw new ConfigError(key, `expected NAME://host:port, got "${entry}"`);
    const port = Number(m[3]);
    if (port > 65535) throw new ConfigError(key, `port ${port} is out of range`);
    out.push({ name: m[1]!.toUpperCase(), host: m[2]!.replace(/^\[|\]$/g, ''), port });
  }
  if (out.length === 0) throw new ConfigError(key, `expected NAME://host:port, got "${text}"`);
  const names = out.map((l) => l.name);
  if (new Set(names).size !== names.length) throw new ConfigError(key, `Each listener must have a different name, listeners: ${text}`);
  return out;
}

/**
 * Maps the official apache/kafka image's environment spelling to config keys:
 * `KAFKA_OFFSETS_RETENTION_MINUTES` -> `offsets.retention.minutes` (`___` is `-`, `__` is `_`).
 * Only known keys are taken, so unrelated `KAFKA_*` variables (KAFKA_HEAP_OPTS) do not warn.
 */
/** The `KAFKA_*` environment variable that sets `key` (the inverse of `configFromEnv`'s mapping). */
export function envVariableFor(key: string): string {
  return `KAFKA_${key.replace(/_/g, '__').replace(/-/g, '___').replace(/\./g, '_').toUpperCase()}`;
}

export function configFromEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('KAFKA_') || value === undefined) continue;
    const key = name
      .slice('KAFKA_'.length)
      .toLowerCase()
      .replace(/___/g, '\u0000')
      .replace(/__/g, '\u0001')
      .replace(/_/g, '.')
      .replace(/\u0000/g, '-')
      .replace(/\u0001/g, '_');
    if (isKnownConfig(key)) out[key] = value;
  }
  return out;
}
