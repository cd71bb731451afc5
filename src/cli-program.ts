/**
 * The command line: `serve` (the root command), the log tools and the admin API's commands, run on
 * process.argv by `runCli()`. src/cli.ts, the package's bin, only calls it; the bundle puts this
 * module beside src/index.ts in the package's one program, run from a V8 code cache
 * (scripts/code-cache.mjs), which is why it is a module of its own.
 */
import { readFileSync } from 'node:fs';
import { isatty } from 'node:tty';
import { Command, Option } from 'commander';
import pino from 'pino';
import { startServer, type FaultRuleSpec } from './index.js';
import { BrokerConfig, ConfigError, configFromEnv, envVariableFor } from './config.js';
import type { CommandOutput } from './tools/consumer-groups.js';
import { DEFAULT_ADMIN_PORT, registerControlCommands } from './admin/cli-commands.js';
import { loadStartupFaults } from './faults/startup.js';
import { faultRuleLimits } from './faults/reachable.js';
import { capApiVersions, KAFKA_RELEASES, type VersionedApi } from './protocol/kafka-versions.js';
import { API_HANDLERS } from './apis/registry.js';
import { enableIdleCollection } from './util/idle-collection.js';
import { turnBatchedLines } from './util/turn-batched-lines.js';
import { fdLogOutput, noticeOnStderr } from './util/fd-log-output.js';
import { codecsLoadable } from './protocol/codec-loading.js';
import { lazyModule } from './util/lazy-module.js';
import { withServerTime } from './util/server-time-log.js';

const loadPinoPretty = lazyModule<typeof import('pino-pretty')>('pino-pretty', 'the log on a terminal');

interface ServeOptions {
  host?: string;
  port?: string;
  advertisedListener?: string;
  dataDir?: string;
  inMemory?: boolean;
  config: string[];
  logLevel: string;
  /** false with --no-admin; a string is `--admin <url>`, an option of the admin commands, not of serving. */
  admin: boolean | string;
  adminPort: string;
  adminHost?: string;
  adminToken?: string;
  adminInsecure?: boolean;
  clock: string;
  faults?: string;
  brokers: string;
  kafkaVersion?: string;
  apiVersions?: string;
  addScram: string[];
  stopWhenStdinCloses?: boolean;
  /** Whether --admin-port (or KMC_ADMIN_PORT) was given: then a busy port is an error, not a warning. */
  adminPortExplicit?: boolean;
  /** Where the admin port came from, named when it is in use: `--admin-port` or `KMC_ADMIN_PORT`. */
  adminPortFlag?: string;
}

function fail(message: string): never {
  process.stderr.write(`kafka-mock-coordinator: ${message}\n`);
  process.exit(2);
}

