// OffsetCommit throughput, latency and server CPU per commit, against servers in child processes
// (ours: `node dist/cli.js`; the floor: bench/echo-server.mjs, a bare Node server answering every
// frame with a canned response), so the clients' CPU is not the server's (on a 2-core machine
// they still share the cores).
//
// For each flush policy and each load `CxD` (C TCP connections, D requests in flight on each):
// client i commits increasing offsets for partition i of a shared topic in one simple group
// (generation -1, no member id), OffsetCommit v8 (flexible). Each round starts every server afresh
// (in another order each round) and measures them in turn, A B A B, so a change in the machine's
// load hits each about equally; a row is the median of its BENCH_ROUNDS rounds, so one process
// that runs slow for its whole life does not move it, and each window waits until every server of
// the round is quiet (bench/lib.mjs waitForQuiet: a server still busy after its own window slows
// the next one's on 2 cores). After a warm-up, every acknowledged commit in the measurement window
// counts; latency is request write to response decode. Server CPU is the child's
// utime + stime (/proc) over the window: CPU time, not wall time, so it holds on a loaded machine.
// Ours (a build with `kmc_offsets_log_syncs_total`) also says how many commits one fdatasync of
// `__consumer_offsets` carried (read from its /metrics around each window).
//
// The peers of bench/peers.mjs (librdkafka-mock, kfake, kafka) run in the same rounds with the
// same clients: beside `never` and `always` in their own notion of flushing (see peers.mjs), not
// beside `interval`; one that cannot be built or started is listed in `missing`.
//
// Env: BENCH_POLICIES (always,interval,never), BENCH_LOADS (1x1,16x1,64x1,16x16), BENCH_SERVERS
// (ours,echo,librdkafka-mock,kfake,kafka; echo runs beside `never` only, flushing being nothing
// to it), BENCH_ROUNDS (3),
// BENCH_COMMIT_SECONDS (3), BENCH_WARMUP_SECONDS (1, before each window), BENCH_SERVER_WARMUP_SECONDS
// (3: each server once under the heaviest load after it starts; Kafka BENCH_KAFKA_WARMUP_SECONDS,
// 10), BENCH_FLUSH_INTERVAL_MS (100),
// BENCH_DATA_DIR (a parent for the temporary data directories; default the OS temp dir),
// BENCH_BASE_CLI (another build's dist/cli.js, run as server `base`, to compare a change A/B),
// BENCH_BASE_CONFIGS (`key=value,...` given to `base` only: an A/B of a config with BENCH_BASE_CLI=dist/cli.cjs).
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Writer } from '../dist/protocol/primitives.js';
import { API_CODECS } from '../dist/protocol/messages/index.js';
import { BenchClient, benchNodeEnv, envInt, envList, fmt, percentile, processCpuMs, processRssBytes, spawnChild, startCliServer, stopChild, waitForQuiet } from './lib.mjs';
import { PEERS, startPeer } from './peers.mjs';

const TOPIC = 'bench-commit-topic';
const GROUP = 'bench-commit-group';
const ECHO = fileURLToPath(new URL('./echo-server.mjs', import.meta.url));

export function commitBenchOptions() {
  return {
    policies: envList('BENCH_POLICIES', ['always', 'interval', 'never']),
    loads: envList('BENCH_LOADS', ['1x1', '16x1', '64x1', '16x16']).map(parseLoad),
    servers: envList('BENCH_SERVERS', ['ours', 'echo', ...PEERS]),
    rounds: envInt('BENCH_ROUNDS', 3),
    seconds: envInt('BENCH_COMMIT_SECONDS', 3),
    warmupSeconds: envInt('BENCH_WARMUP_SECONDS', 1),
    serverWarmupSeconds: envInt('BENCH_SERVER_WARMUP_SECONDS', 3),
    kafkaWarmupSeconds: envInt('BENCH_KAFKA_WARMUP_SECONDS', 10),
    flushIntervalMs: envInt('BENCH_FLUSH_INTERVAL_MS', 100),
    parentDir: process.env.BENCH_DATA_DIR || tmpdir(),
    baseCli: process.env.BENCH_BASE_CLI,
  };
}

function parseLoad(text) {
  const m = /^(\d+)x(\d+)$/.exec(text);
  if (!m) throw new Error(`BENCH_LOADS: "${text}" is not CONNECTIONSxDEPTH (e.g. 16x16)`);
  return { connections: Number(m[1]), depth: Number(m[2]), name: text };
}

function commitRequest(partition, offset) {
  return {
    groupId: GROUP,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [{ name: TOPIC, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partitionIndex: partition, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }],
  };
}

