import pino, { type Logger } from 'pino';
import { Broker } from './broker.js';
import type { SweepResult } from './coordinator/offsets/retention.js';
import type { CompactionSummary } from './coordinator/group-log.js';
import { BrokerConfig, ConfigError, parseListenerList } from './config.js';
import { systemTime, type Time } from './util/time.js';
import type { ConnectionStats } from './server/server.js';
export type { ConnectionStats } from './server/server.js';
import { BrokerListeners, type ListenerInfo } from './server/listener-set.js';
import { resolveListeners, withAdvertisedAddress, withFirstListenerAddress } from './server/listeners.js';
import { listenerContext } from './server/listener-context.js';
import { parseAddScram } from './security/add-scram.js';
import { loadOrCreateClusterId, randomKafkaUuid } from './server/meta-properties.js';
import { prepareDataDirectory, singleLogDir, storageStartError } from './server/data-directory.js';
import { lockDataDirectory } from './server/data-dir-lock.js';
import { noteDataDirectory, removeEmptyLevels } from './server/data-dir-rollback.js';
import { API_HANDLERS } from './apis/registry.js';
import { FaultRegistry, faultRuleLimits, type FaultRuleSpec } from './faults/index.js';
import { ManualTime, serverClock, type ServerClock } from './util/manual-time.js';
import type { AdminServer } from './admin/listener.js';
import { advertisedApiKeys } from './apis/18-api-versions.js';
import { DEFAULT_ADMIN_HOST, isLoopbackHost } from './admin/guard.js';
import { clusterHandlers } from './cluster/routing.js';
import { authorizedHandlers } from './security/authorization/authorized-handlers.js';
import { clusterControl, type ClusterControl } from './cluster/control.js';
import { capApiVersions } from './protocol/kafka-versions.js';
import { codecsLoadable } from './protocol/codec-loading.js';
import { KAFKA_BROKER_CONFIGS, TOPIC_CONFIGS } from './configs/kafka-config-data.js';
import { noteCleanShutdown, removeCleanShutdown, writeCleanShutdown } from './storage/clean-shutdown.js';
import { markDirectoryTakenOver } from './storage/directory-taken-over.js';
import { withServerTime } from './util/server-time-log.js';
import { describeGroupInSlices } from './admin/groups.js';
import { describeTransaction } from './admin/transactions.js';
import type { GroupDescription, TransactionDescription } from './admin/views.js';

export { BrokerConfig, ConfigError, CONFIG_SPECS } from './config.js';
export type { Broker } from './broker.js';
export type { SweepResult } from './coordinator/offsets/retention.js';
export type { CompactionSummary } from './coordinator/group-log.js';
export { FaultRegistry, FaultRuleError, FaultRuleGone, FaultWaitTimeout } from './faults/index.js';
export type { FaultHandle, FaultRuleInfo, FaultRuleSpec, FaultMatch, FaultAction, ErrorRef, RequestLogEntry, RequestLogFilter, WaitFiredOptions } from './faults/index.js';
export { ManualTime, ClockNotManualError } from './util/manual-time.js';
export type { ServerClock, AdvanceResult } from './util/manual-time.js';
export { ClusterError } from './cluster/cluster-state.js';
export { DataDirectoryInUseError } from './server/data-dir-lock.js';
export type { ClusterBrokerInfo, ClusterView } from './cluster/cluster-state.js';
export type { ClusterControl } from './cluster/control.js';
// What the admin API answers (GET /groups, /groups/{id}, /groups/{id}/history, /overview, /transactions), for typed tests.
export type {
  GroupSummary, GroupDescription, GroupMemberView, GroupOffsetView, PendingOffsetView, UncommittedPartitionView, SharePartitionView,
  GroupHistory, TimelineEvent, RebalanceCause, Overview, OverviewTopic, OverviewGroup, TransactionSummary, TransactionDescription, ConnectAssignmentView, ConnectTasksView,
} from './admin/views.js';
export { KAFKA_API_VERSIONS, KAFKA_RELEASES, ApiVersionsError } from './protocol/kafka-versions.js';
export type { KafkaRelease } from './protocol/kafka-versions.js';