async function serve(opts: ServeOptions): Promise<void> {
  if (!Object.hasOwn(pino.levels.values, opts.logLevel) && opts.logLevel !== 'silent') {
    fail(`invalid --log-level "${opts.logLevel}" (one of ${Object.keys(pino.levels.values).join(', ')}, silent)`);
  }
  // Synchronous writes: pino's default asynchronous stdout can let the last lines overtake an
  // earlier one still in flight when the process exits (a supervisor waiting for `stopped` would
  // see it before `shutting down`). A write that fails (its reader went away, a full disk) costs
  // that text, never the broker, and the next one tries again (util/fd-log-output.ts).
  const stdout = fdLogOutput(1, noticeOnStderr);
  // isatty(1), not process.stdout.isTTY: creating process.stdout would make fd 1 non-blocking (see the preAction hook below).
  // Not a terminal (a pipe, a file): the lines of a turn leave in one write (util/turn-batched-lines.ts).
  const log = pino({ level: opts.logLevel }, isatty(1) ? prettyLines(stdout) : turnBatchedLines(stdout));

  const config: Record<string, string> = configFromEnv(process.env);
  const fromEnvironment = new Set(Object.keys(config));
  for (const entry of opts.config) {
    const eq = entry.indexOf('=');
    if (eq <= 0) fail(`--config expects key=value, got "${entry}"`);
    const key = entry.slice(0, eq).trim();
    config[key] = entry.slice(eq + 1);
    fromEnvironment.delete(key);
  }
  if (opts.port !== undefined && (!/^\d+$/.test(opts.port) || Number(opts.port) > 65535)) fail(`invalid --port "${opts.port}"`);
  if (!/^\d+$/.test(opts.adminPort) || Number(opts.adminPort) > 65535) fail(`invalid --admin-port "${opts.adminPort}"`);
  if (opts.inMemory && opts.dataDir !== undefined) fail('--in-memory and --data-dir exclude each other (--in-memory writes no files)');
  if (opts.clock !== 'system' && opts.clock !== 'manual') fail(`invalid --clock "${opts.clock}" (system or manual)`);
  if (!/^\d+$/.test(opts.brokers) || Number(opts.brokers) < 1 || Number(opts.brokers) > 64) fail(`invalid --brokers "${opts.brokers}" (1 to 64)`);
  let servedApis: ReadonlyMap<number, VersionedApi>;
  try {
    servedApis = capApiVersions(API_HANDLERS, { kafkaVersion: opts.kafkaVersion, apiVersions: opts.apiVersions });
  } catch (err) {
    fail(`${opts.kafkaVersion !== undefined && /Kafka version/.test((err as Error).message) ? '--kafka-version' : '--api-versions'}: ${(err as Error).message}`);
  }
  // Read here rather than by commander, which would take any value (even "false") as true.
  const insecureEnv = process.env['KMC_ADMIN_INSECURE']?.toLowerCase();
  if (insecureEnv !== undefined && !['', 'true', '1', 'false', '0'].includes(insecureEnv)) fail(`invalid KMC_ADMIN_INSECURE "${insecureEnv}" (true or false)`);
  const adminInsecure = opts.adminInsecure === true || insecureEnv === 'true' || insecureEnv === '1';
  let faults: unknown[];
  try {
    // With this server's versions and broker ids, so that a rule that could never fire is refused
    // naming its source; a bad node.id is left to startServer's ConfigError.
    const nodeId = configuredNodeId(config);
    faults = loadStartupFaults(opts.faults, process.env['KMC_FAULTS'], nodeId === undefined ? undefined : faultRuleLimits(servedApis, nodeId, Number(opts.brokers), opts.kafkaVersion));
  } catch (err) {
    fail((err as Error).message);
  }

  // Set once the server runs: a data directory lock lost stops it as a signal does, exit status 1.
  let lost: () => void = () => {};
  try {
    const start = (adminPort: number | undefined) => startServer({
      host: opts.host,
      // Only flags given on the command line override `listeners` / `log.dirs` from --config or KAFKA_*.
      port: opts.port === undefined ? undefined : Number(opts.port),
      advertisedListener: opts.advertisedListener,
      dataDir: opts.dataDir,
      inMemory: opts.inMemory,
      config,
      logger: log,
      clock: opts.clock as 'system' | 'manual',
      faults: faults as FaultRuleSpec[], // validated by startServer (FaultRuleError names the bad rule)
      adminPort,
      adminHost: opts.adminHost,
      adminToken: opts.adminToken,
      adminInsecure,
      brokers: Number(opts.brokers),
      kafkaVersion: opts.kafkaVersion,
      apiVersions: opts.apiVersions,
      addScram: opts.addScram,
      // Closed already (index.ts); the process exits 1 once it is.
      onDataDirectoryLost: () => lost(),
    });
    const adminPort = opts.admin ? Number(opts.adminPort) : undefined;
    let server;
    try {
      server = await start(adminPort);
    } catch (err) {
      // The default admin port being busy (another instance) is not worth refusing to start. The
      // Kafka listeners bind first: their port in use is an error of its own (the error names its port).
      const busy = err as NodeJS.ErrnoException & { port?: number; address?: string; listener?: string };
      if (busy.code !== 'EADDRINUSE' || busy.listener !== 'admin' || adminPort === undefined) throw err;
      if (opts.adminPortExplicit) {
        fail(`admin API port ${adminPort} is in use${busy.address ? ` on ${busy.address}` : ''} (${opts.adminPortFlag ?? '--admin-port'}): pass another, 0 for a free one, or --no-admin`);
      }
      log.warn(`admin API not started: port ${adminPort} is in use (pass --admin-port 0 for a free port, or --no-admin)`);
      server = await start(undefined);
    }
    // This process is the server's own: it may run a collection after a burst (util/idle-collection.ts).
    enableIdleCollection();
    // Its own lines carry the server clock's time too (util/server-time-log.ts).
    const serverLog = withServerTime(log, server.clock);
    let stopping = false;
    const stop = (signal: string, exitCode = 0): void => {
      if (stopping) return;
      stopping = true;
      serverLog.info({ signal }, 'shutting down');
      server.close().then(
        () => {
          // After close(): every acknowledged append is on disk, so a supervisor reading this line may
          // remove the process (or container) without losing data.
          serverLog.info({ signal }, 'stopped');
          process.exit(exitCode);
        },
        (err) => {
          serverLog.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    lost = () => stop('data directory lock lost', 1);
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
    // A harness that started us with a pipe on stdin: its end (the harness exited, however it
    // exited: killed, crashed, `exit()` without cleanup) stops us as SIGTERM does, so no broker
    // outlives the tests that started it (new-user trial, session 23: re-parented to PID 1, serving on).
    if (opts.stopWhenStdinCloses) {
      process.stdin.on('end', () => stop('stdin closed'));
      process.stdin.on('error', () => stop('stdin closed'));
      process.stdin.resume();
    }
    // Printed only once the signal handlers are in place: a supervisor that stops us as soon as it
    // sees this line must reach them, not the default action. It is the one start-up line (and the
    // last), so it names the admin API too: whoever waits for it has everything to connect with.
    const brokerPorts = server.ports.size > 1 ? { brokers: Object.fromEntries(server.ports) } : {};
    const adminNote = server.admin ? ` (admin API ${server.admin.url}, OpenAPI at ${server.admin.url}/openapi.json)` : '';
    // Several listeners: the line names each (the first stays first, where a reader finds the bootstrap).
    const [first, ...others] = server.listeners;
    const listenersNote = others.length === 0 ? '' : ` (${first!.name}; also ${others.map((l) => `${l.name} on ${l.bootstrap}`).join(', ')})`;
    const listenerFields = others.length === 0 ? {} : { listeners: Object.fromEntries(server.listeners.map((l) => [l.name, l.bootstrap])) };
    serverLog.info({ bootstrap: server.bootstrap, ...listenerFields, dataDir: server.broker.dataDir, admin: server.admin?.url ?? null, clock: server.clock.mode, ...brokerPorts }, `kafka-mock-coordinator ready on ${server.bootstrap}${listenersNote}${adminNote}`);
  } catch (err) {
    if (err instanceof ConfigError) {
      // In a container the user wrote the variable, not the key: name both.
      fail(fromEnvironment.has(err.key) ? `${err.message} (from ${envVariableFor(err.key)})` : err.message);
    }
    const busy = err as NodeJS.ErrnoException & { listener?: string };
    // A Kafka listener's port (the admin API's is handled above): say what to do about it.
    if (busy.code === 'EADDRINUSE' && busy.listener !== 'admin') fail(`${busy.message} (a Kafka port: pass --port with another, 0 for a free one, or stop what holds it)`);
    fail((err as Error).message);
  }
}

/** The first broker's id (`node.id`) as the server will read it; undefined when the config is invalid (startServer says why). */
function configuredNodeId(config: Record<string, string>): number | undefined {
  try {
    return new BrokerConfig(config).int('node.id');
  } catch {
    return undefined;
  }
}

/**
 * On a terminal, each JSON line pretty-printed by pino-pretty in this thread and written to `out`.
 * Not pino's `transport` (a worker thread running pino-pretty): that costs a second V8 isolate,
 * about 10 MiB and 100 ms of CPU at start, for the few lines a server logs. pino-pretty itself
 * loads only here, never when stdout is a pipe or a file; with `require`, not `import()`: the
 * bundled command line runs as a `vm.Script` from a code cache (scripts/code-cache.mjs), and
 * Node 20 loses a script's dynamic-import callback when V8 takes the cache.
 */
function prettyLines(out: pino.DestinationStream): pino.DestinationStream {
  const { prettyFactory } = loadPinoPretty();
  const pretty = prettyFactory({ colorize: true });
  return { write: (line: string) => out.write(pretty(line)) };
}

/** Writes a tool's output (stderr first, as the remarks come before the tables) and sets the exit code. */
function emit(result: CommandOutput): void {
  if (result.stderr) process.stderr.write(result.stderr);
  if (result.stdout) process.stdout.write(result.stdout);
  process.exitCode = result.exitCode;
}

/**
 * The version in package.json, read at run time: this module sits one level below it (as
 * src/cli-program.ts, dist/cli-program.js, and bundled as dist/program-<hash>.cjs), in the
 * repository and in an installed package alike, and no build step has to copy it.
 */
function packageVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const version = (pkg as { version?: unknown }).version;
  return typeof version === 'string' ? version : 'unknown';
}

interface GroupsTool {
  list(options: { bootstrapServer: string; timeoutMs: number }): Promise<CommandOutput>;
  describe(options: { bootstrapServer: string; timeoutMs: number; groups: string[]; members?: boolean; state?: boolean; offsets?: boolean; verbose?: boolean }): Promise<CommandOutput>;
}

/** `groups` and `share-groups`: look-alikes of kafka-consumer-groups.sh and kafka-share-groups.sh with the same read-only options. */
function groupsCommand(program: Command, name: string, kind: string, script: string, offsets: string, load: () => Promise<GroupsTool>): void {
  program
    .command(name)
    .description(`describe or list ${kind} groups of a running server, like Kafka's ${script}`)
    .requiredOption('--bootstrap-server <host:port>', 'server to connect to')
    .option('--list', `list the ${kind} groups`)
    .option('--describe', `describe ${kind} groups: ${offsets} (default), --members or --state`)
    .option('--group <group>', 'group to describe (repeatable)', (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option('--members', 'with --describe: the members of the group')
    .option('--state', 'with --describe: the state of the group')
    .option('--offsets', `with --describe: ${offsets} (the default)`)
    .option('--verbose', 'with --describe: more columns')
    .option('--timeout <ms>', 'request timeout in milliseconds', '30000')
    .action(async (opts: { bootstrapServer: string; list?: boolean; describe?: boolean; group: string[]; members?: boolean; state?: boolean; offsets?: boolean; verbose?: boolean; timeout: string }) => {
      const timeoutMs = Number(opts.timeout);
      if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) fail(`invalid --timeout "${opts.timeout}"`);
      if (opts.list && opts.describe) fail(`${name}: give one of --list and --describe`);
      const tool = await load();
      if (opts.list) {
        emit(await tool.list({ bootstrapServer: opts.bootstrapServer, timeoutMs }));
      } else if (opts.describe) {
        if (opts.group.length === 0) fail(`${name} --describe needs --group <group>`);
        emit(await tool.describe({ bootstrapServer: opts.bootstrapServer, timeoutMs, groups: opts.group, members: opts.members, state: opts.state, offsets: opts.offsets, verbose: opts.verbose }));
      } else {
        fail(`${name}: give --list or --describe`);
      }
    });
}

/**
 * The command line's commands and options. Built by `runCli()`, not when the module loads: the
 * package's `import` runs this module too (one bundle for both, scripts/bundle.mjs), and a program
 * that only calls startServer has no use for commander's command tree or package.json's version.
 */
function commandLine(): Command {
  const program = new Command()
    .name('kafka-mock-coordinator')
    .description('A Kafka-protocol broker and group coordinator for tests and local development')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .option('--host <host>', 'address to bind (default: all interfaces)')
    .option('--port <port>', 'Kafka port, 0 picks a free one (default: 9092, or the port of listeners)')
    .option('--advertised-listener <host:port>', 'address clients are told to connect to')
    .option('--data-dir <dir>', 'data directory (default: ./data, or log.dirs)')
    .option('--in-memory', 'keep everything in memory, write no files')
    .option('--config <key=value>', 'a Kafka broker config by its Kafka name (repeatable)', (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option('--log-level <level>', 'pino log level', process.env['LOG_LEVEL'] ?? 'info')
    .addOption(new Option('--admin-port <port>', 'HTTP admin API port, 0 picks a free one').env('KMC_ADMIN_PORT').default(String(DEFAULT_ADMIN_PORT)))
    .addOption(new Option('--admin-host <host>', 'address the admin API binds (default 127.0.0.1; another needs --admin-token or --admin-insecure)').env('KMC_ADMIN_HOST'))
    .addOption(new Option('--admin-token <token>', 'require "Authorization: Bearer <token>" on every admin API request').env('KMC_ADMIN_TOKEN'))
    .option('--admin-insecure', 'allow the admin API on a non-loopback address without a token (also KMC_ADMIN_INSECURE=true)')
    .option('--no-admin', 'do not start the admin API')
    .addOption(new Option('--clock <mode>', 'server clock: system, or manual (moved only by `clock advance`)').choices(['system', 'manual']).default('system'))
    .option('--faults <file>', 'fault rules to install at start: a JSON file holding an array of rules, {"faults": [...]}, or one rule; also KMC_FAULTS (that JSON inline, or a path)')
    .addOption(new Option('--brokers <n>', 'simulated brokers (ids node.id, node.id+1, ...; ports consecutive from --port)').env('KMC_BROKERS').default('1'))
    .addOption(new Option('--kafka-version <version>', `advertise the API versions of this Kafka release (${KAFKA_RELEASES.join(', ')})`).env('KMC_KAFKA_VERSION'))
    .addOption(new Option('--api-versions <ranges>', 'per-API version ranges, e.g. OffsetCommit=2-8,Fetch=4-12').env('KMC_API_VERSIONS'))
    .option('--add-scram <credential>', "a SCRAM credential to create, as kafka-storage format --add-scram: 'SCRAM-SHA-256=[name=alice,password=alice-secret]' (repeatable)", (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option('--stop-when-stdin-closes', 'stop (as on SIGTERM) when standard input ends: a test harness that starts the server with a pipe on stdin stops it by exiting, however it exits')
    .action(async (opts: ServeOptions) => {
      if (typeof opts.admin === 'string') {
        fail(`--admin <url> names a running server's admin API, for a command: kafka-mock-coordinator --admin ${opts.admin} faults list; the server's own admin API takes --admin-port and --admin-host`);
      }
      const adminPortSource = program.getOptionValueSource('adminPort');
      await serve({ ...opts, adminPortExplicit: adminPortSource !== 'default', adminPortFlag: adminPortSource === 'env' ? 'KMC_ADMIN_PORT' : '--admin-port' });
    });

  program
    .command('dump-log')
    .description("print log segments like Kafka's kafka-dump-log.sh --print-data-log: records decoded as __consumer_offsets (--offsets-decoder), __transaction_state (--transaction-log-decoder) or __share_group_state (--share-group-state-decoder) records, or keys and values as UTF-8 text (--print-data-log alone); without an option, by the segment's directory: an internal topic's decoder, text for another topic's (<topic>-<partition>), __consumer_offsets records elsewhere")
    .argument('<segment...>', 'segment files (<base offset>.log) of any topic')
    .option('--offsets-decoder', 'read the records as __consumer_offsets records')
    .option('--transaction-log-decoder', 'read the records as __transaction_state records')
    .option('--share-group-state-decoder', 'read the records as __share_group_state records')
    .option('--print-data-log', 'without a decoder option: keys and values as UTF-8 text (Kafka\'s StringDecoder)')
    .action(async (files: string[], opts: { offsetsDecoder?: boolean; transactionLogDecoder?: boolean; shareGroupStateDecoder?: boolean; printDataLog?: boolean }) => {
      // The tools load only when asked for: serving needs none of their code at start.
      const { dumpLogFiles, recordFormatOf } = await import('./tools/dump-log.js');
      // The decoder Kafka's DumpLogSegmentsOptions picks when several are given: the first of these.
      const decoder = opts.offsetsDecoder ? '__consumer_offsets' : opts.transactionLogDecoder ? '__transaction_state' : opts.shareGroupStateDecoder ? '__share_group_state' : null;
      process.exitCode = dumpLogFiles(
        files,
        (line) => process.stdout.write(line + '\n'),
        (line) => process.stderr.write(line + '\n'),
        decoder ?? (opts.printDataLog ? 'strings' : recordFormatOf),
      );
    });

  groupsCommand(program, 'groups', 'consumer', 'kafka-consumer-groups.sh', 'offsets and lag', async () => {
    const { describeGroups, listGroups } = await import('./tools/consumer-groups.js');
    return { list: listGroups, describe: describeGroups };
  });
  groupsCommand(program, 'share-groups', 'share', 'kafka-share-groups.sh', 'start offsets and lag', async () => {
    const { describeShareGroups, listShareGroups } = await import('./tools/share-groups.js');
    return { list: listShareGroups, describe: describeShareGroups };
  });

  registerControlCommands(program);

  // A reader that stops early (`dump-log ... | head`) closes the pipe: the tools stop quietly, as
  // Kafka's do. Not the server (the root command's action), which writes its log with pino's
  // synchronous writes to fd 1 and must never create `process.stdout`: on a pipe, that puts fd 1 in
  // non-blocking mode, and a full pipe (a reader busy elsewhere, as a test runner or a benchmark
  // with a thousand clients) then makes each write sleep 100 ms (sonic-boom's retry on EAGAIN)
  // where a blocking write waits only until the reader takes the bytes, as a JVM's console does.
  program.hook('preAction', (_program, action) => {
    if (action === program) return;
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    });
  });
  return program;
}

/** Runs the command named by process.argv (serving by default); resolves when its action has. */
export async function runCli(): Promise<void> {
  // The tools decode messages and records too: on a Node without require(esm) the bundle's codecs load here first.
  await codecsLoadable();
  await commandLine().parseAsync();
}
