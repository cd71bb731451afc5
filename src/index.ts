import pino, { type Logger } from 'pino';
import { Broker } from './broker.js';
import type { SweepResult } from './coordinator/offsets/retention.js';
import { BrokerConfig, parseListener } from './config.js';
import { systemTime, type Time } from './util/time.js';
import { KafkaListener } from './server/server.js';
import { loadOrCreateClusterId, randomKafkaUuid } from './server/meta-properties.js';
import { API_HANDLERS } from './apis/registry.js';

export { BrokerConfig, ConfigError, CONFIG_SPECS } from './config.js';
export type { Broker } from './broker.js';
export type { SweepResult } from './coordinator/offsets/retention.js';

export interface StartServerOptions {
  /** Bind address; default all interfaces. */
  host?: string;
  /** Kafka port; 0 picks a free one. Default 9092. */
  port?: number;
  /** What clients are told to connect to, `HOST:PORT`; default the bound port on localhost. */
  advertisedListener?: string;
  /** Data directory; default `./data` (Kafka's `log.dirs`). Ignored with `inMemory`. */
  dataDir?: string;
  /** Keep everything in memory (no files). */
  inMemory?: boolean;
  /** Kafka broker configs by their Kafka names, e.g. `{ 'offsets.retention.minutes': 5 }`. */
  config?: Readonly<Record<string, string | number | boolean>>;
  /** pino level; default `warn` in-process (`info` from the command line). */
  logLevel?: string;
  /** A logger to use instead of creating one. */
  logger?: Logger;
  /** Injected time (tests); default the system clock. */
  time?: Time;
}

export interface ServerHandle {
  /** The bound Kafka port. */
  readonly port: number;
  /** `host:port` for `bootstrap.servers`. */
  readonly bootstrap: string;
  readonly broker: Broker;
  /**
   * Runs the offsets retention sweep now instead of waiting for the next
   * `offsets.retention.check.interval.ms` tick (as Kafka 4.3's `cleanupGroupMetadata`): offsets
   * past `offsets.retention.minutes` (or their commit's own retention) are tombstoned, and groups
   * left with no members and no offsets are deleted. Resolves with the number of offsets expired
   * and the ids of the groups deleted, once the tombstones are durable. Pair it with an injected
   * `time` to test retention without waiting.
   */
  sweepExpiredOffsets(): Promise<SweepResult>;
  /** Stops listening, drops connections, and waits until every acknowledged append is durable. */
  close(): Promise<void>;
}

const ANY_HOST = new Set(['', '0.0.0.0', '::']);

/**
 * Starts a broker: `const server = await startServer({ port: 0 })`, then point clients at
 * `server.bootstrap`. Throws ConfigError (naming the key) for invalid configuration.
 */
export async function startServer(options: StartServerOptions = {}): Promise<ServerHandle> {
  const overrides: Record<string, string | number | boolean> = { ...(options.config ?? {}) };
  if (options.host !== undefined || options.port !== undefined || overrides['listeners'] === undefined) {
    const base = parseListener('listeners', String(overrides['listeners'] ?? 'PLAINTEXT://:9092'));
    overrides['listeners'] = `PLAINTEXT://${options.host ?? base.host}:${options.port ?? base.port}`;
  }
  if (options.advertisedListener !== undefined) overrides['advertised.listeners'] = `PLAINTEXT://${options.advertisedListener}`;
  if (options.dataDir !== undefined) overrides['log.dirs'] = options.dataDir;
  const config = new BrokerConfig(overrides);
  const log = options.logger ?? pino({ level: options.logLevel ?? 'warn' });
  for (const key of config.unknownKeys) log.warn({ key }, `The configuration '${key}' was supplied but isn't a known config.`);

  const dataDir = options.inMemory ? null : config.string('log.dirs');
  const clusterId = config.string('mock.cluster.id') || (dataDir === null ? randomKafkaUuid() : loadOrCreateClusterId(dataDir, config.int('node.id')));
  const broker = Broker.open({ config, log, time: options.time ?? systemTime, dataDir, clusterId });

  const bind = parseListener('listeners', config.string('listeners'));
  const listener = new KafkaListener(broker, API_HANDLERS);
  let address;
  try {
    address = await listener.listen(bind.host, bind.port);
  } catch (err) {
    await broker.close();
    throw err;
  }
  const advertisedText = config.string('advertised.listeners');
  const advertised = advertisedText
    ? parseListener('advertised.listeners', advertisedText)
    : { host: ANY_HOST.has(bind.host) ? 'localhost' : bind.host, port: address.port };
  broker.advertised = { host: advertised.host, port: advertised.port };

  let closing: Promise<void> | null = null;
  return {
    port: address.port,
    bootstrap: `${advertised.host}:${advertised.port}`,
    broker,
    sweepExpiredOffsets: () => broker.sweepExpiredOffsets(),
    close() {
      closing ??= (async () => {
        await listener.close();
        await broker.close();
      })();
      return closing;
    },
  };
}