export interface StartServerOptions {
  /** Bind address of the first listener; default all interfaces (or the host `config.listeners` gives). */
  host?: string;
  /** Port of the first listener; 0 picks a free one. Default 9092 (or the port `config.listeners` gives). */
  port?: number;
  /** What clients of the first listener are told to connect to, `HOST:PORT`; default the bound port on localhost. */
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
  /** Injected time (tests); default the system clock. Not together with `clock`. */
  time?: Time;
  /**
   * `manual`: the server's clock stands still until `server.clock.advance(ms)` (or
   * `POST /clock/advance`, `kafka-mock-coordinator clock advance`) moves it, firing session and
   * rebalance timeouts, the initial rebalance delay, retention sweeps and the cleaner schedule in
   * order. Fetch long-polls still end in real time. Default `system`.
   */
  clock?: 'system' | 'manual';
  /** Start time of the manual clock (ms since the epoch); default the real time at start. */
  clockStartMs?: number;
  /** Fault rules to install before the listener opens (as `--faults rules.json`). */
  faults?: readonly FaultRuleSpec[];
  /** Start the HTTP admin API on this port (0: a free one); default: no admin API in-process. */
  adminPort?: number;
  /**
   * Bind address of the admin API; default `127.0.0.1`. A non-loopback address needs `adminToken`
   * or `adminInsecure` (else startServer throws ConfigError naming `--admin-host`).
   */
  adminHost?: string;
  /** Bearer token the admin API requires on every request (`Authorization: Bearer <token>`); default none. */
  adminToken?: string;
  /** Allow the admin API on a non-loopback address without a token (e.g. inside a container). */
  adminInsecure?: boolean;
  /**
   * Simulated brokers (default 1): ids `node.id`, `node.id + 1`, ..., each with its own listener on
   * consecutive ports from `port` (with port 0 each picks a free one; an `advertisedListener`
   * port is incremented the same way), all sharing this process's state. Partition leaders and
   * group coordinators are spread across them (see `server.cluster` and README "Cluster simulation").
   */
  brokers?: number;
  /** Advertise (and serve) only the API versions of this Kafka release: `3.9`, `4.0`, `4.1`, `4.2`, `4.3`. */
  kafkaVersion?: string;
  /** Per-API version ranges, after `kafkaVersion`: `'OffsetCommit=2-8,Fetch=4-12'` or `{ OffsetCommit: [2, 8] }`. */
  apiVersions?: string | Readonly<Record<string, readonly [number, number] | string>>;
  /**
   * SCRAM credentials to create at start, in `kafka-storage format --add-scram` syntax:
   * `['SCRAM-SHA-256=[name=alice,password=alice-secret]']` (also `iterations`, `salt`,
   * `saltedpassword`). Applied at every start (kept in the data directory like those made by
   * AlterUserScramCredentials, which `kafka-configs --alter --entity-type users` sends).
   */
  addScram?: readonly string[];
  /**
   * Called when the data directory's lock is no longer this server's (a server in another pid
   * namespace took it over while this process was frozen for more than 5 s: SIGSTOP, `docker
   * pause`, a debugger), with the message also logged at error level; the server has begun to
   * close by then, so it acknowledges nothing more. The command line exits 1.
   */
  onDataDirectoryLost?: (message: string) => void;
}

