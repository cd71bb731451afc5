#!/usr/bin/env node
import { Command } from 'commander';
import pino from 'pino';
import { startServer } from './index.js';
import { ConfigError, configFromEnv } from './config.js';

const program = new Command()
  .name('kafka-mock-coordinator')
  .description('A Kafka-protocol broker and group coordinator for tests and local development')
  .option('--host <host>', 'address to bind (default: all interfaces)')
  .option('--port <port>', 'Kafka port, 0 picks a free one (default: 9092, or the port of listeners)')
  .option('--advertised-listener <host:port>', 'address clients are told to connect to')
  .option('--data-dir <dir>', 'data directory (default: ./data, or log.dirs)')
  .option('--in-memory', 'keep everything in memory, write no files')
  .option('--config <key=value>', 'a Kafka broker config by its Kafka name (repeatable)', (v: string, prev: string[]) => [...prev, v], [] as string[])
  .option('--log-level <level>', 'pino log level', process.env['LOG_LEVEL'] ?? 'info');

program.parse();
const opts = program.opts<{
  host?: string; port?: string; advertisedListener?: string; dataDir?: string; inMemory?: boolean; config: string[]; logLevel: string;
}>();

if (!Object.hasOwn(pino.levels.values, opts.logLevel) && opts.logLevel !== 'silent') {
  process.stderr.write(`kafka-mock-coordinator: invalid --log-level "${opts.logLevel}" (one of ${Object.keys(pino.levels.values).join(', ')}, silent)\n`);
  process.exit(2);
}

const log = pino({
  level: opts.logLevel,
  ...(process.stdout.isTTY ? { transport: { target: 'pino-pretty', options: { colorize: true } } } : {}),
});

function fail(message: string): never {
  process.stderr.write(`kafka-mock-coordinator: ${message}\n`);
  process.exit(2);
}

const config: Record<string, string> = configFromEnv(process.env);
for (const entry of opts.config) {
  const eq = entry.indexOf('=');
  if (eq <= 0) fail(`--config expects key=value, got "${entry}"`);
  config[entry.slice(0, eq).trim()] = entry.slice(eq + 1);
}
if (opts.port !== undefined && (!/^\d+$/.test(opts.port) || Number(opts.port) > 65535)) fail(`invalid --port "${opts.port}"`);

try {
  const server = await startServer({
    host: opts.host,
    port: opts.port === undefined ? undefined : Number(opts.port),
    advertisedListener: opts.advertisedListener,
    dataDir: opts.dataDir,
    inMemory: opts.inMemory,
    config,
    logger: log,
  });
  log.info({ bootstrap: server.bootstrap, dataDir: server.broker.dataDir }, `kafka-mock-coordinator ready on ${server.bootstrap}`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (err) {
  if (err instanceof ConfigError) fail(err.message);
  fail((err as Error).message);
}