/** The OffsetCommit v8 response frame the echo server sends (correlation id 0, patched per request). */
function echoTemplate() {
  const w = new Writer(64);
  w.int32(0);
  w.int32(0);
  w.uvarint(0); // response header v1: no tagged fields
  API_CODECS[8].response.encode(w, 8, { throttleTimeMs: 0, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, errorCode: 0 }] }] });
  const out = Buffer.from(w.finish());
  out.writeInt32BE(out.length - 4, 0);
  return out.toString('hex');
}

/**
 * Starts bench/echo-server.mjs answering every frame with `template` (a response frame, as hex; the
 * OffsetCommit one by default); resolves with { child, port }. Large templates go through a file.
 */
export async function startEcho(template = echoTemplate()) {
  let arg = template;
  let cleanup;
  if (template.length > 64 * 1024) {
    const dir = mkdtempSync(join(tmpdir(), 'kmc-bench-echo-'));
    arg = `@${join(dir, 'template.hex')}`;
    writeFileSync(arg.slice(1), template);
    cleanup = () => rmSync(dir, { recursive: true, force: true });
  }
  const child = spawnChild(process.execPath, [ECHO, arg], { stdio: ['ignore', 'pipe', 'inherit'], env: benchNodeEnv() });
  const [line] = await Promise.race([
    once(createInterface({ input: child.stdout }), 'line'),
    once(child, 'exit').then(([code]) => Promise.reject(new Error(`echo server exited with ${code}`))),
  ]);
  return { child, port: Number(/:(\d+)$/.exec(line)[1]), cleanup };
}