export interface ServerHandle {
  /** The bound Kafka port. */
  readonly port: number;
  /** `host:port` for `bootstrap.servers`. */
  readonly bootstrap: string;
  readonly broker: Broker;
  /**
   * Fault rules and the request log:
   * `const rule = server.faults.add({ match: { api: 'OffsetCommit', group: 'g1' }, action: { type: 'error', error: 'REBALANCE_IN_PROGRESS' }, times: 3 })`,
   * then `await rule.waitFired(3, { timeoutMs: 10_000 })`; `server.faults.requests({ api: 'OffsetCommit' })`.
   */
  readonly faults: FaultRegistry;
  /** The server clock: `server.clock.advance(ms)` when started with `clock: 'manual'`. */
  readonly clock: ServerClock;
  /**
   * The simulated cluster (`brokers`): `server.cluster.moveCoordinator('g1', 2)`,
   * `coordinatorLoadInProgress('g1', 2000)`, `await stopBroker(2)`, `await startBroker(2)`,
   * `moveLeader('t', 0, 3)`, `coordinatorOf('g1')`, `leaderOf('t', 0)`, `describe()`.
   */
  readonly cluster: ClusterControl;
  /** Bound Kafka port of every broker's first listener, by broker id (the first one is `port`). */
  readonly ports: ReadonlyMap<number, number>;
  /**
   * The first broker's listeners in `listeners` order (name, security protocol, bound port,
   * advertised `bootstrap`); `port` and `bootstrap` above are the first one's.
   */
  readonly listeners: readonly ListenerInfo[];
  /**
   * Connections of every listener: `accepted` since start, `open` now, `waitingForMemory` (not
   * read while `queued.max.request.bytes` is used up), `waitingForSlot` (not read while
   * `max.connections` are open), `inSlices` (big requests being worked on a slice per turn of
   * the event loop) and `mutedUnread` (connections not read while their request is in flight,
   * their next request buffered whole or `MUTED_READ_BYTES` of it), `waitingForDrain` (served no
   * further request until their client reads its answers), `frameReads` (socket reads
   * taken since start) and `frameChunksPeak` (the most reads one connection held at once, bounded
   * by `MAX_HELD_CHUNKS`: a frame sent a byte at a time is copied into one buffer). Live counters, read-only.
   */
  readonly connections: Readonly<ConnectionStats>;
  /** The admin API (`url`, `port`), or null when not started. */
  readonly admin: { readonly url: string; readonly port: number } | null;
  /**
   * Runs the offsets retention sweep now instead of waiting for the next
   * `offsets.retention.check.interval.ms` tick (as Kafka 4.3's `cleanupGroupMetadata`): offsets
   * past `offsets.retention.minutes` (or their commit's own retention) are tombstoned, and groups
   * left with no members and no offsets are deleted. Resolves with the number of offsets expired
   * and the ids of the groups deleted, once the tombstones are durable. Pair it with an injected
   * `time` to test retention without waiting.
   */
  sweepExpiredOffsets(): Promise<SweepResult>;
  /**
   * Expires one member's session now, as if it had stopped heartbeating for its session timeout:
   * a classic member is removed and its group rebalances (unless it waits in a JoinGroup or
   * SyncGroup), a KIP-848, share or streams member is fenced; the other members keep their sessions (a
   * clock advance past the timeout would expire them all). The member's next heartbeat gets
   * UNKNOWN_MEMBER_ID (FENCED_MEMBER_EPOCH for a KIP-848 member) and it rejoins. Returns the group's type, or null
   * when the member has no session timer. Also `POST /group/expire-session` and the command line's `expire-session`.
   */
  expireMemberSession(groupId: string, memberId: string): 'classic' | 'consumer' | 'share' | 'streams' | null;
  /**
   * Compacts every `__consumer_offsets` partition now, whatever `log.cleaner.min.cleanable.ratio`
   * says (the cleaner also runs every `log.cleaner.backoff.ms`): closed segments keep the latest
   * record per key, as Kafka's log cleaner. Resolves with what was cleaned once the swap is durable.
   */
  compactOffsetsLog(): Promise<CompactionSummary>;
  /**
   * A group as `GET /groups/{id}` describes it, without the admin API: type, state, generation or
   * group epoch, members (member id, epoch, assignment, `sessionExpiresInMs`), committed offsets
   * with log-end offsets and lag, pending transactional offsets; share groups their share
   * partitions. Null when no group has that id. A large group's offsets are formatted a slice per
   * turn of the event loop, as the admin API does.
   */
  describeGroup(groupId: string): Promise<GroupDescription | null>;
  /**
   * A transactional id as `GET /transactions/{id}` describes it: state (Kafka's names, as
   * `Ongoing`), producer id and epoch, timeout, the open transaction's partitions; null when unknown.
   */
  describeTransaction(transactionalId: string): TransactionDescription | null;
  /** Stops listening, drops connections, and waits until every acknowledged append is durable. */
  close(): Promise<void>;
}

