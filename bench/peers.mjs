// The peers the benchmarks run beside ours, each a server in a child process on loopback:
//
// - `librdkafka-mock`: librdkafka's mock cluster (one broker), from the librdkafka shared library
//   bundled in the confluent-kafka wheel of .venv-ci, driven by bench/peers/librdkafka-mock/main.c
//   (built with the C compiler on PATH). In memory only.
// - `kfake`: franz-go's kfake (one broker), a Go main in bench/peers/kfake built with `go build`
//   (modules from the Go module proxy, pinned in its go.mod/go.sum).
// - `kafka`: Apache Kafka 4.3.1, KRaft, one node as broker and controller, from the jars in
//   .kafka/4.3.1/libs (scripts/fetch-kafka.sh fetches them when missing), storage formatted in a
//   fresh temporary directory each start.
//
// Each is built on demand into .tmp/bench-peers/ (git-ignored), once per process. A peer that
// cannot be built or started here resolves { missing: '<why>' }: the tables print that, so a peer
// is never silently dropped.
//
// Flush: ours has `mock.flush.policy`; the peers have their own notion. `never` runs kfake with a
// data directory and no fsync (kfake.DataDir) and Kafka with its defaults (page cache, no fsync on
// the write path); `always` runs kfake with kfake.SyncWrites (fsync per written batch) and Kafka
// with `log.flush.interval.messages=1` (a flush after every append); librdkafka's mock keeps
// everything in memory and runs under `never` only.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BenchClient, ROOT, spawnChild, startCliServer, stopChild, tryApiVersions } from './lib.mjs';

export const PEERS = ['librdkafka-mock', 'kfake', 'kafka'];
export const KAFKA_VERSION = '4.3.1';

const BUILD_DIR = join(ROOT, '.tmp', 'bench-peers');
const KAFKA_LIBS = join(ROOT, '.kafka', KAFKA_VERSION, 'libs');
/** kafka-server-start.sh's default heap and GC settings (KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS). */
const KAFKA_JVM_OPTS = ['-Xms1G', '-Xmx1G', '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-XX:InitiatingHeapOccupancyPercent=35', '-Djava.awt.headless=true'];

/** The broker configs librdkafka's mock takes (as harness flags) and kfake takes; the others are left out. */
const MOCK_CONFIG_FLAGS = { 'group.consumer.heartbeat.interval.ms': '-heartbeat-interval-ms', 'group.initial.rebalance.delay.ms': '-initial-rebalance-delay-ms' };
const KFAKE_CONFIGS = new Set(['group.consumer.heartbeat.interval.ms', 'group.consumer.session.timeout.ms']);

const prepared = new Map();

/** Builds `name` once per process; resolves { run } (how to spawn it) or { missing: why }. */
export function preparePeer(name) {
  if (!prepared.has(name)) {
    const build = { 'librdkafka-mock': buildLibrdkafkaMock, kfake: buildKfake, kafka: prepareKafka }[name];
    if (!build) throw new Error(`unknown peer "${name}" (${PEERS.join(', ')})`);
    prepared.set(
      name,
      build().catch((err) => ({ missing: oneLine(err.message) })),
    );
  }
  return prepared.get(name);
}

const oneLine = (text) => text.replace(/\s+/g, ' ').trim().slice(0, 200);

function onPath(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;
}

