// OffsetCommit throughput and latency against a server in a child process (`node dist/cli.js`),
// so the clients' CPU is not the server's (on a 2-core machine they still share the cores).
//
// For each flush policy and each concurrency N: N TCP connections, client i committing
// increasing offsets for partition i of a shared topic in one simple group (generation -1,
// no member id), OffsetCommit v8 (flexible), one request in flight per connection. After a
// warm-up, every acknowledged commit in the measurement window counts; latency is request
// write to response decode.
//
// Env: BENCH_POLICIES (always,interval,never), BENCH_CLIENTS (1,16,64), BENCH_COMMIT_SECONDS
// (5), BENCH_WARMUP_SECONDS (1), BENCH_FLUSH_INTERVAL_MS (100), BENCH_DATA_DIR (a parent for
// the temporary data directories; default the OS temp dir).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BenchClient, envInt, envList, fmt, percentile, processCpuMs, startCliServer, stopChild } from './lib.mjs';

const TOPIC = 'bench-commit-topic';
const GROUP = 'bench-commit-group';

export function commitBenchOptions() {
  return {
    policies: envList('BENCH_POLICIES', ['always', 'interval', 'never']),
    clients: envList('BENCH_CLIENTS', ['1', '16', '64']).map(Number),
    seconds: envInt('BENCH_COMMIT_SECONDS', 5),
    warmupSeconds: envInt('BENCH_WARMUP_SECONDS', 1),
    flushIntervalMs: envInt('BENCH_FLUSH_INTERVAL_MS', 100),
    parentDir: process.env.BENCH_DATA_DIR || tmpdir(),
  };
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

async function measure(port, n, nextOffset, { seconds, warmupSeconds }, serverPid) {
  const clients = await Promise.all(Array.from({ length: n }, () => BenchClient.connect(port)));
  const latencies = [];
  let counted = 0;
  let errors = 0;
  let phase = 'warmup';
  const loops = clients.map(async (client, partition) => {
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
  });
  await new Promise((r) => setTimeout(r, warmupSeconds * 1000));
  phase = 'measure';
  const start = process.hrtime.bigint();
  const serverCpu0 = processCpuMs(serverPid);
  const clientCpu0 = process.cpuUsage();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const serverCpu1 = processCpuMs(serverPid);
  const clientCpu1 = process.cpuUsage(clientCpu0);
  const elapsedMs = Number(process.hrtime.bigint() - start) / 1e6;
  const done = counted;
  const lat = latencies.slice(0, done).sort((a, b) => a - b);
  phase = 'done';
  await Promise.all(loops);
  for (const c of clients) c.close();
  return {
    commitsPerSec: (done / elapsedMs) * 1000,
    p50: percentile(lat, 50),
    p99: percentile(lat, 99),
    commits: done,
    errors,
    serverCpuPct: serverCpu0 === null || serverCpu1 === null ? null : ((serverCpu1 - serverCpu0) / elapsedMs) * 100,
    clientCpuPct: ((clientCpu1.user + clientCpu1.system) / 1000 / elapsedMs) * 100,
  };
}

/** Runs every policy x concurrency; returns one row per combination. */
export async function runCommitBench(options = commitBenchOptions(), log = console.error) {
  const rows = [];
  const maxClients = Math.max(...options.clients);
  for (const policy of options.policies) {
    const dataDir = mkdtempSync(join(options.parentDir, `kmc-bench-commit-${policy}-`));
    const args = ['--port', '0', '--data-dir', dataDir, '--config', `mock.flush.policy=${policy}`];
    if (policy === 'interval') args.push('--config', `log.flush.interval.ms=${options.flushIntervalMs}`);
    const server = await startCliServer(args);
    try {
      const admin = await BenchClient.connect(server.port);
      const created = await admin.send(19, 5, {
        topics: [{ name: TOPIC, numPartitions: maxClients, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 5000,
        validateOnly: false,
      });
      if (created.topics[0].errorCode !== 0) throw new Error(`CreateTopics failed: error ${created.topics[0].errorCode}`);
      admin.close();
      const nextOffset = Array.from({ length: maxClients }, () => 1n);
      for (const n of options.clients) {
        const r = await measure(server.port, n, nextOffset, options, server.child.pid);
        const row = { policy, clients: n, ...r };
        rows.push(row);
        log(
          `commit ${policy.padEnd(8)} clients=${String(n).padStart(2)}  ${fmt(r.commitsPerSec, 0).padStart(7)} commits/s  ` +
            `p50 ${fmt(r.p50)} ms  p99 ${fmt(r.p99)} ms  server CPU ${fmt(r.serverCpuPct, 0)}%  client CPU ${fmt(r.clientCpuPct, 0)}%` +
            (r.errors ? `  ERRORS ${r.errors}` : ''),
        );
      }
    } finally {
      await stopChild(server.child);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await runCommitBench();
  console.log(JSON.stringify(rows, null, 2));
}