/**
 * The warning for a config this server does not take: a Kafka broker config it does not use says
 * so; otherwise Kafka's own words (`AbstractConfig.logUnused`), and for a topic config given as a
 * server-wide one (`segment.bytes`) the broker config that sets its default for every topic.
 */
function unknownConfigWarning(key: string): string {
  if (Object.hasOwn(KAFKA_BROKER_CONFIGS, key)) return `The configuration '${key}' is a Kafka broker config this server does not use: it has no effect here.`;
  const synonym = Object.hasOwn(TOPIC_CONFIGS, key) ? TOPIC_CONFIGS[key]!.brokerSynonym : null;
  const hint = synonym === null ? '' : ` ${key} is a topic config; the broker config that sets its default for every topic is ${synonym}.`;
  return `The configuration '${key}' was supplied but isn't a known config.${hint}`;
}

/**
 * Writes the clean-shutdown marker; a directory that takes no write now (full, read-only) gets a
 * warning instead, and the next start treats this stop as a crash (torn tails cut).
 */
function markCleanShutdown(dataDir: string, log: Logger): void {
  try {
    writeCleanShutdown(dataDir);
  } catch (err) {
    log.warn({ err: (err as Error).message, dataDir }, 'could not write the clean-shutdown marker: the next start recovers the logs as after a crash');
  }
}

/** `dir`'s lock; a start refused it (another server's, a full disk) removes the levels it created, if still empty. */
function lockCreated(dir: string, createdLevels: readonly string[], onLost: (message: string) => void): () => void {
  try {
    return lockDataDirectory(dir, onLost);
  } catch (err) {
    removeEmptyLevels(createdLevels);
    throw err;
  }
}

/**
 * Starts a broker: `const server = await startServer({ port: 0 })`, then point clients at
 * `server.bootstrap`. Throws ConfigError (naming the key) for invalid configuration.
 */