/** True when `bin` exists and is newer than every file of `sources`. */
function upToDate(bin, sources) {
  if (!existsSync(bin)) return false;
  const built = statSync(bin).mtimeMs;
  return sources.every((s) => statSync(s).mtimeMs <= built);
}

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 15 * 60_000, ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${(r.stderr || r.stdout || String(r.error ?? r.signal)).trim().split('\n').slice(-3).join(' ')}`);
  return r.stdout;
}

async function buildLibrdkafkaMock() {
  const venvLib = join(ROOT, '.venv-ci', 'lib');
  const libDir = existsSync(venvLib)
    ? readdirSync(venvLib).map((py) => join(venvLib, py, 'site-packages', 'confluent_kafka.libs')).find((d) => existsSync(d))
    : undefined;
  const lib = libDir && readdirSync(libDir).find((f) => /^librdkafka.*\.so(\.\d+)*$/.test(f));
  if (!lib) throw new Error('no librdkafka in .venv-ci (the confluent-kafka wheel; a Python client test provisions it)');
  const source = join(ROOT, 'bench', 'peers', 'librdkafka-mock', 'main.c');
  const bin = join(BUILD_DIR, 'librdkafka-mock');
  if (!upToDate(bin, [source, join(libDir, lib)])) {
    const cc = ['cc', 'gcc', 'clang'].find(onPath);
    if (!cc) throw new Error('no C compiler (cc, gcc, clang) on PATH');
    mkdirSync(BUILD_DIR, { recursive: true });
    run(cc, ['-O2', '-std=c11', '-D_POSIX_C_SOURCE=200809L', '-o', bin, source, join(libDir, lib), `-Wl,-rpath,${libDir}`, '-lpthread']);
  }
  return { run: (args = []) => ({ cmd: bin, args }) };
}

async function buildKfake() {
  const dir = join(ROOT, 'bench', 'peers', 'kfake');
  const bin = join(BUILD_DIR, 'kfake');
  if (!upToDate(bin, ['main.go', 'go.mod', 'go.sum'].map((f) => join(dir, f)))) {
    if (!onPath('go')) throw new Error('no Go toolchain (go) on PATH');
    mkdirSync(BUILD_DIR, { recursive: true });
    run('go', ['build', '-o', bin, '.'], { cwd: dir });
  }
  return { run: (args = []) => ({ cmd: bin, args }) };
}

async function prepareKafka() {
  if (!onPath('java')) throw new Error('no Java (java) on PATH');
  const jar = join(KAFKA_LIBS, `kafka_2.13-${KAFKA_VERSION}.jar`);
  if (!existsSync(jar)) run(join(ROOT, 'scripts', 'fetch-kafka.sh'), [], { cwd: ROOT });
  if (!existsSync(jar)) throw new Error(`no ${jar} after scripts/fetch-kafka.sh`);
  return { kafka: true };
}

/** `n` distinct free loopback ports, held open together while chosen. */
export async function freePorts(n) {
  const servers = await Promise.all(
    Array.from({ length: n }, () => new Promise((resolve, reject) => {
      const srv = createServer();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => resolve(srv));
    })),
  );
  const ports = servers.map((s) => s.address().port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/** Resolves the port of the first `ready on HOST:PORT` line `child` prints. */
function readyPort(child, name, timeoutMs) {
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  child.stderrTail = () => oneLine(stderr);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: no ready line in ${timeoutMs} ms; stderr: ${oneLine(stderr)}`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before ready; stderr: ${oneLine(stderr)}`));
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /ready on [^\s]*:(\d+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve({ port: Number(m[1]), line });
      }
    });
  });
}

/** Polls ApiVersions on `port` (a fresh connection every 2 ms) until answered. */
export async function waitForApiVersions(port, child, timeoutMs = 120_000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited with ${child.exitCode ?? child.signalCode}`);
    if (await tryApiVersions(port)) return;
    if (performance.now() > deadline) throw new Error(`no ApiVersions answer on ${port} in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

const INTERNAL_TOPICS = ['offsets.topic', 'transaction.state.log', 'share.coordinator.state.topic'];

/** Formats a KRaft storage directory for one combined broker/controller node; returns its server.properties. */
function formatKafka(dir, port, controllerPort, configs) {
  const props = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.bootstrap.servers': `127.0.0.1:${controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names': 'CONTROLLER',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'log.dirs': join(dir, 'data'),
    // One node: every internal topic with one replica (Kafka's defaults want three; offsets has
    // no min.isr of its own), one offsets partition as ours.
    ...Object.fromEntries(INTERNAL_TOPICS.flatMap((t) => [[`${t}.replication.factor`, 1], ...(t === 'offsets.topic' ? [] : [[`${t}.min.isr`, 1]])])),
    'offsets.topic.num.partitions': 1,
    'group.initial.rebalance.delay.ms': 0,
    ...configs,
  };
  const file = join(dir, 'server.properties');
  writeFileSync(file, Object.entries(props).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  let clusterId;
  // StorageTool reads an id starting with '-' as a flag (Kafka's Uuid.randomUuid draws again too).
  do clusterId = randomBytes(16).toString('base64url');
  while (clusterId.startsWith('-'));
  run('java', ['-Xmx256m', '-XX:TieredStopAtLevel=1', '-cp', `${KAFKA_LIBS}/*`, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', file, '--standalone'], { cwd: dir });
  return file;
}

/**
 * Starts peer `name` and resolves once it answers ApiVersions (and, for Kafka, once its group
 * coordinator is loaded): { child, port, cleanup, spawnedAt } or { missing }.
 * `policy` is the flush policy of the round (see the top of this file), `configs` broker configs
 * (Kafka: all, in server.properties; kfake and librdkafka's mock: those of KFAKE_CONFIGS and
 * MOCK_CONFIG_FLAGS, the rest left out), `topics` [{ name, partitions }] created
 * before it resolves (librdkafka's mock has no CreateTopics: its harness creates them),
 * `waitForGroups` false skips Kafka's coordinator wait (start-time measures only the first
 * ApiVersions). `spawnedAt`/`answeredAt` are performance.now() times (Kafka: after formatting);
 * `child.stderrTail()` is the end of what it wrote on stderr (for failure messages).
 */
export async function startPeer(name, { policy = 'never', configs = {}, topics = [], parentDir = tmpdir(), waitForGroups = true, timeoutMs = 180_000 } = {}) {
  const peer = await preparePeer(name);
  if (peer.missing) return peer;
  if (name === 'librdkafka-mock' && policy !== 'never') return { missing: 'in memory only (no flush)' };
  const dirs = [];
  const cleanup = () => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  };
  try {
    if (name === 'kafka') {
      const dir = mkdtempSync(join(parentDir, 'kmc-bench-kafka-'));
      dirs.push(dir);
      const [port, controllerPort] = await freePorts(2);
      const flush = policy === 'always' ? { 'log.flush.interval.messages': 1 } : {};
      const props = formatKafka(dir, port, controllerPort, { ...flush, ...configs });
      const spawnedAt = performance.now();
      const child = spawnChild('java', [...KAFKA_JVM_OPTS, ...kafkaLogging(), `-Dkafka.logs.dir=${join(dir, 'logs')}`, '-cp', kafkaClasspath(), 'kafka.Kafka', props], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
      child.stderrTail = () => oneLine(stderr);
      try {
        await waitForApiVersions(port, child, timeoutMs);
        const answeredAt = performance.now();
        if (waitForGroups) await waitForCoordinator(port, timeoutMs);
        for (const t of topics) await createTopic(port, t.name, t.partitions);
        return { child, port, cleanup, spawnedAt, answeredAt, version: KAFKA_VERSION };
      } catch (err) {
        await stopChild(child, 'SIGKILL');
        throw new Error(`${err.message}; stderr: ${oneLine(stderr)}`);
      }
    }
    const args = [];
    if (name === 'kfake') {
      const dataDir = mkdtempSync(join(parentDir, 'kmc-bench-kfake-'));
      dirs.push(dataDir);
      args.push('-data-dir', dataDir);
      if (policy === 'always') args.push('-sync');
      for (const [k, v] of Object.entries(configs)) if (KFAKE_CONFIGS.has(k)) args.push('-config', `${k}=${v}`);
    } else {
      for (const [key, flag] of Object.entries(MOCK_CONFIG_FLAGS)) if (configs[key] !== undefined) args.push(flag, String(configs[key]));
      for (const t of topics) args.push('-topic', `${t.name}:${t.partitions}`);
    }
    const { cmd, args: argv } = peer.run(args);
    const spawnedAt = performance.now();
    const child = spawnChild(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const { port, line } = await readyPort(child, name, timeoutMs);
      await waitForApiVersions(port, child, timeoutMs);
      const answeredAt = performance.now();
      if (name === 'kfake') for (const t of topics) await createTopic(port, t.name, t.partitions);
      return { child, port, cleanup, spawnedAt, answeredAt, version: /^\S+ (\S+) ready/.exec(line)?.[1] };
    } catch (err) {
      await stopChild(child, 'SIGKILL');
      throw err;
    }
  } catch (err) {
    cleanup();
    return { missing: oneLine(`${name} did not start: ${err.message}`) };
  }
}

/**
 * Kafka's classpath: its jars, then BENCH_KAFKA_CLASSPATH (a directory of jars or a jar) when set.
 * fetch-kafka.sh's jars have no SLF4J binding (the distribution adds log4j-slf4j-impl), so Kafka
 * logs nothing; BENCH_KAFKA_CLASSPATH can name a directory holding that binding, and
 * BENCH_KAFKA_LOG4J2 a log4j2 configuration (with absolute file paths: the temporary directory
 * goes with the server), to read why it did something (a closed connection).
 */
function kafkaClasspath() {
  const extra = process.env.BENCH_KAFKA_CLASSPATH;
  if (!extra) return `${KAFKA_LIBS}/*`;
  return `${KAFKA_LIBS}/*:${existsSync(extra) && statSync(extra).isDirectory() ? `${extra}/*` : extra}`;
}

/** `-Dlog4j2.configurationFile=` for BENCH_KAFKA_LOG4J2 (see kafkaClasspath), else nothing. */
const kafkaLogging = () => (process.env.BENCH_KAFKA_LOG4J2 ? [`-Dlog4j2.configurationFile=${process.env.BENCH_KAFKA_LOG4J2}`] : []);

/**
 * Waits until Kafka's group coordinator serves groups: FindCoordinator answers (it creates
 * __consumer_offsets) and an OffsetFetch no longer answers COORDINATOR_LOAD_IN_PROGRESS (the
 * offsets partition loads after that; ListGroups answers without error before it has).
 */
async function waitForCoordinator(port, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  const c = await BenchClient.connect(port);
  try {
    while (performance.now() < deadline) {
      const r = await c.send(10, 4, { key: '', keyType: 0, coordinatorKeys: ['kmc-bench-warmup'] });
      if (r.coordinators[0]?.errorCode === 0) {
        const f = await c.send(9, 8, { groups: [{ groupId: 'kmc-bench-warmup', topics: null }], requireStable: false });
        if (f.errorCode === 0 && f.groups[0]?.errorCode === 0) return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    c.close();
  }
  throw new Error(`group coordinator not loaded in ${timeoutMs} ms`);
}

/**
 * Creates `topic` with `partitions` partitions (CreateTopics v5) and waits until Metadata lists
 * all of them (Kafka's brokers learn a new topic from the controller a moment after the answer).
 */
export async function createTopic(port, topic, partitions) {
  const admin = await BenchClient.connect(port);
  try {
    const created = await admin.send(19, 5, { topics: [{ name: topic, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30000, validateOnly: false });
    const code = created.topics[0].errorCode;
    if (code !== 0 && code !== 36) throw new Error(`CreateTopics ${topic}: error ${code}`);
    for (let i = 0; i < 1000; i++) {
      const md = await admin.send(3, 9, { topics: [{ name: topic }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      const t = md.topics[0];
      if (t && t.errorCode === 0 && t.partitions.length === partitions && t.partitions.every((p) => p.errorCode === 0 && p.leaderId >= 0)) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`Metadata never listed ${topic} with ${partitions} partitions`);
  } finally {
    admin.close();
  }
}

/**
 * Starts `server` (`ours`: `node dist/cli.js` in memory, without the admin API; `base`: the same
 * with BENCH_BASE_CLI, another build's cli.js; or a peer) with
 * broker `configs` and `topics` [{ name, partitions }]: { child, port, cleanup?, version? } or { missing }.
 */
export async function startServerWithTopics(server, { configs = {}, topics = [], extraArgs = [] } = {}) {
  if (server !== 'ours' && server !== 'base') return startPeer(server, { configs, topics });
  const args = ['--port', '0', '--in-memory', '--no-admin', ...Object.entries(configs).flatMap(([k, v]) => ['--config', `${k}=${v}`]), ...extraArgs];
  const started = await startCliServer(args, server === 'base' ? { cli: process.env.BENCH_BASE_CLI } : {});
  try {
    for (const t of topics) await createTopic(started.port, t.name, t.partitions);
  } catch (err) {
    await stopChild(started.child);
    throw err;
  }
  return started;
}