async function startOurs(policy, options, partitions, cli) {
  const dataDir = mkdtempSync(join(options.parentDir, `kmc-bench-commit-${policy}-`));
  const args = ['--port', '0', '--admin-port', '0', '--data-dir', dataDir, '--config', `mock.flush.policy=${policy}`];
  if (policy === 'interval') args.push('--config', `log.flush.interval.ms=${options.flushIntervalMs}`);
  if (cli !== undefined) for (const kv of envList('BENCH_BASE_CONFIGS', [])) args.push('--config', kv);
  const server = await startCliServer(args, { cli });
  const admin = await BenchClient.connect(server.port);
  const created = await admin.send(19, 5, {
    topics: [{ name: TOPIC, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 5000,
    validateOnly: false,
  });
  admin.close();
  if (created.topics[0].errorCode !== 0) throw new Error(`CreateTopics failed: error ${created.topics[0].errorCode}`);
  const adminUrl = server.lines.map((line) => /admin API (http:\/\/[^\s,)]+)/.exec(line)?.[1]).find(Boolean);
  return { child: server.child, port: server.port, syncs: adminUrl ? () => offsetsLogSyncs(adminUrl) : undefined, cleanup: () => rmSync(dataDir, { recursive: true, force: true }) };
}

/** The server's fdatasyncs of `__consumer_offsets` so far (`kmc_offsets_log_syncs_total`), or null when its /metrics has no such series (an older build). */
async function offsetsLogSyncs(adminUrl) {
  const text = await (await fetch(`${adminUrl}/metrics`)).text();
  const m = /^kmc_offsets_log_syncs_total (\d+)$/m.exec(text);
  return m ? Number(m[1]) : null;
}

/**
 * One measurement window of `load` against the server on `port`: totals, and its latencies sorted.
 * `syncs` (ours): reads the server's fdatasync count, outside the CPU window (a scrape costs CPU).
 */
async function measure(label, port, load, nextOffset, { seconds, warmupSeconds }, serverPid, syncs) {
  const clients = await Promise.all(Array.from({ length: load.connections }, () => BenchClient.connect(port)));
  const latencies = [];
  let counted = 0;
  let errors = 0;
  let phase = 'warmup';
  // The first failure of a client loop (a connection the server closed), named after the window.
  let failure = null;
  const loops = [];
  clients.forEach((client, partition) => {
    for (let d = 0; d < load.depth; d++) {
      loops.push(
        (async () => {
          while (phase !== 'done') {
            const offset = nextOffset[partition]++;
            const t0 = process.hrtime.bigint();
            const res = await client.send(8, 8, commitRequest(partition, offset));
            const t1 = process.hrtime.bigint();
            if (res.topics[0].partitions[0].errorCode !== 0) {
              errors++;
              continue;
            }
            if (phase === 'measure') {
              latencies.push(Number(t1 - t0) / 1e6);
              counted++;
            }
          }
        })().catch((err) => {
          failure ??= err;
          phase = 'done';
        }),
      );
    }
  });
  await new Promise((r) => setTimeout(r, warmupSeconds * 1000));
  const syncs0 = syncs ? await syncs() : null;
  phase = 'measure';
  const start = process.hrtime.bigint();
  const serverCpu0 = processCpuMs(serverPid);
  const clientCpu0 = process.cpuUsage();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const serverCpu1 = processCpuMs(serverPid);
  const clientCpu1 = process.cpuUsage(clientCpu0);
  const elapsedMs = Number(process.hrtime.bigint() - start) / 1e6;
  const commits = counted;
  const syncs1 = syncs0 === null ? null : await syncs();
  const lat = latencies.slice(0, commits).sort((a, b) => a - b);
  phase = 'done';
  await Promise.all(loops);
  for (const c of clients) c.close();
  if (failure) throw new Error(`${label} ${load.name}: ${failure.message}`);
  return {
    commits,
    elapsedMs,
    errors,
    latencies: lat,
    serverCpuMs: serverCpu0 === null || serverCpu1 === null ? null : serverCpu1 - serverCpu0,
    clientCpuMs: (clientCpu1.user + clientCpu1.system) / 1000,
    syncs: syncs0 === null || syncs1 === null ? null : syncs1 - syncs0,
  };
}

/** The median of `values` (the mean of the middle two when they are even), or null when any is null or there are none. */
function median(values) {
  if (values.length === 0 || values.some((v) => v === null)) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * One row from a server's windows of one load, one window per round, each from another process of
 * that server: the median of the windows' figures, so that one process that runs slow for its
 * whole life (it happens on a 2-core machine, to any server, most often to the one started first)
 * moves no row; totals (commits, errors) are sums.
 */
function summarize(server, policy, load, windows) {
  const sum = (k) => windows.reduce((n, w) => (n === null || w[k] === null ? null : n + w[k]), 0);
  const perWindow = (f) => median(windows.map(f));
  const commits = sum('commits');
  return {
    server,
    policy,
    load: load.name,
    connections: load.connections,
    depth: load.depth,
    rounds: windows.length,
    commits,
    commitsPerSec: perWindow((w) => (w.commits / w.elapsedMs) * 1000),
    p50: perWindow((w) => percentile(w.latencies, 50)),
    p99: perWindow((w) => percentile(w.latencies, 99)),
    errors: sum('errors'),
    /** Server CPU time (user + system) per acknowledged commit, in microseconds. */
    serverCpuUsPerCommit: perWindow((w) => (w.serverCpuMs === null || w.commits === 0 ? null : (w.serverCpuMs * 1000) / w.commits)),
    serverCpuPct: perWindow((w) => (w.serverCpuMs === null ? null : (w.serverCpuMs / w.elapsedMs) * 100)),
    clientCpuPct: perWindow((w) => (w.clientCpuMs / w.elapsedMs) * 100),
    /** Commits acknowledged per fdatasync of `__consumer_offsets` (ours under `always`; null when not counted or none ran). */
    commitsPerSync: sum('syncs') ? commits / sum('syncs') : null,
  };
}

/** Starts server `name` for `policy`: { child, port, cleanup? }, { missing: why }, or null when it sits this policy out. */
async function startServer(name, policy, options, partitions) {
  if (name === 'ours') return startOurs(policy, options, partitions);
  if (name === 'base') return startOurs(policy, options, partitions, options.baseCli);
  if (name === 'echo') return policy === 'never' ? startEcho() : null;
  if (PEERS.includes(name)) {
    if (policy === 'interval') return null;
    return startPeer(name, { policy, topics: [{ name: TOPIC, partitions }], parentDir: options.parentDir });
  }
  throw new Error(`BENCH_SERVERS: unknown server "${name}" (ours, echo, base, ${PEERS.join(', ')})`);
}

/** Before a window: every server of the round quiet (waitForQuiet), or a line saying which window started without. */
async function settle(servers, label, log) {
  if ((await waitForQuiet(servers.map((s) => s.child.pid))) === null) log(`commit ${label}: the servers were not quiet after 15 s; measured anyway`);
}

/**
 * Runs every policy x load against each server: per round, every server is started afresh (in
 * another order each round: the list rotated by one), warmed, and measured under each load in
 * turn (A B A B); a row is the median of its rounds (summarize). Returns one row per (server,
 * policy, load), the servers that could not run (`missing`: { server, policy, why }, once), each
 * server's version when it says (`versions`) and its RSS (`rss`: { server, policy, idleBytes,
 * afterBytes }: right after start and topic creation, and after the last load, of the last round's
 * process).
 */
export async function runCommitBench(options = commitBenchOptions(), log = console.error) {
  const rows = [];
  const missing = [];
  const versions = {};
  const rss = [];
  const partitions = Math.max(...options.loads.map((l) => l.connections));
  // Each server once under the heaviest load, unmeasured, so JIT compilers (the JVM's, V8's) start warm.
  const heaviest = options.loads.reduce((a, b) => (b.connections * b.depth > a.connections * a.depth ? b : a));
  for (const policy of options.policies) {
    const windows = new Map();
    const lastRss = new Map();
    const missingNow = new Set();
    /** Peer -> the message of its last failed window. */
    const failures = new Map();
    for (let round = 0; round < options.rounds; round++) {
      const order = options.servers.map((_, i) => options.servers[(i + round) % options.servers.length]);
      const servers = [];
      try {
        for (const name of order) {
          if (missingNow.has(name)) continue;
          const started = await startServer(name, policy, options, partitions);
          if (started === null) continue;
          if (started.missing) {
            missingNow.add(name);
            missing.push({ server: name, policy, why: started.missing });
            log(`commit ${name} ${policy}: missing: ${started.missing}`);
            continue;
          }
          if (started.version) versions[name] = started.version;
          servers.push({ name, ...started, idleRss: processRssBytes(started.child.pid) });
        }
        // A peer that fails a window (librdkafka's mock once closed connections in a warm-up) sits
        // out the rest of the round; ours or echo failing ends the run.
        const failedNow = new Set();
        const attempt = async (s, run) => {
          if (failedNow.has(s)) return null;
          try {
            return await run();
          } catch (err) {
            if (!PEERS.includes(s.name)) throw err;
            failedNow.add(s);
            failures.set(s.name, err.message);
            log(`commit ${s.name} ${policy} round ${round + 1}: failed: ${err.message}; it sits out the rest of the round`);
            return null;
          }
        };
        for (const s of servers) {
          // The JVM compiles its hot paths later than V8 or Go: Kafka gets a longer one.
          const seconds = s.name === 'kafka' ? Math.max(options.serverWarmupSeconds, options.kafkaWarmupSeconds) : options.serverWarmupSeconds;
          if (seconds > 0) await attempt(s, () => measure(`${s.name} (warm-up)`, s.port, heaviest, Array.from({ length: partitions }, () => 1n), { seconds, warmupSeconds: 0 }, s.child.pid));
        }
        for (const load of options.loads) {
          for (const s of servers) {
            const key = `${s.name} ${load.name}`;
            if (!windows.has(key)) windows.set(key, []);
            await settle(servers, `${s.name} ${load.name} round ${round + 1}`, log);
            const w = await attempt(s, () => measure(`${s.name} round ${round + 1}`, s.port, load, Array.from({ length: partitions }, () => 1n), options, s.child.pid, s.syncs));
            if (w === null) continue;
            windows.get(key).push(w);
            log(`commit ${s.name} ${policy} ${load.name} round ${round + 1}: ${fmt((w.commits / w.elapsedMs) * 1000, 0)} commits/s, ${w.serverCpuMs === null ? 'n/a' : fmt((w.serverCpuMs * 1000) / w.commits, 1)} µs CPU/commit`);
          }
        }
        for (const s of servers) lastRss.set(s.name, { server: s.name, policy, idleBytes: s.idleRss, afterBytes: processRssBytes(s.child.pid) });
      } finally {
        for (const s of servers) {
          await stopChild(s.child);
          s.cleanup?.();
        }
      }
    }
    for (const [name, why] of failures) {
      if (!options.loads.some((l) => windows.get(`${name} ${l.name}`)?.length)) missing.push({ server: name, policy, why: `failed in every round: ${why}` });
    }
    for (const load of options.loads) {
      for (const name of options.servers) {
        const w = windows.get(`${name} ${load.name}`);
        if (!w?.length) continue;
        const row = summarize(name, policy, load, w);
        rows.push(row);
        log(
          `commit ${name.padEnd(15)} ${policy.padEnd(8)} ${load.name.padStart(5)}  ${fmt(row.commitsPerSec, 0).padStart(7)} commits/s  ` +
            `p50 ${fmt(row.p50)} ms  p99 ${fmt(row.p99)} ms  server ${fmt(row.serverCpuUsPerCommit, 1)} µs CPU/commit (${fmt(row.serverCpuPct, 0)}% of a core)  ` +
            `client CPU ${fmt(row.clientCpuPct, 0)}%` + (row.commitsPerSync === null ? '' : `  ${fmt(row.commitsPerSync, 1)} commits/fdatasync`) + (row.errors ? `  ERRORS ${row.errors}` : ''),
        );
      }
    }
    for (const name of options.servers) if (lastRss.has(name)) rss.push(lastRss.get(name));
  }
  return { rows, missing, versions, rss };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runCommitBench();
  console.log(JSON.stringify(result, null, 2));
}