export async function startServer(options: StartServerOptions = {}): Promise<ServerHandle> {
  const adminHost = options.adminHost ?? DEFAULT_ADMIN_HOST;
  // Surrounding whitespace cannot survive an HTTP header (a token read from a file ends with a
  // newline): trimmed, or no request could ever match it. An empty one is a mistake, not "none".
  const adminToken = options.adminToken === undefined ? null : options.adminToken.trim();
  if (adminToken === '' && options.adminPort !== undefined) throw new ConfigError('--admin-token', 'is empty (KMC_ADMIN_TOKEN set to nothing?); give a token, or leave it unset for none');
  if (options.adminPort !== undefined && !isLoopbackHost(adminHost === '' ? '0.0.0.0' : adminHost) && adminToken === null && !options.adminInsecure) {
    throw new ConfigError(
      '--admin-host',
      `the admin API on ${adminHost || 'every interface'} (not a loopback address) would let anyone who reaches it stop brokers and inject faults: ` +
        'give it a token (--admin-token or KMC_ADMIN_TOKEN; in-process adminToken) or accept that with --admin-insecure (KMC_ADMIN_INSECURE=true; adminInsecure)',
    );
  }
  const overrides: Record<string, string | number | boolean> = { ...(options.config ?? {}) };
  if (options.host !== undefined || options.port !== undefined || overrides['listeners'] === undefined) {
    overrides['listeners'] = withFirstListenerAddress(overrides['listeners'] === undefined ? undefined : String(overrides['listeners']), options.host, options.port);
  }
  if (options.advertisedListener !== undefined) {
    const firstName = parseListenerList('listeners', String(overrides['listeners']))[0]!.name;
    const current = overrides['advertised.listeners'];
    overrides['advertised.listeners'] = withAdvertisedAddress(current === undefined || current === '' ? undefined : String(current), firstName, options.advertisedListener);
  }
  if (options.dataDir !== undefined) overrides['log.dirs'] = options.dataDir;
  // The bundle loads message codecs on first use; on a Node without require(esm) they load here.
  await codecsLoadable();
  const config = new BrokerConfig(overrides);
  // Checked before anything opens: a listener Kafka would refuse is a startup error.
  const listenerSpecs = resolveListeners(config);
  const addScram = (options.addScram ?? []).map(parseAddScram);
  if (options.clock !== undefined && options.clock !== 'system' && options.clock !== 'manual') throw new Error(`clock must be "system" or "manual", got "${String(options.clock)}"`);
  const time: Time = options.clock === 'manual' ? new ManualTime(options.clockStartMs ?? Date.now()) : options.time ?? systemTime;
  const clock = serverClock(time, time instanceof ManualTime ? 'manual' : options.time !== undefined ? 'custom' : 'system');
  const log = withServerTime(options.logger ?? pino({ level: options.logLevel ?? 'warn' }), clock);
  for (const key of config.unknownKeys) log.warn({ key }, unknownConfigWarning(key));
  // Kafka's default log.flush.interval.ms (-1) is no interval: 'interval' alone syncs before every answer (storage/partition-log.ts).
  if (config.string('mock.flush.policy') === 'interval' && config.long('log.flush.interval.ms') <= 0n) {
    log.warn(`mock.flush.policy=interval with log.flush.interval.ms=${config.long('log.flush.interval.ms')} syncs before every answer, as 'always' does: set log.flush.interval.ms (e.g. 1000)`);
  }

  // --data-dir (in-process `dataDir`) is one path as given; `log.dirs` is Kafka's list, of one entry here.
  const dataDir = options.inMemory ? null : options.dataDir ?? singleLogDir(config.string('log.dirs'));
  const createdLevels = dataDir === null ? [] : prepareDataDirectory(dataDir, options.dataDir !== undefined ? '--data-dir' : 'log.dirs');
  if (options.clock !== undefined && options.time !== undefined) throw new Error('give either `time` or `clock`, not both');
  const brokerCount = options.brokers ?? 1;
  if (!Number.isInteger(brokerCount) || brokerCount < 1 || brokerCount > 64) throw new Error(`brokers must be an integer from 1 to 64, got ${String(options.brokers)}`);
  // Validated before anything opens: an unknown release or a bad override is a startup error.
  const servedApis = capApiVersions(API_HANDLERS, { kafkaVersion: options.kafkaVersion, apiVersions: options.apiVersions });
  // Before the broker exists: a rule on a version not served or a broker not in the cluster is refused.
  const faults = new FaultRegistry(log, { limits: faultRuleLimits(servedApis, config.int('node.id'), brokerCount, options.kafkaVersion) });
  if (options.faults) faults.addAll(options.faults);
  // Held from here until close: one server per data directory (Kafka's log directory lock).
  // Before meta.properties: two servers starting at once on a fresh directory would each write a
  // cluster id, and the one that then runs could serve an id the directory does not hold.
  // Lost (taken over while this process was frozen): stop at once, acknowledging nothing more.
  let closeOnLost: () => void = () => {};
  let lockLost = false;
  const releaseDataDir =
    dataDir === null
      ? () => {}
      : lockCreated(dataDir, createdLevels, (message) => {
          lockLost = true;
          markDirectoryTakenOver(config);
          log.error({ dataDir }, `${message}; stopping`);
          closeOnLost();
          options.onDataDirectoryLost?.(message);
        });
  // A start that fails from here on leaves the data directory as it found it (data-dir-rollback.ts).
  const found = dataDir === null ? null : noteDataDirectory(dataDir, createdLevels);
  const undoStart = () => (found === null ? releaseDataDir() : found.undo(releaseDataDir));
  let broker: Broker;
  let clusterId: string;
  let stoppedCleanly = false;
  try {
    clusterId = config.string('mock.cluster.id') || (dataDir === null ? randomKafkaUuid() : loadOrCreateClusterId(dataDir, config.int('node.id')));
    // Recovery reads whether the last server stopped cleanly; once the logs are open, a crash is not a clean stop.
    stoppedCleanly = dataDir !== null && noteCleanShutdown(config, dataDir);
    broker = Broker.open({ config, log, time, pollTime: time instanceof ManualTime ? systemTime : undefined, dataDir, clusterId, brokers: brokerCount });
  } catch (err) {
    undoStart();
    throw dataDir === null ? err : storageStartError(err, dataDir);
  }
  // A start that fails once the logs are open closes them (cleanly) and leaves the directory as it
  // found it: the clean-shutdown marker back if it was there.
  const closeFailedStart = async (opened: Broker): Promise<void> => {
    await opened.close();
    if (dataDir !== null && stoppedCleanly) markCleanShutdown(dataDir, log);
    undoStart();
  };
  if (dataDir !== null) {
    try {
      removeCleanShutdown(dataDir);
    } catch (err) {
      await closeFailedStart(broker);
      throw storageStartError(err, dataDir);
    }
  }
  broker.advertisedApiKeys = advertisedApiKeys(servedApis);
  if (addScram.length > 0) broker.scram.apply({ upsert: addScram });
  const routed = clusterHandlers(servedApis);
  const handlers = broker.authorizer ? authorizedHandlers(routed, broker.authorizer) : routed;

  const connectionStats: ConnectionStats = { accepted: 0, open: 0, waitingForMemory: 0, waitingForSlot: 0, inSlices: 0, mutedUnread: 0, waitingForDrain: 0, frameReads: 0, frameChunksPeak: 0 };
  let listeners: BrokerListeners;
  try {
    listeners = new BrokerListeners(broker, handlers, faults, listenerSpecs.map((spec) => listenerContext(spec, config, broker.scram)), connectionStats);
    await listeners.openAll();
  } catch (err) {
    await closeFailedStart(broker);
    throw err;
  }
  const closeListeners = () => listeners.closeAll();
  const boundPorts = listeners.firstPorts();
  const firstEndpoint = broker.cluster.endpoint(broker.nodeId);
  const bootstrap = `${firstEndpoint.host}:${firstEndpoint.port}`;
  if (brokerCount > 1) log.info({ brokers: broker.cluster.brokers() }, `simulating ${brokerCount} brokers`);
  const cluster = clusterControl(broker, { stop: (id) => listeners.stop(id), start: (id) => listeners.start(id) }, log);

  let admin: AdminServer | null = null;
  if (options.adminPort !== undefined) {
    try {
      // The admin listener starts once the Kafka listeners answer; fastify, prom-client and the
      // console's routes load with its first HTTP request (src/admin/listener.ts).
      const { startAdminServer } = await import('./admin/listener.js');
      admin = await startAdminServer({
        host: adminHost,
        port: options.adminPort,
        token: adminToken,
        broker,
        faults,
        clock,
        cluster,
        bootstrap: () => bootstrap,
        sweep: () => broker.sweepExpiredOffsets(),
        compact: () => broker.groupLog.compact(),
        connections: () => connectionStats,
      });
    } catch (err) {
      await closeListeners();
      await closeFailedStart(broker);
      throw err;
    }
  }

  let closing: Promise<void> | null = null;
  const handle: ServerHandle = {
    port: boundPorts.get(broker.nodeId)!,
    ports: boundPorts,
    listeners: listeners.describe(),
    bootstrap,
    broker,
    faults,
    clock,
    cluster,
    connections: connectionStats,
    admin: admin ? { url: admin.url, port: admin.port } : null,
    sweepExpiredOffsets: () => broker.sweepExpiredOffsets(),
    expireMemberSession: (groupId, memberId) => broker.expireMemberSession(groupId, memberId),
    compactOffsetsLog: () => broker.groupLog.compact(),
    describeGroup: (groupId) => describeGroupInSlices(broker, groupId),
    describeTransaction: (transactionalId) => describeTransaction(broker, transactionalId),
    close() {
      closing ??= (async () => {
        // Pending waitFired calls (HTTP /faults/{id}/wait included) end now, not at their timeout.
        faults.clear();
        await admin?.close();
        await closeListeners();
        await broker.close();
        // Every log closed (synced, cut to its batches): the next start knows no write was torn.
        // Not into a directory another server took over meanwhile.
        if (dataDir !== null && !lockLost) markCleanShutdown(dataDir, log);
        releaseDataDir();
      })();
      return closing;
    },
  };
  closeOnLost = () => void handle.close().catch((err: unknown) => log.error({ err }, 'closing after the data directory lock was lost failed'));
  return handle;
}
